import ArgumentParser
import GeoIndex
import NewsAtlas

struct ClustersCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "clusters",
    abstract: "Cluster points by zoom level exactly as supercluster does, and print GeoJSON.",
    discussion: """
      Without --points the input is the 54 news-country markers. Cluster ids, counts, centres and order are \
      supercluster 8.0.1's for the same input and options, so map tooling can switch engines without changing \
      a stored id.
      """
  )

  @Option(
    parsing: .unconditional,  // so that a negative value is read as one, not as an option
    help: ArgumentHelp(
      "The zoom level; fractions floor, zooms above --max-zoom give the raw points.", valueName: "z"))
  var zoom: Double?

  @Option(
    parsing: .unconditional,  // "--bbox -10,35,30,60" needs no "="
    help: ArgumentHelp(
      "The box to return, as west,south,east,north degrees (default: the world).", valueName: "w,s,e,n"))
  var bbox: String?

  @Option(
    help: ArgumentHelp(
      "A GeoJSON FeatureCollection or a CSV file (latitude,longitude[,…]); - for standard input.",
      valueName: "file"))
  var points: String?

  @Option(parsing: .unconditional, help: ArgumentHelp("Cluster radius in pixels.", valueName: "px"))
  var radius: Double = 40

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Tile extent in pixels (the radius is relative to it).", valueName: "n"))
  var extent: Double = 512

  @Option(
    name: .customLong("min-zoom"), parsing: .unconditional,
    help: ArgumentHelp("The lowest zoom clustered.", valueName: "z"))
  var minZoom: Int = 0

  @Option(
    name: .customLong("max-zoom"), parsing: .unconditional,
    help: ArgumentHelp("The highest zoom clustered.", valueName: "z"))
  var maxZoom: Int = 16

  @Option(
    name: .customLong("min-points"), parsing: .unconditional,
    help: ArgumentHelp("The fewest points that make a cluster.", valueName: "n"))
  var minPoints: Int = 2

  @Option(
    name: .customLong("node-size"), parsing: .unconditional,
    help: ArgumentHelp(
      "Leaf size of the k-d trees (it changes output order, as in supercluster).", valueName: "n"))
  var nodeSize: Int = 64

  @Option(
    help: ArgumentHelp(
      "Give each cluster the sum of its points' numeric PROP (repeatable).", valueName: "prop"))
  var sum: [String] = []

  @Option(
    help: ArgumentHelp(
      "Give each cluster the smallest of its points' numeric PROP (repeatable).", valueName: "prop"))
  var min: [String] = []

  @Option(
    help: ArgumentHelp(
      "Give each cluster the largest of its points' numeric PROP (repeatable).", valueName: "prop"))
  var max: [String] = []

  @Option(
    name: .customLong("expansion-zoom"), parsing: .unconditional,
    help: ArgumentHelp("Print the zoom at which cluster ID splits.", valueName: "id"))
  var expansionZoom: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Print the clusters and points cluster ID splits into.", valueName: "id"))
  var children: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Print the input points of cluster ID (see --limit and --offset).", valueName: "id"))
  var leaves: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("With --leaves: how many points (0 means all).", valueName: "n"))
  var limit: Int = 10

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("With --leaves: how many points to skip first.", valueName: "n"))
  var offset: Int = 0

  @Option(
    help: ArgumentHelp(
      "Print map tile Z/X/Y in tile coordinates, as supercluster's getTile.", valueName: "z/x/y"))
  var tile: String?

  func run() throws {
    let queries = [zoom != nil, expansionZoom != nil, children != nil, leaves != nil, tile != nil].filter {
      $0
    }
    guard queries.count == 1 else {
      throw CLIError.usage(
        queries.isEmpty
          ? "Give --zoom Z (or --expansion-zoom, --children, --leaves or --tile) to say what to print."
          : "Give one of --zoom, --expansion-zoom, --children, --leaves and --tile, not several.")
    }
    if bbox != nil && zoom == nil { throw CLIError.usage("--bbox goes with --zoom.") }
    if let zoom, !zoom.isFinite { throw CLIError.usage("--zoom must be a number, not \(zoom).") }
    guard limit >= 0, offset >= 0 else { throw CLIError.usage("--limit and --offset must be 0 or more.") }
    let box = try bbox.map(Self.parseBox) ?? .world
    let tileAddress = try tile.map(Self.parseTile)
    let aggregations = try Self.aggregations(sum: sum, min: min, max: max)

    var options = ClusterOptions()
    options.minZoom = minZoom
    options.maxZoom = maxZoom
    options.minPoints = minPoints
    options.radiusPixels = radius
    options.extent = extent
    options.nodeSize = nodeSize
    // One zoom asked about: keep only its level, and build in a fraction of the memory.
    func level(_ zoom: Double) -> Int {
      Swift.max(minZoom, Int(Swift.min(Swift.max(zoom.rounded(.down), -1), Double(maxZoom + 1))))
    }
    if let zoom { options.retainedZooms = level(zoom)...level(zoom) }
    if let (z, _, _) = tileAddress { options.retainedZooms = level(Double(z))...level(Double(z)) }

    let names = aggregations.map(\.property)
    let file =
      try points.map { path throws(CLIError) in try FeatureFile.load(path: path, propertyNames: names) }
      ?? FeatureFile.countries(propertyNames: names)
    let index: ClusterIndex<[Double]>
    do {
      let stride = names.count
      let values = file.values
      index = try ClusterIndex(
        points: file.points, options: options,
        map: stride == 0 ? nil : { i in Array(values[(i * stride)..<((i + 1) * stride)]) },
        reduce: stride == 0
          ? nil
          : { accumulated, next in
            for (k, aggregation) in aggregations.enumerated() {
              accumulated[k] = aggregation.operation.combine(accumulated[k], next[k])
            }
          })
    } catch {
      throw CLIError.usage(error.description)
    }
    let printer = ClusterPrinter(index: index, file: file, aggregations: aggregations)
    let out = OutputBuffer()
    do {
      if let zoom {
        printer.featureCollection(index.clusters(in: box, zoom: zoom), to: out)
      } else if let id = expansionZoom {
        out.append("{\"clusterId\":\(id),\"expansionZoom\":\(try index.expansionZoom(ofCluster: id))}\n")
      } else if let id = children {
        printer.featureCollection(try index.children(ofCluster: id), to: out)
      } else if let id = leaves {
        let leaves = try index.leaves(ofCluster: id, limit: limit == 0 ? .max : limit, offset: offset)
        printer.featureCollection(leaves.map { ClusterItem.point(index: $0) }, to: out)
      } else if let (z, x, y) = tileAddress {
        printer.tile(index.tile(zoom: z, x: x, y: y), to: out)
      }
    } catch {
      throw CLIError.usage(error.description + " Cluster ids come from --zoom output (\"cluster_id\").")
    }
  }

  static func parseBox(_ text: String) throws(CLIError) -> GeoBox {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
    let values = parts.compactMap { $0.isNumber ? Double($0) : nil }
    guard parts.count == 4, values.count == 4 else {
      throw .usage(
        "--bbox takes four numbers, west,south,east,north (for example -10,35,30,60), not '\(text)'.")
    }
    return GeoBox(west: values[0], south: values[1], east: values[2], north: values[3])
  }

  static func parseTile(_ text: String) throws(CLIError) -> (Int, Int, Int) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false).compactMap { Int($0) }
    guard parts.count == 3, (0...30).contains(parts[0]) else {
      throw .usage("--tile takes Z/X/Y with a zoom from 0 to 30 (for example 2/1/1), not '\(text)'.")
    }
    let side = 1 << parts[0]
    guard (0..<side).contains(parts[1]), (0..<side).contains(parts[2]) else {
      throw .usage(
        "At zoom \(parts[0]) a tile's x and y run from 0 to \(side - 1); '\(text)' is off the map.")
    }
    return (parts[0], parts[1], parts[2])
  }

  static func aggregations(sum: [String], min: [String], max: [String]) throws(CLIError) -> [Aggregation] {
    let all =
      sum.map { Aggregation(property: $0, operation: .sum) }
      + min.map { Aggregation(property: $0, operation: .min) }
      + max.map { Aggregation(property: $0, operation: .max) }
    var seen = Set<String>()
    for aggregation in all where !seen.insert(aggregation.property).inserted {
      throw .usage(
        "The property '\(aggregation.property)' is aggregated twice; give it to one of --sum, --min and --max."
      )
    }
    for aggregation in all
    where ["cluster", "cluster_id", "point_count", "point_count_abbreviated"].contains(aggregation.property) {
      throw .usage("'\(aggregation.property)' is a cluster property of its own; aggregate another property.")
    }
    return all
  }
}

/// A per-cluster property computed from its points' numeric property.
struct Aggregation {
  enum Operation {
    case sum, min, max

    /// Combines two values; a missing value (NaN: absent or not a number) leaves the other.
    func combine(_ a: Double, _ b: Double) -> Double {
      if a.isNaN { return b }
      if b.isNaN { return a }
      switch self {
      case .sum: return a + b
      case .min: return Swift.min(a, b)
      case .max: return Swift.max(a, b)
      }
    }
  }

  let property: String
  let operation: Operation
}

/// Writes cluster query results as supercluster would: GeoJSON features, or geojson-vt style tiles.
struct ClusterPrinter {
  let index: ClusterIndex<[Double]>
  let file: FeatureFile
  let aggregations: [Aggregation]

  func featureCollection(_ items: [ClusterItem], to out: OutputBuffer) {
    out.append("{\"type\":\"FeatureCollection\",\"features\":[")
    for (i, item) in items.enumerated() {
      if i > 0 { out.append(byte: UInt8(ascii: ",")) }
      switch item {
      case .point(let index):
        out.append(file.text(of: index))  // the input feature, unchanged
      case .cluster(let cluster):
        var json = JSONWriter()
        json.object { feature in
          feature.string("type", "Feature")
          feature.number("id", Double(cluster.id))
          feature.object("properties") { clusterProperties(cluster, into: &$0) }
          feature.pointGeometry(cluster.center)
        }
        out.append(json.bytes)
      }
      out.flushIfFull()
    }
    out.append("]}\n")
  }

  /// supercluster's cluster properties: the aggregates first, then `cluster`, `cluster_id`, `point_count` and
  /// `point_count_abbreviated` (a number below 1000, a string from there).
  func clusterProperties(_ cluster: Cluster, into properties: inout JSONWriter.ObjectWriter) {
    if let values = index.aggregate(of: cluster) {
      for (aggregation, value) in zip(aggregations, values) { properties.number(aggregation.property, value) }
    }
    properties.key("cluster")
    properties.json.raw("true")
    properties.number("cluster_id", Double(cluster.id))
    properties.number("point_count", Double(cluster.pointCount))
    if cluster.pointCount < 1000 {
      properties.number("point_count_abbreviated", Double(cluster.pointCount))
    } else {
      properties.string("point_count_abbreviated", cluster.pointCountAbbreviated)
    }
  }

  /// `{"features":[{"type":1,"geometry":[[x,y]],"tags":{…},"id":…}]}`, or `null` for an empty tile.
  func tile(_ features: [TileFeature]?, to out: OutputBuffer) {
    guard let features else {
      out.append("null\n")
      return
    }
    var json = JSONWriter()
    json.object { tile in
      tile.array("features", features) { json, feature in
        json.object { object in
          object.number("type", 1)
          object.key("geometry")
          object.json.raw("[[\(feature.x),\(feature.y)]]")
          switch feature.item {
          case .cluster(let cluster):
            object.object("tags") { clusterProperties(cluster, into: &$0) }
            object.number("id", Double(cluster.id))
          case .point(let index):
            let parsed = file.feature(index)
            object.value("tags", parsed["properties"] ?? .null)
            if let id = parsed["id"] { object.value("id", id) }
          }
        }
      }
    }
    out.append(json.bytes)
    out.append("\n")
  }
}
