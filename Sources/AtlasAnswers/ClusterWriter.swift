import GeoFormats
import GeoIndex

/// A per-cluster property computed from its points' numeric property (supercluster's map/reduce).
public struct Aggregation: Sendable {
  public enum Operation: Sendable {
    case sum, min, max

    /// Combines two values; a missing value (NaN: absent or not a number) leaves the other.
    public func combine(_ a: Double, _ b: Double) -> Double {
      if a.isNaN { return b }
      if b.isNaN { return a }
      switch self {
      case .sum: return a + b
      case .min: return Swift.min(a, b)
      case .max: return Swift.max(a, b)
      }
    }
  }

  public let property: String
  public let operation: Operation

  public init(property: String, operation: Operation) {
    self.property = property
    self.operation = operation
  }

  /// The names supercluster gives its own cluster properties, which an aggregate cannot take.
  public static let reservedNames: Set<String> = [
    "cluster", "cluster_id", "point_count", "point_count_abbreviated",
  ]

  /// A cluster index over a feature file, with these aggregates (one value per feature and aggregation),
  /// built on `threads` threads (default: one a processor).
  public static func index(
    of file: FeatureFile, options: ClusterOptions, aggregations: [Aggregation], threads: Int? = nil
  ) throws(ClusterError) -> ClusterIndex<[Double]> {
    let stride = aggregations.count
    let values = file.values
    return try ClusterIndex(
      points: file.points, options: options,
      map: stride == 0 ? nil : { i in Array(values[(i * stride)..<((i + 1) * stride)]) },
      reduce: stride == 0
        ? nil
        : { accumulated, next in
          for (k, aggregation) in aggregations.enumerated() {
            accumulated[k] = aggregation.operation.combine(accumulated[k], next[k])
          }
        }, threads: threads)
  }
}

/// Writes cluster query results as supercluster would: GeoJSON features, or geojson-vt style tiles.
public struct ClusterWriter {
  public let index: ClusterIndex<[Double]>
  public let file: FeatureFile
  public let aggregations: [Aggregation]

  public init(index: ClusterIndex<[Double]>, file: FeatureFile, aggregations: [Aggregation]) {
    self.index = index
    self.file = file
    self.aggregations = aggregations
  }

  /// `{"type":"FeatureCollection","features":[…]}` and a line break; input points are echoed unchanged.
  public func featureCollection(_ items: [ClusterItem], to out: OutputBuffer) {
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

  /// `{"clusterId":…,"expansionZoom":…}` and a line break: the zoom at which a cluster splits, as the CLI and
  /// the service answer it.
  public static func expansionZoomAnswer(clusterID: Int, zoom: Int) -> [UInt8] {
    var json = JSONWriter()
    json.object {
      $0.number("clusterId", Double(clusterID))
      $0.number("expansionZoom", Double(zoom))
    }
    json.bytes.append(UInt8(ascii: "\n"))
    return json.bytes
  }

  /// supercluster's cluster properties: the aggregates first, then `cluster`, `cluster_id`, `point_count` and
  /// `point_count_abbreviated` (a number below 1000, a string from there).
  public func clusterProperties(_ cluster: Cluster, into properties: inout JSONWriter.ObjectWriter) {
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

  /// `{"features":[{"type":1,"geometry":[[x,y]],"tags":{…},"id":…}]}`, or `null` for an empty tile, and a
  /// line break.
  public func tile(_ features: [TileFeature]?, to out: OutputBuffer) {
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
