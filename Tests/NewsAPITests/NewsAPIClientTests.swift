import Fetch
import Foundation
import NewsAPI
import NewsAtlas
import Store
import TestSupport
import Testing

/// The NewsAPI client against the fake service in server.py, which behaves as the real one is observed to:
/// top-headlines?country= answers only for us, China's and Israel's sources carry zh and is, [Removed]
/// placeholders, fractional-second dates, and errors in NewsAPI's own shape.
@Suite struct NewsAPIClientTests {
  let server: LocalServer
  let http: HTTPClient
  let client: NewsAPIClient

  init() throws {
    server = try LocalServer()
    http = HTTPClient()
    client = try NewsAPIClient(key: LocalServer.newsAPIKey, baseURL: server.base, http: http)
  }

  func country(_ code: String) -> Country { Country.named(code: code)! }

  @Test func usHeadlinesComeDirectlyWithoutPlaceholders() async throws {
    let results = try await client.headlines(
      [HeadlinesJob(country: country("us"))], options: HeadlinesOptions())
    #expect(results[0].strategy == .country)
    #expect(results[0].articles.map(\.title) == ["us one", "us two"])
    #expect(try #require(results[0].articles.first).publishedDate != nil)  // 2024-04-20T20:52:20.5931133Z
    #expect(try server.log() == ["/v2/top-headlines?country=us&pageSize=10&page=1"])
  }

  @Test func otherCountriesShareOnePackedRequest() async throws {
    let jobs = ["fr", "il", "cn", "jp"].map { HeadlinesJob(country: country($0)) }
    let results = try await client.headlines(jobs, options: HeadlinesOptions(pageSize: 5))
    #expect(results.map(\.strategy) == [.sources, .sources, .sources, .none])
    // Israel's sources are filed under "is", China's under "zh": each gets only its own.
    #expect(results[1].articles.allSatisfy { ["ynet", "the-jerusalem-post"].contains($0.source.id) })
    #expect(results[2].articles.allSatisfy { ["xinhua-net", "google-news-cn"].contains($0.source.id) })
    #expect(results[0...2].allSatisfy { $0.articles.count == 5 })
    let log = try server.log()
    #expect(log.count == 2, "\(log)")  // the sources list, and one request for all three
    #expect(log.contains { $0.contains("sources=") && $0.contains("ynet") && $0.contains("le-monde") })
  }

  @Test func packingKeepsEachRequestWithinWhatTheServiceReturns() {
    #expect(SourcePacking.pack(sourceCounts: []) == [])
    #expect(SourcePacking.pack(sourceCounts: [4, 4, 4]) == [[0, 1], [2]])
    // Largest first: 25 (alone, over a bin), 10 (a full bin), then 8 + 2 share one, and 1 opens another.
    #expect(SourcePacking.pack(sourceCounts: [10, 1, 2, 25, 8]) == [[0], [1], [2, 4], [3]])
    // Seeded random sizes: every bin within the limits, every item in exactly one bin.
    var seed: UInt64 = 42
    for _ in 0..<200 {
      let counts = (0..<Int(seed % 40)).map { _ -> Int in
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int(seed >> 59) + 1  // 1...32
      }
      let bins = SourcePacking.pack(sourceCounts: counts)
      #expect(bins.flatMap { $0 }.sorted() == Array(counts.indices), "seed \(seed)")
      for bin in bins where bin.count > 1 {
        #expect(bin.reduce(0) { $0 + counts[$1] } <= SourcePacking.sourcesPerRequest, "seed \(seed)")
      }
    }
  }

  @Test func routeKnowledgeIsReprobedAfterAWeek() throws {
    let scratch = try ScratchDirectory()
    let database = try #require(CacheDatabase(path: scratch.path + "/cache.sqlite") { _ in })
    let knowledge = RouteKnowledge(database: database)
    #expect(knowledge.asksCountryRoute("us") && !knowledge.asksCountryRoute("fr"))  // shipped: never probed
    let now = Date()
    knowledge.record(.empty, for: "fr", at: now.addingTimeInterval(-6 * 86400))
    #expect(!knowledge.asksCountryRoute("fr", now: now))
    knowledge.record(.empty, for: "fr", at: now.addingTimeInterval(-8 * 86400))
    #expect(knowledge.asksCountryRoute("fr", now: now))
    knowledge.record(.empty, for: "us", at: now)
    #expect(!knowledge.asksCountryRoute("us", now: now) && knowledge.asksCountryRoute("us", probe: true))
    knowledge.record(.answers, for: "de", at: now.addingTimeInterval(-100 * 86400))
    #expect(knowledge.asksCountryRoute("de", now: now))
  }

  /// An observation repeated within a day is not written again (each cached run repeats it); a changed answer,
  /// or the same one a day later, is.
  @Test func routeKnowledgeIsWrittenOnlyWhenItChangesOrAges() {
    let store = InMemoryResponseStore()
    let knowledge = RouteKnowledge(database: store)
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    func kept() -> (String, Date)? {
      store.lookup("route:top-headlines?country=fr").map {
        (String(decoding: $0.body, as: UTF8.self), $0.storedAt)
      }
    }
    knowledge.record(.empty, for: "fr", at: start)
    knowledge.record(.empty, for: "fr", at: start.addingTimeInterval(3600))
    #expect(kept()?.0 == "empty" && kept()?.1 == start)
    knowledge.record(.empty, for: "fr", at: start.addingTimeInterval(86400))
    #expect(kept()?.1 == start.addingTimeInterval(86400))
    knowledge.record(.answers, for: "fr", at: start.addingTimeInterval(86460))
    #expect(kept()?.0 == "answers" && kept()?.1 == start.addingTimeInterval(86460))
  }

  @Test func theKeyNeverTravelsInAURL() async throws {
    _ = try await client.topHeadlines(HeadlinesQuery(country: "us"))
    _ = try await client.everything(SearchQuery(q: "anything"))
    let log = try server.log()
    #expect(!log.isEmpty)
    #expect(log.allSatisfy { !$0.contains(LocalServer.newsAPIKey) && !$0.lowercased().contains("apikey") })
  }

  @Test func invalidCombinationsAreRefusedBeforeSending() async throws {
    let before = try server.log().count
    var mixed = HeadlinesQuery(country: "fr")
    mixed.sources = ["le-monde"]
    await #expect(throws: NewsAPIError.self) { try await client.topHeadlines(mixed) }
    await #expect(throws: NewsAPIError.self) { try await client.topHeadlines(HeadlinesQuery()) }
    var big = HeadlinesQuery(country: "us")
    big.pageSize = 101
    await #expect(throws: NewsAPIError.self) { try await client.topHeadlines(big) }
    var deep = HeadlinesQuery(country: "us")
    deep.pageSize = 50
    deep.page = 3
    await #expect(throws: NewsAPIError.self) { try await client.topHeadlines(deep) }
    await #expect(throws: NewsAPIError.self) { try await client.everything(SearchQuery()) }
    #expect(try server.log().count == before)
  }

  @Test func rateLimitSaysItIsTheQuotaAndDoesNotHammer() async throws {
    let before = try server.log().filter { $0.contains("country=kr") }.count
    do {
      _ = try await client.topHeadlines(HeadlinesQuery(country: "kr"))
      Issue.record("expected the rate limit")
    } catch {
      #expect(error.isQuota)
      #expect(error.description.contains("quota") && error.description.contains("3600 seconds"))
      #expect(!error.description.contains(LocalServer.newsAPIKey))
    }
    // Retry-After is an hour: reported, not retried.
    #expect(try server.log().filter { $0.contains("country=kr") }.count == before + 1)
  }

  @Test func oneRetryAfterAServerError() async throws {
    let page = try await client.topHeadlines(HeadlinesQuery(country: "jp"))  // 500 once, then articles
    #expect(page.articles.map(\.title) == ["Tokyo"])
    #expect(try server.log().filter { $0.contains("country=jp") }.count == 2)
  }

  @Test func nonJSONErrorsAndBadKeys() async throws {
    await #expect(
      throws: NewsAPIError.unexpectedResponse(
        status: 503, answer: .begins("<html>Service Unavailable</html>"))
    ) {
      try await client.topHeadlines(HeadlinesQuery(country: "ua"))
    }
    let wrong = try NewsAPIClient(key: "not-the-key", baseURL: server.base, http: http)
    do {
      _ = try await wrong.topHeadlines(HeadlinesQuery(country: "us"))
      Issue.record("expected apiKeyInvalid")
    } catch {
      guard case .service(let status, let code, _, _) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(status == 401 && code == "apiKeyInvalid")
      #expect(!error.description.contains("not-the-key"))
    }
    #expect(throws: NewsAPIError.missingKey) { try NewsAPIClient(key: "", http: http) }
  }

  @Test func sourcesAreNormalised() async throws {
    let sources = try await client.sources()
    #expect(sources.first { $0.id == "xinhua-net" }?.country == "cn")
    #expect(sources.first { $0.id == "ynet" }?.country == "il")
    #expect(
      try await client.sources(country: "fr").map(\.id) == ["le-monde", "les-echos", "lequipe", "liberation"])
    #expect(try await client.sources(country: "es").count == 2)  // outside the 54, still listed
  }

  @Test func pagingStopsAtTotalResults() async throws {
    var query = SearchQuery(q: "paged")
    query.pageSize = 20
    let all = try await client.everythingPages(query)
    #expect(all.totalResults == 45 && all.articles.count == 45)
    #expect(all.articles.last?.title == "r44")
    #expect(try server.log().filter { $0.contains("q=paged") }.count == 3)
    let capped = try await client.everythingPages(query, resultLimit: 30)
    #expect(capped.articles.count == 20)  // the next page would pass the limit
  }

  @Test func anOverallDeadlineBoundsEveryRequest() async throws {
    var configuration = HTTPClientConfiguration()
    configuration.deadline = .now + .seconds(2)
    let bounded = HTTPClient(configuration: configuration)
    let started = try await bounded.get(server.base + "/ok")
    #expect(started.status == 200)
    await #expect(throws: HTTPError.self) { try await bounded.get(server.base + "/slow?ms=10000") }
    await #expect(throws: HTTPError.timedOut("127.0.0.1:\(server.port)", seconds: 0)) {
      try await bounded.get(server.base + "/ok")  // after the deadline: refused at once
    }
  }

  @Test func transportFailuresAreTyped() async throws {
    let port = LocalServer.closedPort()
    let nowhere = try NewsAPIClient(key: "k", baseURL: "http://127.0.0.1:\(port)", http: http)
    await #expect(throws: NewsAPIError.transport(.connectionRefused("127.0.0.1:\(port)"))) {
      try await nowhere.topHeadlines(HeadlinesQuery(country: "us"))
    }
  }
}
