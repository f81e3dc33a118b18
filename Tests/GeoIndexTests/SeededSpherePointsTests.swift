import GeoIndex
import SeededPoints
import Testing

@Suite struct SeededSpherePointsTests {
  @Test func reproducesTheFixtureGenerator() throws {
    let fixture = try Fixtures.points("points-10k.json")
    let generated = SeededSpherePoints.make(count: fixture.count, seed: 1)
    for (a, b) in zip(fixture, generated) {
      #expect(a.longitude == b.longitude)
      #expect(abs(a.latitude - b.latitude) <= 1e-12)
    }
  }
}
