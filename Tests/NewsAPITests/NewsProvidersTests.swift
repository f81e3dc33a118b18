import Fetch
import Foundation
import NewsAPI
import NewsAtlas
import Store
import TestSupport
import Testing

/// The rule that picks each country's provider (`auto`), and a provider named outright, in process: NewsAPI
/// and GDELT on fake transports, and a stand-in for the feeds provider.
@Suite struct NewsProvidersTests {
  /// A feeds provider with feeds for some countries, answering one article each, sending nothing.
  struct StandInFeeds: HeadlinesProvider {
    let countries: Set<String>
    let counters = RequestCounters()
    var provider: NewsProvider { .feeds }
    func routes(for jobs: [HeadlinesJob], options: HeadlinesOptions, asking: Bool) async -> [Bool?] {
      jobs.map { countries.contains($0.country.code) }
    }
    func plan(_ jobs: [HeadlinesJob], options: HeadlinesOptions) -> HeadlinesPlan {
      HeadlinesPlan(jobs: jobs, options: options)
    }
    func headlines(
      _ jobs: [HeadlinesJob], options: HeadlinesOptions, onResult: (Int, HeadlinesResult) -> Void
    ) async throws(NewsAPIError) -> [HeadlinesResult] {
      jobs.map {
        HeadlinesResult(
          job: $0, provider: .feeds, strategy: .feeds, totalResults: 1,
          articles: [
            Article(
              source: .init(id: nil, name: "Le Monde"), title: "Une", url: "https://www.lemonde.fr/a",
              publishedAt: "2026-11-25T10:00:00Z")
          ])
      }
    }
  }

  func providers(key: Bool, feeds: Set<String>? = nil, budget: Int? = nil) throws -> (
    NewsProviders, FakeTransport
  ) {
    let transport = FakeTransport { url, headers throws(HTTPError) in
      url.contains("/api/v2/doc/doc") ? FakeGDELT.answer(url, headers) : try FakeNewsAPI.answer(url, headers)
    }
    let store = InMemoryResponseStore()
    let newsAPI =
      key
      ? try NewsAPIClient(
        key: FakeNewsAPI.key, baseURL: "http://127.0.0.1:8", http: transport,
        cache: {
          var policy = CachePolicy(database: store) { _ in }
          if let budget { (policy.dailyBudget, policy.halfDayBudget) = (budget, budget) }
          return policy
        }()) : nil
    var configuration = NewsConfiguration()
    configuration.gdeltSpacing = 0
    let gdelt = try GDELTClient(
      baseURL: "http://127.0.0.1:9", http: transport, cache: CachePolicy(database: store) { _ in },
      configuration: configuration)
    return (
      NewsProviders(newsAPI: newsAPI, gdelt: gdelt, feeds: feeds.map { StandInFeeds(countries: $0) }),
      transport
    )
  }

  func jobs(_ codes: [String], category: String? = nil) -> [HeadlinesJob] {
    codes.map { HeadlinesJob(country: Country.named(code: $0)!, category: category) }
  }

  @Test func autoTakesFeedsThenNewsAPIWithARouteThenGDELT() async throws {
    // us answers country=, gb has NewsAPI sources, lv has none; fr has feeds.
    let (providers, _) = try providers(key: true, feeds: ["fr"])
    let results = try await providers.headlines(
      jobs(["us", "gb", "lv", "fr"]), choice: .auto, options: HeadlinesOptions())
    #expect(results.map(\.provider) == [.newsapi, .newsapi, .gdelt, .feeds])
    #expect(results.map(\.strategy) == [.country, .sources, .sourcecountry, .feeds])
    #expect(results.allSatisfy { !$0.articles.isEmpty })
    // The same with a category: lv falls to GDELT, which has none: a sentence, not an empty answer.
    let business = try await providers.headlines(
      jobs(["gb", "lv"], category: "business"), choice: .auto, options: HeadlinesOptions())
    #expect(business[1].provider == .gdelt && business[1].strategy == .none)
    #expect(business[1].reason?.description.contains("GDELT has no categories") == true)
  }

  @Test func withoutAKeyEveryCountryGoesToGDELT() async throws {
    let (providers, transport) = try providers(key: false)
    let results = try await providers.headlines(
      jobs(["us", "gb", "fr"]), choice: .auto, options: HeadlinesOptions())
    #expect(results.allSatisfy { $0.provider == .gdelt && $0.articles.count == 10 })
    #expect(transport.requests.allSatisfy { $0.hasPrefix("http://127.0.0.1:9/api/v2/doc/doc?") })
    // The dry run's plan is GDELT's, with the time it takes.
    let plan = try await providers.plan(
      Country.all.map { HeadlinesJob(country: $0) }, choice: .auto, options: HeadlinesOptions())
    #expect(plan.requests.allSatisfy { $0.provider == .gdelt })
  }

  @Test func aRefusedShareFailsItsOwnJobsAndKeepsTheRest() async throws {
    // A budget of one request, which the sources list takes (it tells lv has no NewsAPI route): NewsAPI then
    // refuses its share (us, gb) before sending; GDELT's answer for lv is kept.
    let (providers, transport) = try providers(key: true, budget: 1)
    var arrived: [Int] = []
    let results = try await providers.headlines(
      jobs(["us", "lv", "gb"]), choice: .auto, options: HeadlinesOptions()
    ) { i, _ in arrived.append(i) }
    #expect(results.map(\.provider) == [.newsapi, .gdelt, .newsapi])
    #expect(results[1].articles.count == 10 && results[1].error == nil)
    #expect(results[0].error?.isQuota == true && results[2].error?.isQuota == true)
    #expect(arrived.sorted() == [0, 1, 2])
    #expect(!transport.requests.contains { $0.contains("/top-headlines?") })
    // NewsAPI with every job: its refusal is the call's.
    await #expect(throws: NewsAPIError.self) {
      try await providers.headlines(jobs(["us", "gb"]), choice: .auto, options: HeadlinesOptions())
    }
  }

  @Test func aProviderNamedOutright() async throws {
    let (keyless, _) = try providers(key: false)
    await #expect(throws: NewsAPIError.missingKey) {
      try await keyless.headlines(jobs(["fr"]), choice: .newsapi, options: HeadlinesOptions())
    }
    await #expect(throws: NewsAPIError.self) {
      try await keyless.headlines(
        jobs(["fr"], category: "sports"), choice: .gdelt, options: HeadlinesOptions())
    }
    let (keyed, transport) = try providers(key: true, feeds: ["fr"])
    let gdelt = try await keyed.headlines(jobs(["us"]), choice: .gdelt, options: HeadlinesOptions())
    #expect(gdelt[0].provider == .gdelt && transport.requests.count == 1)
    let feeds = try await keyed.headlines(jobs(["fr", "de"]), choice: .feeds, options: HeadlinesOptions())
    #expect(feeds.map(\.provider) == [.feeds, .feeds])
    #expect(
      feeds[1].strategy == .none
        && feeds[1].reason?.description == "No feeds are configured for Germany (de).")
    let none = try await keyless.headlines(jobs(["de"]), choice: .feeds, options: HeadlinesOptions())
    #expect(none[0].reason?.description == "No feeds are configured for Germany (de).")
  }
}
