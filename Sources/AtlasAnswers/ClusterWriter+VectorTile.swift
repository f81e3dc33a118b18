import GeoFormats
import GeoIndex
import VectorTiles

extension ClusterWriter {
  /// supercluster's `getTile` as a Mapbox Vector Tile 2.1, encoded as mapbox/vt-pbf 3.1.3 encodes it: one layer
  /// named `layerName` whose extent is the index's `extent`, clusters with supercluster's properties and their
  /// id, points with their input properties and id. Nil for an empty tile (a server answers 204).
  public func vectorTile(_ features: [TileFeature]?, layerName: String) -> [UInt8]? {
    guard let features, !features.isEmpty else { return nil }
    // Clusters have three or four numbers apiece, mostly distinct; points, whatever their properties are.
    var layer = VectorTileLayer(
      name: layerName, extent: Int(index.options.extent), expectedValues: 2 * features.count)
    var clusterKeys = [Int](repeating: -1, count: 4 + aggregations.count)
    for feature in features {
      switch feature.item {
      case .cluster(let cluster):
        // The keys in the order each is first used (as vt-pbf adds them), looked up once per tile.
        func key(_ slot: Int, _ name: String) -> Int {
          if clusterKeys[slot] < 0 { clusterKeys[slot] = layer.keyIndex(name) }
          return clusterKeys[slot]
        }
        layer.beginFeature()
        if let values = index.aggregate(of: cluster) {
          for (n, (aggregation, value)) in zip(aggregations, values).enumerated() where !value.isNaN {
            layer.tag(keyIndex: key(4 + n, aggregation.property), value: .number(value))
          }
        }
        layer.tag(keyIndex: key(0, "cluster"), value: .bool(true))
        layer.tag(keyIndex: key(1, "cluster_id"), value: .number(Double(cluster.id)))
        layer.tag(keyIndex: key(2, "point_count"), value: .number(Double(cluster.pointCount)))
        layer.tag(
          keyIndex: key(3, "point_count_abbreviated"),
          value: cluster.pointCount < 1000
            ? .number(Double(cluster.pointCount)) : .string(cluster.pointCountAbbreviated))
        layer.endPoint(x: feature.x, y: feature.y, id: UInt64(cluster.id))
      case .point(let index):
        let scanned = file.withText(of: index) {
          Self.addPoint($0, x: feature.x, y: feature.y, readingID: file.hasIDs, to: &layer)
        }
        if scanned { continue }
        // Escaped member names or an unusual layout: the full parse, with the same result.
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
  /// A point feature read straight from its text: the `properties` members typed as `tileValue` types them
  /// and the `id`, without building the parsed tree; false (nothing added) when the text needs the full parse.
  /// Without `readingID` (no feature of the file has one) the scan ends at `properties`, which GeoJSON
  /// writers mostly put before the geometry.
  static func addPoint(
    _ text: UnsafeBufferPointer<UInt8>, x: Int, y: Int, readingID: Bool = true,
    to layer: inout VectorTileLayer
  ) -> Bool {
    var properties: UnsafeBufferPointer<UInt8>? = nil
    var idText: UnsafeBufferPointer<UInt8>? = nil
    guard
      JSONScan.members(
        of: text,
        { key, value -> JSONScan.Step in
          // The first occurrence of each, as JSONValue's subscript reads them.
          if properties == nil && JSONScan.equals(key, "properties") {
            properties = value
            if !readingID { return .stop }
          }
          if idText == nil && JSONScan.equals(key, "id") { idText = value }
          return .next
        })
    else { return false }
    layer.beginFeature()
    if let properties, properties.first == UInt8(ascii: "{") {
      let plain = JSONScan.members(of: properties) { key, value in
        guard let typed = scannedValue(value) else { return false }
        if let typed { layer.tag(key: key, value: typed) }
        return true
      }
      guard plain else { return false }
    }
    var id: UInt64? = nil
    if let idText, let first = idText.first, first == UInt8(ascii: "-") || (0x30...0x39).contains(first) {
      let number = NumberParser.parse(idText) ?? Double(String(decoding: idText, as: UTF8.self)) ?? .nan
      if number >= 1 && number < 0x1p64 && number == number.rounded() { id = UInt64(number) }
    }
    layer.endPoint(x: x, y: y, id: id)
    return true
  }

  /// A member's value as `tileValue` types it: `.some(nil)` for null, nil when only the full parse can say.
  private static func scannedValue(_ text: UnsafeBufferPointer<UInt8>) -> TileValue?? {
    guard let first = text.first else { return nil }
    switch first {
    case UInt8(ascii: "\""):
      guard text.count >= 2, !text.contains(UInt8(ascii: "\\")) else { return nil }
      return .some(
        .string(String(decoding: UnsafeBufferPointer(rebasing: text[1..<(text.count - 1)]), as: UTF8.self)))
    case UInt8(ascii: "t"): return .some(.bool(true))
    case UInt8(ascii: "f"): return .some(.bool(false))
    case UInt8(ascii: "n"): return .some(nil)
    case UInt8(ascii: "-"), 0x30...0x39:
      let number = NumberParser.parse(text) ?? Double(String(decoding: text, as: UTF8.self)) ?? .nan
      return .some(.number(number))
    default:
      // An array or an object: written back as compact JSON text, as tileValue does.
      guard let parsed = try? JSONParser.parse(Array(text)) else { return nil }
      return .some(tileValue(parsed))
    }
  }

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
