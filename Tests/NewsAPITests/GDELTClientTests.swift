import Fetch
import Foundation
import NewsAPI
import NewsAtlas
import Store
import Synchronization
import TestSupport
import Testing

/// The GDELT provider in process: a fake transport answering as the local GDELT imitation does (`FakeGDELT`)
/// and a store in memory; every request is counted exactly, and nothing waits (spacing 0) unless a test paces.
@Suite struct GDELTClientTests {
  static let base = "http://127.0.0.1:9"

  static func configuration(spacing: Double = 0) -> NewsConfiguration {
    var configuration = NewsConfiguration()
    configuration.gdeltSpacing = spacing
    return configuration
  }

  func client(_ transport: FakeTransport, _ store: InMemoryResponseStore, base: String = base) throws
    -> GDELTClient
  {
    try GDELTClient(
      baseURL: base, http: transport, cache: CachePolicy(database: store) { _ in },
      configuration: Self.configuration())
  }

  @Test func allCountriesColdInAtMostTwelveRequestsThenWarmInNone() async throws {
    let store = InMemoryResponseStore()
    let cold = FakeTransport(answer: FakeGDELT.answer)
    let jobs = Country.all.map { HeadlinesJob(country: $0) }
    let first = try await client(cold, store).headlines(jobs, options: HeadlinesOptions())
    #expect(cold.requests.count <= 12, "\(cold.requests.count)")
    // Packing did its work: far fewer requests than countries, and some countries were asked again.
    #expect(cold.requests.count < 54 / 4)
    let packed = cold.requests.filter { $0.contains("%20OR%20") }
    #expect(packed.count >= 2 && packed.count < cold.requests.count, "\(cold.requests)")
    #expect(first.allSatisfy { $0.error == nil && $0.provider == .gdelt && $0.strategy == .sourcecountry })
    // Every country with coverage has articles, and only its own; the small ones too (lv: 10 a day, cu: 3).
    for result in first {
      let volume = FakeGDELT.volumes[result.job.country.code]!
      #expect(
        result.articles.count == min(10, volume), "\(result.job.country.code): \(result.articles.count)")
      let name = GDELTCountries.table[result.job.country.code]!.name.lowercased().replacingOccurrences(
        of: " ", with: "")
      #expect(result.articles.allSatisfy { $0.source.name.hasPrefix(name + "-news") })
    }
    // Newest first, as GDELT sorts.
    let dates = first[0].articles.compactMap(\.publishedAt)
    #expect(dates == dates.sorted(by: >))

    let warm = FakeTransport(answer: FakeGDELT.answer)
    let second = try await client(warm, store).headlines(jobs, options: HeadlinesOptions())
    #expect(warm.requests.isEmpty, "\(warm.requests)")
    #expect(second.map(\.articles) == first.map(\.articles))
  }

  /// `--timeout` bounds a request, its retry included: after an attempt that timed out there is no retry (a
  /// hanging server took twice the timeout), and a retry after a dropped connection gets what is left.
  @Test func aRetryFitsInTheSameTimeout() async throws {
    func client(_ transport: FakeTransport) throws -> GDELTClient {
      try GDELTClient(
        baseURL: Self.base, http: transport, timeout: .seconds(5),
        cache: CachePolicy(database: InMemoryResponseStore()) { _ in }, configuration: Self.configuration())
    }
    let hanging = FakeTransport { url, _ throws(HTTPError) in throw .timedOut(url, seconds: 5) }
    let jobs = [HeadlinesJob(country: Country.named(code: "fr")!)]
    let timedOut = try await client(hanging).headlines(jobs, options: HeadlinesOptions())
    #expect(timedOut.first?.error != nil)
    #expect(hanging.requests.count == 1 && hanging.timeouts == [.seconds(5)], "\(hanging.timeouts)")
    let calls = Mutex(0)
    let dropping = FakeTransport { url, headers throws(HTTPError) in
      if calls.withLock({
        $0 += 1
        return $0
      }) == 1 {
        throw .connectionReset(url)
      }
      return try FakeGDELT.answer(url, headers)
    }
    let retried = try await client(dropping).headlines(jobs, options: HeadlinesOptions())
    #expect(retried.first?.error == nil && retried.first?.articles.isEmpty == false)
    #expect(dropping.timeouts.count == 2)
    #expect(dropping.timeouts.first == .seconds(5))
    #expect(dropping.timeouts.last.flatMap { $0 }.map { $0 < .seconds(5) && $0 > .seconds(3) } == true)
  }

  @Test func aStarvedCountryIsAskedAgainAlone() async throws {
    // us (4,000 a day) and lv (10): in one answer of 250, Latvia gets nothing; it is asked again on its own.
    let transport = FakeTransport(answer: FakeGDELT.answer)
    var configuration = Self.configuration()
    configuration.gdeltRequestLimit = 12
    let client = try GDELTClient(
      baseURL: Self.base, http: transport, cache: CachePolicy(database: InMemoryResponseStore()) { _ in },
      configuration: configuration)
    let jobs = ["us", "lv"].map { HeadlinesJob(country: Country.named(code: $0)!) }
    // Two countries and twelve requests left: each alone at once (no packing is needed).
    let results = try await client.headlines(jobs, options: HeadlinesOptions())
    #expect(transport.requests.count == 2)
    #expect(results.map(\.articles.count) == [10, 10])

    // All 54: Latvia shares a packed request first, is starved, and gets a follow-up.
    let all = FakeTransport(answer: FakeGDELT.answer)
    let everyone = try await self.client(all, InMemoryResponseStore()).headlines(
      Country.all.map { HeadlinesJob(country: $0) }, options: HeadlinesOptions())
    let latvia = all.requests.filter { $0.contains("sourcecountry%3ALG") }
    #expect(latvia.count >= 2, "\(latvia)")
    #expect(latvia.first!.contains("%20OR%20") && latvia.first!.contains("maxrecords=250"))
    #expect(everyone.first { $0.job.country.code == "lv" }!.articles.count == 10)
  }

  @Test func articlesTakeTheContractsShape() async throws {
    let transport = FakeTransport(answer: FakeGDELT.answer)
    let result = try await client(transport, InMemoryResponseStore()).headlines(
      [HeadlinesJob(country: Country.named(code: "fr")!)], options: HeadlinesOptions(pageSize: 3))
    #expect(
      transport.requests == [
        Self.base + "/api/v2/doc/doc?query=sourcecountry%3AFR&mode=ArtList&format=json&maxrecords=3"
          + "&timespan=1d&sort=DateDesc"
      ])
    let articles = result[0].articles
    #expect(articles.count == 3)
    // seendate 20261125T154048Z → 2026-11-25T15:40:48Z; the domain is the source; socialimage the image.
    #expect(articles.allSatisfy { $0.publishedDate != nil && $0.publishedAt?.count == 20 })
    #expect(articles[0].source == Article.Source(id: nil, name: "france-news0.example"))
    #expect(articles[0].urlToImage == "https://france-news0.example/0.jpg")
    #expect(articles[1].urlToImage == nil)  // GDELT's empty socialimage
    #expect(articles[0].title == "France story 0" && articles[0].url == "https://france-news0.example/fr/0")
  }

  @Test(arguments: [
    ("20261124T101500Z", "2026-11-24T10:15:00Z"), ("20261124T101500", nil), ("2026-11-24T10:15:00Z", nil),
    ("20261324T101500Z", nil), ("2026112XT101500Z", nil),
  ])
  func seenDates(seen: String, published: String?) {
    #expect(GDELTClient.publishedAt(seendate: seen) == published)
  }

  @Test func plainTextErrorsBecomeErrorObjects() async throws {
    let bad = FakeTransport { _, _ in
      FakeGDELT.text("Your search contained a keyword that was too short or too common to search for.")
    }
    let results = try await client(bad, InMemoryResponseStore()).headlines(
      [HeadlinesJob(country: Country.named(code: "fr")!)], options: HeadlinesOptions())
    let error = try #require(results[0].error)
    #expect(error.kind == "service" && error.httpStatus == 200)
    #expect(error.description.contains("GDELT refused the query: Your search contained a keyword"))
    #expect(results[0].articles.isEmpty && bad.requests.count == 1)  // a bad query is not retried

    // Too fast: retried once (a turn later); twice is a quota error.
    let tooFast = FakeTransport { _, _ in FakeGDELT.text(FakeGDELT.tooFast) }
    let limited = try await client(tooFast, InMemoryResponseStore()).headlines(
      [HeadlinesJob(country: Country.named(code: "fr")!)], options: HeadlinesOptions())
    #expect(tooFast.requests.count == 2)
    #expect(limited[0].error?.kind == "quota" && limited[0].error?.isQuota == true)
    let once = OnceTooFast()
    let recovered = FakeTransport { url, headers in once.answer(url, headers) }
    let answered = try await client(recovered, InMemoryResponseStore()).headlines(
      [HeadlinesJob(country: Country.named(code: "fr")!)], options: HeadlinesOptions())
    #expect(recovered.requests.count == 2 && answered[0].articles.count == 10 && answered[0].error == nil)

    // A server's HTML page is an http error, never zero articles.
    let down = FakeTransport { _, _ in
      HTTPResponse(status: 503, rawHeaders: [], body: Array("<html>Service Unavailable</html>".utf8))
    }
    let failed = try await client(down, InMemoryResponseStore()).headlines(
      [HeadlinesJob(country: Country.named(code: "fr")!)], options: HeadlinesOptions())
    #expect(failed[0].error?.kind == "http" && failed[0].error?.httpStatus == 503)

    // A 200 that is not GDELT's JSON (empty, or JSON of another shape): a decoding error, sent once, never its
    // rate limit.
    for body in ["", #"{"articles": 5}"#] {
      let odd = FakeTransport { _, _ in HTTPResponse(status: 200, rawHeaders: [], body: Array(body.utf8)) }
      let answered = try await client(odd, InMemoryResponseStore()).headlines(
        [HeadlinesJob(country: Country.named(code: "fr")!)], options: HeadlinesOptions())
      #expect(answered[0].error?.kind == "decoding" && odd.requests.count == 1, "\(body)")
    }
  }

  @Test func offlineAnswersOnlyFromTheCache() async throws {
    let store = InMemoryResponseStore()
    let transport = FakeTransport(answer: FakeGDELT.answer)
    let jobs = ["fr", "de"].map { HeadlinesJob(country: Country.named(code: $0)!) }
    _ = try await client(transport, store).headlines([jobs[0]], options: HeadlinesOptions())
    var policy = CachePolicy(database: store) { _ in }
    policy.offline = true
    let offline = try GDELTClient(
      baseURL: Self.base, http: transport, cache: policy, configuration: Self.configuration())
    let results = try await offline.headlines(jobs, options: HeadlinesOptions())
    #expect(transport.requests.count == 1)
    #expect(results[0].articles.count == 10 && results[1].error?.kind == "offline")
  }

  @Test func theDryRunPlanIsWhatIsSentAndSaysHowLong() async throws {
    let store = InMemoryResponseStore()
    let transport = FakeTransport(answer: FakeGDELT.answer)
    var configuration = Self.configuration(spacing: 5)
    configuration.gdeltRequestLimit = 12
    let client = try GDELTClient(
      baseURL: Self.base, http: transport, cache: CachePolicy(database: store) { _ in },
      configuration: configuration)
    let jobs = Country.all.map { HeadlinesJob(country: $0) }
    let plan = client.plan(jobs, options: HeadlinesOptions())
    // Nothing known of the countries' volumes: 54 in three packed requests, up to nine follow-ups.
    #expect(plan.cost == 3 && plan.requests.allSatisfy { $0.route == .packed && !$0.cached })
    #expect(plan.followUpsAtMost == 9)
    #expect(plan.seconds == 10 && plan.secondsAtMost == 55 && plan.spacing == 5)
    #expect(transport.requests.isEmpty)
    // A category: a sentence, not an empty answer.
    let category = client.plan(
      [HeadlinesJob(country: Country.named(code: "fr")!, category: "business")], options: HeadlinesOptions())
    #expect(
      category.cost == 0
        && category.settled[0]?.reason?.description.contains("GDELT has no categories") == true)
  }

  /// A server's calls wait for their turn no longer than `gdeltWaitLimit`: a call whose turn is further away
  /// fails its countries at once with when to try again (a quota error, so the service's clients are told to
  /// come back), sending nothing and reserving nothing; what the cache holds is served instead.
  @Test func aTurnPastTheWaitLimitFailsAtOnce() async throws {
    let store = InMemoryResponseStore()
    let transport = FakeTransport(answer: FakeGDELT.answer)
    var configuration = Self.configuration(spacing: 60)
    configuration.gdeltWaitLimit = 10
    let client = try GDELTClient(
      baseURL: Self.base, http: transport, cache: CachePolicy(database: store) { _ in },
      configuration: configuration)
    let france = [HeadlinesJob(country: Country.named(code: "fr")!)]
    let germany = [HeadlinesJob(country: Country.named(code: "de")!)]
    let first = try await client.headlines(france, options: HeadlinesOptions())
    #expect(first[0].error == nil && first[0].articles.count == 10)
    let second = try await client.headlines(germany, options: HeadlinesOptions())
    let error = try #require(second[0].error)
    // The turn is 60 s after the first request, less the time the first took (a loaded machine's seconds).
    guard case .gdeltTurnTooFar(let seconds, limit: 10) = error, (11...60).contains(seconds) else {
      Issue.record("\(error)")
      return
    }
    #expect(error.isQuota && error.kind == "quota" && error.retryAfterSeconds == seconds)
    #expect(error.description.contains("seconds away, longer than the 10 seconds this server waits"))
    #expect(transport.requests.count == 1 && store.requests(service: "gdelt", since: .distantPast).count == 1)
    // France is cached: answered, nothing sent.
    let cached = try await client.headlines(france, options: HeadlinesOptions())
    #expect(cached[0].error == nil && transport.requests.count == 1)
  }

  @Test func theNewsAPIKeyNeverReachesGDELT() async throws {
    let seen = HeaderLog()
    let transport = FakeTransport { url, headers throws(HTTPError) in
      seen.record(url, headers)
      return url.contains("/api/v2/doc/doc")
        ? FakeGDELT.answer(url, headers) : try FakeNewsAPI.answer(url, headers)
    }
    let store = InMemoryResponseStore()
    let newsAPI = try NewsAPIClient(
      key: FakeNewsAPI.key, baseURL: "http://127.0.0.1:8", http: transport,
      cache: CachePolicy(database: store) { _ in })
    let providers = NewsProviders(
      newsAPI: newsAPI,
      gdelt: try GDELTClient(
        baseURL: Self.base, http: transport, cache: CachePolicy(database: store) { _ in },
        configuration: Self.configuration()))
    let results = try await providers.headlines(
      Country.all.map { HeadlinesJob(country: $0) }, choice: .auto, options: HeadlinesOptions())
    #expect(Set(results.map(\.provider)) == Set([NewsProvider.newsapi, .gdelt]))
    let toGDELT = seen.entries.filter { $0.url.hasPrefix(Self.base) }
    #expect(!toGDELT.isEmpty)
    #expect(toGDELT.allSatisfy { entry in entry.headers.allSatisfy { !$0.1.contains(FakeNewsAPI.key) } })
    #expect(toGDELT.allSatisfy { !$0.url.contains(FakeNewsAPI.key) })
    #expect(
      seen.entries.filter { !$0.url.hasPrefix(Self.base) }.allSatisfy { entry in
        entry.headers.contains { $0 == ("X-Api-Key", FakeNewsAPI.key) }
      })
  }
}

/// Answers GDELT's "too fast" sentence once, then as the imitation.
final class OnceTooFast: Sendable {
  private let first = Mutex(true)
  func answer(_ url: String, _ headers: [(String, String)]) -> HTTPResponse {
    let isFirst = first.withLock { value in
      defer { value = false }
      return value
    }
    return isFirst ? FakeGDELT.text(FakeGDELT.tooFast) : FakeGDELT.answer(url, headers)
  }
}
