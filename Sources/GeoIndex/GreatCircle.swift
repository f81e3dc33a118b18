#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Great-circle geometry on a spherical earth.
///
/// Every distance in NewsAtlas comes from `distanceKilometers(from:to:)`, so that the k-d tree and a brute-force
/// scan agree to the last bit.
public enum GreatCircle {
  /// The IUGG mean earth radius, in kilometres.
  public static let earthRadiusKilometers = 6371.0088

  /// Degrees to radians.
  @usableFromInline static let radiansPerDegree = Double.pi / 180

  /// Half the earth's circumference: the distance between antipodes, in kilometres.
  public static let antipodalDistanceKilometers = Double.pi * earthRadiusKilometers

  /// The haversine distance between two points, in kilometres.
  ///
  /// Uses the haversine formula, well conditioned for short distances; the haversine value is clamped to 1
  /// before `asin`, so antipodes give exactly `antipodalDistanceKilometers` rather than NaN. The sines and
  /// the arcsine are our own short kernels (within about an ulp of libm, several times cheaper).
  @inlinable
  public static func distanceKilometers(from a: GeoPoint, to b: GeoPoint) -> Double {
    let sines = haversineSines(
      latitudeA: a.latitude, latitudeB: b.latitude, longitudeA: a.longitude, longitudeB: b.longitude)
    return kilometers(haversine: haversine(sines, cosLatitudeB: sines[3]))
  }

  /// `cos φ` for a latitude in degrees, exactly 0 at the poles, so that a pole is one place whatever its
  /// longitude: the lane `haversineSines` computes it in, on its own.
  @inlinable
  static func cosine(latitudeDegrees: Double) -> Double {
    sine(radians: SIMD4(repeating: foldedCosineArgument(latitudeDegrees)) * radiansPerDegree)[0]
  }

  /// The four sines a haversine needs, in one polynomial evaluation on four lanes: `sin(Δφ/2)`,
  /// `sin(Δλ/2)` up to sign, `cos φa` and `cos φb` (as sines of `90° − |φ|`).
  ///
  /// Every argument is reduced in degrees, where the reductions are exact or nearly so, into [0°, 90°].
  @inlinable @inline(__always)
  static func haversineSines(
    latitudeA: Double, latitudeB: Double, longitudeA: Double, longitudeB: Double
  ) -> SIMD4<Double> {
    // Δλ/2 lies in [-180°, 180°]; sin² is unchanged by |x| and by 180° − |x| (exact for |x| ≥ 90°).
    let halfLongitude = abs(longitudeB - longitudeA) * 0.5
    let foldedLongitude = halfLongitude > 90 ? 180 - halfLongitude : halfLongitude
    return sine(
      radians: SIMD4(
        (latitudeB - latitudeA) * 0.5, foldedLongitude, foldedCosineArgument(latitudeA),
        foldedCosineArgument(latitudeB)) * radiansPerDegree)
  }

  /// `90° − |φ|`, whose sine is `cos φ`, in degrees.
  @inlinable @inline(__always)
  static func foldedCosineArgument(_ latitudeDegrees: Double) -> Double {
    90 - abs(latitudeDegrees)
  }

  /// The haversine of the central angle, `sin²(Δφ/2) + cos φa · cos φb · sin²(Δλ/2)`, in 0...1, from
  /// `haversineSines` (lane 3 replaced by a cached `cosine(latitudeDegrees:)` where the caller has one: the
  /// compiler then evaluates three lanes, not four).
  @inlinable @inline(__always)
  static func haversine(_ sines: SIMD4<Double>, cosLatitudeB: Double) -> Double {
    sines[0] * sines[0] + sines[2] * cosLatitudeB * (sines[1] * sines[1])
  }

  /// sin x lane by lane, for |x| ≤ π/2 in radians: the Taylor series to x²¹, whose truncation error there is
  /// below 2e-18, so that the result is within about an ulp of libm's at a fraction of four calls' cost.
  ///
  /// The polynomial in x² is evaluated by Estrin's scheme: its dependency chain is four multiply-adds deep
  /// instead of Horner's ten, and at the 54 markers this chain was most of a nearest query's time.
  @inlinable @inline(__always)
  static func sine(radians x: SIMD4<Double>) -> SIMD4<Double> {
    let t = x * x
    let t2 = t * t
    let t4 = t2 * t2
    let t8 = t4 * t4
    // s(t) = -1/3! + t/5! - t²/7! + … + t⁹/21!, paired by powers of t.
    let p01 = SIMD4<Double>(repeating: -1.0 / 6) + t * (1.0 / 120)
    let p23 = SIMD4<Double>(repeating: -1.0 / 5040) + t * (1.0 / 362_880)
    let p45 = SIMD4<Double>(repeating: -1.0 / 39_916_800) + t * (1.0 / 6_227_020_800)
    let p67 = SIMD4<Double>(repeating: -1.0 / 1_307_674_368_000) + t * (1.0 / 355_687_428_096_000)
    let p89 =
      SIMD4<Double>(repeating: -1.0 / 121_645_100_408_832_000) + t * (1.0 / 51_090_942_171_709_440_000)
    let s = (p01 + p23 * t2) + (p45 + p67 * t2) * t4 + p89 * t8
    return x + x * t * s
  }

  /// Kilometres for a haversine value, clamped into 0...1.
  @inlinable @inline(__always)
  static func kilometers(haversine h: Double) -> Double {
    2 * earthRadiusKilometers * arcsine(squareRootOf: min(1, max(0, h)))
  }

  /// asin √h for h in 0...1, within about an ulp of libm's: y + y h P(h) with y = √h for h ≤ ¼, where P is
  /// a Chebyshev fit of degree 11 made by `scripts/fit_asin.py` (relative error below 6e-17), and
  /// `π/2 − 2 asin √((1 − y)/2)` above, which brings the argument back under ½.
  ///
  /// The short branch's polynomial is evaluated on h itself, so that it runs beside the square root instead
  /// of after it (the two are a nearest query's longest dependency chain once the sines are done).
  @inlinable @inline(__always)
  static func arcsine(squareRootOf h: Double) -> Double {
    let y = h.squareRoot()
    // √ is correctly rounded and √¼ = ½, so h ≤ ¼ exactly when y ≤ ½ up to the one rounding at the seam.
    if h <= 0.25 { return y + y * h * arcsinePolynomial(h) }
    let z = (1 - y) * 0.5
    let r = z.squareRoot()
    return Double.pi / 2 - 2 * (r + r * z * arcsinePolynomial(z))
  }

  /// P(z) on [0, ¼], evaluated by Estrin's scheme (a shorter dependency chain than Horner's); on one value or
  /// lane by lane (`GreatCircle.kilometers(latitudesA:…)`), the same operations in the same order, so the same
  /// bits.
  @inlinable @inline(__always)
  static func arcsinePolynomial<Lanes: PolynomialLanes>(_ z: Lanes) -> Lanes {
    let z2 = z * z
    let z4 = z2 * z2
    let z8 = z4 * z4
    let a =
      (0.1666666666666665 + 0.07500000000020764 * z) + (0.044642857103423646 + 0.03038194736709848 * z) * z2
    let b =
      (0.02237204763174451 + 0.017355259955786323 * z) + (0.013929652902326633 + 0.011875494382636922 * z)
      * z2
    let c =
      (0.0078029494773533175 + 0.01603551434914882 * z) + (-0.010749050339697808 + 0.028169218060881414 * z)
      * z2
    return a + b * z4 + c * z8
  }

  /// The initial bearing (forward azimuth) from `a` towards `b`, in degrees clockwise from north, in 0..<360.
  ///
  /// At a pole, or between identical points, the bearing is not defined and 0 is returned. The sines and
  /// cosines come from `SineCosine` (reduced in degrees, exactly) and the angle from `arctangent`, both
  /// within about an ulp of libm's at a fraction of the cost: with libm's five calls the bearing took over half
  /// of a nearest query over the 54 markers.
  @inlinable
  public static func initialBearingDegrees(from a: GeoPoint, to b: GeoPoint) -> Double {
    initialBearingDegrees(from: a, to: BearingTarget(b))
  }

  /// `initialBearingDegrees(from:to:)` towards a target whose latitude's sine and cosine are kept: the same
  /// arithmetic, so the same bits, with one sine and cosine fewer (for the 54 markers, queried millions of
  /// times).
  @inlinable
  public static func initialBearingDegrees(from a: GeoPoint, to b: BearingTarget) -> Double {
    // sin and cos of a's latitude and of the longitude difference, on two lanes at once.
    let terms = SineCosine.ofDegrees(SIMD2(a.latitude, b.point.longitude - a.longitude))
    let y = terms.sin[1] * b.cosLatitude
    let x = terms.cos[0] * b.sinLatitude - terms.sin[0] * b.cosLatitude * terms.cos[1]
    if x == 0 && y == 0 { return 0 }
    let degrees = arctangent(y, x) * (180 / Double.pi)
    let normalized = degrees < 0 ? degrees + 360 : degrees
    return normalized >= 360 ? 0 : normalized
  }

  /// `atan2(y, x)` in radians, in -π...π, for finite `y` and `x` not both 0; within about an ulp of libm's.
  ///
  /// One lane of `arctangent(lanes:_:)`, the one implementation (the batch bearings run it on two lanes).
  @inlinable @inline(__always)
  static func arctangent(_ y: Double, _ x: Double) -> Double {
    arctangent(lanes: SIMD2(repeating: y), SIMD2(repeating: x))[0]
  }

  /// `atan2(y, x)` lane by lane, in radians, in -π...π, for finite lanes; a lane where `y` and `x` are both 0
  /// gives NaN, which callers replace.
  ///
  /// The ratio t = min/max of |x| and |y| (in 0...1) is moved next to the nearest c = k/8, where
  /// `atan t = atan c + atan((t − c)/(1 + t c))` leaves an argument of about 1/16 at most (t − c is exact, by
  /// Sterbenz's lemma); its series to u¹⁷ is then exact to well below an ulp. Two divisions, not three, on the
  /// bearing's longest chain: the ratio's, and u's (degrees come by a product). The octant and the sign are put
  /// back with `π/2 − r`, `π − r` and `−r`. Every operation is lane by lane, so every lane has the bits of a
  /// one-lane call whatever its neighbours.
  @inlinable @inline(__always)
  static func arctangent<Lanes: SIMD>(lanes y: Lanes, _ x: Lanes) -> Lanes where Lanes.Scalar == Double {
    var ax = x
    var ay = y
    for i in x.indices {
      ax[i] = abs(x[i])
      ay[i] = abs(y[i])
    }
    let steep = ay .> ax
    let n = ay.replacing(with: ax, where: steep)
    let d = ax.replacing(with: ay, where: steep)
    let t = n / d
    // k = round(8t) from comparisons that run beside the division, t > (2j + 1)/16 for j in 0..<8 (a
    // threshold's rounding only moves k where t is at a seam, where either neighbour is close enough). The
    // thresholds (2j + 1)·d grow with j after rounding too, so the comparisons that hold are the first k: each
    // one that holds sets c = k/8 and atan c for its k (selects, no conversion to an integer and no table).
    let n16 = n * 16
    var c = Lanes()
    var eighths = Lanes()
    func above(_ threshold: Lanes, _ k: Double, _ atanOfEighth: Double) {
      let holds = n16 .> threshold
      c.replace(with: k * 0.125, where: holds)
      eighths.replace(with: atanOfEighth, where: holds)
    }
    above(d, 1, 0.12435499454676144)
    above(3 * d, 2, 0.24497866312686414)
    above(5 * d, 3, 0.35877067027057225)
    above(7 * d, 4, 0.4636476090008061)
    above(9 * d, 5, 0.5585993153435624)
    above(11 * d, 6, 0.6435011087932844)
    above(13 * d, 7, 0.7188299996216245)
    above(15 * d, 8, 0.7853981633974483)  // atan 1 = π/4
    let u = (t - c) / (1 + t * c)
    let u2 = u * u
    let u4 = u2 * u2
    let u8 = u4 * u4
    // atan u = u − u³/3 + u⁵/5 − …, the polynomial in u² by Estrin's scheme.
    let p01 = -1.0 / 3 + u2 * (1.0 / 5)
    let p23 = -1.0 / 7 + u2 * (1.0 / 9)
    let p45 = -1.0 / 11 + u2 * (1.0 / 13)
    let p67 = -1.0 / 15 + u2 * (1.0 / 17)
    let series = u + u * u2 * ((p01 + p23 * u4) + (p45 + p67 * u4) * u8)
    var r = eighths + series
    r.replace(with: Double.pi / 2 - r, where: steep)
    r.replace(with: Double.pi - r, where: x .< 0)
    for i in y.indices where y[i].sign == .minus { r[i] = -r[i] }
    return r
  }

  /// The chord between two points of the unit sphere, squared, for a distance in kilometres (0...4).
  @inlinable
  static func chordSquared(kilometers: Double) -> Double {
    if kilometers >= antipodalDistanceKilometers { return 4 }
    let s = sin(max(0, kilometers) / (2 * earthRadiusKilometers))
    return 4 * s * s
  }
}

/// A bearing's destination with its latitude's sine and cosine worked out once (`GreatCircle
/// .initialBearingDegrees(from:to:)`).
public struct BearingTarget: Sendable {
  public let point: GeoPoint
  @usableFromInline let sinLatitude: Double
  @usableFromInline let cosLatitude: Double

  @inlinable
  public init(_ point: GeoPoint) {
    self.point = point
    let latitude = SineCosine.ofDegrees(SIMD2(repeating: point.latitude))
    sinLatitude = latitude.sin[0]
    cosLatitude = latitude.cos[0]
  }
}

/// What `GreatCircle.arcsinePolynomial(_:)` needs of its argument: sums and products of values, and of a
/// coefficient with a value. A `Double`, or a SIMD vector of them lane by lane.
@usableFromInline protocol PolynomialLanes {
  static func + (lhs: Self, rhs: Self) -> Self
  static func * (lhs: Self, rhs: Self) -> Self
  static func + (lhs: Double, rhs: Self) -> Self
  static func * (lhs: Double, rhs: Self) -> Self
}

extension Double: PolynomialLanes {}
extension SIMD4: PolynomialLanes where Scalar == Double {}
