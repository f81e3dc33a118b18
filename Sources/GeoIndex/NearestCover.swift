#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// For a tree of a few points: a grid of 1° × 1° cells over latitude and longitude, each listing every point
/// that can be the nearest somewhere in the cell (a cover of the spherical Voronoi diagram).
///
/// Most cells lie inside one point's Voronoi region and hold that point alone, so most nearest queries are one
/// array read and one exact distance, with no comparison at all. A cell's list is a proven superset: a point is
/// left out only when, by the triangle inequality on the cell's circumscribed cap, it is farther than some
/// other point from everywhere in the cell by more than `margin` (far more than the rounding of any distance
/// here, far less than any gap that matters), so answers and ties stay those of a brute-force scan.
///
/// - Complexity: building is O(cells × candidates) after an O(blocks × n) pass over 6° blocks; memory is 2
///   bytes a cell (130 KB) plus the distinct lists of the cells that straddle a Voronoi edge (288 lists for 54
///   seeded points: most such cells share their list with their neighbours along the edge).
@usableFromInline
struct NearestCover: Sendable {
  @usableFromInline static let rows = 180
  @usableFromInline static let columns = 360
  /// Cells on a side of a block, the first pass's unit.
  static let block = 6
  /// Radians added to every bound: covers the rounding of unit vectors, dots and haversines (≈ 1e-8 at worst).
  static let margin = 1e-5

  /// Per cell: the only candidate's input offset when the high bit is clear; otherwise, with the high bit
  /// cleared, the offset in `lists` of a run (the count, then input offsets in increasing order).
  ///
  /// Two bytes a cell rather than four: the grid is read at a random cell per query, and at half the size it
  /// stays in the L2 cache beside the queries streaming through (the read was half a query's time at 4 bytes).
  @usableFromInline let cells: [UInt16]
  @usableFromInline let lists: [UInt16]
  /// The high bit of a cell: set when the cell has several candidates.
  @usableFromInline static let listFlag: UInt16 = 1 << 15
  /// The points' unit vectors in input order, for ranking a list's candidates.
  @usableFromInline let xs: [Double]
  @usableFromInline let ys: [Double]
  @usableFromInline let zs: [Double]
  /// The points themselves and their `cos φ`, in input order, for the exact distance of the answer.
  @usableFromInline let points: [GeoPoint]
  @usableFromInline let cosLatitudes: [Double]

  /// The cell holding a position, or nil for coordinates outside -90...90 and -180...180 (or NaN).
  @inlinable @inline(__always)
  static func cell(latitude: Double, longitude: Double) -> Int? {
    guard latitude >= -90, latitude <= 90, longitude >= -180, longitude <= 180 else { return nil }
    // The truncation is a floor (both sums are non-negative); the last row and column are closed.
    let row = Swift.min(Int(latitude + 90), rows - 1)
    let column = Swift.min(Int(longitude + 180), columns - 1)
    return row &* columns &+ column
  }

  /// Builds the cover of points, or nil when there are more than 2¹⁵ points or the distinct lists take more
  /// than 2¹⁵ entries.
  init?(points: [GeoPoint]) {
    guard points.count < Int(Self.listFlag) else { return nil }
    let vectors = points.map(SphericalKDTree.unitVector)
    self.points = points
    cosLatitudes = points.map { GreatCircle.cosine(latitudeDegrees: $0.latitude) }
    xs = vectors.map(\.x)
    ys = vectors.map(\.y)
    zs = vectors.map(\.z)

    var cells = [UInt16](repeating: 0, count: Self.rows * Self.columns)
    var lists = [UInt16]()
    var listOffsets = [[UInt16]: UInt16]()
    var list = [UInt16]()
    var blockCandidates = [Int]()  // offsets in input order
    var everyDot = [Double](repeating: 0, count: vectors.count)
    // Cell centres are separable: sines and cosines of each row's and each column's centre, computed once.
    let rowCenters = (0..<Self.rows).map { SineCosine.ofDegrees(-89.5 + Double($0)) }
    let columnCenters = (0..<Self.columns).map { SineCosine.ofDegrees(-179.5 + Double($0)) }
    let cellWidths = (0..<Self.rows).map { Width(radius: Self.radius(rowLow: $0, height: 1, width: 1)) }
    for blockRow in 0..<Self.rows / Self.block {
      let rowLow = blockRow * Self.block
      let blockWidth = Width(radius: Self.radius(rowLow: rowLow, height: Self.block, width: Self.block))
      for blockColumn in 0..<Self.columns / Self.block {
        let columnLow = blockColumn * Self.block
        let center = Self.center(row: rowLow, column: columnLow, height: Self.block, width: Self.block)
        blockCandidates.removeAll(keepingCapacity: true)
        Self.candidates(of: center, width: blockWidth, vectors: vectors, dots: &everyDot) {
          blockCandidates.append($0)
        }
        if blockCandidates.count == 1 {
          let entry = UInt16(blockCandidates[0])
          for row in rowLow..<rowLow + Self.block {
            for column in columnLow..<columnLow + Self.block { cells[row * Self.columns + column] = entry }
          }
          continue
        }
        let local = blockCandidates.map { vectors[$0] }
        var dots = [Double](repeating: 0, count: local.count)
        for row in rowLow..<rowLow + Self.block {
          let latitude = rowCenters[row]
          let width = cellWidths[row]
          for column in columnLow..<columnLow + Self.block {
            let longitude = columnCenters[column]
            let center = SIMD3(latitude.cos * longitude.cos, latitude.cos * longitude.sin, latitude.sin)
            var kept = 0
            var last = 0
            Self.candidates(of: center, width: width, vectors: local, dots: &dots) { j in
              kept += 1
              last = j
            }
            let cell = row * Self.columns + column
            if kept == 1 {
              cells[cell] = UInt16(blockCandidates[last])
              continue
            }
            list.removeAll(keepingCapacity: true)
            list.append(UInt16(kept))
            Self.candidates(of: center, width: width, vectors: local, dots: &dots) { j in
              list.append(UInt16(blockCandidates[j]))
            }
            if let offset = listOffsets[list] {
              cells[cell] = Self.listFlag | offset
            } else {
              guard lists.count + list.count <= Int(Self.listFlag) else { return nil }
              let offset = UInt16(lists.count)
              listOffsets[list] = offset
              cells[cell] = Self.listFlag | offset
              lists.append(contentsOf: list)
            }
          }
        }
      }
    }
    self.cells = cells
    self.lists = lists
  }

  /// The distance from `point` to the point at an input offset, in kilometres: the same arithmetic as
  /// `GreatCircle.distanceKilometers(from:to:)`, with the point's `cos φ` cached (three sines, not four).
  @inlinable @inline(__always)
  func distanceKilometers(from point: GeoPoint, to index: Int) -> Double {
    let sines = GreatCircle.haversineSines(
      latitudeA: point.latitude, latitudeB: points[index].latitude, longitudeA: point.longitude,
      longitudeB: points[index].longitude)
    return GreatCircle.kilometers(
      haversine: GreatCircle.haversine(sines, cosLatitudeB: cosLatitudes[index]))
  }

  /// The input offsets a cell lists, in increasing order.
  func candidates(inCell cell: Int) -> [Int] {
    let entry = cells[cell]
    if entry & Self.listFlag == 0 { return [Int(entry)] }
    let offset = Int(entry & ~Self.listFlag)
    return lists[offset + 1...offset + Int(lists[offset])].map { Int($0) }
  }

  /// How far beyond the nearest point a candidate may be: twice a cap's radius plus the margin, in radians.
  struct Width {
    let radians: Double
    let cosine: Double
    let sine: Double

    init(radius: Double) {
      radians = 2 * radius + NearestCover.margin
      cosine = cos(radians)
      sine = sin(radians)
    }
  }

  /// The unit vector of the centre of the `height` × `width` cells whose south-west cell is (`row`, `column`).
  static func center(row: Int, column: Int, height: Int, width: Int) -> SIMD3<Double> {
    SphericalKDTree.unitVector(
      GeoPoint(
        uncheckedLatitude: -90 + Double(row) + Double(height) / 2,
        longitude: -180 + Double(column) + Double(width) / 2))
  }

  /// The angle from the centre of such a rectangle to its farthest point, in radians.
  ///
  /// The farthest point is a corner: along a parallel the distance grows with the longitude difference, and
  /// along the east or west edge (a meridian arc shorter than π) it is largest at an end. Every rectangle of a
  /// row has the same shape, so the first column stands for all.
  static func radius(rowLow: Int, height: Int, width: Int) -> Double {
    let center = center(row: rowLow, column: 0, height: height, width: width)
    var largest = 0.0
    for corner in [(0, 0), (height, 0), (0, width), (height, width)] {
      let v = SphericalKDTree.unitVector(
        GeoPoint(
          uncheckedLatitude: -90 + Double(rowLow + corner.0), longitude: -180 + Double(corner.1)))
      let d = v - center
      // 2 asin(chord / 2): well conditioned for small angles, unlike acos of a dot product.
      largest = Swift.max(largest, 2 * asin(Swift.min(1, (d * d).sum().squareRoot() / 2)))
    }
    return largest
  }

  /// Calls `keep` with the offset of every vector that can be nearest somewhere in the cap around `center`
  /// that `width` was made for, in the order given (`dots` is scratch space, one a vector).
  ///
  /// With θ the angle from the centre to its nearest point, a point is kept when its own angle from the centre
  /// is at most θ + `width` (twice the cap's radius plus the margin): anything farther is farther than that
  /// nearest point from everywhere in the cap. Angles are compared through their cosines, `cos(θ + w) = cos θ cos w − sin θ sin w`, with
  /// `sin θ` from a cross product (accurate where `1 − cos²` would cancel).
  static func candidates(
    of center: SIMD3<Double>, width: Width, vectors: [SIMD3<Double>], dots: inout [Double],
    _ keep: (Int) -> Void
  ) {
    var bestDot = -Double.infinity
    var best = 0
    for j in vectors.indices {
      let dot = (vectors[j] * center).sum()
      dots[j] = dot
      if dot > bestDot {
        bestDot = dot
        best = j
      }
    }
    var threshold = -Double.infinity
    if width.radians < Double.pi && bestDot > -width.cosine {
      // θ + w is short of π (otherwise every point qualifies).
      let v = vectors[best]
      let cross = SIMD3(
        v.y * center.z - v.z * center.y, v.z * center.x - v.x * center.z, v.x * center.y - v.y * center.x)
      let sinBest = (cross * cross).sum().squareRoot()
      // Rounded down a little further, so that rounding here can only keep more points.
      threshold = bestDot * width.cosine - sinBest * width.sine - 1e-12
    }
    for j in vectors.indices where dots[j] >= threshold { keep(j) }
  }

}
