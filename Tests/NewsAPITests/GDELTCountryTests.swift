import Foundation
import NewsAPI
import NewsAtlas
import Testing

/// The FIPS 10-4 codes and GDELT names of the 54, against their source file (`Data/gdelt-countries.tsv`), and
/// of every other country GDELT covers (`Country.world`).
@Suite struct GDELTCountryTests {
  static let rows: [[String]] = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Data/gdelt-countries.tsv")
    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.dropFirst().map {
      $0.split(separator: "\t").map(String.init)
    }
  }()

  @Test func theTableIsTheDataFile() {
    #expect(Self.rows.count == 54)
    #expect(Set(Self.rows.map { $0[0] }) == Set(Country.all.map(\.code)))
    for row in Self.rows {
      #expect(GDELTCountries.table[row[0]]?.fips == row[1], "\(row)")
      #expect(GDELTCountries.table[row[0]]?.name == row[2], "\(row)")
    }
    // Every country GDELT covers (Data/world-countries.tsv), each with its own FIPS code.
    #expect(GDELTCountries.table.count == Country.world.count)
    #expect(Set(GDELTCountries.table.values.map(\.fips)).count == Country.world.count)
  }

  @Test(arguments: [
    ("de", "GM"), ("jp", "JA"), ("cn", "CH"), ("gb", "UK"), ("ch", "SZ"), ("at", "AU"), ("au", "AS"),
    ("kr", "KS"), ("cz", "EZ"), ("ie", "EI"), ("il", "IS"), ("za", "SF"), ("ua", "UP"), ("se", "SW"),
    ("fr", "FR"), ("us", "US"),
  ])
  func fipsDiffersFromISOWhereTheStandardSays(iso: String, fips: String) {
    #expect(GDELTCountries.fips(Country.named(code: iso)!) == fips)
  }

  @Test func articlesMapBackByName() {
    for country in Country.all {
      let name = GDELTCountries.table[country.code]!.name
      #expect(GDELTCountries.code(sourceCountry: name) == country.code)
      #expect(
        GDELTCountries.code(sourceCountry: name.uppercased().replacingOccurrences(of: " ", with: ""))
          == country.code)
    }
    // Any country GDELT covers maps back (by name or FIPS code): its news countries are the world's.
    #expect(GDELTCountries.code(sourceCountry: "Pakistan") == "pk")
    #expect(GDELTCountries.code(sourceCountry: "SP") == "es")
    #expect(GDELTCountries.code(sourceCountry: "Narnia") == nil)
    #expect(GDELTCountries.code(sourceCountry: "") == nil)
  }
}
