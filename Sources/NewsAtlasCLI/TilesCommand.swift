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
    let progress = StandardError.isTerminal
    MBTilesWriter.removePartialFileOnSignals()
    let summary: TileExport.Summary
    do {
      summary = try TileExport.export(
        file, layer: name, options: options, aggregations: aggregations, to: out
      ) { zoom, written in
        if progress { StandardError.write("\rnewsatlas: " + Message.tilesProgress(zoom, written)) }
      }
    } catch {
      if progress { StandardError.write("\n") }
      throw CLIError(description: error.text(in: .current), exitCode: error.isInput ? CLIError.data : 73)
    }
    if progress { StandardError.write("\n") }
    let out = OutputBuffer.standardOutput()
    out.append(
      Message.tilesSummary(summary.tiles, summary.bytes, options.minZoom, options.maxZoom, name, self.out)
        + "\n")
  }
}
