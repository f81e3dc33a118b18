import SeededPoints
import Testing

@testable import GeoIndex

#if canImport(Glibc)
  import Glibc
#endif

/// The distance's own sine and arcsine kernels against libm, which they replaced for speed.
@Suite struct GreatCircleKernelTests {
  /// The haversine formula on libm's `sin`, `cos` and `asin`: what `distanceKilometers` computed before.
  static func libmKilometers(_ a: GeoPoint, _ b: GeoPoint) -> Double {
    let radians = Double.pi / 180
    let sinHalfLatitude = sin((b.latitude - a.latitude) * radians / 2)
    let sinHalfLongitude = sin((b.longitude - a.longitude) * radians / 2)
    let h =
      sinHalfLatitude * sinHalfLatitude
      + cos(a.latitude * radians) * cos(b.latitude * radians) * sinHalfLongitude * sinHalfLongitude
    return 2 * GreatCircle.earthRadiusKilometers * asin(min(1, max(0, h)).squareRoot())
  }

  @Test func distancesAgreeWithLibm() {
    let a = SeededSpherePoints.make(count: 100_000, seed: 91)
    var b = SeededSpherePoints.make(count: 100_000, seed: 92)
    // Short hops too (metres to kilometres), where the haversine's conditioning matters.
    for i in stride(from: 0, to: b.count, by: 3) {
      let scale = [1e-7, 1e-4, 1e-2][i % 9 / 3]
      b[i] = GeoPoint(
        uncheckedLatitude: min(90, max(-90, a[i].latitude + scale * (b[i].latitude / 90))),
        longitude: min(180, max(-180, a[i].longitude + scale * (b[i].longitude / 180))))
    }
    var worst = 0.0
    for (p, q) in zip(a, b) {
      let ours = GreatCircle.distanceKilometers(from: p, to: q)
      let reference = Self.libmKilometers(p, q)
      // Both are within a few ulps of the true value; the bound allows for both roundings. Near antipodes
      // the haversine itself is ill-conditioned (asin's slope grows without bound towards 1), so there an
      // ulp of the haversine moves either answer by up to a few tenths of a micrometre.
      let error = abs(ours - reference) / max(reference, 1e-9)
      if reference < 19_000 {
        worst = max(worst, error)
        #expect(error <= 1e-14, "(\(p.latitude), \(p.longitude)) to (\(q.latitude), \(q.longitude))")
      } else {
        #expect(
          abs(ours - reference) <= 1e-6, "(\(p.latitude), \(p.longitude)) to (\(q.latitude), \(q.longitude))")
      }
    }
    print("worst relative difference from libm: \(worst)")
  }

  /// The initial bearing on libm's `sin`, `cos` and `atan2`: what `initialBearingDegrees` computed before.
  static func libmBearing(_ a: GeoPoint, _ b: GeoPoint) -> Double {
    let radians = Double.pi / 180
    let deltaLongitude = (b.longitude - a.longitude) * radians
    let y = sin(deltaLongitude) * cos(b.latitude * radians)
    let x =
      cos(a.latitude * radians) * sin(b.latitude * radians) - sin(a.latitude * radians)
      * cos(b.latitude * radians) * cos(deltaLongitude)
    if x == 0 && y == 0 { return 0 }
    let degrees = atan2(y, x) / radians
    let normalized = degrees < 0 ? degrees + 360 : degrees
    return normalized >= 360 ? 0 : normalized
  }

  @Test func bearingsAgreeWithLibm() {
    let a = SeededSpherePoints.make(count: 100_000, seed: 93)
    let b = SeededSpherePoints.make(count: 100_000, seed: 94)
    var worst = 0.0
    for (p, q) in zip(a, b) {
      let ours = GreatCircle.initialBearingDegrees(from: p, to: q)
      let reference = Self.libmBearing(p, q)
      // Due north is 0 one way and just under 360 the other: compare around the circle.
      var difference = abs(ours - reference)
      difference = min(difference, 360 - difference)
      worst = max(worst, difference)
      #expect(ours >= 0 && ours < 360)
      #expect(difference <= 1e-11, "(\(p.latitude), \(p.longitude)) to (\(q.latitude), \(q.longitude))")
    }
    print("worst bearing difference from libm: \(worst) degrees")
    // The compass points, a point to itself, and from the poles (where north is undefined, libm's answer).
    let origin = GeoPoint(uncheckedLatitude: 0, longitude: 0)
    #expect(
      GreatCircle.initialBearingDegrees(from: origin, to: GeoPoint(uncheckedLatitude: 10, longitude: 0)) == 0)
    #expect(
      GreatCircle.initialBearingDegrees(from: origin, to: GeoPoint(uncheckedLatitude: 0, longitude: 10)) == 90
    )
    #expect(
      GreatCircle.initialBearingDegrees(from: origin, to: GeoPoint(uncheckedLatitude: -10, longitude: 0))
        == 180)
    #expect(
      GreatCircle.initialBearingDegrees(from: origin, to: GeoPoint(uncheckedLatitude: 0, longitude: -10))
        == 270)
    let paris = GeoPoint(uncheckedLatitude: 48.85, longitude: 2.35)
    #expect(GreatCircle.initialBearingDegrees(from: paris, to: paris) == 0)
    for pole in [90.0, -90.0] {
      for longitude in [-180.0, -45.0, 0.0, 120.0] {
        let from = GeoPoint(uncheckedLatitude: pole, longitude: longitude)
        let ours = GreatCircle.initialBearingDegrees(from: from, to: paris)
        let reference = Self.libmBearing(from, paris)
        #expect(min(abs(ours - reference), 360 - abs(ours - reference)) <= 1e-9)
      }
    }
  }

  @Test func arctangentAgreesWithLibm() {
    var worst = 0.0
    // Every octant and both signed zeros, on a grid of angles and of ratios near 0, 1 and the k/8 seams.
    var pairs: [(Double, Double)] = []
    for i in 0..<100_000 {
      let angle = -Double.pi + 2 * Double.pi * Double(i) / 100_000
      pairs.append((sin(angle) * 3.7, cos(angle) * 3.7))
    }
    for k in 0...8 {
      for d in [-1e-15, -1e-9, 0, 1e-9, 1e-15] { pairs.append((Double(k) / 8 + d, 1)) }
    }
    pairs += [(0, 1), (-0.0, 1), (0, -1), (-0.0, -1), (1, 0), (-1, 0), (1e-300, 1), (1, 1e-300)]
    for (y, x) in pairs {
      let ours = GreatCircle.arctangent(y, x)
      let reference = atan2(y, x)
      worst = max(worst, abs(ours - reference) / max(abs(reference), .leastNormalMagnitude))
      #expect(ours.sign == reference.sign, "atan2(\(y), \(x))")
    }
    #expect(worst <= 5e-16)  // two ulps
  }

  @Test func arcsineAgreesWithLibmOnAGrid() {
    var worst = 0.0
    // A grid of y (the short branch below ½, the long one above) and of h near 0, where y = √h is tiny.
    let grid = (0...200_000).map { Double($0) / 200_000 } + (1...1000).map { Double($0) * 1e-12 }
    for y in grid {
      let h = y * y
      let error =
        abs(GreatCircle.arcsine(squareRootOf: h) - asin(h.squareRoot()))
        / max(asin(h.squareRoot()), .leastNormalMagnitude)
      worst = max(worst, error)
    }
    #expect(worst <= 1e-15)  // a few ulps
    #expect(GreatCircle.arcsine(squareRootOf: 0) == 0)
    #expect(GreatCircle.arcsine(squareRootOf: 1) == Double.pi / 2)
  }

  @Test func sineAgreesWithLibm() {
    var worst = 0.0
    for i in 0...100_000 {
      let x = Double(i) / 100_000 * Double.pi / 2
      let ours = GreatCircle.sine(radians: SIMD4(repeating: x))
      worst = max(worst, abs(ours[0] - sin(x)) / max(sin(x), .leastNormalMagnitude))
    }
    #expect(worst <= 4e-16)
    #expect(GreatCircle.cosine(latitudeDegrees: 90) == 0)
    #expect(GreatCircle.cosine(latitudeDegrees: -90) == 0)
    #expect(GreatCircle.cosine(latitudeDegrees: 0) == 1)
  }

  @Test func specialDistances() throws {
    let a = try GeoPoint(latitude: 33.5, longitude: -120)
    let antipode = try GeoPoint(latitude: -33.5, longitude: 60)
    #expect(
      abs(GreatCircle.distanceKilometers(from: a, to: antipode) - GreatCircle.antipodalDistanceKilometers)
        < 1e-9)
    #expect(GreatCircle.distanceKilometers(from: a, to: a) == 0)
    let pole1 = try GeoPoint(latitude: 90, longitude: 10)
    let pole2 = try GeoPoint(latitude: 90, longitude: -170)
    #expect(GreatCircle.distanceKilometers(from: pole1, to: pole2) == 0)
    let east = try GeoPoint(latitude: 0, longitude: 180)
    let west = try GeoPoint(latitude: 0, longitude: -180)
    #expect(GreatCircle.distanceKilometers(from: east, to: west) < 1e-12)
  }
}
