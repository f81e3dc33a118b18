import ArgumentParser
import AtlasAnswers
import AtlasMessages
import GeoFormats
import GeoIndex
import NewsAtlas

struct ClustersCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "clusters",
    abstract: Message.clustersAbstract(),
    discussion: helpDiscussion(Message.clustersDiscussion())
  )

  @Option(
    name: .customLong("zoom"), parsing: .unconditional,  // a negative value is read as one, not as an option
    help: ArgumentHelp(
      Message.clustersZoomHelp(), valueName: "z"))
  var zoomOption: DecimalNumber?

  var zoom: Double? { zoomOption?.value }

  @Option(
    parsing: .unconditional,  // "--bbox -10,35,30,60" needs no "="
    help: ArgumentHelp(
      Message.clustersBboxHelp(), valueName: "w,s,e,n"))
  var bbox: String?

  @Option(
    help: ArgumentHelp(
      Message.clustersPointsHelp(), valueName: "file"))
  var points: String?

  @OptionGroup var clustering: ClusteringOptions

  @OptionGroup var interface: InterfaceOptions

  @Option(
    help: ArgumentHelp(
      Message.clustersFilterHelp(), valueName: "json"))
  var filter: String?

  @Option(
    name: .customLong("expansion-zoom"), parsing: .unconditional,
    help: ArgumentHelp(Message.clustersExpansionZoomHelp(), valueName: "id"))
  var expansionZoom: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(Message.clustersChildrenHelp(), valueName: "id"))
  var children: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(Message.clustersLeavesHelp(), valueName: "id"))
  var leaves: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(Message.clustersLimitHelp(), valueName: "n"))
  var limit: Int = 10

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(Message.clustersOffsetHelp(), valueName: "n"))
  var offset: Int = 0

  @Option(
    parsing: .unconditional,  // "-1/0/0" is read as a value (and refused as one), not as an option
    help: ArgumentHelp(
      Message.clustersTileHelp(), valueName: "z/x/y"))
  var tile: String?

  func run() throws {
    let featureFilter = try ClusteringOptions.filter(filter)
    let queries = [zoom != nil, expansionZoom != nil, children != nil, leaves != nil, tile != nil].filter {
      $0
    }
    guard queries.count == 1 else {
      throw CLIError.usage(
        queries.isEmpty
          ? Message.clustersNoQuery() : Message.clustersSeveralQueries())
    }
    if bbox != nil && zoom == nil { throw CLIError.usage(Message.clustersBboxWithZoom()) }
    if let zoom { try formats { () throws(FormatError) in try Coordinates.zoom(zoom, name: "--zoom") } }
    guard limit >= 0, offset >= 0 else { throw CLIError.usage(Message.clustersLimitOffset()) }
    var options = try clustering.checkedOptions()
    let box =
      try bbox.map { text throws(CLIError) in
        try formats { () throws(FormatError) in try Coordinates.box(text, name: "--bbox") }
      } ?? .world
    let tileAddress = try tile.map { text throws(CLIError) in
      try formats { () throws(FormatError) in try Coordinates.tile(text, name: "--tile") }
    }
    let aggregations = try clustering.aggregations()
    let (minZoom, maxZoom) = (options.minZoom, options.maxZoom)
    // One zoom asked about: keep only its level, and build in a fraction of the memory.
    func level(_ zoom: Double) -> Int {
      Swift.max(minZoom, Int(Swift.min(Swift.max(zoom.rounded(.down), -1), Double(maxZoom + 1))))
    }
    if let zoom { options.retainedZooms = level(zoom)...level(zoom) }
    if let (z, _, _) = tileAddress { options.retainedZooms = level(Double(z))...level(Double(z)) }

    let file = try ClusteringOptions.points(points, aggregations: aggregations, filter: featureFilter)
    let index: ClusterIndex<[Double]>
    do {
      index = try Aggregation.index(of: file, options: options, aggregations: aggregations)
    } catch {
      throw CLIError.usage(error.text(in: .current))
    }
    let printer = ClusterWriter(index: index, file: file, aggregations: aggregations)
    let out = OutputBuffer.standardOutput()
    do {
      if let zoom {
        printer.featureCollection(index.clusters(in: box, zoom: zoom), to: out)
      } else if let id = expansionZoom {
        out.append(
          ClusterWriter.expansionZoomAnswer(clusterID: id, zoom: try index.expansionZoom(ofCluster: id)))
      } else if let id = children {
        printer.featureCollection(try index.children(ofCluster: id), to: out)
      } else if let id = leaves {
        let leaves = try index.leaves(ofCluster: id, limit: limit == 0 ? .max : limit, offset: offset)
        printer.featureCollection(leaves.map { ClusterItem.point(index: $0) }, to: out)
      } else if let (z, x, y) = tileAddress {
        printer.tile(index.tile(zoom: z, x: x, y: y), to: out)
      }
    } catch {
      throw CLIError.usage(Message.clustersIdsFromZoom(error.text(in: .current)))
    }
  }
}

/// supercluster's options and aggregates, as `clusters` and `serve` take them.
struct ClusteringOptions: ParsableArguments {
  @OptionGroup var shape: ClusterShapeOptions

  @Option(
    help: ArgumentHelp(
      Message.clusteringSumHelp(), valueName: "prop"))
  var sum: [String] = []

  @Option(
    help: ArgumentHelp(
      Message.clusteringMinHelp(), valueName: "prop"))
  var min: [String] = []

  @Option(
    help: ArgumentHelp(
      Message.clusteringMaxHelp(), valueName: "prop"))
  var max: [String] = []

  /// The options as the index takes them, each checked against its range (`ClusterOptions.check`).
  func checkedOptions() throws(CLIError) -> ClusterOptions { try shape.checkedOptions() }

  /// The aggregates asked for, or a usage error.
  /// The points to cluster: the file's (with the aggregated properties read), else the 54 markers.
  /// Only the features that pass `filter` when one is given: the index is the matching points' alone.
  static func points(_ path: String?, aggregations: [Aggregation], filter: FeatureFilter? = nil)
    throws(CLIError)
    -> FeatureFile
  {
    let names = aggregations.map(\.property)
    let file =
      try path.map { path throws(CLIError) in
        try formats { () throws(FormatError) in
          try FeatureFile.load(path: path, propertyNames: names, showProgress: StandardError.isTerminal)
        }
      } ?? FeatureFile.countries(propertyNames: names)
    return filter.map(file.filtered(by:)) ?? file
  }

  /// `--filter`'s expression, read and checked before any file is.
  static func filter(_ text: String?) throws(CLIError) -> FeatureFilter? {
    try text.map { text throws(CLIError) in
      try formats { () throws(FormatError) in try FeatureFilter(json: text) }
    }
  }

  func aggregations() throws(CLIError) -> [Aggregation] {
    let all =
      sum.map { Aggregation(property: $0, operation: .sum) }
      + min.map { Aggregation(property: $0, operation: .min) }
      + max.map { Aggregation(property: $0, operation: .max) }
    var seen = Set<String>()
    for aggregation in all where !seen.insert(aggregation.property).inserted {
      throw .usage(Message.clusteringTwice(aggregation.property))
    }
    for aggregation in all where Aggregation.reservedNames.contains(aggregation.property) {
      throw .usage(Message.clusteringReserved(aggregation.property))
    }
    return all
  }
}
