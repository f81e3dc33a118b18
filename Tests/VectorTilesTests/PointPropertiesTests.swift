import GeoFormats
import GeoIndex
import Testing
import VectorTiles

@testable import AtlasAnswers

/// The tile writer reads point properties straight from each feature's text; a feature it cannot read that
/// way (escaped member names) goes through the full parse. Both must write the same bytes as the full parse
/// typed with `tileValue` would, for every kind of value.
@Suite struct PointPropertiesTests {
  static let properties = [
    #"{"s":"text","n":1,"neg":-2,"f":1.5,"big":1e400,"zero":-0,"t":true,"f2":false,"null":null}"#,
    #"{"nested":{"a":[1,2,{"b":null}]},"list":[],"obj":{}}"#,
    #"{"escaped":"a\"b\\c\u00e9","unicode":"Zürich – 東京","empty":""}"#,
    #"{"k\"ey":"escaped name","plain":1}"#,
    #"{"dup":1,"dup":"two"}"#,
    #"{}"#, "null", #""not an object""#, "[1,2]",
  ]
  static let ids = ["", #""id":7,"#, #""id":"7","#, #""id":0,"#, #""id":-3,"#, #""id":2.5,"#, #""id":1e30,"#]

  /// Where the members go: the id before the properties; no id anywhere (the scan may stop at the
  /// properties); the id last, after the geometry (the scan must go on to find it); no id but in one feature,
  /// last and with an escaped name (found by the full parse at load, so every feature is read to its end).
  enum Layout: CaseIterable {
    case idFirst, noIDs, idLast, oneEscapedIDLast
  }

  @Test(arguments: Layout.allCases)
  func scannedPropertiesEqualTheFullParse(layout: Layout) throws {
    var features: [String] = []
    for (i, properties) in Self.properties.enumerated() {
      for (j, id) in Self.ids.enumerated() {
        let longitude = Double(i * Self.ids.count + j) * 0.001
        let geometry = #""geometry":{"type":"Point","coordinates":[\#(longitude),0]}"#
        switch layout {
        case .idFirst:
          features.append(#"{"type":"Feature",\#(id)"properties":\#(properties),\#(geometry)}"#)
        case .noIDs:
          features.append(#"{"type":"Feature","properties":\#(properties),\#(geometry)}"#)
        case .idLast:
          features.append(
            #"{"type":"Feature","properties":\#(properties),\#(geometry)\#(id.isEmpty ? "" : ",")\#(id.dropLast())}"#
          )
        case .oneEscapedIDLast:
          let last = i == Self.properties.count - 1 && j == Self.ids.count - 1
          features.append(
            #"{"type":"Feature","properties":\#(properties),\#(geometry)\#(last ? #","\u0069d":9"# : "")}"#)
        }
      }
    }
    let text = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
    let file = try FeatureFile.parse(Array(text.utf8))
    var options = ClusterOptions()
    options.maxZoom = 0
    let index = try ClusterIndex<[Double]>(
      points: file.points, options: options, map: nil, reduce: nil)
    let writer = ClusterWriter(index: index, file: file, aggregations: [])
    // At zoom 1 (above maxZoom) every point is on its own.
    let tile = try #require(index.tile(zoom: 1, x: 1, y: 0))
    #expect(tile.count == features.count)
    let written = writer.vectorTile(tile, layerName: "points")
    // The same points through the full parse, as the writer did before it scanned.
    var layer = VectorTileLayer(name: "points", extent: Int(index.options.extent))
    for feature in tile {
      guard case .point(let i) = feature.item else { continue }
      let parsed = file.feature(i)
      var properties: [(key: String, value: TileValue)] = []
      if case .object(let members)? = parsed["properties"] {
        for member in members {
          if let value = ClusterWriter.tileValue(member.value) { properties.append((member.key, value)) }
        }
      }
      var id: UInt64? = nil
      if let number = parsed["id"]?.doubleValue, number >= 1, number < 0x1p64, number == number.rounded() {
        id = UInt64(number)
      }
      layer.addPoint(x: feature.x, y: feature.y, id: id, properties: properties)
    }
    #expect(written == VectorTile.encode([layer]))
    #expect(file.hasIDs == (layout != .noIDs))
  }
}
