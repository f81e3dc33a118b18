import Foundation

/// One GDELT DOC 2.0 article-list request: `{base}/api/v2/doc/doc?query=…&mode=ArtList&format=json`.
public struct GDELTQuery: Sendable, Equatable {
  /// The countries' FIPS 10-4 codes: one is `sourcecountry:FR`, several `(sourcecountry:FR OR …)`.
  public var countries: [String]
  /// GDELT's `sourcelang:` name (`french`), or nil for any language.
  public var language: String?
  /// How far back to look (`1d`, `24h`, `15min`, `1w`).
  public var timespan: String
  /// Articles in the answer, 1 to 250 (`maxrecords`).
  public var maxRecords: Int
  /// Words as GDELT's query language takes them (`climate`, `"climate change"`, `(flood OR storm)`), for a
  /// search; nil for headlines.
  public var keywords: String? = nil
  /// `domain:` filters: articles from any of `domains`, none from `excludedDomains`.
  public var domains: [String] = []
  public var excludedDomains: [String] = []
  /// `startdatetime` and `enddatetime` (`YYYYMMDDHHMMSS`, UTC), sent instead of the timespan when either is set.
  public var start: String? = nil
  public var end: String? = nil
  /// `sort=HybridRel` (relevance, weighted to recent) instead of newest first.
  public var byRelevance = false

  /// GDELT's largest `maxrecords`.
  public static let largestMaxRecords = 250

  /// The `query` parameter.
  public var text: String {
    func any(_ terms: [String]) -> String {
      terms.count == 1 ? terms[0] : "(" + terms.joined(separator: " OR ") + ")"
    }
    var parts = keywords.map { [$0] } ?? []
    if !countries.isEmpty { parts.append(any(countries.map { "sourcecountry:\($0)" })) }
    if !domains.isEmpty { parts.append(any(domains.map { "domain:\($0)" })) }
    parts += excludedDomains.map { "-domain:\($0)" }
    if let language { parts.append("sourcelang:\(language)") }
    return parts.joined(separator: " ")
  }

  /// The parameters as sent, in this order; newest first (`sort=DateDesc`) unless by relevance.
  public var parameters: [(String, String)] {
    var list = [("query", text), ("mode", "ArtList"), ("format", "json"), ("maxrecords", String(maxRecords))]
    if start != nil || end != nil {
      if let start { list.append(("startdatetime", start)) }
      if let end { list.append(("enddatetime", end)) }
    } else {
      list.append(("timespan", timespan))
    }
    list.append(("sort", byRelevance ? "HybridRel" : "DateDesc"))
    return list
  }

  /// A timespan (`15min`, `24h`, `1d`, `1w`, GDELT's units) in seconds; nil if it is not one.
  public static func seconds(timespan: String) -> Double? {
    let digits = timespan.prefix { $0.isASCII && $0.isNumber }
    guard let count = Double(digits), count > 0 else { return nil }
    switch timespan.dropFirst(digits.count).lowercased() {
    case "min": return count * 60
    case "h": return count * 3600
    case "d": return count * 86400
    case "w": return count * 7 * 86400
    default: return nil
    }
  }
}

/// One article of GDELT's `ArtList` JSON: `url`, `title`, `seendate` (`20261124T101500Z`), `socialimage`,
/// `domain`, `language`, `sourcecountry` (a country name).
struct GDELTArticle: Decodable {
  let url: String
  let title: String
  let seendate: String
  let socialimage: String?
  let domain: String?
  let sourcecountry: String?

  /// `seendate` as ISO 8601 in UTC (`2026-11-24T10:15:00Z`), or nil when it is not GDELT's form.
  static func publishedAt(_ seendate: String) -> String? {
    let bytes = Array(seendate.utf8)
    let digits = { (range: Range<Int>) in range.allSatisfy { bytes[$0] >= 48 && bytes[$0] <= 57 } }
    guard bytes.count == 16, digits(0..<8), bytes[8] == UInt8(ascii: "T"), digits(9..<15),
      bytes[15] == UInt8(ascii: "Z")
    else { return nil }
    let s = Array(seendate)
    let number = { (range: Range<Int>) in Int(String(s[range]))! }
    guard (1...12).contains(number(4..<6)), (1...31).contains(number(6..<8)), number(9..<11) <= 23,
      number(11..<13) <= 59, number(13..<15) <= 60
    else { return nil }
    let text =
      "\(String(s[0..<4]))-\(String(s[4..<6]))-\(String(s[6..<8]))T"
      + "\(String(s[9..<11])):\(String(s[11..<13])):\(String(s[13..<15]))Z"
    return ISO8601.parse(text) == nil ? nil : text
  }

  /// The article in the contract's shape: `domain` the source, `socialimage` the image; nil if its date is not
  /// GDELT's form or its link or title is empty.
  var article: Article? {
    guard let publishedAt = Self.publishedAt(seendate), !url.isEmpty, !title.isEmpty else { return nil }
    let image = socialimage.flatMap { $0.isEmpty ? nil : $0 }
    return Article(
      source: Article.Source(id: nil, name: domain.flatMap { $0.isEmpty ? nil : $0 } ?? "GDELT"),
      title: title, url: url, urlToImage: image, publishedAt: publishedAt)
  }
}

/// GDELT's answer: `{"articles":[…]}`, or `{}` when nothing matched. An article that is not its shape is left
/// out and counted.
struct GDELTBody: Decodable {
  /// Each article with the country code its `sourcecountry` names (nil for a country not among the 54).
  let articles: [(country: String?, article: Article)]
  /// Records in the answer, malformed ones included: whether it was cut at `maxrecords`.
  let records: Int
  let malformed: Int

  private struct Lenient: Decodable {
    let item: GDELTArticle?
    init(from decoder: any Decoder) throws { item = try? GDELTArticle(from: decoder) }
  }
  enum CodingKeys: String, CodingKey { case articles }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let items = try container.decodeIfPresent([Lenient].self, forKey: .articles) ?? []
    var articles: [(String?, Article)] = []
    for item in items {
      guard let raw = item.item, let article = raw.article?.sanitized() else { continue }
      articles.append((raw.sourcecountry.flatMap(GDELTCountries.code(sourceCountry:)), article))
    }
    self.articles = articles
    records = items.count
    malformed = items.count - articles.count
  }
}
