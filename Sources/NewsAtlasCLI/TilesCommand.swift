import ArgumentParser
import AtlasAnswers
import GeoFormats
import GeoIndex
import MBTiles
import Store

struct TilesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tiles",
    abstract: "Write every non-empty vector tile of zooms --min-zoom...--max-zoom into an MBTiles file.",
    discussion: """
      The tiles serve answers (supercluster's getTile, Mapbox Vector Tile 2.1, one layer), gzipped, in an \
      MBTiles 1.3 file (SQLite, TMS rows, json metadata with vector_layers) for static hosting or a tile \
      server. The zooms written are the clustering's own --min-zoom and --max-zoom. Progress goes to standard \
      error when it is a terminal. The file is built beside FILE and moved there when complete.
      """
  )

  @Option(help: ArgumentHelp("A GeoJSON or CSV file of points (default: the 54 markers).", valueName: "file"))
  var points: String?

  @Option(
    help: ArgumentHelp(
      "The MBTiles file to write (an existing regular file is replaced; not the input).", valueName: "file"))
  var out: String

  @Option(
    help: ArgumentHelp("The tile layer's name (default: the file's name, or markers).", valueName: "name"))
  var layer: String?

  @OptionGroup var clustering: ClusteringOptions

  @Option(
    help: ArgumentHelp(
      "Tile only the features that pass this MapLibre filter expression, as JSON (as clusters --filter).",
      valueName: "json"))
  var filter: String?

  func run() throws {
    let featureFilter = try ClusteringOptions.filter(filter)
    let aggregations = try clustering.aggregations()
    let options = try clustering.checkedOptions()
    guard options.maxZoom <= 24 else {
      throw CLIError.usage("tiles writes zooms up to 24; --max-zoom \(options.maxZoom) is past it.")
    }
    do {
      try MBTilesWriter.checkDestination(out, input: points)
    } catch {
      throw CLIError(description: error.description, exitCode: 73)  // EX_CANTCREAT
    }
    let file = try ClusteringOptions.points(points, aggregations: aggregations, filter: featureFilter)
    let name =
      layer ?? points.map { path in
        let base = path.split(separator: "/").last.map(String.init) ?? path
        return String(base.prefix { $0 != "." })
      } ?? "markers"
    guard VectorLayer.isValidName(name) else {
      throw CLIError.usage(
        "A layer name is letters, digits, '-' and '_' (64 at most), not '\(name)'; give --layer.")
    }
    let progress = StandardError.isTerminal
    MBTilesWriter.removePartialFileOnSignals()
    let summary: TileExport.Summary
    do {
      summary = try TileExport.export(
        file, layer: name, options: options, aggregations: aggregations, to: out
      ) { zoom, written in
        if progress { StandardError.write("\rnewsatlas: zoom \(zoom), \(written) tiles written") }
      }
    } catch {
      if progress { StandardError.write("\n") }
      throw CLIError(description: error.description, exitCode: error.isInput ? CLIError.data : 73)
    }
    if progress { StandardError.write("\n") }
    let out = OutputBuffer.standardOutput()
    out.append(
      "\(summary.tiles) tiles, \(summary.bytes) bytes of gzipped MVT, zooms \(options.minZoom)-\(options.maxZoom), layer \(name), in \(self.out)\n"
    )
  }
}
