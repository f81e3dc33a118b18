#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
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
  /// before `asin`, so antipodes give exactly `antipodalDistanceKilometers` rather than NaN.
  @inlinable
  public static func distanceKilometers(from a: GeoPoint, to b: GeoPoint) -> Double {
    let latitudeA = a.latitude * radiansPerDegree
    let latitudeB = b.latitude * radiansPerDegree
    return kilometers(
      haversine: haversine(
        latitudeARadians: latitudeA, cosLatitudeA: cosine(latitudeDegrees: a.latitude),
        latitudeBRadians: latitudeB, cosLatitudeB: cosine(latitudeDegrees: b.latitude),
        longitudeADegrees: a.longitude, longitudeBDegrees: b.longitude))
  }

  /// `cos φ` for a latitude in degrees, exactly 0 at the poles (where `cos(π/2)` would give 6e-17), so that
  /// a pole is one place whatever its longitude.
  @inlinable
  static func cosine(latitudeDegrees: Double) -> Double {
    abs(latitudeDegrees) == 90 ? 0 : cos(latitudeDegrees * radiansPerDegree)
  }

  /// The haversine of the central angle, `sin²(Δφ/2) + cos φa · cos φb · sin²(Δλ/2)`, in 0...1.
  ///
  /// Split out so callers that cache `cos φ` compute the identical value.
  @inlinable
  static func haversine(
    latitudeARadians: Double, cosLatitudeA: Double,
    latitudeBRadians: Double, cosLatitudeB: Double,
    longitudeADegrees: Double, longitudeBDegrees: Double
  ) -> Double {
    let sinHalfLatitude = sin((latitudeBRadians - latitudeARadians) * 0.5)
    let sinHalfLongitude = sin((longitudeBDegrees - longitudeADegrees) * radiansPerDegree * 0.5)
    return sinHalfLatitude * sinHalfLatitude
      + cosLatitudeA * cosLatitudeB * (sinHalfLongitude * sinHalfLongitude)
  }

  /// Kilometres for a haversine value, clamped into 0...1 before `asin`.
  @inlinable
  static func kilometers(haversine h: Double) -> Double {
    2 * earthRadiusKilometers * asin(min(1, max(0, h)).squareRoot())
  }

  /// The initial bearing (forward azimuth) from `a` towards `b`, in degrees clockwise from north, in 0..<360.
  ///
  /// At a pole, or between identical points, the bearing is not defined and 0 is returned.
  public static func initialBearingDegrees(from a: GeoPoint, to b: GeoPoint) -> Double {
    let latitudeA = a.latitude * radiansPerDegree
    let latitudeB = b.latitude * radiansPerDegree
    let deltaLongitude = (b.longitude - a.longitude) * radiansPerDegree
    let y = sin(deltaLongitude) * cos(latitudeB)
    let x = cos(latitudeA) * sin(latitudeB) - sin(latitudeA) * cos(latitudeB) * cos(deltaLongitude)
    if x == 0 && y == 0 { return 0 }
    let degrees = atan2(y, x) / radiansPerDegree
    let normalized = degrees < 0 ? degrees + 360 : degrees
    return normalized >= 360 ? 0 : normalized
  }

  /// The chord between two points of the unit sphere, squared, for a distance in kilometres (0...4).
  @inlinable
  static func chordSquared(kilometers: Double) -> Double {
    if kilometers >= antipodalDistanceKilometers { return 4 }
    let s = sin(max(0, kilometers) / (2 * earthRadiusKilometers))
    return 4 * s * s
  }
}
