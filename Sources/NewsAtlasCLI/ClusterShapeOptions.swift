import ArgumentParser
import AtlasMessages
import GeoIndex

/// supercluster's options, as `clusters`, `serve` and `headlines --cluster` take them: a cluster id means
/// something only with the options (and the zoom) of the map it came from.
struct ClusterShapeOptions: ParsableArguments {
  @Option(parsing: .unconditional, help: ArgumentHelp(Message.shapeRadiusHelp(), valueName: "px"))
  var radius = DecimalNumber(ClusterOptions().radiusPixels)

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(Message.shapeExtentHelp(), valueName: "n"))
  var extent = DecimalNumber(ClusterOptions().extent)

  @Option(
    name: .customLong("min-zoom"), parsing: .unconditional,
    help: ArgumentHelp(Message.shapeMinZoomHelp(), valueName: "z"))
  var minZoom = ClusterOptions().minZoom

  @Option(
    name: .customLong("max-zoom"), parsing: .unconditional,
    help: ArgumentHelp(Message.shapeMaxZoomHelp(), valueName: "z"))
  var maxZoom = ClusterOptions().maxZoom

  @Option(
    name: .customLong("min-points"), parsing: .unconditional,
    help: ArgumentHelp(Message.shapeMinPointsHelp(), valueName: "n"))
  var minPoints = ClusterOptions().minPoints

  @Option(
    name: .customLong("node-size"), parsing: .unconditional,
    help: ArgumentHelp(
      Message.shapeNodeSizeHelp(), valueName: "n"))
  var nodeSize = ClusterOptions().nodeSize

  /// The options as the index takes them, each checked against its range (`ClusterOptions.check`).
  func checkedOptions() throws(CLIError) -> ClusterOptions {
    let options = self.options
    do {
      try options.check()
    } catch {
      throw .usage(error.text(in: .current, naming: Self.flag, options: options))
    }
    return options
  }

  /// The command-line name of an option.
  static func flag(_ option: ClusterOptions.Option) -> String {
    switch option {
    case .minZoom: return "--min-zoom"
    case .maxZoom: return "--max-zoom"
    case .minPoints: return "--min-points"
    case .radius: return "--radius"
    case .extent: return "--extent"
    case .nodeSize: return "--node-size"
    }
  }

  /// The options as given, unchecked.
  var options: ClusterOptions {
    var options = ClusterOptions()
    options.minZoom = minZoom
    options.maxZoom = maxZoom
    options.minPoints = minPoints
    options.radiusPixels = radius.value
    options.extent = extent.value
    options.nodeSize = nodeSize
    return options
  }
}
