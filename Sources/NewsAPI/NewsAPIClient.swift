import AtlasMessages
import Fetch
import Foundation
import NewsAtlas
import Store
import Synchronization

/// NewsAPI's seven categories.
public let newsCategories = [
  "business", "entertainment", "general", "health", "science", "sports", "technology",
]
/// NewsAPI's fourteen languages (`se` is accepted for Swedish and sent as `sv`).
public let newsLanguages = [
  "ar", "de", "en", "es", "fr", "he", "it", "nl", "no", "pt", "ru", "sv", "ud", "zh",
]

/// NewsAPI's language for `text`: one of its codes (`se` read as `sv`), or a language's English or French name,
/// any case, accents optional (`french`, `Français`, `allemand`); nil for anything else.
public func newsLanguage(_ text: String) -> String? {
  let folded = Folding.fold(text)
  if folded == "se" { return "sv" }
  if newsLanguages.contains(folded) { return folded }
  return newsLanguageNames.first { $0.value.contains(folded) }?.key
}

/// The English and French names of NewsAPI's languages, folded as `Folding.fold` folds.
private let newsLanguageNames: [String: [String]] = [
  "ar": ["arabic", "arabe"], "de": ["german", "allemand", "deutsch"], "en": ["english", "anglais"],
  "es": ["spanish", "espagnol"], "fr": ["french", "francais"], "he": ["hebrew", "hebreu"],
  "it": ["italian", "italien"], "nl": ["dutch", "neerlandais"], "no": ["norwegian", "norvegien"],
  "pt": ["portuguese", "portugais"], "ru": ["russian", "russe"], "sv": ["swedish", "suedois"],
  "ud": ["urdu", "ourdou"], "zh": ["chinese", "chinois"],
]

/// A page of articles, without NewsAPI's `[Removed]` placeholders.
public struct ArticlePage: Sendable, Equatable {
  public let totalResults: Int
  public let articles: [Article]
}

/// `top-headlines` parameters.
public struct HeadlinesQuery: Sendable {
  public var country: String?
  public var category: String?
  public var sources: [String] = []
  public var q: String?
  public var pageSize = 20
  public var page = 1
  public init(country: String? = nil, category: String? = nil, sources: [String] = [], q: String? = nil) {
    self.country = country
    self.category = category
    self.sources = sources
    self.q = q
  }
}

/// The instant (seconds since 1970, UTC) of a date or time `everything` takes for `from` and `to`:
/// `2026-11-01` (its midnight UTC), or `2026-11-01T10:00`, with seconds, a fraction, `Z` or an offset (`+01:00`)
/// optional, UTC without one; nil for anything else, a day the month does not have (`2026-02-30`) included.
func searchInstant(_ text: String) -> Double? {
  let bytes = Array(text.utf8)
  func number(_ at: Int, _ count: Int, in range: ClosedRange<Int>) -> Int? {
    guard at + count <= bytes.count, bytes[at..<(at + count)].allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
      return nil
    }
    let value = bytes[at..<(at + count)].reduce(0) { $0 * 10 + Int($1 - 48) }
    return range.contains(value) ? value : nil
  }
  func byte(_ at: Int, _ character: Character) -> Bool {
    at < bytes.count && bytes[at] == character.asciiValue
  }
  guard let year = number(0, 4, in: 1970...9999), byte(4, "-"), let month = number(5, 2, in: 1...12),
    byte(7, "-"), let day = number(8, 2, in: 1...31)
  else { return nil }
  let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
  let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
  guard day <= monthDays[month - 1] else { return nil }
  // Days since 1970-01-01 (Howard Hinnant's days_from_civil).
  let y = month <= 2 ? year - 1 : year
  let era = y / 400
  let yearOfEra = y - era * 400
  let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
  let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
  let midnight = Double((era * 146_097 + dayOfEra - 719_468) * 86_400)
  if bytes.count == 10 { return midnight }
  guard byte(10, "T"), let hour = number(11, 2, in: 0...23), byte(13, ":"),
    let minute = number(14, 2, in: 0...59)
  else { return nil }
  var seconds = Double(hour * 3_600 + minute * 60)
  var index = 16
  if byte(index, ":") {
    guard let second = number(index + 1, 2, in: 0...60) else { return nil }
    seconds += Double(second)
    index += 3
    if byte(index, ".") {
      index += 1
      let start = index
      while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
      guard index > start else { return nil }
      seconds += Double("0." + String(decoding: bytes[start..<index], as: UTF8.self)) ?? 0
    }
  }
  if index == bytes.count { return midnight + seconds }
  if byte(index, "Z") { return index + 1 == bytes.count ? midnight + seconds : nil }
  guard byte(index, "+") || byte(index, "-"), let offsetHours = number(index + 1, 2, in: 0...14),
    byte(index + 3, ":"), let offsetMinutes = number(index + 4, 2, in: 0...59), index + 6 == bytes.count
  else { return nil }
  let offset = Double(offsetHours * 3_600 + offsetMinutes * 60)
  return midnight + seconds + (byte(index, "+") ? -offset : offset)
}

/// `everything` parameters.
public struct SearchQuery: Sendable {
  public var q: String?
  public var searchIn: [String] = []
  public var sources: [String] = []
  public var domains: [String] = []
  public var excludeDomains: [String] = []
  public var from: String?
  public var to: String?
  public var language: String?
  public var sortBy: String?
  public var pageSize = 20
  public var page = 1
  public init(q: String? = nil) { self.q = q }

  /// The parameters a refusal names, by NewsAPI's names (`searchIn`); a front end that calls them otherwise
  /// names them its way (`NewsAPIClient.check(_:naming:)`): the command line's flags, `--search-in`.
  public enum Field: String, CaseIterable, Sendable {
    case searchIn, from, to, pageSize, page, sources, sortBy
  }
}

/// A client for NewsAPI v2 over an `HTTPTransport` (libcurl's `HTTPClient`, or a fake in tests).
///
/// The key travels in the `X-Api-Key` header only, never in a URL. Invalid combinations are refused before any
/// request. The rate limit and server errors get at most one retry, after `Retry-After` when it is short.
public final class NewsAPIClient: Sendable {
  public let baseURL: String
  private let key: String
  private let http: any HTTPTransport
  private let timeout: Duration?
  let cache: CachePolicy?
  /// Requests being answered now, by cache key, so that identical ones share one.
  private let inFlight = SingleFlight()
  /// Requests answered from the cache and sent, since the client was made (for a service's metrics).
  public let counters = RequestCounters()
  /// The longest `Retry-After` worth waiting for before the one retry; longer ones are reported instead.
  public static let longestRetryWait = 10

  /// - Throws: `NewsAPIError.missingKey` for an empty key, `.invalidRequest` for a key or a base the settings
  ///   would refuse (a control character in the key; a base that is not an http(s) URL with a host).
  public init(
    key: String, baseURL: String = NewsConfiguration.defaults.apiBase, http: any HTTPTransport,
    timeout: Duration? = nil,
    cache: CachePolicy? = nil
  ) throws(NewsAPIError) {
    guard !key.isEmpty else { throw .missingKey }
    // The settings' rules, the last line before a header or a URL: the CLI and `serve` check them earlier.
    do {
      _ = try Settings.Key.apiKey.validate(key)
      _ = try Settings.Key.apiBase.validate(baseURL)
    } catch {
      throw .invalidRequest(error.sentence)
    }
    self.key = key
    self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    self.http = http
    self.timeout = timeout
    self.cache = cache
  }

  // MARK: - Endpoints

  public func topHeadlines(_ query: HeadlinesQuery) async throws(NewsAPIError) -> ArticlePage {
    return try await articles("/v2/top-headlines", Self.parameters(query))
  }

  /// The query string of a `top-headlines` request, or why the service would refuse it.
  static func parameters(_ query: HeadlinesQuery) throws(NewsAPIError) -> [(String, String)] {
    if !query.sources.isEmpty && (query.country != nil || query.category != nil) {
      throw .invalidRequest(Sentence(.mixSourcesAndCountry))
    }
    guard !query.sources.isEmpty || query.q != nil || query.country != nil || query.category != nil else {
      throw .invalidRequest(Sentence(.topHeadlinesNeed))
    }
    if let category = query.category, !newsCategories.contains(category) {
      throw .invalidRequest(
        Sentence(.notACategory, printable(category), newsCategories.joined(separator: ", ")))
    }
    guard query.sources.count <= 20 else {
      throw .invalidRequest(Sentence(.tooManySources))
    }
    try checkPaging(pageSize: query.pageSize, page: query.page)
    var parameters: [(String, String)] = []
    if let country = query.country { parameters.append(("country", country)) }
    if let category = query.category { parameters.append(("category", category)) }
    if !query.sources.isEmpty { parameters.append(("sources", query.sources.joined(separator: ","))) }
    if let q = query.q { parameters.append(("q", q)) }
    parameters += [("pageSize", String(query.pageSize)), ("page", String(query.page))]
    return parameters
  }

  public func everything(_ query: SearchQuery) async throws(NewsAPIError) -> ArticlePage {
    return try await articles("/v2/everything", Self.parameters(query))
  }

  /// Checks a search as `everything` would before sending it (its words, dates, fields, domains, paging),
  /// for a front end that spends a request before it (the sources list, to check `sources` against). A
  /// refusal calls a parameter by `name` (NewsAPI's name unless given: a command line says `--search-in`).
  ///
  /// - Throws: `.invalidRequest` saying what NewsAPI would refuse.
  public static func check(
    _ query: SearchQuery, naming name: (SearchQuery.Field) -> String = { $0.rawValue }
  ) throws(NewsAPIError) {
    _ = try parameters(query, naming: name)
  }

  /// Whether `text` is a domain name as `domains` and `excludeDomains` take one (`bbc.co.uk`): two labels or
  /// more, each 1 to 63 letters, digits and hyphens, not beginning or ending with a hyphen; 253 characters at
  /// most (RFC 1035's host names).
  static func isDomainName(_ text: String) -> Bool {
    let labels = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    return text.utf8.count <= 253 && labels.count >= 2
      && labels.allSatisfy { label in
        (1...63).contains(label.count) && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
          && label.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
              UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
              true
            default: false
            }
          }
      }
  }

  /// The query string of an `everything` request, or why the service would refuse it, a parameter called by
  /// `name`.
  static func parameters(
    _ query: SearchQuery, naming name: (SearchQuery.Field) -> String = { $0.rawValue }
  ) throws(NewsAPIError) -> [(String, String)] {
    guard !(query.q ?? "").allSatisfy(\.isWhitespace) || !query.sources.isEmpty || !query.domains.isEmpty
    else {
      throw .invalidRequest(Sentence(.searchNeeds))
    }
    if let q = query.q, q.count > 500 {
      throw .invalidRequest(Sentence(.searchWordsLong))
    }
    guard query.sources.count <= 20 else {
      throw .invalidRequest(Sentence(.tooManySources))
    }
    let language = query.language == "se" ? "sv" : query.language
    if let language, !newsLanguages.contains(language) {
      throw .invalidRequest(
        Sentence(.notALanguage, printable(language), newsLanguages.joined(separator: ", ")))
    }
    // The order and the fields in any case, as the sort-by setting takes them (PublishedAt, Title).
    let sortBy = try query.sortBy.map { text throws(NewsAPIError) in
      guard let order = searchOrders.first(where: { $0.lowercased() == text.lowercased() }) else {
        throw .invalidRequest(Sentence(.notASortOrder, printable(text)))
      }
      return order
    }
    let searchIn = query.searchIn.map { $0.lowercased() }
    for (field, value) in [(SearchQuery.Field.from, query.from), (.to, query.to)] {
      guard let value, searchInstant(value) == nil else { continue }
      throw .invalidRequest(Sentence(.notADate, printable(String(value.prefix(40))), name(field)))
    }
    // Compared as instants: 10:00+05:00 is before 06:00Z.
    if let from = query.from, let to = query.to, let start = searchInstant(from), let end = searchInstant(to),
      start > end
    {
      throw .invalidRequest(Sentence(.fromAfterTo, name(.from), printable(from), name(.to), printable(to)))
    }
    for (field, typed) in zip(searchIn, query.searchIn)
    where !["title", "description", "content"].contains(field) {
      throw .invalidRequest(Sentence(.searchInFields, name(.searchIn), printable(typed)))
    }
    for domain in query.domains + query.excludeDomains where !isDomainName(domain) {
      throw .invalidRequest(Sentence(.searchDomainShape, printable(String(domain.prefix(64)))))
    }
    try checkPaging(pageSize: query.pageSize, page: query.page, naming: name)
    var parameters: [(String, String)] = []
    if let q = query.q { parameters.append(("q", q)) }
    if !searchIn.isEmpty { parameters.append(("searchIn", searchIn.joined(separator: ","))) }
    if !query.sources.isEmpty { parameters.append(("sources", query.sources.joined(separator: ","))) }
    if !query.domains.isEmpty { parameters.append(("domains", query.domains.joined(separator: ","))) }
    if !query.excludeDomains.isEmpty {
      parameters.append(("excludeDomains", query.excludeDomains.joined(separator: ",")))
    }
    if let from = query.from { parameters.append(("from", from)) }
    if let to = query.to { parameters.append(("to", to)) }
    if let language { parameters.append(("language", language)) }
    if let sortBy { parameters.append(("sortBy", sortBy)) }
    parameters += [("pageSize", String(query.pageSize)), ("page", String(query.page))]
    return parameters
  }

  /// `top-headlines/sources`, with country codes normalised (`zh` → `cn`, `is` → `il`).
  public func sources(country: String? = nil, language: String? = nil, category: String? = nil)
    async throws(NewsAPIError) -> [NewsSource]
  {
    var parameters: [(String, String)] = []
    let language = language == "se" ? "sv" : language
    if let language, !newsLanguages.contains(language) {
      throw .invalidRequest(
        Sentence(.notALanguage, printable(language), newsLanguages.joined(separator: ", ")))
    }
    if let category, !newsCategories.contains(category) {
      throw .invalidRequest(
        Sentence(.notACategory, printable(category), newsCategories.joined(separator: ", ")))
    }
    // Any two-letter code: the sources list has countries beyond the 54 (es, for one).
    if let country, country.count != 2 || !country.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) }) {
      throw .invalidRequest(Sentence(.twoLetterCountry, printable(country)))
    }
    if let language { parameters.append(("language", language)) }
    if let category { parameters.append(("category", category)) }
    // Filtered here rather than by the service, whose China and Israel sources carry other codes.
    let all = try await request("/v2/top-headlines/sources", parameters, as: SourcesBody.self).sources.map {
      $0.normalized()
    }
    return country.map { code in all.filter { $0.country == code } } ?? all
  }

  /// Every page of a search, until `totalResults` or the plan's first 100 results, whichever comes first.
  public func everythingPages(_ query: SearchQuery, resultLimit: Int = 100) async throws(NewsAPIError)
    -> ArticlePage
  {
    var query = query
    query.page = 1
    var articles: [Article] = []
    var total = 0
    let limit = Swift.min(resultLimit, 100)
    while true {
      query.pageSize = Swift.min(query.pageSize, limit)
      let page = try await everything(query)
      total = page.totalResults
      articles += page.articles
      let fetched = query.page * query.pageSize
      if fetched >= total || fetched + query.pageSize > limit || page.articles.isEmpty { break }
      query.page += 1
    }
    return ArticlePage(totalResults: total, articles: articles)
  }

  // MARK: - Requests

  /// The page size and page NewsAPI takes (and its free plan: the first 100 results), each called by `name`.
  static func checkPaging(
    pageSize: Int, page: Int, naming name: (SearchQuery.Field) -> String = { $0.rawValue }
  ) throws(NewsAPIError) {
    guard (1...100).contains(pageSize) else {
      throw .invalidRequest(Sentence(.pageSizeRange, name(.pageSize), pageSize))
    }
    guard page >= 1 else { throw .invalidRequest(Sentence(.pageRange, name(.page), page)) }
    guard page * pageSize <= 100 else {
      throw .invalidRequest(Sentence(.freePlanPages, page, pageSize))
    }
  }

  private func articles(_ path: String, _ parameters: [(String, String)]) async throws(NewsAPIError)
    -> ArticlePage
  {
    return try await request(path, parameters, as: ArticlesBody.self).page
  }

  static func cacheKind(_ path: String) -> String {
    path.hasSuffix("/sources") ? "sources" : path.hasSuffix("/everything") ? "search" : "headlines"
  }

  /// The request as the service sees it, minus the API key, which is never stored: the base without user
  /// information, the path, and the parameters percent-encoded and sorted, so that two requests share a key
  /// only when they are the same request (`q=x&sortBy=popularity` is one parameter `q`, escaped, not two).
  func cacheKey(_ path: String, _ parameters: [(String, String)]) -> String {
    Self.cacheKey(base: baseURL, path, parameters)
  }

  /// The cache's key for a request to `base` (without a final `/`).
  static func cacheKey(base: String, _ path: String, _ parameters: [(String, String)]) -> String {
    HTTPURL.redacted(base) + path + "?"
      + parameters.map { Self.escape($0.0) + "=" + Self.escape($0.1) }.sorted().joined(separator: "&")
  }

  /// Whether a run would answer this request from the cache without sending it.
  func answersFromCache(_ path: String, _ parameters: [(String, String)]) -> Bool {
    guard let cache, !cache.refresh, let stored = cache.database.lookup(cacheKey(path, parameters)) else {
      return false
    }
    return cache.offline
      || Date().timeIntervalSince(stored.storedAt) <= cache.timeToLive.seconds(forKind: Self.cacheKind(path))
  }

  /// The sources list as the cache holds it, whatever its age, and whether a run would use it without sending.
  func cachedSources() -> (sources: [NewsSource], fresh: Bool)? {
    let path = "/v2/top-headlines/sources"
    guard let cache, let sources = Self.cachedSources(in: cache.database, base: baseURL) else { return nil }
    return (sources, answersFromCache(path, []))
  }

  /// The sources list `database` holds for the service at `base`, whatever its age; nil when none is cached.
  static func cachedSources(in database: any ResponseStore, base: String) -> [NewsSource]? {
    let base = base.hasSuffix("/") ? String(base.dropLast()) : base
    guard let stored = database.lookup(cacheKey(base: base, "/v2/top-headlines/sources", [])),
      let body = try? JSONDecoder().decode(SourcesBody.self, from: Data(stored.body))
    else { return nil }
    return body.sources.map { $0.normalized() }
  }

  /// The answer to one request, decoded. Identical requests in flight at once (a server's concurrent
  /// clients asking the same thing) share one: one request sent, one budget count, one answer.
  private func request<T: Decodable>(_ path: String, _ parameters: [(String, String)], as type: T.Type)
    async throws(NewsAPIError) -> T
  {
    let key = cacheKey(path, parameters)
    let body = try await inFlight.share(key) { () async throws(NewsAPIError) -> [UInt8] in
      try await self.body(path, parameters, key: key, as: type)
    }
    guard let value = try? JSONDecoder().decode(T.self, from: Data(body)) else {
      throw .unexpectedResponse(status: 200, answer: Self.answer(body))
    }
    return value
  }

  /// Answers from the cache when it can, else sends (counting the request against the plan), keeps the answer,
  /// and falls back to a stale cached answer, with a warning, when the network or the quota fails.
  private func body<T: Decodable>(
    _ path: String, _ parameters: [(String, String)], key: String, as type: T.Type
  ) async throws(NewsAPIError) -> [UInt8] {
    guard let cache else { return try await send(path, parameters, as: type).body }
    let kind = Self.cacheKind(path)
    let cached = cache.database.lookup(key)
    let decodedCache = cached.flatMap { try? JSONDecoder().decode(T.self, from: Data($0.body)) }.flatMap {
      _ in cached?.body
    }
    let age = cached.map { Date().timeIntervalSince($0.storedAt) } ?? .infinity
    if let decodedCache, !cache.refresh, !cache.offline, age <= cache.timeToLive.seconds(forKind: kind) {
      counters.count(hit: true)
      return decodedCache
    }
    let description =
      "\(path.replacingOccurrences(of: "/v2/", with: "")) \(parameters.filter { $0.0 != "page" && $0.0 != "pageSize" }.map { "\($0.0)=\($0.1)" }.joined(separator: " "))"
    if cache.offline {
      guard let decodedCache else { throw .notCached(Sentence(.newsapiRequest, description)) }
      cache.warn(Message.staleOffline(description, spokenDuration(age, in: .current)))
      counters.count(hit: true)
      return decodedCache
    }
    let usage = cache.usage()
    if usage.isSpent && !cache.force {
      if let decodedCache {
        cache.warn(Message.staleBudgetSpent(description, spokenDuration(age, in: .current)))
        counters.count(hit: true)
        return decodedCache
      }
      throw .budgetSpent(usage)
    }
    do throws(NewsAPIError) {
      let (_, body) = try await send(path, parameters, as: type, counting: cache)
      cache.database.store(key, kind: kind, body: body)
      return body
    } catch {
      let recoverable: Bool
      switch error {
      case .transport: recoverable = true
      case .service(let status, _, _, _): recoverable = error.isQuota || status >= 500
      case .unexpectedResponse(let status, _): recoverable = status >= 500
      default: recoverable = false
      }
      guard recoverable, !error.isOwnBudget, let decodedCache else { throw error }
      cache.warn(
        Message.staleAfterError(description, spokenDuration(age, in: .current), lowercasedFirst(error)))
      return decodedCache
    }
  }

  /// Sends one GET (and at most one retry), and decodes NewsAPI's success or error body.
  ///
  /// The timeout bounds the whole: a retry is made only in the time the first attempt left. With a cache,
  /// every attempt, the retry too, is counted against the budget before it is sent, and one the budget does
  /// not cover (or that the cache cannot count) is not sent.
  private func send<T: Decodable>(
    _ path: String, _ parameters: [(String, String)], as type: T.Type, counting cache: CachePolicy? = nil
  ) async throws(NewsAPIError) -> (value: T, body: [UInt8]) {
    let query = parameters.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
    let url = baseURL + path + (query.isEmpty ? "" : "?" + query)
    let limit = timeout ?? http.defaultTimeout
    let end = ContinuousClock.now.advanced(by: limit)
    var attempt = 0
    /// The first attempt's failure, when a retry follows: what is said if the retry cannot be sent.
    var failure: NewsAPIError? = nil
    while true {
      attempt += 1
      let response: HTTPResponse
      do {
        try cache?.reserve()
      } catch {
        throw failure ?? error  // a retry the budget does not cover is not sent; the first failure stands
      }
      counters.count(hit: false)
      do {
        response = try await http.get(
          url, headers: [("X-Api-Key", key), ("Accept", "application/json")],
          timeout: max(.milliseconds(1), ContinuousClock.now.duration(to: end)))
      } catch {
        if attempt == 1, Self.retryable(error), ContinuousClock.now.duration(to: end) > .milliseconds(300) {
          failure = .transport(error)
          try? await Task.sleep(for: .milliseconds(300))
          continue
        }
        // The whole request's limit, whatever the attempt had left of it.
        if case .timedOut(let host, _) = error {
          throw .transport(.timedOut(host, seconds: Self.seconds(limit)))
        }
        throw .transport(error)
      }
      if response.status == 200, Self.isSuccess(response.body),
        let value = try? JSONDecoder().decode(T.self, from: Data(response.body))
      {
        if let page = value as? ArticlesBody, page.malformed > 0 {
          let shown = path.replacingOccurrences(of: "/v2/", with: "")
          cache?.warn(
            page.malformed == 1
              ? Message.newsapiMalformedOne(shown) : Message.newsapiMalformed(shown, page.malformed))
        }
        return (value, response.body)
      }
      let error = Self.error(from: response)
      if attempt == 1, let wait = Self.retryDelay(error),
        ContinuousClock.now.advanced(by: .seconds(wait)) < end
      {
        failure = error
        try? await Task.sleep(for: .seconds(wait))
        continue
      }
      throw error
    }
  }

  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  /// Whether a 200's body says `"status":"ok"`: NewsAPI also answers some errors with a 200 and
  /// `{"status":"error",…}`, which must never be read (or cached) as an empty page.
  static func isSuccess(_ body: [UInt8]) -> Bool {
    struct Status: Decodable { let status: String? }
    return (try? JSONDecoder().decode(Status.self, from: Data(body)))?.status == "ok"
  }

  /// Seconds to wait before the one retry, or nil: the rate limit and server errors are retried once, after
  /// `Retry-After` when the service sends one and it is short; a long one is reported instead of waited out.
  static func retryDelay(_ error: NewsAPIError) -> Int? {
    switch error {
    case .service(let status, let code, _, let retryAfter):
      guard status == 429 || status >= 500 || code == "rateLimited" || code == "unexpectedError" else {
        return nil
      }
      guard code != "apiKeyExhausted" else { return nil }
      let wait = retryAfter ?? 1
      return wait <= longestRetryWait ? wait : nil
    case .unexpectedResponse(let status, _):
      return status >= 500 ? 1 : nil
    default:
      return nil
    }
  }

  static func retryable(_ error: HTTPError) -> Bool {
    switch error {
    case .connectionReset, .timedOut: return true
    default: return false
    }
  }

  static func error(from response: HTTPResponse) -> NewsAPIError {
    struct Failure: Decodable {
      let status: String
      let code: String?
      let message: String?
    }
    let retryAfter = response.header("Retry-After").flatMap { Self.retryAfter($0) }
    if let failure = try? JSONDecoder().decode(Failure.self, from: Data(response.body)),
      failure.status == "error"
    {
      return .service(
        status: response.status, code: failure.code ?? "unknown", message: failure.message ?? "no message",
        retryAfterSeconds: retryAfter)
    }
    return .unexpectedResponse(status: response.status, answer: answer(response.body))
  }

  /// A body that is not the service's JSON, as an error says it: empty, or what it begins with.
  static func answer(_ body: [UInt8]) -> ServiceAnswer {
    let text = String(decoding: body.prefix(60), as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
    return text.isEmpty ? .empty : .begins(text)
  }

  /// `Retry-After` (RFC 9110, 10.2.3) in whole seconds from now: delay-seconds (digits only) or an HTTP date;
  /// nil for anything else (`-5`, `soon`), which is then not believed.
  static func retryAfter(_ text: String, now: Date = Date()) -> Int? {
    let text = text.trimmingCharacters(in: .whitespaces)
    if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
      return text.count <= 9 ? Int(text) : nil
    }
    guard let date = httpDate(text) else { return nil }
    return max(0, Int(date.timeIntervalSince(now).rounded(.up)))
  }

  /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110, 5.6.7), the form a server must send, or nil.
  /// Read by hand: Foundation's DateFormatter keeps a character set it never frees, which the fuzzer's leak
  /// check reports on every run.
  static func httpDate(_ text: String) -> Date? {
    let parts = text.split(separator: " ", omittingEmptySubsequences: false)
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
      parts[1].count == 2, let day = Int(parts[1]), (1...31).contains(day),
      let month = months.firstIndex(of: String(parts[2])),
      parts[3].count == 4, let year = Int(parts[3]), year >= 1970
    else { return nil }
    let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
    guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = Int(clock[0]),
      (0...23).contains(hour),
      let minute = Int(clock[1]), (0...59).contains(minute), let second = Int(clock[2]),
      (0...60).contains(second)
    else { return nil }
    var fields = tm()
    fields.tm_year = Int32(year - 1900)
    fields.tm_mon = Int32(month)
    fields.tm_mday = Int32(day)
    fields.tm_hour = Int32(hour)
    fields.tm_min = Int32(minute)
    fields.tm_sec = Int32(second)
    let seconds = timegm(&fields)
    return seconds == -1 ? nil : Date(timeIntervalSince1970: Double(seconds))
  }

  /// RFC 3986 percent-encoding of a query component (`queryEscaped`).
  static func escape(_ text: String) -> String { queryEscaped(text) }

}

/// The body of a `top-headlines` or `everything` answer. An article that is not NewsAPI's shape (a null title,
/// say) is left out and counted, rather than failing the whole page.
struct ArticlesBody: Decodable {
  let totalResults: Int?
  let articles: [Article]?
  /// Articles left out because they were malformed.
  let malformed: Int

  private struct Lenient: Decodable {
    let article: Article?
    init(from decoder: any Decoder) throws { article = try? Article(from: decoder) }
  }

  enum CodingKeys: String, CodingKey { case totalResults, articles }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    totalResults = try container.decodeIfPresent(Int.self, forKey: .totalResults)
    let items = try container.decodeIfPresent([Lenient].self, forKey: .articles)
    articles = items?.compactMap { $0.article?.sanitized() }
    malformed = (items?.count ?? 0) - (articles?.count ?? 0)
  }

  /// The page, withdrawn ("[Removed]") articles dropped.
  var page: ArticlePage {
    ArticlePage(totalResults: totalResults ?? 0, articles: (articles ?? []).filter { !$0.isRemoved })
  }
}

/// The body of a `top-headlines/sources` answer.
struct SourcesBody: Decodable { let sources: [NewsSource] }

extension NewsAPIClient {
  /// One response read as `top-headlines` and `everything` read it: the page, or the typed error it stands
  /// for. The client's own decoding, reachable without a network (tests, fuzzing).
  public static func decodeArticles(_ response: HTTPResponse) -> Result<ArticlePage, NewsAPIError> {
    if response.status == 200, isSuccess(response.body),
      let body = try? JSONDecoder().decode(ArticlesBody.self, from: Data(response.body))
    {
      return .success(body.page)
    }
    return .failure(error(from: response))
  }

  /// One response read as `sources` reads it: the normalised sources, or the typed error it stands for.
  public static func decodeSources(_ response: HTTPResponse) -> Result<[NewsSource], NewsAPIError> {
    if response.status == 200, isSuccess(response.body),
      let body = try? JSONDecoder().decode(SourcesBody.self, from: Data(response.body))
    {
      return .success(body.sources.map { $0.normalized() })
    }
    return .failure(error(from: response))
  }
}

/// How many requests a client answered from its cache and how many it sent (retries included).
public final class RequestCounters: Sendable {
  private let counts = Mutex((hits: 0, sends: 0))

  public init() {}

  public var cacheHits: Int { counts.withLock { $0.hits } }
  public var sent: Int { counts.withLock { $0.sends } }

  func count(hit: Bool) {
    counts.withLock { if hit { $0.hits += 1 } else { $0.sends += 1 } }
  }
}

/// Identical requests in flight at once share one answer: the first runs, the others wait for its result.
final class SingleFlight: Sendable {
  private let running = Mutex<[String: Task<Result<[UInt8], NewsAPIError>, Never>]>([:])

  func share(_ key: String, _ work: @escaping @Sendable () async throws(NewsAPIError) -> [UInt8])
    async throws(NewsAPIError) -> [UInt8]
  {
    let (task, owner) = running.withLock { tasks in
      if let task = tasks[key] { return (task, false) }
      let task = Task { await Result.awaiting { () async throws(NewsAPIError) in try await work() } }
      tasks[key] = task
      return (task, true)
    }
    let result = await task.value
    if owner { running.withLock { _ = $0.removeValue(forKey: key) } }
    return try result.get()
  }
}

/// An error's sentence in the process's language with its first letter small, to follow a colon in a warning.
func lowercasedFirst(_ error: NewsAPIError) -> String {
  let text = error.description(in: .current)
  return text.prefix(1).lowercased() + text.dropFirst()
}
