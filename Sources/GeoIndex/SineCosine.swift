/// Sine and cosine of an angle in degrees, to within about one ulp, in pure Swift.
///
/// Used for unit vectors, where every query and every point needs both: one range reduction in degrees
/// (exact: the remainder of a multiple of 90° is computed without rounding) and two short polynomials on
/// [−π/4, π/4] cost about a third of two libm calls. The coefficients are the Taylor series of sin and cos;
/// truncated after x¹⁷ and x¹⁸ their error on that interval is below 1e-19. The k-d tree only needs unit
/// vectors within its pruning slack, so libm-identical results are not required there; the haversine's sines come from here too, so that
/// the tree and a brute-force scan share one distance function.
@usableFromInline
enum SineCosine {
  @inlinable @inline(__always)
  static func ofDegrees(_ degrees: Double) -> (sin: Double, cos: Double) {
    // Round to the nearest quadrant by adding and removing 1.5 × 2⁵² (exact for |degrees| < 2⁵⁰): no call
    // to libm's `round`, which the baseline x86-64 target would make.
    let shift = 6_755_399_441_055_744.0
    let shifted = degrees * (1.0 / 90.0) + shift
    let quadrant = shifted - shift
    let remainder = degrees - 90 * quadrant  // exact, |remainder| <= 45
    let x = remainder * (Double.pi / 180)
    let x2 = x * x
    let x4 = x2 * x2
    let x8 = x4 * x4
    // sin x = x (1 - x²/3! + x⁴/5! - ...), cos x = 1 - x²/2! + x⁴/4! - ..., the polynomials in x² by
    // Estrin's scheme (pairs, then pairs of pairs): a chain three multiply-adds deep instead of eight.
    let s01 = 1.0 / 6 - x2 * (1.0 / 120)
    let s23 = 1.0 / 5040 - x2 * (1.0 / 362_880)
    let s45 = 1.0 / 39_916_800 - x2 * (1.0 / 6_227_020_800)
    let s67 = 1.0 / 1_307_674_368_000 - x2 * (1.0 / 355_687_428_096_000)
    let s = (s01 + s23 * x4) + (s45 + s67 * x4) * x8
    let sine = x - x * x2 * s
    let c01 = 0.5 - x2 * (1.0 / 24)
    let c23 = 1.0 / 720 - x2 * (1.0 / 40320)
    let c45 = 1.0 / 3_628_800 - x2 * (1.0 / 479_001_600)
    let c67 = 1.0 / 87_178_291_200 - x2 * (1.0 / 20_922_789_888_000)
    let c8 = 1.0 / 6_402_373_705_728_000
    let c = (c01 + c23 * x4) + (c45 + c67 * x4) * x8 + c8 * (x8 * x8)
    let cosine = 1 - x2 * c
    // sin(x + q·90°) is ±sin x or ±cos x by q mod 4; chosen with bit masks, since a branch on a random
    // quadrant mispredicts. Quadrant 0: (s, c); 1: (c, −s); 2: (−s, −c); 3: (−c, s).
    // The shifted sum's last bits are the quadrant's, modulo 4 as two's complement (its ulp is 1): no
    // conversion to an integer, whose range checks were a tenth of the batch bearing's instructions.
    let q = shifted.bitPattern
    let swap = 0 &- (q & 1)
    let sineBits = (sine.bitPattern & ~swap) | (cosine.bitPattern & swap)
    let cosineBits = (cosine.bitPattern & ~swap) | (sine.bitPattern & swap)
    let sineSign = (q & 2) << 62
    let cosineSign = ((q &+ 1) & 2) << 62
    return (Double(bitPattern: sineBits ^ sineSign), Double(bitPattern: cosineBits ^ cosineSign))
  }

  /// `ofDegrees` on two lanes at once: the same operations lane by lane (the bearing's two pairs in one
  /// evaluation; SSE2 holds two doubles).
  @inlinable @inline(__always)
  static func ofDegrees(_ degrees: SIMD2<Double>) -> (sin: SIMD2<Double>, cos: SIMD2<Double>) {
    ofDegrees(lanes: degrees, bits: SIMD2<UInt64>.self)
  }

  /// `ofDegrees` on four lanes at once: two queries' bearings in one evaluation (the batch `nearest`).
  @inlinable @inline(__always)
  static func ofDegrees(_ degrees: SIMD4<Double>) -> (sin: SIMD4<Double>, cos: SIMD4<Double>) {
    ofDegrees(lanes: degrees, bits: SIMD4<UInt64>.self)
  }

  /// `ofDegrees(_: Double)`'s operations on every lane of `degrees`; `Bits` is the unsigned vector of as many
  /// lanes, for the quadrant's masks.
  @inlinable @inline(__always)
  static func ofDegrees<Lanes: SIMD, Bits: SIMD>(lanes degrees: Lanes, bits: Bits.Type) -> (
    sin: Lanes, cos: Lanes
  )
  where Lanes.Scalar == Double, Bits.Scalar == UInt64 {
    let shift = Lanes(repeating: 6_755_399_441_055_744.0)
    let shifted = degrees * (1.0 / 90.0) + shift
    let quadrant = shifted - shift
    let remainder = degrees - 90 * quadrant
    let x = remainder * (Double.pi / 180)
    let x2 = x * x
    let x4 = x2 * x2
    let x8 = x4 * x4
    let s01 = 1.0 / 6 - x2 * (1.0 / 120)
    let s23 = 1.0 / 5040 - x2 * (1.0 / 362_880)
    let s45 = 1.0 / 39_916_800 - x2 * (1.0 / 6_227_020_800)
    let s67 = 1.0 / 1_307_674_368_000 - x2 * (1.0 / 355_687_428_096_000)
    let s = (s01 + s23 * x4) + (s45 + s67 * x4) * x8
    let sine = x - x * x2 * s
    let c01 = 0.5 - x2 * (1.0 / 24)
    let c23 = 1.0 / 720 - x2 * (1.0 / 40320)
    let c45 = 1.0 / 3_628_800 - x2 * (1.0 / 479_001_600)
    let c67 = 1.0 / 87_178_291_200 - x2 * (1.0 / 20_922_789_888_000)
    let c8 = 1.0 / 6_402_373_705_728_000
    let c = (c01 + c23 * x4) + (c45 + c67 * x4) * x8 + c8 * (x8 * x8)
    let cosine = 1 - x2 * c
    let q = unsafeBitCast(shifted, to: Bits.self)  // the quadrant modulo 4 in the last bits, as above
    let one = Bits(repeating: 1)
    let two = Bits(repeating: 2)
    let swap = Bits() &- (q & one)
    let sineBits = unsafeBitCast(sine, to: Bits.self)
    let cosineBits = unsafeBitCast(cosine, to: Bits.self)
    let sineSign = (q & two) &<< 62
    let cosineSign = ((q &+ one) & two) &<< 62
    let newSine = ((sineBits & ~swap) | (cosineBits & swap)) ^ sineSign
    let newCosine = ((cosineBits & ~swap) | (sineBits & swap)) ^ cosineSign
    return (unsafeBitCast(newSine, to: Lanes.self), unsafeBitCast(newCosine, to: Lanes.self))
  }
}
