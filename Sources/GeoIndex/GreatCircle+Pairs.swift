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
}
