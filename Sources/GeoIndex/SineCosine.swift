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
    let quadrant = (degrees * (1.0 / 90.0) + shift) - shift
    let remainder = degrees - 90 * quadrant  // exact, |remainder| <= 45
    let x = remainder * (Double.pi / 180)
    let x2 = x * x
    // sin x = x (1 - x²/3! + x⁴/5! - ...), cos x = 1 - x²/2! + x⁴/4! - ...
    var s = -1.0 / 355_687_428_096_000  // -1/17!
    s = s * x2 + 1.0 / 1_307_674_368_000  // 1/15!
    s = s * x2 - 1.0 / 6_227_020_800  // -1/13!
    s = s * x2 + 1.0 / 39_916_800  // 1/11!
    s = s * x2 - 1.0 / 362_880  // -1/9!
    s = s * x2 + 1.0 / 5040
    s = s * x2 - 1.0 / 120
    s = s * x2 + 1.0 / 6
    let sine = x - x * x2 * s
    var c = 1.0 / 6_402_373_705_728_000  // 1/18!
    c = c * x2 - 1.0 / 20_922_789_888_000  // -1/16!
    c = c * x2 + 1.0 / 87_178_291_200  // 1/14!
    c = c * x2 - 1.0 / 479_001_600  // -1/12!
    c = c * x2 + 1.0 / 3_628_800  // 1/10!
    c = c * x2 - 1.0 / 40320
    c = c * x2 + 1.0 / 720
    c = c * x2 - 1.0 / 24
    c = c * x2 + 0.5
    let cosine = 1 - x2 * c
    // sin(x + q·90°) is ±sin x or ±cos x by q mod 4; chosen with bit masks, since a branch on a random
    // quadrant mispredicts. Quadrant 0: (s, c); 1: (c, −s); 2: (−s, −c); 3: (−c, s).
    let q = Int(quadrant)
    let swap = 0 &- UInt64(q & 1)
    let sineBits = (sine.bitPattern & ~swap) | (cosine.bitPattern & swap)
    let cosineBits = (cosine.bitPattern & ~swap) | (sine.bitPattern & swap)
    let sineSign = UInt64(q & 2) << 62
    let cosineSign = UInt64((q &+ 1) & 2) << 62
    return (Double(bitPattern: sineBits ^ sineSign), Double(bitPattern: cosineBits ^ cosineSign))
  }
}
