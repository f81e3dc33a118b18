extension GreatCircle {
  /// `initialBearingDegrees(from:to:)` for two queries at once, `from.0` towards `to.0` and `from.1` towards
  /// `to.1`: the same operations lane by lane, so the same bits as two calls.
  ///
  /// The single bearing is a chain of dependent operations (sines, then two divisions, then a polynomial) that
  /// leaves most of the processor idle; two independent chains in the lanes of one vector take about the time
  /// of one. For answering arrays of points (the Python package's `nearest`).
  @inlinable
  public static func initialBearingDegrees(
    from a: (GeoPoint, GeoPoint), to b: (BearingTarget, BearingTarget)
  ) -> (Double, Double) {
    let bearings = initialBearingDegrees(
      latitudes: SIMD2(a.0.latitude, a.1.latitude),
      longitudeDifferences: SIMD2(b.0.point.longitude - a.0.longitude, b.1.point.longitude - a.1.longitude),
      sinTargets: SIMD2(b.0.sinLatitude, b.1.sinLatitude),
      cosTargets: SIMD2(b.0.cosLatitude, b.1.cosLatitude),
      bits: SIMD2<UInt64>.self)
    return (bearings[0], bearings[1])
  }

  /// `initialBearingDegrees(from:to:)` for four queries at once, `from[i]` towards `to[i]`: the same bits as
  /// four calls. Two vectors of two chains each, interleaved in one block, so that the processor has the second
  /// pair's work to do while the first pair waits on its divisions.
  @inlinable
  public static func initialBearingDegrees(
    from a: (GeoPoint, GeoPoint, GeoPoint, GeoPoint),
    to b: (BearingTarget, BearingTarget, BearingTarget, BearingTarget)
  ) -> SIMD4<Double> {
    initialBearingDegrees(
      latitudes: SIMD4(a.0.latitude, a.1.latitude, a.2.latitude, a.3.latitude),
      longitudeDifferences: SIMD4(
        b.0.point.longitude - a.0.longitude, b.1.point.longitude - a.1.longitude,
        b.2.point.longitude - a.2.longitude, b.3.point.longitude - a.3.longitude),
      sinTargets: SIMD4(b.0.sinLatitude, b.1.sinLatitude, b.2.sinLatitude, b.3.sinLatitude),
      cosTargets: SIMD4(b.0.cosLatitude, b.1.cosLatitude, b.2.cosLatitude, b.3.cosLatitude),
      bits: SIMD4<UInt64>.self)
  }

  /// The bearings lane by lane from points at `latitudes` towards targets whose latitudes have the sines and
  /// cosines given, `longitudeDifferences` east of them (target minus point): the operations of
  /// `initialBearingDegrees(from:to:)`, one query a lane. `Bits` is the unsigned vector of as many lanes.
  @inlinable @inline(__always)
  static func initialBearingDegrees<Lanes: SIMD, Bits: SIMD>(
    latitudes: Lanes, longitudeDifferences: Lanes, sinTargets: Lanes, cosTargets: Lanes, bits: Bits.Type
  ) -> Lanes where Lanes.Scalar == Double, Bits.Scalar == UInt64 {
    let latitude = SineCosine.ofDegrees(lanes: latitudes, bits: bits)
    let difference = SineCosine.ofDegrees(lanes: longitudeDifferences, bits: bits)
    let y = difference.sin * cosTargets
    let x = latitude.cos * sinTargets - latitude.sin * cosTargets * difference.cos
    let degrees = arctangent(lanes: y, x) * (180 / Double.pi)
    var normalized = degrees.replacing(with: degrees + 360, where: degrees .< 0)
    normalized.replace(with: 0, where: normalized .>= 360 .| (x .== 0 .& y .== 0))
    return normalized
  }

  /// The haversine distances from four points (A) to four others (B) whose `cos φ` is given, lane by lane, in
  /// kilometres: the operations of `distanceKilometers(from:to:)` with B's cosine cached (`NearestCover`'s
  /// `distanceKilometers(from:to:)`), one pair a lane, so the same bits. The arcsine's two branches are both
  /// evaluated and one is chosen per lane.
  @inlinable @inline(__always)
  static func kilometers(
    latitudesA: SIMD4<Double>, longitudesA: SIMD4<Double>, latitudesB: SIMD4<Double>,
    longitudesB: SIMD4<Double>, cosLatitudesB: SIMD4<Double>
  ) -> SIMD4<Double> {
    // haversineSines' first three lanes, for four pairs.
    // |x| as x or -x (both exact); -0 stays -0, whose sine is squared or whose 90 - x is 90, as for +0.
    @inline(__always) func magnitude(_ x: SIMD4<Double>) -> SIMD4<Double> {
      x.replacing(with: -x, where: x .< 0)
    }
    let halfLongitude = magnitude(longitudesB - longitudesA) * 0.5
    let foldedLongitude = halfLongitude.replacing(with: 180 - halfLongitude, where: halfLongitude .> 90)
    let sinLatitude = sine(radians: (latitudesB - latitudesA) * 0.5 * radiansPerDegree)
    let sinLongitude = sine(radians: foldedLongitude * radiansPerDegree)
    let cosLatitudeA = sine(radians: (90 - magnitude(latitudesA)) * radiansPerDegree)
    let h = sinLatitude * sinLatitude + cosLatitudeA * cosLatitudesB * (sinLongitude * sinLongitude)
    // min(1, max(0, h)) lane by lane (h is never NaN).
    let clamped = h.replacing(with: 0, where: h .< 0).replacing(with: 1, where: h .> 1)
    return 2 * earthRadiusKilometers * arcsine(squareRootOf: clamped)
  }

  /// `arcsine(squareRootOf:)` lane by lane (both branches evaluated, one chosen a lane): the same bits.
  @inlinable @inline(__always)
  static func arcsine(squareRootOf h: SIMD4<Double>) -> SIMD4<Double> {
    let y = h.squareRoot()
    let short = y + y * h * arcsinePolynomial(h)
    let z = (1 - y) * 0.5
    let r = z.squareRoot()
    let long = Double.pi / 2 - 2 * (r + r * z * arcsinePolynomial(z))
    return short.replacing(with: long, where: .!(h .<= 0.25))
  }
}
