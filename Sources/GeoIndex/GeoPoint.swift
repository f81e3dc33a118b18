#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A position on the earth in degrees (WGS 84 latitude and longitude, treated as a sphere).
public struct GeoPoint: Hashable, Sendable {
  /// Degrees north of the equator, in -90...90.
  public let latitude: Double
  /// Degrees east of Greenwich, in -180...180.
  public let longitude: Double

  /// Creates a point, rejecting coordinates that are not on the earth.
  ///
  /// - Throws: `CoordinateError` when a value is NaN, infinite or out of range.
  public init(latitude: Double, longitude: Double) throws(CoordinateError) {
    guard latitude.isFinite else { throw .notANumber(axis: .latitude, value: latitude) }
    guard longitude.isFinite else { throw .notANumber(axis: .longitude, value: longitude) }
    guard (-90.0...90.0).contains(latitude) else { throw .latitudeOutOfRange(latitude) }
    guard (-180.0...180.0).contains(longitude) else { throw .longitudeOutOfRange(longitude) }
    self.latitude = latitude
    self.longitude = longitude
  }

  /// Creates a point from coordinates the caller has already validated.
  ///
  /// - Precondition: both values are finite and in range; checked in debug builds only.
  @inlinable
  public init(uncheckedLatitude latitude: Double, longitude: Double) {
    assert((-90.0...90.0).contains(latitude) && (-180.0...180.0).contains(longitude))
    self.latitude = latitude
    self.longitude = longitude
  }
}

/// Why a pair of numbers is not a position on the earth.
public enum CoordinateError: Error, Equatable, Sendable, CustomStringConvertible {
  public enum Axis: String, Sendable { case latitude, longitude }

  case notANumber(axis: Axis, value: Double)
  case latitudeOutOfRange(Double)
  case longitudeOutOfRange(Double)

  public var description: String {
    switch self {
    case .notANumber(let axis, let value):
      return "The \(axis.rawValue) \(value) is not a finite number; give degrees as a decimal number."
    case .latitudeOutOfRange(let value):
      return "The latitude \(value) is outside -90...90; latitudes are degrees north of the equator."
    case .longitudeOutOfRange(let value):
      return "The longitude \(value) is outside -180...180; longitudes are degrees east of Greenwich."
    }
  }
}
