import AtlasMessages
import Fetch
import Foundation

extension GDELTClient {
  /// NewsAPI's `everything` asked of GDELT, which needs no key (issue 47 item 8): the words (`q`) as GDELT's
  /// query language takes them, the language (`sourcelang:`), `domains` and `excludeDomains` (`domain:`,
  /// `-domain:`), `from` and `to` (`startdatetime`, `enddatetime`; GDELT keeps about three months), newest first
  /// or by relevance (`sortBy` `relevancy`), at most `pageSize` articles (250). The words are checked as
  /// `NewsAPIClient.check(_:naming:)` checks them; the answer is cached as `search` answers are, and paced
  /// with every other GDELT request. `totalResults` is the articles' count: GDELT gives no total.
  ///
  /// - Throws: `.invalidRequest` for what NewsAPI would refuse, and for what GDELT has no equivalent of:
  ///   NewsAPI's source ids (`sources`), `searchIn`, and the `popularity` order, each named by `name`.
  public func search(_ search: SearchQuery, naming name: (SearchQuery.Field) -> String = { $0.rawValue })
    async throws(NewsAPIError) -> ArticlePage
  {
    try NewsAPIClient.check(search, naming: name)
    if !search.sources.isEmpty { throw .invalidRequest(Sentence(.gdeltSearchCannot, name(.sources))) }
    if !search.searchIn.isEmpty { throw .invalidRequest(Sentence(.gdeltSearchCannot, name(.searchIn))) }
    let order = search.sortBy?.lowercased()
    if order == "popularity" {
      throw .invalidRequest(Sentence(.gdeltSearchCannot, name(.sortBy) + " popularity"))
    }
    let words = (search.q ?? "").trimmingCharacters(in: .whitespaces)
    var query = GDELTQuery(
      countries: [], language: search.language.flatMap { GDELTCountries.languages[$0 == "se" ? "sv" : $0] },
      timespan: configuration.gdeltTimespan, maxRecords: min(search.pageSize, GDELTQuery.largestMaxRecords))
    query.keywords = words.isEmpty ? nil : words
    query.domains = search.domains
    query.excludedDomains = search.excludeDomains
    query.start = search.from.flatMap(searchInstant).map(Self.gdeltDate)
    query.end = search.to.flatMap(searchInstant).map(Self.gdeltDate)
    if (query.start != nil) != (query.end != nil) {
      // GDELT needs both ends: the other is the present, or three months back.
      query.start = query.start ?? Self.gdeltDate(Date().timeIntervalSince1970 - 90 * 86400)
      query.end = query.end ?? Self.gdeltDate(Date().timeIntervalSince1970)
    }
    query.byRelevance = order == "relevancy"
    let key = "gdelt-search:" + query.parameters.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    if let cache, !cache.refresh, let stored = cache.database.lookup(key),
      let articles = try? JSONDecoder().decode([Article].self, from: Data(stored.body)),
      cache.offline || Date().timeIntervalSince(stored.storedAt) <= cache.timeToLive.search
    {
      counters.count(hit: true)
      return ArticlePage(totalResults: articles.count, articles: articles)
    }
    if cache?.offline == true {
      throw .notCached(Sentence(.gdeltSearchOf, printable(String(words.prefix(64)))))
    }
    let body = try await send(query)
    var seen: Set<String> = []
    let articles = body.articles.map(\.article).filter { seen.insert($0.url).inserted }
    if let cache, let encoded = try? JSONEncoder().encode(articles) {
      cache.database.store(key, kind: "search", body: Array(encoded))
    }
    return ArticlePage(totalResults: articles.count, articles: articles)
  }

  /// An instant as GDELT's `YYYYMMDDHHMMSS`, UTC.
  static func gdeltDate(_ seconds: Double) -> String {
    var time = time_t(seconds.rounded(.down))
    var parts = tm()
    gmtime_r(&time, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(parts.tm_year + 1900)" + two(parts.tm_mon + 1) + two(parts.tm_mday) + two(parts.tm_hour)
      + two(parts.tm_min) + two(parts.tm_sec)
  }
}
