import AtlasMessages
import Fetch
import Foundation
import NewsAtlas
import Store

/// Headlines from GDELT DOC 2.0 (`{base}/api/v2/doc/doc`, `mode=ArtList&format=json`), which needs no key.
///
/// Several countries share one request, `(sourcecountry:A OR sourcecountry:B …)`, newest first, split back by
/// each article's `sourcecountry`; a country that a full answer (`maxrecords` articles) starves is asked again,
/// packed anew with what the answers taught of each country's volume, or alone once the requests left allow.
/// At most `gdeltRequestLimit` requests a call. Requests are paced to one every `gdeltSpacing` seconds across
/// every process sharing the cache (each reserves its turn in the request log). Each country's articles are
/// cached on their own, so a warm run sends nothing whatever the packing was. GDELT answers a bad query or a
/// client that asks too often with a 200 and a line of text: that becomes an error, never zero articles. No
/// key, header or secret is ever sent to GDELT.
public final class GDELTClient: HeadlinesProvider {
  public let baseURL: String
  private let http: any HTTPTransport
  private let timeout: Duration?
  let cache: CachePolicy?
  let configuration: NewsConfiguration
  /// Where turns are reserved: the cache's request log, or (without a cache) this process's memory.
  private let pacing: any ResponseStore
  public let counters = RequestCounters()
  /// Told of each request as it answers (a front end's progress: the command line's `headlines` on a terminal).
  private let progress: (@Sendable (GDELTRequestProgress) -> Void)?
  public var provider: NewsProvider { .gdelt }

  /// - Throws: `.invalidRequest` for a base that is not an http(s) URL with a host, or a timespan GDELT does
  ///   not take.
  public init(
    baseURL: String = NewsConfiguration.defaults.gdeltBase, http: any HTTPTransport, timeout: Duration? = nil,
    cache: CachePolicy? = nil, configuration: NewsConfiguration = .defaults,
    progress: (@Sendable (GDELTRequestProgress) -> Void)? = nil
  ) throws(NewsAPIError) {
    do {
      _ = try Settings.Key.gdeltBase.validate(baseURL)
    } catch {
      throw .invalidRequest(error.sentence)
    }
    guard GDELTQuery.seconds(timespan: configuration.gdeltTimespan) != nil else {
      throw .invalidRequest(
        Sentence(.gdeltTimespan, printable(String(configuration.gdeltTimespan.prefix(64)))))
    }
    self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    self.http = http
    self.timeout = timeout
    self.cache = cache
    self.configuration = configuration
    self.progress = progress
    pacing = cache?.database ?? InMemoryResponseStore()
  }

  /// The sentence for a category asked of GDELT, which has none.
  public static func noCategories(_ job: HeadlinesJob) -> Sentence {
    Sentence(
      .providerGDELTNoCategories, english: [job.country.name, job.category ?? ""],
      french: [job.country.nameFrench, job.category ?? ""])
  }

  /// GDELT's `seendate` (`20261124T101500Z`) as the contract's `publishedAt` (`2026-11-24T10:15:00Z`, UTC), or
  /// nil when it is not that form.
  public static func publishedAt(seendate: String) -> String? { GDELTArticle.publishedAt(seendate) }

  /// GDELT has a route for every country, in no category.
  public func routes(for jobs: [HeadlinesJob], options: HeadlinesOptions, asking: Bool) async -> [Bool?] {
    jobs.map { $0.category == nil }
  }

  // MARK: - The cache, by country

  /// What is kept of one country: its articles and how many the answer held.
  struct Kept: Codable {
    let articles: [Article]
    let total: Int
  }

  func language(_ options: HeadlinesOptions) -> String? {
    options.language.flatMap { GDELTCountries.languages[$0 == "se" ? "sv" : $0] }
  }

  /// One country's articles as this call asks for them (language, timespan, how many), never a secret.
  func cacheKey(_ code: String, options: HeadlinesOptions) -> String {
    let fips = GDELTCountries.table[code]!.fips
    return "gdelt:" + HTTPURL.redacted(baseURL) + "/api/v2/doc/doc?sourcecountry=\(fips)&sourcelang="
      + (language(options) ?? "") + "&timespan=\(configuration.gdeltTimespan)&records=\(options.pageSize)"
  }

  func kept(_ code: String, options: HeadlinesOptions) -> (kept: Kept, age: Double)? {
    guard let cache, let stored = cache.database.lookup(cacheKey(code, options: options)),
      let kept = try? JSONDecoder().decode(Kept.self, from: Data(stored.body))
    else { return nil }
    return (kept, Date().timeIntervalSince(stored.storedAt))
  }

  /// Whether a run answers the country from the cache without a request.
  func answersFromCache(_ code: String, options: HeadlinesOptions) -> Bool {
    guard let cache, !cache.refresh, let (_, age) = kept(code, options: options) else { return false }
    return cache.offline || age <= cache.timeToLive.headlines
  }

  func keep(_ code: String, _ kept: Kept, options: HeadlinesOptions) {
    guard let cache, let body = try? JSONEncoder().encode(kept) else { return }
    cache.database.store(cacheKey(code, options: options), kind: "headlines", body: Array(body))
  }

  /// Articles a country publishes in the timespan, as answers have shown (an estimate, kept in the cache).
  func volume(_ code: String, options: HeadlinesOptions) -> Double? {
    guard let stored = cache?.database.lookup(volumeKey(code, options: options)) else { return nil }
    return Double(String(decoding: stored.body, as: UTF8.self))
  }

  private func volumeKey(_ code: String, options: HeadlinesOptions) -> String {
    "gdelt-volume:\(GDELTCountries.table[code]!.fips):\(language(options) ?? ""):\(configuration.gdeltTimespan)"
  }

  private func recordVolume(_ code: String, _ value: Double, options: HeadlinesOptions) {
    cache?.database.store(
      volumeKey(code, options: options), kind: "route", body: Array(String(format: "%.3f", value).utf8))
  }

  // MARK: - Planning

  /// Countries with no known volume are packed this many to a request (about 14 articles each of 250).
  static let unknownPerRequest = 18

  /// Groups of country codes, one request each, no more than `limit` groups: each alone when the limit
  /// allows; else packed first-fit in decreasing order of volume so that every member can expect `pageSize`
  /// articles of the answer (its whole volume fits in `maxrecords`, or its share of the group's does).
  static func pack(_ codes: [String], volumes: [String: Double], pageSize: Int, limit: Int) -> [[String]] {
    guard codes.count > limit else { return codes.map { [$0] } }
    let records = Double(GDELTQuery.largestMaxRecords)
    let unknown = records / Double(unknownPerRequest)
    let estimate = { (code: String) in max(volumes[code] ?? unknown, 0.01) }
    let order = codes.sorted {
      estimate($0) != estimate($1) ? estimate($0) > estimate($1) : $0 < $1
    }
    var groups: [(codes: [String], total: Double, least: Double)] = []
    for code in order {
      let volume = estimate(code)
      let fits = { (group: (codes: [String], total: Double, least: Double)) -> Bool in
        let total = group.total + volume
        let least = min(group.least, volume)
        return total <= records || least * records / total >= Double(pageSize)
      }
      if let open = groups.firstIndex(where: fits) {
        groups[open].codes.append(code)
        groups[open].total += volume
        groups[open].least = min(groups[open].least, volume)
      } else {
        groups.append(([code], volume, volume))
      }
    }
    // More groups than requests left: the lightest groups merge until they fit.
    while groups.count > max(1, limit) {
      groups.sort { $0.total > $1.total }
      let last = groups.removeLast()
      groups[groups.count - 1].codes += last.codes
      groups[groups.count - 1].total += last.total
      groups[groups.count - 1].least = min(groups[groups.count - 1].least, last.least)
    }
    return groups.map { $0.codes.sorted() }.sorted { $0[0] < $1[0] }
  }

  private func query(_ codes: [String], options: HeadlinesOptions) -> GDELTQuery {
    GDELTQuery(
      countries: codes.map { GDELTCountries.table[$0]!.fips }, language: language(options),
      timespan: configuration.gdeltTimespan,
      maxRecords: codes.count == 1 ? options.pageSize : GDELTQuery.largestMaxRecords)
  }

  /// The countries of the jobs, once each, in order, without those in a category.
  private func countries(_ jobs: [HeadlinesJob]) -> [String] {
    var seen: Set<String> = []
    return jobs.filter { $0.category == nil }.map(\.country.code).filter { seen.insert($0).inserted }
  }

  /// Seconds until this process may send its next GDELT request: the turn after the last one reserved.
  private func nextTurn() -> Double {
    let last = pacing.requests(service: "gdelt", since: Date().addingTimeInterval(-86400)).last
    return max(0, (last?.timeIntervalSinceNow ?? -.infinity) + configuration.gdeltSpacing)
  }

  public func plan(_ jobs: [HeadlinesJob], options: HeadlinesOptions) -> HeadlinesPlan {
    var plan = HeadlinesPlan(jobs: jobs, options: options)
    for (i, job) in jobs.enumerated() where job.category != nil {
      plan.settled[i] = HeadlinesResult(
        job: job, provider: .gdelt, strategy: .none, reason: Self.noCategories(job))
    }
    let offsets = { (codes: [String]) in
      jobs.indices.filter { jobs[$0].category == nil && codes.contains(jobs[$0].country.code) }
    }
    let codes = countries(jobs)
    var pending: [String] = []
    for code in codes {
      if answersFromCache(code, options: options) {
        var request = PlannedRequest(
          route: .country, query: .gdelt(query([code], options: options)), jobs: offsets([code]))
        request.cached = true
        plan.requests.append(request)
      } else {
        pending.append(code)
      }
    }
    guard cache?.offline != true, !pending.isEmpty else { return plan }
    let limit = configuration.gdeltRequestLimit
    let volumes = Dictionary(
      uniqueKeysWithValues: pending.compactMap { code in
        volume(code, options: options).map { (code, $0) }
      })
    let groups = Self.pack(pending, volumes: volumes, pageSize: options.pageSize, limit: limit)
    for group in groups {
      plan.requests.append(
        PlannedRequest(
          route: group.count == 1 ? .country : .packed, query: .gdelt(query(group, options: options)),
          jobs: offsets(group)))
    }
    let spacing = configuration.gdeltSpacing
    plan.spacing = spacing
    let wait = nextTurn()
    plan.seconds = wait + Double(groups.count - 1) * spacing
    plan.followUpsAtMost = groups.allSatisfy { $0.count == 1 } ? 0 : max(0, limit - groups.count)
    plan.secondsAtMost = wait + Double(groups.count + plan.followUpsAtMost - 1) * spacing
    return plan
  }

  // MARK: - Headlines

  public func headlines(
    _ jobs: [HeadlinesJob], options: HeadlinesOptions, onResult: (Int, HeadlinesResult) -> Void = { _, _ in }
  ) async throws(NewsAPIError) -> [HeadlinesResult] {
    var results = [HeadlinesResult?](repeating: nil, count: jobs.count)
    func settle(_ code: String, _ make: (HeadlinesJob) -> HeadlinesResult) {
      for i in jobs.indices where jobs[i].category == nil && jobs[i].country.code == code {
        results[i] = make(jobs[i])
        onResult(i, results[i]!)
      }
    }
    func answer(_ code: String, _ kept: Kept) {
      settle(code) {
        HeadlinesResult(
          job: $0, provider: .gdelt, strategy: .sourcecountry, totalResults: kept.total,
          articles: Array(kept.articles.prefix(options.pageSize)))
      }
    }
    for (i, job) in jobs.enumerated() where job.category != nil {
      results[i] = HeadlinesResult(
        job: job, provider: .gdelt, strategy: .none, reason: Self.noCategories(job))
      onResult(i, results[i]!)
    }
    let name = { (code: String) in Country.named(code: code, in: .world)!.name }

    // 1. The cache: fresh answers, or with --offline any answer.
    var pending: [String] = []
    for code in countries(jobs) {
      guard let cache, !cache.refresh, let (kept, age) = kept(code, options: options),
        cache.offline || age <= cache.timeToLive.headlines
      else {
        if cache?.offline == true {
          settle(code) {
            HeadlinesResult(
              job: $0, provider: .gdelt, strategy: .sourcecountry,
              error: .notCached(
                Sentence(
                  .gdeltHeadlinesOf, english: [name(code)],
                  french: [Country.named(code: code, in: .world)!.nameFrench])))
          }
        } else {
          pending.append(code)
        }
        continue
      }
      if cache.offline {
        cache.warn("Offline: GDELT's headlines of \(name(code)) are from \(spokenDuration(age)) ago.")
      }
      counters.count(hit: true)
      answer(code, kept)
    }

    // 2. Packed requests, then the countries they starved, packed anew or alone, within the limit.
    let limit = configuration.gdeltRequestLimit
    var sent = 0
    var best: [String: Kept] = [:]
    var volumes: [String: Double] = [:]
    for code in pending { volumes[code] = volume(code, options: options) }
    let timespan = GDELTQuery.seconds(timespan: configuration.gdeltTimespan)!
    let began = ContinuousClock.now
    let firstAsked = pending.count  // no call sends more requests than it has countries to ask
    while !pending.isEmpty && sent < limit {
      let groups = Self.pack(
        pending, volumes: volumes.compactMapValues { $0 }, pageSize: options.pageSize, limit: limit - sent)
      let answers = await send(
        groups.map { query($0, options: options) }, numbered: sent + 1, of: min(limit, firstAsked),
        groups: groups, since: began)
      sent += groups.count
      var starved: [String] = []
      for (group, outcome) in zip(groups, answers) {
        let body: GDELTBody
        switch outcome {
        case .failure(let error):
          for code in group {
            if let stale = stale(code, after: error, options: options) {
              answer(code, stale)
            } else {
              settle(code) {
                HeadlinesResult(job: $0, provider: .gdelt, strategy: .sourcecountry, error: error)
              }
            }
          }
          continue
        case .success(let value): body = value
        }
        let full = group.count > 1 && body.records >= GDELTQuery.largestMaxRecords
        // The time the answer covers: all of the timespan, or (cut at maxrecords) from its oldest article.
        var covered = timespan
        if full, let oldest = body.articles.compactMap({ $0.article.publishedDate }).min() {
          covered = min(timespan, max(60, Date().timeIntervalSince(oldest)))
        }
        for code in group {
          var seen: Set<String> = []
          let own = body.articles.filter { $0.country == code && seen.insert($0.article.url).inserted }
            .map(\.article)
          let kept = Kept(articles: Array(own.prefix(options.pageSize)), total: own.count)
          // Articles a day (or whatever the timespan), as this answer shows it: a starved country's is a bound.
          let estimate = Double(max(own.count, full ? 1 : 0)) * timespan / covered
          volumes[code] = estimate
          recordVolume(code, estimate, options: options)
          if full && own.count < options.pageSize {
            if own.count >= best[code]?.articles.count ?? 0 { best[code] = kept }
            starved.append(code)
          } else {
            keep(code, kept, options: options)
            answer(code, kept)
          }
        }
      }
      pending = starved
    }
    // The limit reached: the starved keep what the answers gave them.
    for code in pending {
      let kept = best[code] ?? Kept(articles: [], total: 0)
      keep(code, kept, options: options)
      answer(code, kept)
    }
    return results.map { $0! }
  }

  /// A stale answer to serve, with a warning, when a request failed in a way waiting fixes (the network, a
  /// server error, the rate limit); nil otherwise.
  private func stale(_ code: String, after error: NewsAPIError, options: HeadlinesOptions) -> Kept? {
    let recoverable: Bool
    switch error {
    case .transport, .gdeltTurnTooFar: recoverable = true
    case .gdelt(let status, _): recoverable = error.isGDELTRateLimit || status >= 500
    default: recoverable = false
    }
    guard recoverable, let cache, let (kept, age) = kept(code, options: options) else { return nil }
    cache.warn(
      "Serving GDELT's headlines of \(Country.named(code: code, in: .world)!.name) from \(spokenDuration(age)) ago: "
        + error.description.prefix(1).lowercased() + error.description.dropFirst())
    return kept
  }

  // MARK: - Sending

  /// Sends the requests, each at its turn (they wait at once, so the whole takes the turns, not their sum),
  /// telling `progress` of each as it answers: the call's request `first + n` of at most `limit`, for `groups[n]`.
  private func send(
    _ queries: [GDELTQuery], numbered first: Int, of limit: Int, groups: [[String]],
    since began: ContinuousClock.Instant
  ) async -> [Result<GDELTBody, NewsAPIError>] {
    await withTaskGroup(of: (Int, Result<GDELTBody, NewsAPIError>).self) { group in
      for (n, query) in queries.enumerated() {
        group.addTask {
          // The result bound before the tuple is built: see Result.awaiting(_:) (a release-only miscompile).
          let answer = await Result.awaiting { () async throws(NewsAPIError) in
            try await self.send(query)
          }
          if let progress = self.progress {
            var articles: Int? = nil
            if case .success(let body) = answer { articles = body.articles.count }
            let elapsed = ContinuousClock.now - began
            progress(
              GDELTRequestProgress(
                number: first + n, limit: limit, countries: groups[n], articles: articles,
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18))
          }
          return (n, answer)
        }
      }
      var answers = [Result<GDELTBody, NewsAPIError>?](repeating: nil, count: queries.count)
      for await (n, answer) in group { answers[n] = answer }
      return answers.map { $0! }
    }
  }

  /// Waits for a turn, counted in the request log, then GETs; refused, uncounted, when the turn is further
  /// away than `gdeltWaitLimit`.
  private func turn() async throws(NewsAPIError) {
    let now = Date()
    let limit = configuration.gdeltWaitLimit
    switch pacing.reserveRequest(
      service: "gdelt", at: now, windows: [], spacing: configuration.gdeltSpacing,
      notAfter: limit.map { now.addingTimeInterval($0) })
    {
    case .reserved(let sendAt):
      let wait = sendAt.timeIntervalSinceNow
      if wait > 0 { try? await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
    case .tooLate(let sendAt):
      throw .gdeltTurnTooFar(
        seconds: Int(sendAt.timeIntervalSinceNow.rounded(.up)), limit: Int((limit ?? 0).rounded()))
    case .overBudget:
      return
    case .failed(let reason):
      throw .cacheUnavailable(pacing.path, reason: reason)
    }
  }

  /// One request, at its turn, and at most one retry (a turn later) after GDELT's "too fast", a server error
  /// or a dropped connection. The timeout is the request's, retry included: a retry gets what is left of it
  /// (none after an attempt that timed out), so a server that hangs costs `timeout`, not twice it.
  func send(_ query: GDELTQuery) async throws(NewsAPIError) -> GDELTBody {
    let url =
      baseURL + "/api/v2/doc/doc?"
      + query.parameters.map { "\(NewsAPIClient.escape($0.0))=\(NewsAPIClient.escape($0.1))" }.joined(
        separator: "&")
    var attempt = 0
    var deadline: ContinuousClock.Instant?
    while true {
      attempt += 1
      try await turn()
      var left = timeout
      if let timeout {
        let now = ContinuousClock.now
        deadline = deadline ?? now + timeout
        left = max(deadline! - now, .milliseconds(100))
      }
      counters.count(hit: false)
      let response: HTTPResponse
      do {
        // Only what GDELT needs: never a key, never another host's header.
        response = try await http.get(url, headers: [("Accept", "application/json")], timeout: left)
      } catch {
        // An attempt that timed out had the whole of the time left: no retry has any.
        if case .timedOut = error, deadline != nil { throw .transport(error) }
        if attempt == 1, NewsAPIClient.retryable(error), Self.timeLeft(deadline) { continue }
        throw .transport(error)
      }
      let error: NewsAPIError
      if response.status == 200, response.body.first == UInt8(ascii: "{") {
        if let body = try? JSONDecoder().decode(GDELTBody.self, from: Data(response.body)) {
          if body.malformed > 0 {
            cache?.warn(
              body.malformed == 1 ? Message.gdeltMalformedOne() : Message.gdeltMalformed(body.malformed))
          }
          return body
        }
        error = .gdelt(status: 200, answer: NewsAPIClient.answer(response.body))
      } else {
        error = .gdelt(status: response.status, answer: Self.answer(response.body))
      }
      if attempt == 1, error.isGDELTRateLimit || response.status >= 500, Self.timeLeft(deadline) { continue }
      throw error
    }
  }

  /// Whether a retry has time before `deadline` (a second at least, a turn's wait aside), or there is none.
  private static func timeLeft(_ deadline: ContinuousClock.Instant?) -> Bool {
    deadline.map { $0 - .now >= .seconds(1) } ?? true
  }

  /// GDELT's plain-text answer, made one printable line of at most 200 characters, and its kind: its rate
  /// limit ("Please limit requests to one every 5 seconds …"), another sentence of its own, or nothing.
  static func answer(_ body: [UInt8]) -> ServiceAnswer {
    let text = String(decoding: body.prefix(600), as: UTF8.self)
      .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }.joined(separator: " ")
    let line = printable(String(text.prefix(200)))
    if line.isEmpty { return .empty }
    return line.lowercased().contains("limit requests") ? .tooFast(line) : .said(line)
  }
}

/// One GDELT request of a headlines call, as it answered: its number in the call (from 1) and the most the call
/// sends (`gdeltRequestLimit`, or fewer for fewer countries), the countries it asked for (codes), the articles
/// it brought (nil: it failed) and the seconds since the call's first request was asked, its turns' waits
/// included.
public struct GDELTRequestProgress: Sendable, Equatable {
  public let number: Int
  public let limit: Int
  public let countries: [String]
  public let articles: Int?
  public let seconds: Double
}
