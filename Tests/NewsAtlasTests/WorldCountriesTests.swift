import Foundation
import GeoIndex
import NewsAtlas
import SeededPoints
import Testing

/// Every country GDELT covers as a news country (issue 47: Madrid is in Spain, whose news GDELT has): the table
/// compiled in against its data file, places resolved among the world against the borders oracle of
/// `ResolveTests` and a brute-force nearest marker, names found among the world.
@Suite struct WorldCountriesTests {
  static let rows: [[String]] = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Data/world-countries.tsv")
    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
      $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }
  }()

  @Test func theTableIsTheDataFile() throws {
    #expect(Self.rows.count == Country.world.count && Self.rows.count > 200)
    for (row, country) in zip(Self.rows, Country.world) {
      #expect(row.count == 7, "\(row)")
      #expect(row[0] == country.code && row[2] == country.name && row[3] == country.nameFrench, "\(row)")
      #expect(row[1] == country.gdeltNames?.fips && row[4] == country.gdeltNames?.name, "\(row)")
      #expect(
        Double(row[5]) == country.marker.latitude && Double(row[6]) == country.marker.longitude, "\(row)")
    }
    // By code, each once; the 54 as NewsAPI's list has them, the others with no NewsAPI language.
    let codes = Country.world.map(\.code)
    #expect(codes == codes.sorted() && Set(codes).count == codes.count)
    #expect(Set(Country.world.map { $0.gdeltNames!.fips }).count == codes.count)
    for country in Country.all {
      #expect(Country.named(code: country.code, in: .world) == country)
    }
    #expect(Country.world.filter(\.isNewsAPI).count == 54)
    #expect(Country.world.filter { !$0.isNewsAPI }.allSatisfy { $0.language.isEmpty })
    let spain = try #require(Country.named(code: "ES", in: .world))
    #expect(spain.name == "Spain" && spain.nameFrench == "Espagne" && spain.gdeltNames?.fips == "SP")
    #expect(Country.named(code: "es") == nil && Country.named(code: "zz", in: .world) == nil)
  }

  /// The places of `ResolveTests` (shapely's answers on the full-resolution polygons): among the world, a place
  /// in a country is in that country (Madrid in Spain, Algiers in Algeria), a place at sea goes to the nearest
  /// of the world's markers; among the 54, nothing changes.
  @Test func placesResolveToTheCountryTheyAreIn() throws {
    for (name, latitude, longitude, code, method, containing) in ResolveTests.places {
      let point = try GeoPoint(latitude: latitude, longitude: longitude)
      let world = Country.resolve(point, in: .world)
      if let containing, Country.named(code: containing, in: .world) != nil {
        #expect(
          world.country.code == containing && world.method != .nearest, "\(name): \(world.country.code)")
      } else {
        #expect(world.method == .nearest, "\(name)")
        #expect(world.country.code == Self.bruteForceNearest(point).code, "\(name)")
      }
      #expect(world.containing?.code == containing, "\(name)")
      let newsAPI = Country.resolve(point, in: .newsAPI)
      #expect(
        newsAPI == Country.resolve(point) && newsAPI.country.code == code && newsAPI.method.rawValue == method
      )
    }
    let madrid = Country.resolve(try GeoPoint(latitude: 40.4, longitude: -3.7), in: .world)
    #expect(madrid.country.code == "es" && madrid.method == .inside)
    let spain = try #require(Country.named(code: "es", in: .world))
    #expect(
      abs(madrid.distanceKilometers - GreatCircle.distanceKilometers(from: madrid.query, to: spain.marker))
        < 1e-9)
  }

  /// Seeded points over the sphere, with the poles, the antimeridian and every marker's antipode: wherever a
  /// point is in no country of the world, it resolves to the nearest world marker by brute force.
  @Test func placesAtSeaGoToTheNearestWorldMarker() throws {
    var generator = SeededSpherePoints(seed: 4_747)
    var points: [GeoPoint] = (0..<20_000).compactMap { _ in generator.next() }
    points += [
      GeoPoint(uncheckedLatitude: 90, longitude: 0), GeoPoint(uncheckedLatitude: -90, longitude: 0),
      GeoPoint(uncheckedLatitude: 0, longitude: 180), GeoPoint(uncheckedLatitude: 0, longitude: -180),
      GeoPoint(uncheckedLatitude: -10, longitude: 179.9999),
    ]
    points += Country.world.map {
      GeoPoint(
        uncheckedLatitude: -$0.marker.latitude,
        longitude: $0.marker.longitude > 0 ? $0.marker.longitude - 180 : $0.marker.longitude + 180)
    }
    var atSea = 0
    for point in points {
      let found = Country.resolve(point, in: .world)
      guard found.method == .nearest else {
        #expect(found.containing?.code == found.country.code)
        continue
      }
      atSea += 1
      let nearest = Self.bruteForceNearest(point)
      let distance = GreatCircle.distanceKilometers(from: point, to: nearest.marker)
      // The same country, or one whose marker is exactly as far (a tie).
      #expect(
        found.country.code == nearest.code || abs(found.distanceKilometers - distance) < 1e-9,
        "\(point): \(found.country.code), brute force \(nearest.code)")
    }
    #expect(atSea > 10_000, "\(atSea) of \(points.count) at sea")
  }

  /// The marker of every country beyond the 54 (Natural Earth's label point, or a point of its largest polygon
  /// where the label is at sea between islands) is inside the country.
  @Test func eachMarkerIsInItsCountry() {
    for country in Country.world where !country.isNewsAPI {
      let found = Country.resolve(country.marker, in: .world)
      #expect(found.country.code == country.code && found.method == .inside, "\(country.code): \(found)")
    }
  }

  @Test func namesAreFoundAmongTheWorld() throws {
    let spain = try #require(Country.named(code: "es", in: .world))
    for text in ["spain", "Espagne", "ES", "spa"] {
      #expect(Country.identified(by: text, in: .world) == .one(spain), "\(text)")
    }
    #expect(Country.identified(by: "spain") == .none)
    #expect(Country.identified(by: "kenya", in: .world) == .one(Country.named(code: "ke", in: .world)!))
    // A whole name wins over the longer names it starts (Niger, Nigeria).
    #expect(Country.identified(by: "niger", in: .world) == .one(Country.named(code: "ne", in: .world)!))
    #expect(Country.identified(by: "nigeria", in: .world) == .one(Country.named(code: "ng")!))
    guard case .ambiguous(let united) = Country.identified(by: "united", in: .world) else {
      Issue.record("united names one country")
      return
    }
    #expect(united.map(\.code) == ["ae", "gb", "us", "vi"])
    #expect(Country.identified(by: "narnia", in: .world) == .none)
    #expect(Country.search("", in: .world).count == Country.world.count)
    #expect(Country.search("spa", in: .world).map(\.code) == ["es"])
  }

  static func bruteForceNearest(_ point: GeoPoint) -> Country {
    Country.world.min {
      GreatCircle.distanceKilometers(from: point, to: $0.marker)
        < GreatCircle.distanceKilometers(from: point, to: $1.marker)
    }!
  }
}
