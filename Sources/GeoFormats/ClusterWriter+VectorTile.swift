import GeoIndex
import VectorTiles

extension ClusterWriter {
  /// supercluster's `getTile` as a Mapbox Vector Tile 2.1, encoded as mapbox/vt-pbf 3.1.3 encodes it: one layer
  /// named `layerName` whose extent is the index's `extent`, clusters with supercluster's properties and their
  /// id, points with their input properties and id. Nil for an empty tile (a server answers 204).
  public func vectorTile(_ features: [TileFeature]?, layerName: String) -> [UInt8]? {
    guard let features, !features.isEmpty else { return nil }
    var layer = VectorTileLayer(name: layerName, extent: Int(index.options.extent))
    for feature in features {
      switch feature.item {
      case .cluster(let cluster):
        var properties: [(key: String, value: TileValue)] = []
        if let values = index.aggregate(of: cluster) {
          for (aggregation, value) in zip(aggregations, values) where !value.isNaN {
            properties.append((aggregation.property, .number(value)))
          }
        }
        properties.append(("cluster", .bool(true)))
        properties.append(("cluster_id", .number(Double(cluster.id))))
        properties.append(("point_count", .number(Double(cluster.pointCount))))
        properties.append(
          (
            "point_count_abbreviated",
            cluster.pointCount < 1000
              ? .number(Double(cluster.pointCount)) : .string(cluster.pointCountAbbreviated)
          ))
        layer.addPoint(x: feature.x, y: feature.y, id: UInt64(cluster.id), properties: properties)
      case .point(let index):
        let parsed = file.feature(index)
        var properties: [(key: String, value: TileValue)] = []
        if case .object(let members)? = parsed["properties"] {
          for member in members {
            if let value = Self.tileValue(member.value) { properties.append((member.key, value)) }
          }
        }
        // supercluster keeps a point's id only when it is truthy; a tile id is a whole number 0 or more.
        let id = parsed["id"]?.doubleValue.flatMap {
          $0 >= 1 && $0 < 0x1p64 && $0 == $0.rounded() ? UInt64($0) : nil
        }
        layer.addPoint(x: feature.x, y: feature.y, id: id, properties: properties)
      }
    }
    return VectorTile.encode([layer])
  }

  /// vt-pbf's typing of a property: strings, numbers and booleans as such, null left out, arrays and objects as
  /// their JSON text.
  static func tileValue(_ value: JSONValue) -> TileValue? {
    switch value {
    case .null: return nil
    case .bool(let flag): return .bool(flag)
    case .string(let text): return .string(text)
    case .number(let text): return .number(Double(text) ?? .nan)
    case .array, .object:
      var writer = JSONWriter()
      writer.value(value)
      return .string(String(decoding: writer.bytes, as: UTF8.self))
    }
  }
}
