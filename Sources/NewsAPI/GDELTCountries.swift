import NewsAtlas

/// GDELT's names for the 54 news countries: the FIPS 10-4 code its `sourcecountry:` operator takes, and the
/// name it writes in each article's `sourcecountry` field. The source and the table are `Data/gdelt-countries.tsv`
/// (a test checks this copy against it); they differ from ISO 3166 for many (de is GM, jp JA, cn CH, gb UK).
public enum GDELTCountries {
  /// ISO 3166-1 alpha-2 → (FIPS 10-4, GDELT's name).
  public static let table: [String: (fips: String, name: String)] = [
    "ae": ("AE", "United Arab Emirates"),
    "ar": ("AR", "Argentina"),
    "at": ("AU", "Austria"),
    "au": ("AS", "Australia"),
    "be": ("BE", "Belgium"),
    "bg": ("BU", "Bulgaria"),
    "br": ("BR", "Brazil"),
    "ca": ("CA", "Canada"),
    "ch": ("SZ", "Switzerland"),
    "cn": ("CH", "China"),
    "co": ("CO", "Colombia"),
    "cu": ("CU", "Cuba"),
    "cz": ("EZ", "Czech Republic"),
    "de": ("GM", "Germany"),
    "eg": ("EG", "Egypt"),
    "fr": ("FR", "France"),
    "gb": ("UK", "United Kingdom"),
    "gr": ("GR", "Greece"),
    "hk": ("HK", "Hong Kong"),
    "hu": ("HU", "Hungary"),
    "id": ("ID", "Indonesia"),
    "ie": ("EI", "Ireland"),
    "il": ("IS", "Israel"),
    "in": ("IN", "India"),
    "it": ("IT", "Italy"),
    "jp": ("JA", "Japan"),
    "kr": ("KS", "South Korea"),
    "lt": ("LH", "Lithuania"),
    "lv": ("LG", "Latvia"),
    "ma": ("MO", "Morocco"),
    "mx": ("MX", "Mexico"),
    "my": ("MY", "Malaysia"),
    "ng": ("NI", "Nigeria"),
    "nl": ("NL", "Netherlands"),
    "no": ("NO", "Norway"),
    "nz": ("NZ", "New Zealand"),
    "ph": ("RP", "Philippines"),
    "pl": ("PL", "Poland"),
    "pt": ("PO", "Portugal"),
    "ro": ("RO", "Romania"),
    "rs": ("RI", "Serbia"),
    "ru": ("RS", "Russia"),
    "sa": ("SA", "Saudi Arabia"),
    "se": ("SW", "Sweden"),
    "sg": ("SN", "Singapore"),
    "si": ("SI", "Slovenia"),
    "sk": ("LO", "Slovakia"),
    "th": ("TH", "Thailand"),
    "tr": ("TU", "Turkey"),
    "tw": ("TW", "Taiwan"),
    "ua": ("UP", "Ukraine"),
    "us": ("US", "United States"),
    "ve": ("VE", "Venezuela"),
    "za": ("SF", "South Africa"),
  ]

  /// The FIPS 10-4 code of one of the 54.
  public static func fips(_ country: Country) -> String { table[country.code]!.fips }

  /// The country an article's `sourcecountry` names (GDELT's name, any case and spacing, or a FIPS code),
  /// as one of the 54's ISO codes; nil for any other country.
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
