import GeoIndex
import SeededPoints
import Testing

/// The tree against a brute-force scan over the same distance function, on seeded random sets salted with the
/// awkward cases: both poles at several longitudes, both sides of the antimeridian, exact duplicates,
/// near-duplicates a nanodegree apart, and queries at exact antipodes.
@Suite struct SphericalKDTreeOracleTests {
  struct Case: CustomTestStringConvertible, Sendable {
    let size: Int
    let seed: UInt32
    let randomQueries: Int
    var testDescription: String { "n=\(size) seed=\(seed)" }
  }

  static let cases = [
    Case(size: 0, seed: 11, randomQueries: 20),
    Case(size: 1, seed: 12, randomQueries: 50),
    Case(size: 2, seed: 13, randomQueries: 50),
    Case(size: 54, seed: 14, randomQueries: 300),
    Case(size: 10_000, seed: 15, randomQueries: 200),
    Case(size: 100_000, seed: 16, randomQueries: 40),
  ]

  @Test(arguments: cases)
  func agreesWithBruteForce(_ c: Case) throws {
    let points = Self.pointSet(size: c.size, seed: c.seed)
    let tree = SphericalKDTree(points: points)
    #expect(tree.count == points.count)
    let queries = Self.queries(for: points, random: c.randomQueries, seed: c.seed &+ 1000)
    var generator = SeededSpherePoints(seed: c.seed &+ 2000)
    for query in queries {
      let expected = BruteForce.sorted(points, from: query)
      let context: Comment = "seed \(c.seed), n \(c.size), query (\(query.latitude), \(query.longitude))"
      #expect(tree.nearest(to: query) == expected.first, context)
      for k in [1, 3, 17] {
        #expect(tree.neighbors(of: query, count: k) == Array(expected.prefix(k)), context)
      }
      let radius = [0, 0.0005, 150, 2500, 20_015.2, generator.nextUnit() * 21_000][
        Int(generator.nextWord() % 6)]
      #expect(
        tree.points(withinKilometers: radius, of: query)
          == expected.filter { $0.distanceKilometers <= radius }, "\(context), radius \(radius)")
      let cap = generator.nextUnit() * 3000
      #expect(
        tree.neighbors(of: query, count: 5, maxDistanceKilometers: cap)
          == Array(expected.filter { $0.distanceKilometers <= cap }.prefix(5)), "\(context), cap \(cap)")
    }
  }

  @Test func manyDuplicatesTieByLowestIndex() throws {
    let paris = try GeoPoint(latitude: 48.8566, longitude: 2.3522)
    let points =
      Array(repeating: paris, count: 500) + SeededSpherePoints.make(count: 500, seed: 7)
      + Array(repeating: paris, count: 500)
    let tree = SphericalKDTree(points: points, leafSize: 3)
    #expect(tree.nearest(to: paris) == Neighbor(index: 0, distanceKilometers: 0))
    let ten = tree.neighbors(of: paris, count: 10)
    #expect(ten.map(\.index) == Array(0..<10))
    #expect(tree.points(withinKilometers: 0, of: paris).map(\.index) == Array(0..<500) + Array(1000..<1500))
  }

  @Test func polesAtEveryLongitudeAreOnePlace() throws {
    let poles = try [-180.0, -90, 0, 45, 180].map { try GeoPoint(latitude: 90, longitude: $0) }
    let tree = SphericalKDTree(points: poles)
    let query = try GeoPoint(latitude: 90, longitude: 10)
    #expect(tree.nearest(to: query)?.index == 0)
    #expect(tree.points(withinKilometers: 1e-9, of: query).count == 5)
  }

  @Test func antipodesAreHalfTheCircumferenceAway() throws {
    let a = try GeoPoint(latitude: 33.5, longitude: -120)
    let b = try GeoPoint(latitude: -33.5, longitude: 60)
    let distance = GreatCircle.distanceKilometers(from: a, to: b)
    #expect(abs(distance - GreatCircle.antipodalDistanceKilometers) < 1e-6)
    #expect(!distance.isNaN)
  }

  // MARK: - Inputs

  static func pointSet(size: Int, seed: UInt32) -> [GeoPoint] {
    var points = SeededSpherePoints.make(count: size, seed: seed)
    guard size >= 20 else { return points }
    var words = SeededSpherePoints(seed: seed &+ 500)
    func slot() -> Int { Int(words.nextWord() % UInt32(size)) }
    let specials: [GeoPoint] = [
      GeoPoint(uncheckedLatitude: 90, longitude: 0), GeoPoint(uncheckedLatitude: 90, longitude: 137),
      GeoPoint(uncheckedLatitude: -90, longitude: -180), GeoPoint(uncheckedLatitude: -90, longitude: 12),
      GeoPoint(uncheckedLatitude: 10, longitude: 180), GeoPoint(uncheckedLatitude: 10, longitude: -180),
      GeoPoint(uncheckedLatitude: -65.25, longitude: 179.999_999),
      GeoPoint(uncheckedLatitude: -65.25, longitude: -179.999_999),
    ]
    for special in specials { points[slot()] = special }
    for _ in 0..<(size / 20) { points[slot()] = points[slot()] }  // exact duplicates
    let anchor = points[slot()]
    for i in 0..<min(12, size / 4) {  // near-duplicates, a nanodegree apart
      points[slot()] = GeoPoint(
        uncheckedLatitude: anchor.latitude + Double(i % 3) * 1e-9,
        longitude: anchor.longitude + Double(i / 3) * 1e-9 * (anchor.longitude > 0 ? -1 : 1))
    }
    return points
  }

  static func queries(for points: [GeoPoint], random: Int, seed: UInt32) -> [GeoPoint] {
    var queries = SeededSpherePoints.make(count: random, seed: seed)
    queries += [
      GeoPoint(uncheckedLatitude: 90, longitude: 0), GeoPoint(uncheckedLatitude: -90, longitude: 77),
      GeoPoint(uncheckedLatitude: 0, longitude: 180), GeoPoint(uncheckedLatitude: 0, longitude: -180),
      GeoPoint(uncheckedLatitude: 51.5, longitude: 180), GeoPoint(uncheckedLatitude: -41, longitude: -180),
      GeoPoint(uncheckedLatitude: 0, longitude: 0),
    ]
    for point in points.prefix(40) {
      queries.append(point)  // on a point (and its duplicates)
      queries.append(  // its exact antipode
        GeoPoint(
          uncheckedLatitude: -point.latitude,
          longitude: point.longitude > 0 ? point.longitude - 180 : point.longitude + 180))
    }
    return queries
  }
}

/// The oracle: every distance, sorted nearest first, ties by lowest index.
enum BruteForce {
  static func sorted(_ points: [GeoPoint], from query: GeoPoint) -> [Neighbor] {
    points.enumerated()
      .map {
        Neighbor(
          index: $0.offset, distanceKilometers: GreatCircle.distanceKilometers(from: query, to: $0.element))
      }
      .sorted {
        $0.distanceKilometers < $1.distanceKilometers
          || ($0.distanceKilometers == $1.distanceKilometers && $0.index < $1.index)
      }
  }
}
