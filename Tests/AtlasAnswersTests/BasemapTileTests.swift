import GeoFormats
import NewsAtlas
import TestSupport
import Testing

@testable import AtlasAnswers

/// The base map's tiles: clipped to their tile, the land closed, the borders only where borders are, small.
@Suite struct BasemapTileTests {
  static let zoom7 = BasemapRings(toleranceDegrees: 360.0 / (256 * 128))
  typealias Point = Basemap.Point

  /// Each feature of a tile's answer: its code, part, geometry type and lines of points.
  typealias Feature = (code: String, part: String, type: String, lines: [[Point]])

  static func features(_ bytes: [UInt8]) throws -> [Feature] {
    #expect(bytes.last == 0x0A)
    let collection = try JSONParser.parse(Array(bytes.dropLast()))
    #expect(collection["type"] == .string("FeatureCollection"))
    guard case .array(let features)? = collection["features"] else { return [] }
    return features.map { feature in
      guard case .string(let code)? = feature["properties"]?["code"],
        case .string(let part)? = feature["properties"]?["part"],
        case .string(let type)? = feature["geometry"]?["type"],
        case .array(let lines)? = feature["geometry"]?["coordinates"]
      else { return ("", "", "", []) }
      let points = lines.map { line -> [Point] in
        guard case .array(let points) = line else { return [] }
        return points.compactMap { point -> Point? in
          guard case .array(let pair) = point, pair.count == 2, case .number(let x) = pair[0],
            case .number(let y) = pair[1], let x = Double(x), let y = Double(y)
          else { return nil }
          return Point(longitude: x, latitude: y)
        }
      }
      return (code, part, type, points)
    }
  }

  /// A zoom-7 tile over Paris: France's land and borders, every point inside the tile and its margin, every
  /// land ring closed, and a small fraction of the world's answer.
  @Test func aTileHoldsItsCountriesClippedToIt() throws {
    let (x, y) = (64, 44)  // zoom 7: 0°–2.8125° E, 47.07°–48.92° N
    let bytes = Basemap.tileGeoJSON(Self.zoom7, zoom: 7, x: x, y: y)
    let features = try Self.features(bytes)
    #expect(features.contains { $0.code == "fr" && $0.part == "land" && $0.type == "Polygon" })
    let box = Basemap.Box.tile(zoom: 7, x: x, y: y)
    for feature in features {
      #expect(feature.type == (feature.part == "land" ? "Polygon" : "MultiLineString"))
      for line in feature.lines {
        #expect(line.count >= (feature.part == "land" ? 4 : 2))
        if feature.part == "land" { #expect(line.first == line.last) }
        for point in line {
          // Four decimals: within half of 1e-4 of the box.
          #expect(
            point.longitude >= box.west - 5e-5 && point.longitude <= box.east + 5e-5
              && point.latitude >= box.south - 5e-5 && point.latitude <= box.north + 5e-5,
            "\(feature.code) \(point)")
        }
      }
    }
    let world = Basemap.geoJSON(toleranceDegrees: 360.0 / (256 * 128))
    #expect(bytes.count * 50 < world.count, "\(bytes.count) of \(world.count) bytes")
  }

  /// A tile of the South Pacific between New Zealand and Chile holds nothing; one inside France its land and no border at all.
  @Test func theSeaIsEmptyAndAnInlandTileHasNoBorder() throws {
    #expect(try Self.features(Basemap.tileGeoJSON(Self.zoom7, zoom: 7, x: 20, y: 80)).isEmpty)
    let inland = try Self.features(Basemap.tileGeoJSON(Self.zoom7, zoom: 10, x: 518, y: 359))  // near Bourges
    #expect(inland.map(\.code) == ["fr"] && inland.map(\.part) == ["land"])
  }

  /// Liang–Barsky against brute force: a segment's points sampled along it are inside the box exactly when
  /// they lie on the clipped part (seeded; the seed printed on failure).
  @Test(arguments: [1, 2, 3]) func aSegmentClipsAsSamplingSays(seed: UInt64) {
    var random = SplitMix64(state: seed)
    let box = Basemap.Box(west: -10, south: -5, east: 20, north: 15)
    for _ in 0..<500 {
      func place() -> Point {
        Point(
          longitude: Double.random(in: -40...50, using: &random),
          latitude: Double.random(in: -30...40, using: &random))
      }
      let (a, b) = (place(), place())
      let clipped = Basemap.clipSegment(a, b, to: box)
      for step in 0...200 {
        let t = Double(step) / 200
        let point = Point(
          longitude: a.longitude + t * (b.longitude - a.longitude),
          latitude: a.latitude + t * (b.latitude - a.latitude))
        let inside = box.contains(point)
        guard let (from, to) = clipped else {
          #expect(!inside, "seed \(seed): \(a)–\(b) at \(t) is inside but clipped away")
          continue
        }
        let (tFrom, tTo) = (parameter(from, a, b), parameter(to, a, b))
        let onClipped = t >= tFrom - 1e-9 && t <= tTo + 1e-9
        let nearEdge = abs(t - tFrom) < 1e-6 || abs(t - tTo) < 1e-6
        #expect(inside == onClipped || nearEdge, "seed \(seed): \(a)–\(b) at \(t)")
      }
    }
  }

  /// Sutherland–Hodgman: a square over the box's corner keeps the overlap; a ring inside is kept whole; one
  /// outside is gone.
  @Test func aRingClipsToTheOverlap() {
    let box = Basemap.Box(west: 0, south: 0, east: 10, north: 10)
    func square(_ w: Double, _ s: Double, _ e: Double, _ n: Double) -> [Point] {
      [(w, s), (e, s), (e, n), (w, n), (w, s)].map { Point(longitude: $0.0, latitude: $0.1) }
    }
    let corner = Basemap.clipPolygon(square(5, 5, 15, 15), to: box)
    #expect(corner.first == corner.last && abs(area(corner) - 25) < 1e-9, "\(corner)")
    let inside = square(2, 2, 4, 4)
    #expect(abs(area(Basemap.clipPolygon(inside, to: box)) - 4) < 1e-9)
    #expect(Basemap.clipPolygon(square(20, 20, 30, 30), to: box).isEmpty)
    // The ring's border clipped: its two sides inside the box, each a line (the ring starts between them).
    #expect(
      Basemap.clipLine(square(5, 5, 15, 15), to: box) == [
        [Point(longitude: 5, latitude: 5), Point(longitude: 10, latitude: 5)],
        [Point(longitude: 5, latitude: 10), Point(longitude: 5, latitude: 5)],
      ])
  }

  func parameter(_ p: Point, _ a: Point, _ b: Point) -> Double {
    let dx = b.longitude - a.longitude
    let dy = b.latitude - a.latitude
    return abs(dx) > abs(dy) ? (p.longitude - a.longitude) / dx : (p.latitude - a.latitude) / dy
  }

  /// A closed ring's area by the shoelace formula.
  func area(_ ring: [Point]) -> Double {
    abs(
      zip(ring, ring.dropFirst()).reduce(0) {
        $0 + $1.0.longitude * $1.1.latitude - $1.1.longitude * $1.0.latitude
      }) / 2
  }
}
