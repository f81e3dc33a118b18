import GeoIndex

/// Which countries are news countries: those a headlines provider has news for.
///
/// NewsAPI's top headlines were built for 54 countries (`Country.all`, the default marker map); GDELT and feeds
/// have news for every country, so with a keyless provider every country of the borders data with a FIPS 10-4
/// code is one (`Country.world`, 237): Madrid is in Spain, not nearest to Portugal's marker.
public enum NewsCountrySet: String, Sendable, CaseIterable {
  /// NewsAPI's 54.
  case newsAPI = "newsapi"
  /// Every country GDELT covers (the 54 among them).
  case world

  /// The countries of the set, by code.
  public var countries: [Country] { self == .newsAPI ? Country.all : Country.world }
}

/// A row of `Country.worldTable` (generated from Data/world-countries.tsv).
struct WorldCountry {
  let code: String
  let fips: String
  let name: String
  let nameFrench: String
  let gdeltName: String
  let latitude: Double
  let longitude: Double
}

extension Country {
  /// Every news country of the keyless providers, by code: NewsAPI's 54 as `all` has them, and the other
  /// countries of the borders data that have a FIPS 10-4 code (their markers Natural Earth's label points,
  /// their `language` empty: it is NewsAPI's, which has no news of theirs).
  public static let world: [Country] = worldTable.map { row in
    named(code: row.code)
      ?? Country(
        code: row.code, name: row.name, nameFrench: row.nameFrench, latitude: row.latitude,
        longitude: row.longitude, language: "")
  }

  /// The country with this ISO code (any case) among `set`.
  public static func named(code: String, in set: NewsCountrySet) -> Country? {
    guard set == .world else { return named(code: code) }
    let lowered = code.lowercased()
    return worldOffsets[lowered].map { world[$0] }
  }

  /// Whether NewsAPI's top headlines cover the country (one of the 54).
  public var isNewsAPI: Bool { Self.newsAPICodes.contains(code) }

  /// The FIPS 10-4 code GDELT asks for the country by (`sourcecountry:`), and GDELT's name for it: nil for a
  /// country not in `world`.
  public var gdeltNames: (fips: String, name: String)? {
    Self.worldOffsets[code].map { (Self.worldTable[$0].fips, Self.worldTable[$0].gdeltName) }
  }

  /// A great-circle index over `world`'s markers; neighbour indices are offsets in `world`.
  public static let worldMarkerIndex = SphericalKDTree(points: world.map(\.marker))

  private static let newsAPICodes = Set(all.map(\.code))
  private static let worldOffsets = Dictionary(
    uniqueKeysWithValues: worldTable.enumerated().map { ($0.element.code, $0.offset) })
  /// For each border country, its offset in `world` (nil for the few without a FIPS code).
  static let worldCountryByBorder: [Int?] = boundaries.codes.map { worldOffsets[$0] }
}
