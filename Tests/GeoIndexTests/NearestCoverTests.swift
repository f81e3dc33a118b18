import SeededPoints
import Testing

@testable import GeoIndex

#if canImport(Glibc)
  import Glibc
#endif

/// The small-tree grid (`NearestCover`) against the brute-force oracle, where it is most likely to go wrong:
/// on cell edges and corners, on Voronoi edges that run along grid lines (exact ties), at the poles and the
/// antimeridian, and at the size limit where trees stop building a cover.
@Suite struct NearestCoverTests {
  /// Queries on every kind of grid line: integer degrees, a hair either side of them, and random points.
  static func gridQueries(seed: UInt32, random: Int) -> [GeoPoint] {
    var queries = SeededSpherePoints.make(count: random, seed: seed)
    var words = SeededSpherePoints(seed: seed &+ 1)
    for _ in 0..<random {
      let latitude = Double(Int(words.nextWord() % 181)) - 90
      let longitude = Double(Int(words.nextWord() % 361)) - 180
      for (dLat, dLon) in [(0.0, 0.0), (1e-12, 0), (-1e-12, 0), (0, 1e-12), (0, -1e-12), (0.5, 0.5)] {
        queries.append(
          GeoPoint(
            uncheckedLatitude: min(90, max(-90, latitude + dLat)),
            longitude: min(180, max(-180, longitude + dLon))))
      }
    }
    return queries
  }

  @Test(arguments: [1, 2, 3, 7, 54, 256, 257])
  func agreesWithBruteForce(size: Int) {
    let points = SphericalKDTreeOracleTests.pointSet(size: size, seed: UInt32(size) &+ 40)
    let tree = SphericalKDTree(points: points)
    #expect((tree.cover != nil) == (size <= SphericalKDTree.coverLimit))
    for query in Self.gridQueries(seed: UInt32(size) &+ 41, random: 600) {
      #expect(
        tree.nearest(to: query) == BruteForce.sorted(points, from: query).first,
        "n \(size), query (\(query.latitude), \(query.longitude))")
    }
  }

  /// Four queries at once (the cells read together, the haversines in the lanes of vectors) answer as four
  /// single queries, to the bit: on grid lines, in cells with lists, at the poles and the antimeridian, at -0;
  /// without a cover (257 points) by the single queries themselves.
  @Test(arguments: [1, 2, 54, 256, 257])
  func fourAtOnceAnswerAsOneAtATime(size: Int) {
    let points = SphericalKDTreeOracleTests.pointSet(size: size, seed: UInt32(size) &+ 40)
    let tree = SphericalKDTree(points: points)
    var queries = Self.gridQueries(seed: UInt32(size) &+ 43, random: 400)
    for (latitude, longitude) in [(90.0, 0.0), (-90.0, 180.0), (-0.0, -0.0), (0.0, -180.0), (45.0, 180.0)] {
      queries.append(GeoPoint(uncheckedLatitude: latitude, longitude: longitude))
    }
    var lists = 0
    for start in stride(from: 0, to: queries.count - 3, by: 4) {
      let q = (queries[start], queries[start + 1], queries[start + 2], queries[start + 3])
      let four = tree.nearest(to: q)!
      let one = [
        tree.nearest(to: q.0)!, tree.nearest(to: q.1)!, tree.nearest(to: q.2)!, tree.nearest(to: q.3)!,
      ]
      #expect([four.0, four.1, four.2, four.3] == one, "n \(size), queries from \(start)")
      for query in [q.0, q.1, q.2, q.3] {
        if let cover = tree.cover,
          let cell = NearestCover.cell(latitude: query.latitude, longitude: query.longitude),
          cover.cells[cell] & NearestCover.listFlag != 0
        {
          lists += 1
        }
      }
    }
    if size >= 54 && size <= SphericalKDTree.coverLimit { #expect(lists > 100) }
    #expect(SphericalKDTree(points: []).nearest(to: (queries[0], queries[1], queries[2], queries[3])) == nil)
  }

  /// Pairs mirrored about a meridian or a parallel on a whole degree: every query on that line is an exact
  /// tie, which must go to the lower index as a brute-force scan decides, from either side's cell.
  @Test func tiesOnGridLinesGoToTheLowestIndex() {
    let points = [
      GeoPoint(uncheckedLatitude: 10, longitude: 22), GeoPoint(uncheckedLatitude: 10, longitude: 20),
      GeoPoint(uncheckedLatitude: -40, longitude: 179), GeoPoint(uncheckedLatitude: -40, longitude: -179),
      GeoPoint(uncheckedLatitude: 60, longitude: -100), GeoPoint(uncheckedLatitude: 60, longitude: -100),
      GeoPoint(uncheckedLatitude: 89, longitude: 45), GeoPoint(uncheckedLatitude: 89, longitude: -135),
    ]
    let tree = SphericalKDTree(points: points)
    var queries: [GeoPoint] = []
    for step in 0...40 {
      let t = Double(step) / 4
      queries.append(GeoPoint(uncheckedLatitude: 0 + t, longitude: 21))  // between 0 and 1
      queries.append(GeoPoint(uncheckedLatitude: -40 - t, longitude: 180))  // between 2 and 3
      queries.append(GeoPoint(uncheckedLatitude: -40 + t, longitude: -180))
      queries.append(GeoPoint(uncheckedLatitude: 60, longitude: -100 + t / 10))  // duplicates 4 and 5
      queries.append(GeoPoint(uncheckedLatitude: 90 - t / 10, longitude: -45))  // between 6 and 7
    }
    for query in queries {
      let expected = BruteForce.sorted(points, from: query)
      #expect(tree.nearest(to: query) == expected.first, "query (\(query.latitude), \(query.longitude))")
    }
    #expect(tree.nearest(to: GeoPoint(uncheckedLatitude: 5, longitude: 21))?.index == 0)
    #expect(tree.nearest(to: GeoPoint(uncheckedLatitude: 60, longitude: -100))?.index == 4)
  }

  /// Every cell's list is checked directly: for sample points all over the cell, the brute-force nearest is
  /// in the list (a list may hold more, never less).
  @Test func everyCellListsItsNearestPoints() throws {
    let points = SeededSpherePoints.make(count: 54, seed: 77)
    let tree = SphericalKDTree(points: points)
    let cover = try #require(tree.cover)
    var single = 0
    for row in 0..<NearestCover.rows {
      for column in stride(from: row % 13, to: NearestCover.columns, by: 13) {
        let candidates = cover.candidates(inCell: row * NearestCover.columns + column)
        if candidates.count == 1 { single += 1 }
        #expect(candidates == candidates.sorted())
        let listed = Set(candidates)
        for (u, v) in [(0.0, 0.0), (1, 1), (0, 1), (1, 0), (0.5, 0.5), (0.25, 0.75)] {
          let query = GeoPoint(
            uncheckedLatitude: -90 + Double(row) + u, longitude: -180 + Double(column) + v)
          let nearest = BruteForce.sorted(points, from: query)[0].index
          #expect(
            listed.contains(nearest), "cell \(row), \(column), query (\(query.latitude), \(query.longitude))")
        }
      }
    }
    // Most cells hold one point: the reason the cover exists.
    #expect(single * 10 > 8 * (NearestCover.rows * NearestCover.columns / 13))
  }
}

/// The build on several threads makes the very tree one thread makes.
@Suite struct ParallelBuildTests {
  @Test(arguments: [4])
  func threadsDoNotChangeTheTree(threads: Int) {
    // Over twice the size at which a build forks, so that two levels split between threads.
    let points = SphericalKDTreeOracleTests.pointSet(size: 140_000, seed: 61)
    let one = SphericalKDTree(points: points, threads: 1)
    let many = SphericalKDTree(points: points, threads: threads)
    #expect(one.indices == many.indices)
    #expect(one.xs == many.xs && one.ys == many.ys && one.zs == many.zs)
    #expect(one.splitValues == many.splitValues && one.splitAxes == many.splitAxes)
    for query in SeededSpherePoints.make(count: 20, seed: 62) {
      let nearest = points.indices.min {
        (GreatCircle.distanceKilometers(from: query, to: points[$0]), $0)
          < (GreatCircle.distanceKilometers(from: query, to: points[$1]), $1)
      }
      #expect(many.nearest(to: query)?.index == nearest)
    }
  }
}
