import GeoFormats
import NewsAtlas

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The borders simplified for one zoom, each ring with its bounding box, kept to cut tiles from.
public struct BasemapRings: Sendable {
  /// A country's ring: its index in `Country.boundaries`, points (longitude, latitude in degrees), box.
  public struct Ring: Sendable {
    public let country: Int
    public let points: [Basemap.Point]
    public let box: Basemap.Box
  }

  public let rings: [Ring]

  /// Every ring of `Country.boundaries`, simplified to `toleranceDegrees` (Douglas–Peucker).
  ///
  /// - Complexity: O(n log n) for n border points, as `CountryBoundaries.rings(toleranceDegrees:)`.
  public init(toleranceDegrees: Double) {
    rings = Country.boundaries.rings(toleranceDegrees: toleranceDegrees).map { ring in
      let points = ring.points.map { Basemap.Point(longitude: $0.longitude, latitude: $0.latitude) }
      return Ring(country: ring.country, points: points, box: Basemap.Box(around: points))
    }
  }
}

extension Basemap {
  /// A place in degrees, as the borders store it.
  public struct Point: Sendable, Equatable {
    public var longitude: Double
    public var latitude: Double
    public init(longitude: Double, latitude: Double) {
      self.longitude = longitude
      self.latitude = latitude
    }
  }

  /// A longitude–latitude rectangle in degrees.
  public struct Box: Sendable, Equatable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
      (self.west, self.south, self.east, self.north) = (west, south, east, north)
    }

    init(around points: [Point]) {
      var box = Box(west: .infinity, south: .infinity, east: -.infinity, north: -.infinity)
      for point in points {
        box.west = Swift.min(box.west, point.longitude)
        box.east = Swift.max(box.east, point.longitude)
        box.south = Swift.min(box.south, point.latitude)
        box.north = Swift.max(box.north, point.latitude)
      }
      self = box
    }

    func intersects(_ other: Box) -> Bool {
      west <= other.east && other.west <= east && south <= other.north && other.south <= north
    }

    func contains(_ other: Box) -> Bool {
      west <= other.west && other.east <= east && south <= other.south && other.north <= north
    }

    func contains(_ point: Point) -> Bool {
      west <= point.longitude && point.longitude <= east && south <= point.latitude
        && point.latitude <= north
    }

    /// The web-map tile (zoom, x, y; 256-pixel tiles, y down from the north, Web Mercator) in degrees, grown
    /// by `margin` of its size on each side so that neighbouring tiles' land overlaps and leaves no seam.
    public static func tile(zoom: Int, x: Int, y: Int, margin: Double = 1.0 / 64) -> Box {
      let n = Double(1 << zoom)
      func latitude(_ row: Double) -> Double { atan(sinh(Double.pi * (1 - 2 * row / n))) * 180 / .pi }
      return Box(
        west: (Double(x) - margin) / n * 360 - 180, south: latitude(Double(y + 1) + margin),
        east: (Double(x + 1) + margin) / n * 360 - 180, north: latitude(Double(y) - margin))
    }
  }

  /// The borders in one web-map tile as GeoJSON: for each country there, its land clipped to the tile
  /// (`part: "land"`, a Polygon, to fill: its edges along the tile's sides are not borders) and its borders
  /// clipped to the tile (`part: "border"`, a MultiLineString, to stroke), each with `code`, `name`, `news`;
  /// coordinates to 4 decimals; a line break after.
  ///
  /// Land is clipped by Sutherland–Hodgman (Sutherland & Hodgman 1974), borders segment by segment by
  /// Liang–Barsky (Liang & Barsky 1984), both against the tile's longitude–latitude box.
  ///
  /// - Complexity: O(r + p) for r rings of which the tile's hold p points.
  public static func tileGeoJSON(_ simplified: BasemapRings, zoom: Int, x: Int, y: Int) -> [UInt8] {
    let box = Box.tile(zoom: zoom, x: x, y: y)
    var land: [Int: [[Point]]] = [:]
    var borders: [Int: [[Point]]] = [:]
    for ring in simplified.rings where box.intersects(ring.box) {
      if box.contains(ring.box) {
        land[ring.country, default: []].append(ring.points)
        borders[ring.country, default: []].append(ring.points)
        continue
      }
      let clipped = clipPolygon(ring.points, to: box)
      if clipped.count >= 4 { land[ring.country, default: []].append(clipped) }
      let lines = clipLine(ring.points, to: box)
      if !lines.isEmpty { borders[ring.country, default: []].append(contentsOf: lines) }
    }
    let boundaries = Country.boundaries
    var json = JSONWriter()
    json.object { collection in
      collection.string("type", "FeatureCollection")
      let countries = Set(land.keys).union(borders.keys).sorted()
      let parts = countries.flatMap { country in
        [(country, "land", land[country] ?? []), (country, "border", borders[country] ?? [])]
      }.filter { !$0.2.isEmpty }
      collection.array("features", parts) { json, part in
        let (country, kind, lines) = part
        json.object { feature in
          feature.string("type", "Feature")
          feature.object("properties") {
            properties(of: country, in: boundaries, to: &$0)
            $0.string("part", kind)
          }
          feature.object("geometry") { geometry in
            geometry.string("type", kind == "land" ? "Polygon" : "MultiLineString")
            geometry.array("coordinates", lines) { json, line in
              json.array(line) { json, point in
                json.array([point.longitude, point.latitude]) { $0.number($1, decimals: 4) }
              }
            }
          }
        }
      }
    }
    json.bytes.append(UInt8(ascii: "\n"))
    return json.bytes
  }

  /// A closed ring (first point = last) clipped to `box` by Sutherland–Hodgman: closed again, or empty.
  static func clipPolygon(_ ring: [Point], to box: Box) -> [Point] {
    var points = Array(ring.dropLast())
    let sides: [(inside: (Point) -> Bool, cut: (Point, Point) -> Point)] = [
      ({ $0.longitude >= box.west }, { cut($0, $1, longitude: box.west) }),
      ({ $0.longitude <= box.east }, { cut($0, $1, longitude: box.east) }),
      ({ $0.latitude >= box.south }, { cut($0, $1, latitude: box.south) }),
      ({ $0.latitude <= box.north }, { cut($0, $1, latitude: box.north) }),
    ]
    for side in sides {
      guard let last = points.last else { return [] }
      var kept: [Point] = []
      var previous = last
      for point in points {
        switch (side.inside(previous), side.inside(point)) {
        case (true, true): kept.append(point)
        case (true, false): kept.append(side.cut(previous, point))
        case (false, true): kept.append(contentsOf: [side.cut(previous, point), point])
        case (false, false): break
        }
        previous = point
      }
      points = kept
    }
    guard points.count >= 3 else { return [] }
    return points + [points[0]]
  }

  /// A polyline clipped to `box` by Liang–Barsky, segment by segment: the pieces inside, each of 2 points or
  /// more, a piece continuing while consecutive segments stay inside.
  static func clipLine(_ line: [Point], to box: Box) -> [[Point]] {
    var pieces: [[Point]] = []
    var current: [Point] = []
    for (a, b) in zip(line, line.dropFirst()) {
      guard let (from, to) = clipSegment(a, b, to: box) else {
        if current.count >= 2 { pieces.append(current) }
        current = []
        continue
      }
      if current.last != from {
        if current.count >= 2 { pieces.append(current) }
        current = [from]
      }
      current.append(to)
    }
    if current.count >= 2 { pieces.append(current) }
    return pieces
  }

  /// The part of segment a–b inside `box` (Liang–Barsky), or nil when none is.
  static func clipSegment(_ a: Point, _ b: Point, to box: Box) -> (Point, Point)? {
    let dx = b.longitude - a.longitude
    let dy = b.latitude - a.latitude
    var enter = 0.0
    var leave = 1.0
    for (p, q) in [
      (-dx, a.longitude - box.west), (dx, box.east - a.longitude),
      (-dy, a.latitude - box.south), (dy, box.north - a.latitude),
    ] {
      if p == 0 {
        if q < 0 { return nil }
        continue
      }
      let t = q / p
      if p < 0 { enter = Swift.max(enter, t) } else { leave = Swift.min(leave, t) }
      if enter > leave { return nil }
    }
    func at(_ t: Double) -> Point {
      t == 0 ? a : t == 1 ? b : Point(longitude: a.longitude + t * dx, latitude: a.latitude + t * dy)
    }
    return (at(enter), at(leave))
  }

  private static func cut(_ a: Point, _ b: Point, longitude: Double) -> Point {
    let t = (longitude - a.longitude) / (b.longitude - a.longitude)
    return Point(longitude: longitude, latitude: a.latitude + t * (b.latitude - a.latitude))
  }

  private static func cut(_ a: Point, _ b: Point, latitude: Double) -> Point {
    let t = (latitude - a.latitude) / (b.latitude - a.latitude)
    return Point(longitude: a.longitude + t * (b.longitude - a.longitude), latitude: latitude)
  }
}
