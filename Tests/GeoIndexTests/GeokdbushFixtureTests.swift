import GeoIndex
import Testing

/// The tree against geokdbush 2.1.0's answers for the shared 10k points and 1k queries.
///
/// geokdbush uses an earth radius of 6371 km and we use 6371.0088 km, so its distances are scaled before
/// comparing, and its 500 km radius becomes the same angle in our kilometres.
@Suite struct GeokdbushFixtureTests {
  static let scale = GreatCircle.earthRadiusKilometers / 6371

  let tree: SphericalKDTree
  let queries: [GeoPoint]
  let fixture: File

  struct File: Decodable {
    struct Single: Decodable { let results: [[Double]] }
    struct Many: Decodable { let results: [[[Double]]] }
    let nearest1: Single
    let nearest10: Many
    let within500km: Many
  }

  init() throws {
    tree = SphericalKDTree(points: try Fixtures.points("points-10k.json"))
    queries = try Fixtures.points("nn/queries-1k.json")
    fixture = try Fixtures.decode(File.self, "nn/geokdbush-around-10k.json")
  }

  @Test func nearestOneForAllThousandQueries() {
    let expected = fixture.nearest1.results.map { [$0] }
    #expect(expected.count == 1000)
    for (query, answer) in zip(queries, expected) {
      let found = tree.nearest(to: query)
      #expect(found?.index == Int(answer[0][0]))
      let distance = answer[0][1] * Self.scale
      #expect(abs((found?.distanceKilometers ?? .nan) - distance) <= 1e-6 * distance)
    }
  }

  @Test func nearestTen() {
    let expected = fixture.nearest10.results
    #expect(expected.count == 100)
    for (query, answer) in zip(queries, expected) {
      let found = tree.neighbors(of: query, count: 10)
      #expect(found.map(\.index) == answer.map { Int($0[0]) })
      for (f, a) in zip(found, answer) {
        #expect(abs(f.distanceKilometers - a[1] * Self.scale) <= 1e-6 * a[1] * Self.scale)
      }
    }
  }

  @Test func within500Kilometres() {
    let expected = fixture.within500km.results
    #expect(expected.count == 100)
    for (query, answer) in zip(queries, expected) {
      let found = tree.points(withinKilometers: 500 * Self.scale, of: query)
      #expect(found.map(\.index) == answer.map { Int($0[0]) })
    }
  }
}
