import NewsAtlas

/// GDELT's names for the news countries: the FIPS 10-4 code its `sourcecountry:` operator takes, and the
/// name it writes in each article's `sourcecountry` field. For NewsAPI's 54 the source is
/// `Data/gdelt-countries.tsv` (a test checks the table against it); they differ from ISO 3166 for many (de is
/// GM, jp JA, cn CH, gb UK). Every other country GDELT covers is in `Country.world`
/// (`Data/world-countries.tsv`, from Natural Earth).
public enum GDELTCountries {
  /// ISO 3166-1 alpha-2 → (FIPS 10-4, GDELT's name), for every country of `Country.world`.
  public static let table: [String: (fips: String, name: String)] = Dictionary(
    uniqueKeysWithValues: Country.world.map { ($0.code, $0.gdeltNames!) })

  /// The FIPS 10-4 code of a country of `Country.world` (the 54 among them).
  public static func fips(_ country: Country) -> String { table[country.code]!.fips }

  /// The country an article's `sourcecountry` names (GDELT's name, any case and spacing, or a FIPS code),
  /// as the ISO code of a country of `Country.world`; nil for any other name.
  public static func code(sourceCountry text: String) -> String? {
    let key = normalized(text)
    return byName[key] ?? byFIPS[text.uppercased()]
  }

  private static func normalized(_ text: String) -> String {
    String(text.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) }.map(Character.init))
  }
  private static let byName: [String: String] = Dictionary(
    uniqueKeysWithValues: table.map { (normalized($0.value.name), $0.key) })
  private static let byFIPS: [String: String] = Dictionary(
    uniqueKeysWithValues: table.map { ($0.value.fips, $0.key) })

  /// GDELT's `sourcelang:` name for each of NewsAPI's 14 language codes.
  public static let languages: [String: String] = [
    "ar": "arabic", "de": "german", "en": "english", "es": "spanish", "fr": "french", "he": "hebrew",
    "it": "italian", "nl": "dutch", "no": "norwegian", "pt": "portuguese", "ru": "russian", "sv": "swedish",
    "ud": "urdu", "zh": "chinese",
  ]
}
