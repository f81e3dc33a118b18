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
    // Lanes: the two latitudes, then the two longitude differences.
    let terms = SineCosine.ofDegrees(
      SIMD4(
        a.0.latitude, a.1.latitude, b.0.point.longitude - a.0.longitude, b.1.point.longitude - a.1.longitude))
    let cosTarget = SIMD2(b.0.cosLatitude, b.1.cosLatitude)
    let sinTarget = SIMD2(b.0.sinLatitude, b.1.sinLatitude)
    let y = terms.sin.highHalf * cosTarget
    let x = terms.cos.lowHalf * sinTarget - terms.sin.lowHalf * cosTarget * terms.cos.highHalf
    let degrees = arctangent(y, x) * (180 / Double.pi)
    var normalized = degrees.replacing(with: degrees + 360, where: degrees .< 0)
    normalized.replace(with: 0, where: normalized .>= 360 .| (x .== 0 .& y .== 0))
    return (normalized[0], normalized[1])
  }

  /// `arctangent(_:_:)` lane by lane (the same operations, so the same bits), for finite lanes; a lane where
  /// `y` and `x` are both 0 gives NaN, which the caller replaces.
  @inlinable @inline(__always)
  static func arctangent(_ y: SIMD2<Double>, _ x: SIMD2<Double>) -> SIMD2<Double> {
    var ax = x
    var ay = y
    for i in 0..<2 {
      ax[i] = abs(x[i])
      ay[i] = abs(y[i])
    }
    let steep = ay .> ax
    let n = ay.replacing(with: ax, where: steep)
    let d = ax.replacing(with: ay, where: steep)
    let t = n / d
    let n16 = n * 16
    // k = round(8t) from the same eight comparisons, counted lane by lane.
    var k = SIMD2<Double>()
    k.replace(with: k + 1, where: n16 .> d)
    k.replace(with: k + 1, where: n16 .> 3 * d)
    k.replace(with: k + 1, where: n16 .> 5 * d)
    k.replace(with: k + 1, where: n16 .> 7 * d)
    k.replace(with: k + 1, where: n16 .> 9 * d)
    k.replace(with: k + 1, where: n16 .> 11 * d)
    k.replace(with: k + 1, where: n16 .> 13 * d)
    k.replace(with: k + 1, where: n16 .> 15 * d)
    let c = k * 0.125
    let u = (t - c) / (1 + t * c)
    let u2 = u * u
    let u4 = u2 * u2
    let u8 = u4 * u4
    let p01 = -1.0 / 3 + u2 * (1.0 / 5)
    let p23 = -1.0 / 7 + u2 * (1.0 / 9)
    let p45 = -1.0 / 11 + u2 * (1.0 / 13)
    let p67 = -1.0 / 15 + u2 * (1.0 / 17)
    let series = u + u * u2 * ((p01 + p23 * u4) + (p45 + p67 * u4) * u8)
    var r = SIMD2(arctangentOfEighths(Int(k[0])), arctangentOfEighths(Int(k[1]))) + series
    r.replace(with: Double.pi / 2 - r, where: steep)
    r.replace(with: Double.pi - r, where: x .< 0)
    for i in 0..<2 where y[i].sign == .minus { r[i] = -r[i] }
    return r
  }
}
