import NewsAtlas

extension Country {
  /// The country's name in its search language (`language`), for `everything?q=` when NewsAPI lists no
  /// sources for it: "Deutschland" searched in German finds German papers' own news of Germany.
  public var searchName: String { Self.nativeNames[code] ?? name }

  /// Names in the country's NewsAPI language, where that language is not English.
  private static let nativeNames: [String: String] = [
    "ae": "الإمارات", "ar": "Argentina", "at": "Österreich", "be": "België", "br": "Brasil",
    "ch": "Schweiz", "cn": "中国", "co": "Colombia", "cu": "Cuba", "de": "Deutschland", "eg": "مصر",
    "fr": "France", "hk": "香港", "il": "ישראל", "it": "Italia", "ma": "المغرب", "mx": "México",
    "nl": "Nederland", "no": "Norge", "pt": "Portugal", "ru": "Россия", "sa": "السعودية",
    "se": "Sverige", "tw": "台灣", "ve": "Venezuela",
  ]
}
