import Foundation
import GeoIndex
import NewsAtlas
import SeededPoints
import Testing

/// Resolving places as a person expects: the country they are in (or the territorial sea of), else the nearest
/// marker. Expectations come from shapely on the full-resolution Natural Earth polygons (an independent oracle),
/// not from this code.
@Suite struct ResolveTests {
  /// name, latitude, longitude, news country, method, containing country (nil at sea).
  static let places: [(String, Double, Double, String, String, String?)] = [
    ("Strasbourg", 48.5734, 7.7521, "fr", "inside", "fr"),
    ("Kehl", 48.5725, 7.815, "de", "inside", "de"),
    ("Geneva", 46.2044, 6.1432, "ch", "inside", "ch"),
    ("Annemasse", 46.1934, 6.2342, "fr", "inside", "fr"),
    ("Basel", 47.5596, 7.5886, "ch", "inside", "ch"),
    ("Saint-Louis", 47.59, 7.56, "fr", "inside", "fr"),
    ("Weil am Rhein", 47.5947, 7.6108, "de", "inside", "de"),
    ("Lille", 50.6292, 3.0573, "fr", "inside", "fr"),
    ("Tournai", 50.6056, 3.3878, "be", "inside", "be"),
    ("Aachen", 50.7753, 6.0839, "de", "inside", "de"),
    ("Vaals", 50.7706, 6.0186, "de", "inside", "de"),
    ("Gorizia", 45.9403, 13.6226, "si", "inside", "si"),
    ("Nova Gorica", 45.9559, 13.6483, "si", "inside", "si"),
    ("Tijuana", 32.5149, -117.0382, "mx", "inside", "mx"),
    ("San Diego", 32.7157, -117.1611, "us", "inside", "us"),
    ("Detroit", 42.3314, -83.0458, "us", "inside", "us"),
    ("Windsor", 42.3149, -83.0364, "ca", "inside", "ca"),
    ("Shenzhen", 22.5431, 114.0579, "cn", "inside", "cn"),
    ("Hong Kong", 22.3193, 114.1694, "hk", "inside", "hk"),
    ("Johor Bahru", 1.4927, 103.7414, "my", "inside", "my"),
    ("Singapore", 1.3521, 103.8198, "sg", "inside", "sg"),
    ("Ceuta", 35.8894, -5.3213, "pt", "nearest", "es"),
    ("Gibraltar", 36.1408, -5.3536, "pt", "nearest", "gi"),
    ("Baarle-Nassau", 51.4475, 4.9292, "nl", "inside", "nl"),
    ("Baarle-Hertog", 51.4377, 4.931, "nl", "inside", "nl"),
    ("Maseru", -29.3167, 27.4833, "za", "nearest", "ls"),
    ("San Marino", 43.9424, 12.4578, "it", "nearest", "sm"),
    ("Vatican City", 41.9029, 12.4534, "it", "nearest", "va"),
    ("Algiers", 36.7538, 3.0588, "pt", "nearest", "dz"),
    ("Nairobi", -1.2921, 36.8219, "sa", "nearest", "ke"),
    ("Reykjavik", 64.1466, -21.9426, "ie", "nearest", "is"),
    ("Madrid", 40.4168, -3.7038, "pt", "nearest", "es"),
    ("Mid-Atlantic", 0.0, -30.0, "br", "nearest", nil),
    ("North Atlantic", 30.0, -40.0, "ma", "nearest", nil),
    ("South Pacific", -40.0, -120.0, "ar", "nearest", nil),
    ("North Pole", 90.0, 0.0, "no", "nearest", nil),
    ("South Pole", -90.0, 0.0, "nz", "nearest", "aq"),
    ("Suva", -18.1248, 178.4501, "nz", "nearest", "fj"),
    ("Taveuni", -16.8, -179.95, "nz", "nearest", "fj"),
    ("Anadyr", 64.7337, 177.5089, "ru", "territorial-sea", "ru"),
    ("Chukotka east", 66.0, -172.0, "ru", "inside", "ru"),
    ("Adak", 51.88, -176.6581, "us", "inside", "us"),
    ("Attu", 52.85, 173.15, "us", "inside", "us"),
    ("Off Marseille", 43.2, 5.3, "fr", "territorial-sea", "fr"),
    ("Off Sydney", -33.85, 151.36, "au", "territorial-sea", "au"),
    ("Far off Sydney", -33.85, 151.7, "au", "nearest", nil),
    ("Paris", 48.8566, 2.3522, "fr", "inside", "fr"),
    ("Berlin", 52.52, 13.405, "de", "inside", "de"),
    ("Rome", 41.8902, 12.4922, "it", "inside", "it"),
    ("Tokyo", 35.6762, 139.6503, "jp", "inside", "jp"),
    ("Seoul", 37.5665, 126.978, "kr", "inside", "kr"),
    ("Beijing", 39.9042, 116.4074, "cn", "inside", "cn"),
    ("Taipei", 25.033, 121.5654, "tw", "inside", "tw"),
    ("Tel Aviv", 32.0853, 34.7818, "il", "inside", "il"),
    ("Cairo", 30.0444, 31.2357, "eg", "inside", "eg"),
    ("Lagos", 6.5244, 3.3792, "ng", "inside", "ng"),
    ("Johannesburg", -26.2041, 28.0473, "za", "inside", "za"),
    ("Buenos Aires", -34.6037, -58.3816, "ar", "inside", "ar"),
    ("Bogota", 4.711, -74.0721, "co", "inside", "co"),
    ("Havana", 23.1136, -82.3666, "cu", "inside", "cu"),
    ("Caracas", 10.4806, -66.9036, "ve", "inside", "ve"),
    ("Mexico City", 19.4326, -99.1332, "mx", "inside", "mx"),
    ("Sao Paulo", -23.5505, -46.6333, "br", "inside", "br"),
    ("Toronto", 43.6532, -79.3832, "ca", "inside", "ca"),
    ("New York", 40.7128, -74.006, "us", "inside", "us"),
    ("Moscow", 55.7558, 37.6173, "ru", "inside", "ru"),
    ("Kyiv", 50.4501, 30.5234, "ua", "inside", "ua"),
    ("Warsaw", 52.2297, 21.0122, "pl", "inside", "pl"),
    ("Prague", 50.0755, 14.4378, "cz", "inside", "cz"),
    ("Vienna", 48.2082, 16.3738, "at", "inside", "at"),
    ("Budapest", 47.4979, 19.0402, "hu", "inside", "hu"),
    ("Bratislava", 48.1486, 17.1077, "sk", "inside", "sk"),
    ("Ljubljana", 46.0569, 14.5058, "si", "inside", "si"),
    ("Belgrade", 44.7866, 20.4489, "rs", "inside", "rs"),
    ("Sofia", 42.6977, 23.3219, "bg", "inside", "bg"),
    ("Bucharest", 44.4268, 26.1025, "ro", "inside", "ro"),
    ("Athens", 37.9838, 23.7275, "gr", "inside", "gr"),
    ("Istanbul", 41.0082, 28.9784, "tr", "inside", "tr"),
    ("Riyadh", 24.7136, 46.6753, "sa", "inside", "sa"),
    ("Dubai", 25.2048, 55.2708, "ae", "inside", "ae"),
    ("Mumbai", 19.076, 72.8777, "in", "inside", "in"),
    ("Jakarta", -6.2088, 106.8456, "id", "inside", "id"),
    ("Kuala Lumpur", 3.139, 101.6869, "my", "inside", "my"),
    ("Bangkok", 13.7563, 100.5018, "th", "inside", "th"),
    ("Manila", 14.5995, 120.9842, "ph", "inside", "ph"),
    ("Auckland", -36.8485, 174.7633, "nz", "inside", "nz"),
    ("Lisbon", 38.7223, -9.1393, "pt", "inside", "pt"),
    ("Dublin", 53.3498, -6.2603, "ie", "inside", "ie"),
    ("London", 51.5074, -0.1278, "gb", "inside", "gb"),
    ("Oslo", 59.9139, 10.7522, "no", "inside", "no"),
    ("Stockholm", 59.3293, 18.0686, "se", "inside", "se"),
    ("Riga", 56.9496, 24.1052, "lv", "inside", "lv"),
    ("Vilnius", 54.6872, 25.2797, "lt", "inside", "lt"),
    ("Amsterdam", 52.3676, 4.9041, "nl", "inside", "nl"),
    ("Brussels", 50.8503, 4.3517, "be", "inside", "be"),
    ("Casablanca", 33.5731, -7.5898, "ma", "inside", "ma"),
    ("Sydney", -33.8688, 151.2093, "au", "inside", "au"),
    ("Ushuaia", -54.8019, -68.303, "ar", "territorial-sea", "ar"),
  ]

  @Test func namedPlaces() throws {
    #expect(Self.places.count >= 60)
    for (name, latitude, longitude, code, method, containing) in Self.places {
      let resolution = Country.resolve(try GeoPoint(latitude: latitude, longitude: longitude))
      #expect(resolution.country.code == code, "\(name)")
      #expect(resolution.method.rawValue == method, "\(name)")
      #expect(resolution.containing?.code == containing, "\(name)")
    }
  }

  @Test func insideBeatsANearerMarker() throws {
    // Strasbourg is nearer the Swiss, Belgian and German markers than the French one; it is in France.
    let strasbourg = try GeoPoint(latitude: 48.5734, longitude: 7.7521)
    #expect(Country.markerIndex.nearest(to: strasbourg).map { Country.all[$0.index].code } != "fr")
    let resolution = Country.resolve(strasbourg)
    #expect(resolution.country.code == "fr" && resolution.method == .inside)
    let france = try #require(Country.named(code: "fr"))
    #expect(
      abs(resolution.distanceKilometers - GreatCircle.distanceKilometers(from: strasbourg, to: france.marker))
        < 1e-9)
  }

  /// 100,000 seeded random points on land against shapely's answers on the unsimplified polygons
  /// (scripts/reference_land_points.py): the agreement, printed, must be at least 99.95 %.
  @Test func agreesWithTheFullResolutionReference() throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "Fixtures/land-reference.txt")
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter {
      !$0.hasPrefix("#")
    }
    let reference = lines.map { line -> (Int, String) in
      let parts = line.split(separator: " ")
      return (Int(parts[0])!, String(parts[1]))
    }
    #expect(reference.count == 100_000)
    var stream = SeededSpherePoints(seed: 5)
    var position = 0
    var agree = 0
    var disagreements: [String] = []
    for (wanted, code) in reference {
      var point = stream.next()!
      while position < wanted {
        point = stream.next()!
        position += 1
      }
      position += 1
      let found = Country.boundaries.country(containing: point).map { Country.boundaries.codes[$0] }
      if found == code {
        agree += 1
      } else if disagreements.count < 10 {
        disagreements.append("\(point.latitude),\(point.longitude): \(found ?? "none") vs \(code)")
      }
    }
    let agreement = Double(agree) / Double(reference.count)
    print(
      "Land agreement with the full-resolution reference: \(agree) of \(reference.count) (\(agreement * 100) %)"
    )
    #expect(agreement >= 0.9995, "\(disagreements)")
  }

  @Test func everyCountryOfTheFiftyFourHasBorders() {
    for country in Country.all {
      #expect(Country.boundaries.codes.contains(country.code), "\(country.code)")
    }
    #expect(Country.boundaries.codes.count > 230)
    #expect(Country.boundaries.codes.contains("dz"))
  }
}
