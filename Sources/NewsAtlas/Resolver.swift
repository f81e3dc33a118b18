import CBoundaries
import GeoIndex

/// A place resolved to a news country as a person expects: the country it is in, else the nearest one.
public struct Resolution: Sendable, Equatable {
  /// How the country was chosen.
  public enum Method: String, Sendable {
    /// The point is inside one of the news countries' borders.
    case inside
    /// The point is at sea within 12 nautical miles of one of the news countries' coasts.
    case territorialSea = "territorial-sea"
    /// The point is in none of the news countries (or at sea): the nearest of their markers by great-circle
    /// distance.
    case nearest
  }

  public let query: GeoPoint
  public let country: Country
  public let method: Method
  /// The country (of all ~240) whose borders or territorial sea hold the point, if any: "Algeria" for Algiers.
  public let containing: (code: String, name: String, nameFrench: String)?
  /// The great-circle distance from the point to the chosen country's marker, in kilometres.
  public let distanceKilometers: Double

  public static func == (a: Resolution, b: Resolution) -> Bool {
    a.query == b.query && a.country == b.country && a.method == b.method
      && a.containing?.code == b.containing?.code && a.distanceKilometers == b.distanceKilometers
  }
}

extension Country {
  /// Every country's borders (Natural Earth 1:10m, public domain), compiled into the binary and read where
  /// they are.
  public static let boundaries: CountryBoundaries = {
    do {
      return try CountryBoundaries(
        staticData: UnsafeRawBufferPointer(start: cboundaries_bytes(), count: cboundaries_count()))
    } catch {
      fatalError(
        "The border data compiled into NewsAtlas is unreadable: \(error). Rebuild from a clean checkout.")
    }
  }()

  /// For each border country, the news country with that code, if it is one of the 54.
  private static let newsCountryByBorder: [Int?] = boundaries.codes.map { code in
    all.firstIndex { $0.code == code }
  }

  /// The news country for a place: the one it is in (or in the territorial sea of), else the nearest marker.
  ///
  /// - Complexity: O(1) away from borders and coasts; O(k) for the k border segments near the point.
  public static func resolve(_ point: GeoPoint) -> Resolution { resolve(point, in: .newsAPI) }

  /// The news country of `set` for a place: the one it is in (or in the territorial sea of), else the nearest
  /// marker of the set. Among `world`, Madrid is in Spain; among NewsAPI's 54, it is nearest to Portugal.
  ///
  /// - Complexity: as `resolve(_:)`.
  public static func resolve(_ point: GeoPoint, in set: NewsCountrySet) -> Resolution {
    let found = offsets(point, boundaries.locate(point), set)
    return Resolution(
      query: point, country: set.countries[found.country], method: found.method,
      containing: found.border.map {
        (code: boundaries.codes[$0], name: boundaries.names[$0], nameFrench: boundaries.namesFrench[$0])
      },
      distanceKilometers: found.distanceKilometers)
  }

  /// `resolve(_:)` as offsets, making no strings: for answering arrays of points on several cores, where
  /// each string's reference count would be a shared write (the Python package's `resolve`).
  ///
  /// - Complexity: as `resolve(_:)`.
  public static func resolveOffsets(_ point: GeoPoint) -> ResolvedOffsets {
    offsets(point, boundaries.locate(point))
  }

  /// `resolveOffsets(_:)` for many points, in order: `body(i, found)` for each `i` in `range`, with `point(i)`
  /// its position. The same answers, faster for many scattered points (`CountryBoundaries.locateEach`).
  ///
  /// - Complexity: as `resolve(_:)` for each point.
  public static func resolveOffsets(
    _ range: Range<Int>, _ point: (Int) -> GeoPoint, in set: NewsCountrySet = .newsAPI,
    _ body: (Int, ResolvedOffsets) -> Void
  ) {
    boundaries.locateEach(range, point) { i, location in body(i, offsets(point(i), location, set)) }
  }

  /// The resolution of a point that `boundaries` locate as `location`, among `set` (offsets in its countries).
  @inline(__always)
  private static func offsets(
    _ point: GeoPoint, _ location: CountryBoundaries.Location, _ set: NewsCountrySet = .newsAPI
  ) -> ResolvedOffsets {
    let world = set == .world
    if let border = location.countryIndex,
      let news = world ? worldCountryByBorder[border] : newsCountryByBorder[border]
    {
      let method: Resolution.Method
      if case .territorialSea = location { method = .territorialSea } else { method = .inside }
      return ResolvedOffsets(
        country: news, method: method, border: border,
        distanceKilometers: GreatCircle.distanceKilometers(
          from: point, to: world ? Country.world[news].marker : markers[news]))
    }
    let nearest = (world ? worldMarkerIndex : markerIndex).nearest(to: point)!
    return ResolvedOffsets(
      country: nearest.index, method: .nearest, border: location.countryIndex,
      distanceKilometers: nearest.distanceKilometers)
  }

  /// The 54 markers, in `all`'s order.
  public static let markers: [GeoPoint] = all.map(\.marker)
}

/// A resolution by offsets: the news country's in `Country.all` (or `Country.world`), the border country's in
/// `Country.boundaries` (nil at sea or in no country).
public struct ResolvedOffsets: Sendable, Equatable {
  public let country: Int
  public let method: Resolution.Method
  public let border: Int?
  /// The great-circle distance from the point to the chosen country's marker, in kilometres.
  public let distanceKilometers: Double
}
