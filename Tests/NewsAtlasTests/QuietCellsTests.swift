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

  /// `locate` as it was: the walk, then the territorial sea searched one cell (one binary search) at a time.
  static func reference(_ point: GeoPoint) -> CountryBoundaries.Location {
    let b = boundaries
    if let inside = b.country(containing: point) { return .inside(inside) }
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
          if distance <= limit && (best == nil || distance < best!.distance) { best = (country, distance) }
        }
      }
    }
    if let best { return .territorialSea(best.country, distanceKilometers: best.distance) }
    return .nowhere
  }

  @Test func uniformPointsAnswerAsBefore() {
    var points = SeededSpherePoints(seed: 2911)
    let quiet = Self.boundaries.quiet.built()
    var shortcuts = 0
    for _ in 0..<200_000 {
      let point = points.next()!
      let (column, row) = Self.boundaries.cell(point)
      if quiet.crossesNoBorder(row * Self.boundaries.columns + column) { shortcuts += 1 }
      #expect(Self.boundaries.locate(point) == Self.reference(point), "seed 2911: \(point)")
    }
    // Most of the earth is answered from the grid (the shortcut is taken, and what is checked above).
    #expect(shortcuts > 150_000)
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
        guard quiet.crossesNoBorder(cell), quiet.isFarFromEveryCoast(cell) else { continue }
        var edge = false
        for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
          let r = row + dr
          let c = (column + dc + columns) % columns
          if r >= 0 && r < rows && !quiet.isFarFromEveryCoast(r * columns + c) { edge = true }
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
