import SeededPoints
import Testing

@testable import GeoIndex

/// The two- and four-query kernels against the one-query ones they must equal bit for bit (the batch `nearest` of the
/// Python package answers with them; `newsatlas nearest` and the service with the one-query versions).
@Suite struct GreatCirclePairsTests {
  /// Bearings from `from` towards `to`, two at a time, against one at a time: every bit the same.
  static func expectPairsEqualSingles(from: [GeoPoint], to: [GeoPoint], _ what: String) {
    for i in stride(from: 0, to: from.count - 1, by: 2) {
      let targets = (BearingTarget(to[i]), BearingTarget(to[i + 1]))
      let pair = GreatCircle.initialBearingDegrees(from: (from[i], from[i + 1]), to: targets)
      let first = GreatCircle.initialBearingDegrees(from: from[i], to: targets.0)
      let second = GreatCircle.initialBearingDegrees(from: from[i + 1], to: targets.1)
      #expect(
        pair.0.bitPattern == first.bitPattern && pair.1.bitPattern == second.bitPattern,
        "\(what): (\(from[i]), \(from[i + 1])) to (\(to[i]), \(to[i + 1])): \(pair) against (\(first), \(second))"
      )
    }
  }

  /// Bearings four at a time (the batch `nearest`'s kernel) against one at a time: every bit the same, in
  /// every lane.
  static func expectQuadsEqualSingles(from: [GeoPoint], to: [GeoPoint], _ what: String) {
    for i in stride(from: 0, to: from.count - 3, by: 4) {
      let targets = (
        BearingTarget(to[i]), BearingTarget(to[i + 1]), BearingTarget(to[i + 2]), BearingTarget(to[i + 3])
      )
      let quad = GreatCircle.initialBearingDegrees(
        from: (from[i], from[i + 1], from[i + 2], from[i + 3]), to: targets)
      let singles = [
        GreatCircle.initialBearingDegrees(from: from[i], to: targets.0),
        GreatCircle.initialBearingDegrees(from: from[i + 1], to: targets.1),
        GreatCircle.initialBearingDegrees(from: from[i + 2], to: targets.2),
        GreatCircle.initialBearingDegrees(from: from[i + 3], to: targets.3),
      ]
      #expect(
        (0..<4).allSatisfy { quad[$0].bitPattern == singles[$0].bitPattern },
        "\(what): from \(from[i..<i + 4]) to \(to[i..<i + 4]): \(quad) against \(singles)")
    }
  }

  @Test(arguments: [95, 96, 97])
  func seededBearingsEqualOneAtATime(seed: Int) {
    let from = SeededSpherePoints.make(count: 50_000, seed: UInt32(seed))
    let to = SeededSpherePoints.make(count: 50_000, seed: UInt32(seed + 100))
    Self.expectPairsEqualSingles(from: from, to: to, "seed \(seed)")
    Self.expectQuadsEqualSingles(from: from, to: to, "seed \(seed)")
    // Shifted by one, so that each point meets other neighbours in the vector.
    Self.expectQuadsEqualSingles(
      from: Array(from.dropFirst()), to: Array(to.dropFirst()), "seed \(seed), shifted")
  }

  /// Poles (where north is undefined), the antimeridian, duplicates (a point to itself: 0), antipodes, the
  /// compass points, and each beside every other in both lanes.
  @Test func edgeCasesEqualOneAtATime() {
    let places: [(Double, Double)] = [
      (90, 0), (90, 180), (-90, -180), (-90, 45), (0, 180), (0, -180), (10, 179.999999), (10, -179.999999),
      (0, 0), (10, 0), (0, 10), (-10, 0), (0, -10), (48.85, 2.35), (-48.85, -177.65), (45, 90), (-45, -90),
      (89.9999999, 1e-9), (-1e-300, 0), (1e-300, -0.0), (0, 90), (0, -90), (66.5, 180), (-66.5, 0),
    ]
    let points = places.map { GeoPoint(uncheckedLatitude: $0.0, longitude: $0.1) }
    var from: [GeoPoint] = []
    var to: [GeoPoint] = []
    for a in points {
      for b in points {
        // Every ordered pair lands once in each lane.
        from += [a, b]
        to += [b, a]
        from += [b, a]
        to += [a, a]
      }
    }
    Self.expectPairsEqualSingles(from: from, to: to, "edge cases")
    Self.expectQuadsEqualSingles(from: from, to: to, "edge cases")
    Self.expectQuadsEqualSingles(
      from: Array(from.dropFirst(2)), to: Array(to.dropFirst(2)), "edge cases, shifted")
    // A duplicate's bearing is 0 in either lane, and antipodes' are what one call gives.
    let paris = GeoPoint(uncheckedLatitude: 48.85, longitude: 2.35)
    let antipode = GeoPoint(uncheckedLatitude: -48.85, longitude: -177.65)
    let pair = GreatCircle.initialBearingDegrees(
      from: (paris, paris), to: (BearingTarget(paris), BearingTarget(antipode)))
    #expect(pair.0 == 0)
    #expect(pair.1 == GreatCircle.initialBearingDegrees(from: paris, to: antipode))
  }

  /// The four-lane sine and cosine against the one-lane one, on the whole range the bearings use and on the
  /// quadrant seams.
  @Test func sineCosineOnFourLanesEqualsOneLane() {
    var degrees: [Double] = (0..<100_000).map { -540 + Double($0) * 1080 / 100_000 }
    for seam in stride(from: -540.0, through: 540, by: 45) { degrees += [seam.nextDown, seam, seam.nextUp] }
    while degrees.count % 4 != 0 { degrees.append(0) }
    for i in stride(from: 0, to: degrees.count, by: 4) {
      let lanes = SineCosine.ofDegrees(SIMD4(degrees[i], degrees[i + 1], degrees[i + 2], degrees[i + 3]))
      for lane in 0..<4 {
        let one = SineCosine.ofDegrees(degrees[i + lane])
        #expect(
          lanes.sin[lane].bitPattern == one.sin.bitPattern
            && lanes.cos[lane].bitPattern == one.cos.bitPattern,
          "\(degrees[i + lane])°")
      }
    }
  }
}
