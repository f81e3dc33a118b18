import ArgumentParser
import AtlasAnswers
import AtlasMessages
import Fetch
import GeoFormats
import GeoIndex
import NewsAtlas

#if canImport(Glibc)
  import Glibc
#endif

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

  @Option(help: ArgumentHelp(Message.clustersFormatHelp(), valueName: "format"))
  var format: ClustersFormat = .geojson

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
    // (The text table says at which zoom each cluster splits: it keeps them all.)
    if let zoom, format != .text { options.retainedZooms = level(zoom)...level(zoom) }
    if let (z, _, _) = tileAddress, format != .text {
      options.retainedZooms = level(Double(z))...level(Double(z))
    }

    let file = try ClusteringOptions.points(points, aggregations: aggregations, filter: featureFilter)
    let index: ClusterIndex<[Double]>
    do {
      index = try Aggregation.index(of: file, options: options, aggregations: aggregations)
    } catch {
      throw CLIError.usage(error.text(in: .current))
    }
    let printer = ClusterWriter(index: index, file: file, aggregations: aggregations)
    if format == .text {
      try printText(index: index, file: file, box: box, tileAddress: tileAddress)
      return
    }
    // JSON laid out for people on a terminal, on one line for programs (issue 47 item 9).
    guard isatty(STDOUT_FILENO) == 1 else {
      return try answerJSON(
        index: index, printer: printer, box: box, tileAddress: tileAddress, to: OutputBuffer.standardOutput())
    }
    var failure: CLIError?
    let bytes = OutputBuffer.collecting { out in
      do {
        try answerJSON(index: index, printer: printer, box: box, tileAddress: tileAddress, to: out)
      } catch let error as CLIError {
        failure = error
      } catch {}
    }
    if let failure { throw failure }
    let out = OutputBuffer.standardOutput()
    out.append(JSONIndent.indented(bytes))
    out.append("\n")
  }

  /// The answer as supercluster's JSON: a FeatureCollection, an expansion zoom, a tile.
  func answerJSON(
    index: ClusterIndex<[Double]>, printer: ClusterWriter, box: GeoBox, tileAddress: (Int, Int, Int)?,
    to out: OutputBuffer
  ) throws(CLIError) {
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

/// `clusters --format`: supercluster's JSON, or a table for people.
enum ClustersFormat: String, ExpressibleByArgument, CaseIterable {
  case geojson
  case text
}

extension ClustersCommand {
  /// `--format text`: one aligned line per cluster or point under a header (a tile's in its pixels), or one
  /// sentence for `--expansion-zoom`.
  func printText(index: ClusterIndex<[Double]>, file: FeatureFile, box: GeoBox, tileAddress: (Int, Int, Int)?)
    throws(CLIError)
  {
    let out = OutputBuffer.standardOutput()
    do {
      if let id = expansionZoom {
        out.append(Message.clustersSplitsSentence(id, try index.expansionZoom(ofCluster: id)) + "\n")
        return
      }
      if let (z, x, y) = tileAddress {
        var table = Columns(titles: Message.clustersTileColumns(), rightAligned: [1, 2, 3, 4])
        for feature in index.tile(zoom: z, x: x, y: y) ?? [] {
          let row = Self.described(feature.item, index: index, file: file)
          table.append([row.kind, row.id, row.count, String(feature.x), String(feature.y), row.label])
        }
        out.append(table.text)
        return
      }
      let items: [ClusterItem]
      if let zoom {
        items = index.clusters(in: box, zoom: zoom)
      } else if let id = children {
        items = try index.children(ofCluster: id)
      } else {
        items = try index.leaves(ofCluster: leaves ?? 0, limit: limit == 0 ? .max : limit, offset: offset)
          .map { ClusterItem.point(index: $0) }
      }
      var table = Columns(titles: Message.clustersColumns(), rightAligned: [1, 2, 3, 4])
      for item in items {
        let row = Self.described(item, index: index, file: file)
        table.append([
          row.kind, row.id, row.count, row.location.map { Format.decimal($0.latitude, 4) } ?? "",
          row.location.map { Format.decimal($0.longitude, 4) } ?? "", row.label,
        ])
      }
      out.append(table.text)
    } catch {
      throw CLIError.usage(Message.clustersIdsFromZoom(error.text(in: .current)))
    }
  }

  /// A cluster (its id, size, centre and the zoom it splits at) or a point (its GeoJSON id, place, and its
  /// `name` or `code` property, `nameFr` in French) as a table row's cells.
  static func described(_ item: ClusterItem, index: ClusterIndex<[Double]>, file: FeatureFile)
    -> (kind: String, id: String, count: String, location: GeoPoint?, label: String)
  {
    switch item {
    case .cluster(let cluster):
      let splits =
        (try? index.expansionZoom(ofCluster: cluster.id)).map { Message.clustersSplitsAt($0) } ?? ""
      return (
        Message.clustersKindCluster(), String(cluster.id), String(cluster.pointCount), cluster.center, splits
      )
    case .point(let point):
      var id = ""
      var label = ""
      if case .object(let members) = file.feature(point) {
        for (key, value) in members {
          if key == "id", case .number(let text) = value { id = text }
          if key == "id", case .string(let text) = value { id = text }
          guard key == "properties", case .object(let properties) = value else { continue }
          // A name in the reader's language where the feature has one (the markers' nameFr).
          let french = InterfaceLanguage.current == .french ? properties.first { $0.key == "nameFr" } : nil
          let named =
            french ?? properties.first { $0.key == "name" } ?? properties.first { $0.key == "code" }
          if case .string(let text)? = named?.value { label = text }
        }
      }
      return (Message.clustersKindPoint(), printable(id), "1", file.points[point], printable(label))
    }
  }
}
