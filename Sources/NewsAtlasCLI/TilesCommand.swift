import ArgumentParser
import AtlasAnswers
import AtlasMessages
import GeoFormats
import GeoIndex
import MBTiles
import Store

struct TilesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tiles",
    abstract: Message.tilesAbstract(),
    discussion: helpDiscussion(Message.tilesDiscussion())
  )

  @Option(help: ArgumentHelp(Message.tilesPointsHelp(), valueName: "file"))
  var points: String?

  @Option(
    help: ArgumentHelp(
      Message.tilesOutHelp(), valueName: "file"))
  var out: String

  @Option(
    help: ArgumentHelp(Message.tilesLayerHelp(), valueName: "name"))
  var layer: String?

  @OptionGroup var clustering: ClusteringOptions

  @OptionGroup var interface: InterfaceOptions

  @Option(
    help: ArgumentHelp(
      Message.tilesFilterHelp(), valueName: "json"))
  var filter: String?

  func run() throws {
    let started = ProgressLine.clock()  // the summary's time is the whole command's, reading included
    let featureFilter = try ClusteringOptions.filter(filter)
    let aggregations = try clustering.aggregations()
    let options = try clustering.checkedOptions()
    guard options.maxZoom <= 24 else {
      throw CLIError.usage(Message.tilesMaxZoom(options.maxZoom))
    }
    do {
      try MBTilesWriter.checkDestination(out, input: points)
    } catch {
      throw CLIError(description: error.text(in: .current), exitCode: 73)  // EX_CANTCREAT
    }
    let file = try ClusteringOptions.points(points, aggregations: aggregations, filter: featureFilter)
    let name =
      layer ?? points.map { path in
        let base = path.split(separator: "/").last.map(String.init) ?? path
        return String(base.prefix { $0 != "." })
      } ?? "markers"
    guard VectorLayer.isValidName(name) else {
      throw CLIError.usage(Message.tilesLayerName(name))
    }
    MBTilesWriter.removePartialFileOnSignals()
    var progress = ExportProgress(terminal: StandardError.isTerminal, points: file.count, started: started)
    let summary: TileExport.Summary
    do {
      summary = try TileExport.export(
        file, layer: name, options: options, aggregations: aggregations, to: out
      ) { progress.show($0) }
    } catch {
      progress.end()
      throw CLIError(description: error.text(in: .current), exitCode: error.isInput ? CLIError.data : 73)
    }
    progress.end()
    let out = OutputBuffer.standardOutput()
    out.append(
      Message.tilesSummary(
        summary.tiles, summary.bytes, options.minZoom, options.maxZoom, name, self.out,
        Format.decimal(ProgressLine.clock() - progress.started, 1)) + "\n")
  }
}

/// How far `tiles` is (issue 47 item 10). On a terminal one line, redrawn at most four times a second: the zoom
/// of the zooms, the tiles written, a percentage, the rate and about how long is left. Piped, a plain line as
/// each zoom is done. First, while the points are clustered, a line that says so.
struct ExportProgress {
  let terminal: Bool
  /// When the command started (the piped lines' times and the summary's count from it).
  let started: Double
  private var exportStarted: Double?
  private var lastShown = 0.0
  private var drawn = false

  init(terminal: Bool, points: Int, started: Double) {
    self.terminal = terminal
    self.started = started
    if terminal {
      StandardError.write("\rnewsatlas: " + Message.tilesClustering(points) + "\u{1B}[K")
      drawn = true
    }
  }

  mutating func show(_ progress: TileExport.Progress) {
    let now = ProgressLine.clock()
    let begun = exportStarted ?? now
    exportStarted = begun
    let range = "\(progress.zooms.lowerBound)–\(progress.zooms.upperBound)"
    guard terminal else {
      if progress.zoomDone {
        StandardError.write(
          "newsatlas: "
            + (progress.tiles == 1
              ? Message.tilesZoomDoneOne(progress.zoom, range, ProgressLine.seconds(now - started))
              : Message.tilesZoomDone(progress.zoom, range, progress.tiles, ProgressLine.seconds(now - started)))
            + "\n")
      }
      return
    }
    guard now - lastShown >= 0.25 || progress.zoomDone && progress.zoom == progress.zooms.upperBound else {
      return
    }
    lastShown = now
    let elapsed = now - begun
    var line = Message.tilesProgress(
      progress.zoom, range, progress.tiles, Int((progress.fraction * 100).rounded(.down)))
    if elapsed >= 1 {
      line += " · " + Message.tilesRate(Int((Double(progress.tiles) / elapsed).rounded()))
      if progress.fraction > 0.01, progress.fraction < 1 {
        line +=
          " · "
          + Message.progressLeft(ProgressLine.seconds(elapsed * (1 - progress.fraction) / progress.fraction))
      }
    }
    StandardError.write("\rnewsatlas: " + line + "\u{1B}[K")
    drawn = true
  }

  /// Ends the line on a terminal (the summary goes on a line of its own).
  mutating func end() {
    if terminal && drawn { StandardError.write("\n") }
    drawn = false
  }
}
