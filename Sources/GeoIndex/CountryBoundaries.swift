#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which country's borders hold a point: every country's polygons with a uniform grid over them.
///
/// The grid (0.25° cells) records which country holds each cell's centre, computed from the full-resolution
/// polygons when the data was made. A point in a cell no border crosses is answered from the grid alone. In a
/// cell that borders cross, the segment from the cell's centre to the point is tested against the borders in
/// that cell: each crossing of a country's border flips whether the point is in that country (the even–odd
/// rule, so holes, enclaves such as Lesotho in South Africa, and islands all work). Polygons are split at the
/// antimeridian in the data, as Natural Earth draws them.
///
/// A point outside every polygon but within `territorialSeaKilometers` (12 nautical miles) of a country's coast
/// is in that country's territorial sea.
///
/// - Complexity: building is O(n) in border points; a lookup is O(1) away from borders and O(k) near them, for
///   the k border segments in its cell.
public struct CountryBoundaries: Sendable {
  /// Where a point is.
  public enum Location: Equatable, Sendable {
    /// Inside the country's borders: its index in `codes`.
    case inside(Int)
    /// Outside every border but within 12 nautical miles of this country's coast.
    case territorialSea(Int, distanceKilometers: Double)
    /// In no country and no territorial sea.
    case nowhere

    public var countryIndex: Int? {
      switch self {
      case .inside(let i), .territorialSea(let i, _): return i
      case .nowhere: return nil
      }
    }
  }

  /// 12 nautical miles.
  public static let territorialSeaKilometers = 22.224

  /// ISO 3166-1 alpha-2 codes, lower case, and English names, by country index.
  public let codes: [String]
  public let names: [String]

  /// Border points, interleaved longitude and latitude in 1e-7 degrees (as stored).
  private let coordinates: [Int32]
  /// Each ring: its country index, first point and point count.
  private let ringTable: [(country: Int, start: Int, count: Int)]
  /// The country of the ring each point starts an edge of; edges are (i, i + 1) within a ring.
  private let edgeCountry: [UInt16]
  private let columns: Int
  private let rows: Int
  private let cellCountry: [UInt16]
  /// Border edges (by start point) overlapping each cell, as a compressed sparse row.
  private let cellStarts: [Int32]
  private let cellEdges: [Int32]

  /// The borders for drawing: each ring's country index and points (longitude, latitude in degrees),
  /// simplified by Douglas–Peucker (Douglas & Peucker 1973) so that no dropped point lies farther than
  /// `toleranceDegrees` from the line that replaces it; rings that shrink below a triangle are left out.
  ///
  /// - Complexity: O(n log n) on typical rings, O(n²) at worst, for n border points.
  public func rings(toleranceDegrees: Double) -> [(
    country: Int, points: [(longitude: Double, latitude: Double)]
  )] {
    var result: [(country: Int, points: [(longitude: Double, latitude: Double)])] = []
    let tolerance = toleranceDegrees * 1e7  // in stored units
    for ring in ringTable {
      var keep = [Bool](repeating: false, count: ring.count)
      keep[0] = true
      keep[ring.count - 1] = true
      var stack = [(0, ring.count - 1)]
      while let (first, last) = stack.popLast() {
        guard last > first + 1 else { continue }
        let ax = Double(coordinates[2 * (ring.start + first)])
        let ay = Double(coordinates[2 * (ring.start + first) + 1])
        let bx = Double(coordinates[2 * (ring.start + last)])
        let by = Double(coordinates[2 * (ring.start + last) + 1])
        let dx = bx - ax
        let dy = by - ay
        let length = (dx * dx + dy * dy).squareRoot()
        var farthest = -1.0
        var index = first
        for i in (first + 1)..<last {
          let px = Double(coordinates[2 * (ring.start + i)]) - ax
          let py = Double(coordinates[2 * (ring.start + i) + 1]) - ay
          // Distance to the chord (to the first point when the chord is a point: a closed ring's ends).
          let distance = length > 0 ? abs(px * dy - py * dx) / length : (px * px + py * py).squareRoot()
          if distance > farthest {
            farthest = distance
            index = i
          }
        }
        if farthest > tolerance {
          keep[index] = true
          stack.append((first, index))
          stack.append((index, last))
        }
      }
      var points: [(longitude: Double, latitude: Double)] = []
      for i in 0..<ring.count where keep[i] {
        points.append(
          (
            Double(coordinates[2 * (ring.start + i)]) / 1e7,
            Double(coordinates[2 * (ring.start + i) + 1]) / 1e7
          ))
      }
      if points.count >= 4 { result.append((ring.country, points)) }
    }
    return result
  }

  /// Why border data cannot be read.
  public struct FormatError: Error, CustomStringConvertible {
    public let description: String
  }

  /// Reads the layout that `scripts/generate_boundaries.py` writes.
  public init(data: UnsafeRawBufferPointer) throws(FormatError) {
    var reader = LittleEndianReader(data)
    guard data.count > 32, reader.bytes(4) == Array("NABD".utf8), reader.u32() == 1 else {
      throw FormatError(description: "The border data is not NewsAtlas's (bad magic or version).")
    }
    let countryCount = Int(reader.u32())
    let ringCount = Int(reader.u32())
    let pointCount = Int(reader.u32())
    columns = Int(reader.u32())
    rows = Int(reader.u32())
    let namesLength = Int(reader.u32())
    let expected = 32 + 2 * countryCount + namesLength + 12 * ringCount + 8 * pointCount + 2 * columns * rows
    guard data.count == expected else {
      throw FormatError(
        description: "The border data is \(data.count) bytes where its header says \(expected).")
    }
    let codeBytes = reader.bytes(2 * countryCount)
    codes = (0..<countryCount).map { String(decoding: codeBytes[(2 * $0)..<(2 * $0 + 2)], as: UTF8.self) }
    names = String(decoding: reader.bytes(namesLength), as: UTF8.self).split(separator: "\n").map(String.init)

    var edgeCountry = [UInt16](repeating: UInt16.max, count: pointCount)
    var ringEnds: [(country: Int, start: Int, count: Int)] = []
    ringEnds.reserveCapacity(ringCount)
    for _ in 0..<ringCount {
      let country = reader.u16()
      _ = reader.u16()
      let first = Int(reader.u32())
      let count = Int(reader.u32())
      guard first + count <= pointCount, count >= 2 else {
        throw FormatError(description: "A ring of the border data points outside its points.")
      }
      for i in first..<(first + count - 1) { edgeCountry[i] = country }  // the last point starts no edge
      ringEnds.append((Int(country), first, count))
    }
    ringTable = ringEnds
    var coordinates = [Int32](repeating: 0, count: 2 * pointCount)
    let pointOffset = reader.offset
    coordinates.withUnsafeMutableBytes { target in
      target.copyMemory(
        from: UnsafeRawBufferPointer(rebasing: data[pointOffset..<(pointOffset + 8 * pointCount)]))
    }
    #if _endian(big)
      for i in 0..<(2 * pointCount) { coordinates[i] = Int32(littleEndian: coordinates[i]) }
    #endif
    reader.offset += 8 * pointCount
    let cellCount = columns * rows
    let cellOffset = reader.offset
    var cellCountry = [UInt16](repeating: 0, count: cellCount)
    cellCountry.withUnsafeMutableBytes { target in
      target.copyMemory(
        from: UnsafeRawBufferPointer(rebasing: data[cellOffset..<(cellOffset + 2 * cellCount)]))
    }
    #if _endian(big)
      for i in 0..<cellCountry.count { cellCountry[i] = UInt16(littleEndian: cellCountry[i]) }
    #endif

    // Bucket every edge into the cells its bounding box covers (two passes: count, then fill), in integer
    // units of 1e-7 degrees.
    let (columns, rows) = (self.columns, self.rows)
    let columnUnits = 3_600_000_000 / columns
    let rowUnits = 1_800_000_000 / rows
    let buckets = coordinates.withUnsafeBufferPointer { xy -> ([Int32], [Int32]) in
      func cellRange(_ i: Int) -> (Int, Int, Int, Int) {
        let ax = Int(xy[2 * i]) + 1_800_000_000
        let bx = Int(xy[2 * i + 2]) + 1_800_000_000
        let ay = Int(xy[2 * i + 1]) + 900_000_000
        let by = Int(xy[2 * i + 3]) + 900_000_000
        let c0 = max(0, min(columns - 1, min(ax, bx) / columnUnits))
        let c1 = max(0, min(columns - 1, max(ax, bx) / columnUnits))
        let r0 = max(0, min(rows - 1, min(ay, by) / rowUnits))
        let r1 = max(0, min(rows - 1, max(ay, by) / rowUnits))
        return (c0, c1, r0, r1)
      }
      var starts = [Int32](repeating: 0, count: columns * rows + 1)
      for i in 0..<pointCount where edgeCountry[i] != UInt16.max {
        let (c0, c1, r0, r1) = cellRange(i)
        for r in r0...r1 { for c in c0...c1 { starts[r * columns + c + 1] += 1 } }
      }
      for c in 0..<(columns * rows) { starts[c + 1] += starts[c] }
      var fill = starts
      var edges = [Int32](repeating: 0, count: Int(starts[columns * rows]))
      for i in 0..<pointCount where edgeCountry[i] != UInt16.max {
        let (c0, c1, r0, r1) = cellRange(i)
        for r in r0...r1 {
          for c in c0...c1 {
            edges[Int(fill[r * columns + c])] = Int32(i)
            fill[r * columns + c] += 1
          }
        }
      }
      return (starts, edges)
    }
    self.coordinates = coordinates
    self.edgeCountry = edgeCountry
    self.cellCountry = cellCountry
    self.cellStarts = buckets.0
    self.cellEdges = buckets.1
  }

  /// The country whose borders (or territorial sea) hold `point`.
  public func locate(_ point: GeoPoint) -> Location {
    if let inside = country(containing: point) { return .inside(inside) }
    if let (country, distance) = nearestCoast(to: point, withinKilometers: Self.territorialSeaKilometers) {
      return .territorialSea(country, distanceKilometers: distance)
    }
    return .nowhere
  }

  /// The country whose polygons contain `point`, by the even–odd rule; nil at sea or in no country.
  public func country(containing point: GeoPoint) -> Int? {
    let (column, row) = cell(point)
    let cell = row * columns + column
    let base = Int(cellCountry[cell]) - 1
    let first = Int(cellStarts[cell])
    let end = Int(cellStarts[cell + 1])
    if first == end { return base >= 0 ? base : nil }
    // Walk from the cell's centre (whose country is known) to the point, flipping a country at each crossing.
    let px = -180 + (Double(column) + 0.5) * (360 / Double(columns))
    let py = -90 + (Double(row) + 0.5) * (180 / Double(rows))
    let qx = point.longitude
    let qy = point.latitude
    var flipped: [Int: Bool] = [:]
    for k in first..<end {
      let i = Int(cellEdges[k])
      let ax = Double(coordinates[2 * i]) * 1e-7
      let ay = Double(coordinates[2 * i + 1]) * 1e-7
      let bx = Double(coordinates[2 * i + 2]) * 1e-7
      let by = Double(coordinates[2 * i + 3]) * 1e-7
      let d1 = (qx - px) * (ay - py) - (qy - py) * (ax - px)
      let d2 = (qx - px) * (by - py) - (qy - py) * (bx - px)
      if (d1 > 0) == (d2 > 0) { continue }
      let d3 = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
      let d4 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax)
      if (d3 > 0) == (d4 > 0) { continue }
      let country = Int(edgeCountry[i])
      flipped[country, default: false].toggle()
    }
    if base >= 0 && !(flipped[base] ?? false) { return base }
    // Entered another country (or left the base one for a hole or the sea): the smallest index that is in.
    return flipped.filter { $0.value && $0.key != base }.keys.min()
  }

  /// The country with the nearest border segment within `limit` kilometres, and the distance.
  public func nearestCoast(to point: GeoPoint, withinKilometers limit: Double) -> (Int, Double)? {
    let kilometresPerDegree = GreatCircle.earthRadiusKilometers * Double.pi / 180
    let latitudeMargin = limit / kilometresPerDegree
    let cosLatitude = cos(point.latitude * Double.pi / 180)
    let longitudeMargin = cosLatitude > 0.01 ? latitudeMargin / cosLatitude : 360
    let columnWidth = 360 / Double(columns)
    let rowHeight = 180 / Double(rows)
    let r0 = max(0, Int(((point.latitude - latitudeMargin + 90) / rowHeight).rounded(.down)))
    let r1 = min(rows - 1, Int(((point.latitude + latitudeMargin + 90) / rowHeight).rounded(.down)))
    let span = min(columns, Int((longitudeMargin / columnWidth).rounded(.up)) + 1)
    let (column, _) = cell(point)
    var best: (country: Int, distance: Double)? = nil
    for r in r0...r1 {
      for offset in -span...span {
        if 2 * span + 1 > columns && offset != -span && offset + span >= columns { break }
        let c = ((column + offset) % columns + columns) % columns
        let cell = r * columns + c
        for k in Int(cellStarts[cell])..<Int(cellStarts[cell + 1]) {
          let i = Int(cellEdges[k])
          let distance = Self.kilometres(
            from: point,
            toSegment: (Double(coordinates[2 * i]) * 1e-7, Double(coordinates[2 * i + 1]) * 1e-7),
            (Double(coordinates[2 * i + 2]) * 1e-7, Double(coordinates[2 * i + 3]) * 1e-7),
            cosLatitude: cosLatitude, kilometresPerDegree: kilometresPerDegree)
          if distance <= limit && (best == nil || distance < best!.distance) {
            best = (Int(edgeCountry[i]), distance)
          }
        }
      }
    }
    return best.map { ($0.country, $0.distance) }
  }

  /// Distance to a segment in a local equirectangular projection about the point: within a few tens of
  /// kilometres its error is far below the 12-mile rule's own precision.
  private static func kilometres(
    from point: GeoPoint, toSegment a: (Double, Double), _ b: (Double, Double), cosLatitude: Double,
    kilometresPerDegree: Double
  ) -> Double {
    func x(_ longitude: Double) -> Double {
      var d = longitude - point.longitude
      if d > 180 { d -= 360 } else if d < -180 { d += 360 }
      return d * cosLatitude * kilometresPerDegree
    }
    let ax = x(a.0)
    let ay = (a.1 - point.latitude) * kilometresPerDegree
    let bx = x(b.0)
    let by = (b.1 - point.latitude) * kilometresPerDegree
    let dx = bx - ax
    let dy = by - ay
    let length2 = dx * dx + dy * dy
    let t = length2 > 0 ? max(0, min(1, -(ax * dx + ay * dy) / length2)) : 0
    let cx = ax + t * dx
    let cy = ay + t * dy
    return (cx * cx + cy * cy).squareRoot()
  }

  private func cell(_ point: GeoPoint) -> (Int, Int) {
    let column = Int(((point.longitude + 180) / (360 / Double(columns))).rounded(.down))
    let row = Int(((point.latitude + 90) / (180 / Double(rows))).rounded(.down))
    return (max(0, min(columns - 1, column)), max(0, min(rows - 1, row)))
  }
}

/// Sequential little-endian reads from raw bytes (unaligned-safe).
struct LittleEndianReader {
  let data: UnsafeRawBufferPointer
  var offset = 0

  init(_ data: UnsafeRawBufferPointer) { self.data = data }

  mutating func u16() -> UInt16 {
    defer { offset += 2 }
    return UInt16(littleEndian: data.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
  }

  mutating func u32() -> UInt32 {
    defer { offset += 4 }
    return UInt32(littleEndian: data.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }

  mutating func bytes(_ count: Int) -> [UInt8] {
    defer { offset += count }
    return Array(data[offset..<(offset + count)])
  }
}
