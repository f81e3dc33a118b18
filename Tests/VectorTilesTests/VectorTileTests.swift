import AtlasAnswers
import Foundation
import GeoFormats
import GeoIndex
import TestSupport
import Testing
import VectorTiles

/// The encoder against supercluster 8.0.1 + vt-pbf 3.1.3's tiles (decoded, not compared byte for byte: two
/// correct encoders may order keys and values differently), and its own edge cases.
@Suite struct VectorTileTests {
  struct Entry: Decodable {
    struct Options: Decodable {
      let radius: Double
      let extent: Double
      let maxZoom: Int
    }
    let file: String?
    let input: String
    let options: Options
    let layer: String?
    let z: Int
    let x: Int
    let y: Int
    let features: Int?
  }

  static func entries() throws -> [Entry] {
    try JSONDecoder().decode([Entry].self, from: try Scratch.fixture("supercluster/mvt/index.json"))
  }

  /// The input a fixture's tiles were made from, as supercluster was given it.
  static func input(_ name: String) throws -> FeatureFile {
    if name == "places" {
      return try FeatureFile.parse(Array(try Scratch.fixture("supercluster/places.json")))
    }
    struct PointsFile: Decodable { let points: [[Double]] }
    let points = try JSONDecoder().decode(PointsFile.self, from: try Scratch.fixture("points-10k.json"))
      .points
    let features = points.enumerated().map { i, p in
      #"{"type":"Feature","properties":{"index":\#(i)},"geometry":{"type":"Point","coordinates":[\#(p[0]),\#(p[1])]}}"#
    }
    return try FeatureFile.parse(
      Array((#"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}").utf8))
  }

  @Test func everyFixtureTileDecodesAlike() throws {
    var files: [String: FeatureFile] = [:]
    let entries = try Self.entries()
    #expect(entries.count == 16)
    for entry in entries {
      let key = entry.input.hasPrefix("points-10k") ? "points-10k" : entry.input
      if files[key] == nil { files[key] = try Self.input(key) }
      let file = try #require(files[key])
      var options = ClusterOptions()
      options.radiusPixels = entry.options.radius
      options.extent = entry.options.extent
      options.maxZoom = entry.options.maxZoom
      let index = try Aggregation.index(of: file, options: options, aggregations: [])
      let writer = ClusterWriter(index: index, file: file, aggregations: [])
      let ours = writer.vectorTile(
        index.tile(zoom: entry.z, x: entry.x, y: entry.y), layerName: entry.layer ?? "clusters")
      guard let name = entry.file else {
        #expect(ours == nil, "\(entry.input) \(entry.z)/\(entry.x)/\(entry.y) should be empty")
        continue
      }
      let theirs = try DecodedTile(Array(try Scratch.fixture("supercluster/mvt/\(name)")))
      let decoded = try DecodedTile(try #require(ours, "\(name) is empty here"))
      #expect(decoded.layers.count == 1 && theirs.layers.count == 1)
      #expect(decoded.layers.first?.features.count == entry.features, "\(name)")
      #expect(decoded == theirs, "\(name)")
      if let layer = decoded.layers.first {
        #expect(layer.version == 2 && layer.extent == Int(entry.options.extent) && layer.name == entry.layer)
      }
    }
  }

  @Test func numbersAreTypedAsVTPBFTypesThem() {
    #expect(TileValue.number(3) == .unsignedInt(3))
    #expect(TileValue.number(-3) == .signedInt(-3))
    #expect(TileValue.number(0.5) == .double(0.5))
    #expect(TileValue.number(-0.0) == .unsignedInt(0))
    #expect(TileValue.number(1e300) == .double(1e300))
    #expect(TileValue.number(.infinity) == .double(.infinity))
  }

  @Test func keysAndValuesAreSharedAndEveryTypeRoundTrips() throws {
    var layer = VectorTileLayer(name: "t", extent: 512)
    let properties: [(key: String, value: TileValue)] = [
      ("s", .string("é")), ("d", .double(-1.25)), ("i", .int(-5)), ("u", .unsignedInt(UInt64.max)),
      ("z", .signedInt(Int64.min)), ("b", .bool(false)),
    ]
    layer.addPoint(x: -64, y: 600, id: 0, properties: properties)
    layer.addPoint(x: 3, y: 4, id: nil, properties: [("s", .string("é")), ("b", .bool(false))])
    let bytes = VectorTile.encode([layer])
    let decoded = try DecodedTile(bytes)
    let features = try #require(decoded.layers.first?.features)
    #expect(features.count == 2)
    #expect(features[0].id == 0 && features[1].id == nil)
    #expect(features[0].points == [[-64, 600]] && features[1].points == [[3, 4]])
    #expect(features[0].type == 1)
    #expect(
      features[0].properties == [
        "s": .string("é"), "d": .double(-1.25), "i": .int(-5), "u": .uint(UInt64.max), "z": .sint(Int64.min),
        "b": .bool(false),
      ])
    // Six keys and six values in all: the second feature's are the first's.
    let keyCount = bytes.indices.dropLast().filter { bytes[$0] == 0x1A && bytes[$0 + 1] == 1 }.count
    #expect(keyCount >= 6)
    var single = VectorTileLayer(name: "t")
    single.addPoint(x: 0, y: 0, id: nil, properties: properties)
    #expect(bytes.count < VectorTile.encode([single]).count + 20)  // the second feature costs only its tags
  }

  /// The spec's own example (vector-tile-spec 2.1, 4.3.5.1): a point at (25, 17) is `[9, 50, 34]`.
  @Test func theSpecsPointExample() {
    var layer = VectorTileLayer(name: "spec")
    layer.addPoint(x: 25, y: 17, id: nil, properties: [])
    let bytes = layer.encoded
    let geometry: [UInt8] = [0x22, 0x03, 9, 50, 34]  // field 4, length 3, then the commands
    #expect(
      (0...(bytes.count - geometry.count)).contains { Array(bytes[$0..<($0 + geometry.count)]) == geometry })
  }
}
