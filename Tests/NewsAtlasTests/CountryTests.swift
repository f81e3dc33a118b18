import AtlasMessages
import Foundation
import GeoIndex
import NewsAtlas
import Testing

@Suite struct CountryTests {
  /// NewsAPI's list (newsapi.md section 5.1), typed here independently of the generator.
  static let newsAPICodes =
    "ae ar at au be bg br ca ch cn co cu cz de eg fr gb gr hk hu id ie il in it jp kr lt lv ma mx my ng nl no nz ph pl pt ro rs ru sa se sg si sk th tr tw ua us ve za"
    .split(separator: " ").map(String.init)

  @Test func theFiftyFourCodesInNewsAPIsOrder() {
    #expect(Country.all.map(\.code) == Self.newsAPICodes)
    #expect(Country.named(code: "IL")?.name == "Israel")
    #expect(Country.named(code: "dz") == nil)
  }

  /// Every country by its code in any case and by each of its names as typed in any case, with or without
  /// accents; names people use; and what must not be read as a country.
  @Test func identifiedByCodeOrName() {
    func code(_ text: String) -> String? {
      if case .one(let country) = Country.identified(by: text) { return country.code }
      return nil
    }
    for country in Country.all {
      #expect(code(country.code.uppercased()) == country.code)
      #expect(code(country.name) == country.code, "\(country.name)")
      #expect(code(country.nameFrench.lowercased()) == country.code, "\(country.nameFrench)")
      #expect(code(country.nameFrench.uppercased()) == country.code, "\(country.nameFrench)")
    }
    #expect(code("Allemagne") == "de")
    #expect(code("egypte") == "eg")
    #expect(code("  Royaume-Uni ") == "gb")
    #expect(code("uk") == "gb")  // not the start of Ukraine
    #expect(code("UKR") == "ua")
    #expect(code("usa") == "us")
    #expect(code("switz") == "ch")
    #expect(code("korea") == "kr")  // part of one name only
    #expect(
      Country.identified(by: "united") == .ambiguous(["ae", "gb", "us"].compactMap(Country.named(code:))))
    #expect(Country.identified(by: "es") == .none)  // two letters are a code, not the start of Estonia
    #expect(Country.identified(by: "xx") == .none)
    #expect(Country.identified(by: "") == .none)
    #expect(Country.identified(by: "atlantis") == .none)
    #expect(
      Country.identified(by: "united").refusal(shown: "united")
        == "'united' could be ae (United Arab Emirates), gb (United Kingdom) or us (United States); give one code."
    )
    #expect(Country.identified(by: "France").refusal(shown: "France") == nil)
  }

  @Test func namesAndMarkersAreSane() {
    let languages = Set("ar de en es fr he it nl no pt ru sv ud zh".split(separator: " ").map(String.init))
    for country in Country.all {
      #expect(!country.name.isEmpty && !country.nameFrench.isEmpty, "\(country.code)")
      #expect(languages.contains(country.language), "\(country.code)")
      #expect(abs(country.marker.latitude) < 72 && abs(country.marker.longitude) <= 180, "\(country.code)")
    }
    // Each marker is its own nearest marker, and no two sit on top of each other.
    for (offset, country) in Country.all.enumerated() {
      #expect(Country.markerIndex.nearest(to: country.marker)?.index == offset)
      let second = Country.markerIndex.neighbors(of: country.marker, count: 2)[1]
      #expect(second.distanceKilometers > 20, "\(country.code) is within 20 km of another marker")
    }
  }

  /// Markers fall in a box around each country: a coarse check that no marker is on another continent.
  @Test(arguments: [
    ("fr", 42.0, 51.5, -5.0, 8.5), ("us", 25.0, 49.0, -125.0, -67.0), ("au", -39.0, -11.0, 113.0, 154.0),
    ("za", -35.0, -22.0, 16.0, 33.0), ("il", 29.5, 33.3, 34.2, 35.9), ("jp", 30.0, 45.5, 129.0, 146.0),
    ("br", -33.0, 5.0, -74.0, -35.0), ("ru", 41.0, 78.0, 27.0, 180.0), ("nz", -47.5, -34.0, 166.0, 179.0),
  ])
  func markerInsideItsCountrysBox(code: String, south: Double, north: Double, west: Double, east: Double)
    throws
  {
    let country = try #require(Country.named(code: code))
    #expect((south...north).contains(country.marker.latitude))
    #expect((west...east).contains(country.marker.longitude))
  }

  @Test func embeddedTableMatchesDataFile() throws {
    struct Row: Decodable, Equatable {
      let code, name, nameFr, language: String
      let latitude, longitude: Double
    }
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Data/countries.json")
    let rows = try JSONDecoder().decode([Row].self, from: Data(contentsOf: url))
    let embedded = Country.all.map {
      Row(
        code: $0.code, name: $0.name, nameFr: $0.nameFrench, language: $0.language,
        latitude: $0.marker.latitude, longitude: $0.marker.longitude)
    }
    #expect(rows == embedded)
  }

  @Test(arguments: [
    // "fr" is France by code, then Afrique du Sud by substring.
    ("egypte", ["eg"]), ("ÉGYPTE", ["eg"]), ("Egypt", ["eg"]), ("fr", ["fr", "za"]), ("FR", ["fr", "za"]),
    ("royaume uni", ["gb"]), ("royaume-uni", ["gb"]), ("coree", ["kr"]), ("Korea", ["kr"]),
    ("isra", ["il"]), ("zzz", []), ("e\u{301}mirats", ["ae"]),
  ])
  func searchFoldsCaseAndAccents(query: String, expected: [String]) {
    #expect(Country.search(query).map(\.code) == expected)
  }

  @Test func searchRanksCodeThenPrefixThenSubstring() {
    // "in": India by code; then names starting with "in" (Indonesia, Inde); then names containing it.
    let codes = Country.search("in").map(\.code)
    #expect(codes.first == "in")
    #expect(Array(codes.prefix(2)) == ["in", "id"])
    #expect(codes.contains("cn"))  // Chine contains "in"
    #expect(codes.firstIndex(of: "id")! < codes.firstIndex(of: "cn")!)
    #expect(Country.search("").count == 54)
  }
}

/// GeoIndex's typed errors said by the front ends from the catalogue (issue 31 item 3): the core stays free of
/// it, its numbers carried in the error.
@Suite struct ClusterErrorSentenceTests {
  @Test func moreThanAnIndexHoldsIsSaidInTheReadersLanguage() {
    let error = ClusterError.tooManyPoints(count: 67_108_864, limit: 67_108_863)
    let french =
      "Un index tient au plus 67108863 points, comme les identifiants de groupe de supercluster ; il y en a ici "
      + "67108864."
    #expect(error.text(in: .french) == french)
    #expect(error.sentence(naming: \.rawValue, options: ClusterOptions()).text(in: .french) == french)
    #expect(error.text(in: .english) == error.description)
    #expect(
      error.description
        == "An index holds at most 67108863 points, as supercluster's cluster ids do; these are 67108864.")
  }
}
