import GeoIndex
import SeededPoints
import Testing

@testable import NewsAtlas

#if canImport(Glibc)
  import Glibc
#endif

/// `locate`'s shortcut (cells answered from the grid alone) and the territorial sea's search by row ranges,
/// against what they replaced: the walk from the cell's centre everywhere, and a search cell by cell.
@Suite struct QuietCellsTests {
  static let boundaries = Country.boundaries

  /// `locate` as it was: the walk (crossings counted in a dictionary), then the territorial sea searched one
  /// cell (one binary search) at a time, every edge measured.
  static func reference(_ point: GeoPoint) -> CountryBoundaries.Location {
    let b = boundaries
    if let inside = walk(point) { return .inside(inside) }
    return search(point).best.map { .territorialSea($0.country, distanceKilometers: $0.distance) } ?? .nowhere
  }

  /// `country(containing:)` as it was.
  static func walk(_ point: GeoPoint) -> Int? {
    let b = boundaries
    let (column, row) = b.cell(point)
    let base = Int(b.cellCountry[row * b.columns + column]) - 1
    let px = -180 + (Double(column) + 0.5) * (360 / Double(b.columns))
    let py = -90 + (Double(row) + 0.5) * (180 / Double(b.rows))
    let (qx, qy) = (point.longitude, point.latitude)
    var flipped: [Int: Bool] = [:]
    b.forEachEdge(row: row, column: column) { i, country in
      let ax = Double(b.coordinates[2 * i]) * 1e-7
      let ay = Double(b.coordinates[2 * i + 1]) * 1e-7
      let bx = Double(b.coordinates[2 * i + 2]) * 1e-7
      let by = Double(b.coordinates[2 * i + 3]) * 1e-7
      let d1 = (qx - px) * (ay - py) - (qy - py) * (ax - px)
      let d2 = (qx - px) * (by - py) - (qy - py) * (bx - px)
      if (d1 > 0) == (d2 > 0) { return }
      let d3 = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
      let d4 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax)
      if (d3 > 0) == (d4 > 0) { return }
      flipped[country, default: false].toggle()
    }
    if base >= 0 && !(flipped[base] ?? false) { return base }
    return flipped.filter { $0.value && $0.key != base }.keys.min()
  }

  /// The territorial sea's search as it was: the first edge at the least distance within the limit, and
  /// every country with an edge at that distance (more than one: a tie the search's order decides).
  static func search(_ point: GeoPoint) -> (best: (country: Int, distance: Double)?, atBest: Set<Int>) {
    let b = boundaries
    let limit = CountryBoundaries.territorialSeaKilometers
    let kilometresPerDegree = GreatCircle.earthRadiusKilometers * Double.pi / 180
    let latitudeMargin = limit / kilometresPerDegree
    let cosLatitude = cos(point.latitude * Double.pi / 180)
    let longitudeMargin = cosLatitude > 0.01 ? latitudeMargin / cosLatitude : 360
    let columnWidth = 360 / Double(b.columns)
    let rowHeight = 180 / Double(b.rows)
    let r0 = max(0, Int(((point.latitude - latitudeMargin + 90) / rowHeight).rounded(.down)))
    let r1 = min(b.rows - 1, Int(((point.latitude + latitudeMargin + 90) / rowHeight).rounded(.down)))
    let span = min(b.columns, Int((longitudeMargin / columnWidth).rounded(.up)) + 1)
    let (column, _) = b.cell(point)
    var best: (country: Int, distance: Double)? = nil
    var atBest: Set<Int> = []
    for r in r0...r1 {
      for offset in -span...span {
        if 2 * span + 1 > b.columns && offset != -span && offset + span >= b.columns { break }
        let c = ((column + offset) % b.columns + b.columns) % b.columns
        b.forEachEdge(row: r, column: c) { i, country in
          let distance = CountryBoundaries.kilometres(
            from: point,
            toSegment: (Double(b.coordinates[2 * i]) * 1e-7, Double(b.coordinates[2 * i + 1]) * 1e-7),
            (Double(b.coordinates[2 * i + 2]) * 1e-7, Double(b.coordinates[2 * i + 3]) * 1e-7),
            cosLatitude: cosLatitude, kilometresPerDegree: kilometresPerDegree)
          if distance <= limit && (best == nil || distance < best!.distance) {
            best = (country, distance)
            atBest = [country]
          } else if distance == best?.distance {
            atBest.insert(country)
          }
        }
      }
    }
    return (best, atBest)
  }

  @Test func uniformPointsAnswerAsBefore() {
    var points = SeededSpherePoints(seed: 2911)
    let quiet = Self.boundaries.quiet.built()
    var shortcuts = 0
    let seeded = (0..<200_000).map { _ in points.next()! }
    var each: [CountryBoundaries.Location?] = Array(repeating: nil, count: seeded.count)
    Self.boundaries.locateEach(seeded.indices, { seeded[$0] }) { i, location in each[i] = location }
    for (point, batched) in zip(seeded, each) {
      if quiet.isAnsweredFromTheGrid(Self.boundaries.cellIndex(point)) { shortcuts += 1 }
      let reference = Self.reference(point)
      #expect(Self.boundaries.locate(point) == reference, "seed 2911: \(point)")
      #expect(batched == reference, "seed 2911, locateEach: \(point)")
    }
    // Most of the earth is answered from the grid (the shortcut is taken, and what is checked above).
    #expect(shortcuts > 150_000)
  }

  /// The territorial sea's ties: points at sea around the places where two countries' borders meet the coast
  /// (a vertex both rings share), where the nearest edges of both countries are at the same distance to the
  /// bit and the search's order alone decides. The run boxes pass runs over only when they could not win,
  /// so the winner is the reference's; a search that took cells nearest first, or let a later equal edge
  /// win, would fail here.
  @Test func tiesOnSharedCoastsAnswerAsBefore() {
    let b = Self.boundaries
    _ = b.quiet.built()
    // Vertices in rings of two or more countries; of those, the ends of shared stretches (a ring's next or
    // previous vertex is not shared): where a land border meets the coast, and tripoints.
    func key(_ i: Int) -> Int64 {
      Int64(b.coordinates[2 * i]) << 32 | Int64(UInt32(bitPattern: b.coordinates[2 * i + 1]))
    }
    var owners: [Int64: Set<Int>] = [:]
    for ring in b.ringTable {
      for i in ring.start..<(ring.start + ring.count) { owners[key(i), default: []].insert(ring.country) }
    }
    var ends: Set<Int64> = []
    for ring in b.ringTable {
      for i in (ring.start + 1)..<(ring.start + ring.count - 1) where owners[key(i)]!.count > 1 {
        if owners[key(i - 1)]!.count == 1 || owners[key(i + 1)]!.count == 1 { ends.insert(key(i)) }
      }
    }
    var (ties, checked) = (0, 0)
    for end in ends.sorted() {
      let longitude = Double(Int32(truncatingIfNeeded: end >> 32)) * 1e-7
      let latitude = Double(Int32(truncatingIfNeeded: end)) * 1e-7
      for step in 0..<24 {
        for reach in [0.01, 0.04, 0.1, 0.17] {
          let angle = Double(step) * Double.pi / 12
          let (dy, dx) = (reach * sin(angle), reach * cos(angle))
          guard abs(latitude + dy) < 89, abs(longitude + dx) < 180 else { continue }
          let point = GeoPoint(uncheckedLatitude: latitude + dy, longitude: longitude + dx)
          guard Self.walk(point) == nil else { continue }  // at sea
          let found = Self.search(point)
          if found.atBest.count > 1 { ties += 1 }
          checked += 1
          #expect(b.locate(point) == Self.reference(point), "shared vertex: \(point)")
        }
      }
    }
    #expect(ties > 100, "\(ties) ties in \(checked) points at sea")
  }

  /// The cells are built at the call after the threshold, not at start (one `resolve` does not pay for them),
  /// and the answers before and after are the same.
  @Test func builtOnceLocateIsAskedOften() throws {
    let fresh = try CountryBoundaries(data: BoundaryDataTests.embedded)
    var points = SeededSpherePoints(seed: 2913)
    let seeded = (0..<(2 * QuietCellsOnce.threshold)).map { _ in points.next()! }
    let before = seeded.prefix(QuietCellsOnce.threshold - 1).map { fresh.locate($0) }
    #expect(fresh.quiet.cells() == nil)  // the threshold's last call without them
    #expect(fresh.quiet.cells() != nil)
    #expect(seeded.prefix(QuietCellsOnce.threshold - 1).map { fresh.locate($0) } == before)
    #expect(seeded.map { fresh.locate($0) } == seeded.map { Self.reference($0) })
    // A batch of `threshold` points builds them at once (and is answered with them).
    let batch = try CountryBoundaries(data: BoundaryDataTests.embedded)
    var each: [CountryBoundaries.Location?] = Array(repeating: nil, count: QuietCellsOnce.threshold)
    batch.locateEach(0..<QuietCellsOnce.threshold, { seeded[$0] }) { i, location in each[i] = location }
    #expect(batch.quiet.isBuilt)
    #expect(each == seeded.prefix(QuietCellsOnce.threshold).map { Self.reference($0) })
  }

  /// Points at the edge of the shortcut's reach, where a wrong bound would miss a territorial sea: in every
  /// cell marked far from every coast that touches one that is not (at its corners, its centre and seeded
  /// places inside), over the whole grid, poles and antimeridian included.
  @Test func cellsAtTheEdgeOfTheReachAnswerAsBefore() {
    let b = Self.boundaries
    let quiet = b.quiet.built()
    var generator = SplitMix(seed: 2912)
    var checked = 0
    let (columns, rows) = (b.columns, b.rows)
    let width = 360 / Double(columns)
    let height = 180 / Double(rows)
    for row in 0..<rows {
      for column in 0..<columns {
        let cell = row * columns + column
        guard quiet.isFarAtSea(cell) else { continue }
        var edge = false
        for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
          let r = row + dr
          let c = (column + dc + columns) % columns
          if r >= 0 && r < rows && !quiet.isFarAtSea(r * columns + c) { edge = true }
        }
        guard edge else { continue }
        let south = -90 + Double(row) * height
        let west = -180 + Double(column) * width
        var fractions: [(Double, Double)] = [
          (0, 0), (0, 0.999_999), (0.999_999, 0), (0.999_999, 0.999_999), (0.5, 0.5),
        ]
        for _ in 0..<4 { fractions.append((generator.unit(), generator.unit())) }
        for (f, g) in fractions {
          let point = GeoPoint(uncheckedLatitude: south + f * height, longitude: west + g * width)
          #expect(b.locate(point) == Self.reference(point), "seed 2912: \(point)")
          checked += 1
        }
      }
    }
    #expect(checked > 10_000)
  }
}

/// A seeded generator of numbers in 0..<1 (SplitMix64).
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func unit() -> Double {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
  }
}
