import Fetch
import Foundation
import NewsAPI
import NewsAtlas
import Store
import TestSupport
import Testing

/// The feeds provider in process: the feeds file's countries, one-off feeds, the plan and the cache, and `auto`
/// choosing a country's feeds first.
@Suite struct FeedsProviderTests {
  static let list: FeedList = {
    let text = """
      fr https://www.quotidien.example/rss2-cdata.xml
      fr https://www.diario.example/latin1.xml
      de https://www.zeitung.example/missing.xml
      """
    return (try? FeedList.parse(Array(text.utf8), path: "feeds.txt")) ?? FeedList(path: "feeds.txt")
  }()

  static func job(_ code: String, _ category: String? = nil) -> HeadlinesJob {
    HeadlinesJob(country: Country.named(code: code)!, category: category)
  }

  func provider(_ http: FakeTransport, _ store: InMemoryResponseStore, oneOff: [String] = []) -> FeedsProvider
  {
    FeedsProvider(
      client: FeedsClient(http: http, cache: CachePolicy(database: store) { _ in }), list: Self.list,
      oneOff: oneOff)
  }

  @Test func aCountrysFeedsAnswerItAndThePlanSaysWhatIsSent() async throws {
    let http = FakeTransport(answer: FeedsClientTests.publish)
    let store = InMemoryResponseStore()
    let feeds = provider(http, store)
    let jobs = [Self.job("fr"), Self.job("it"), Self.job("fr", "sports")]
    #expect(
      await feeds.routes(for: jobs, options: HeadlinesOptions(), asking: false) == [true, false, false])
    let plan = feeds.plan(jobs, options: HeadlinesOptions())
    #expect(
      plan.requests.map(\.text) == [
        "https://www.quotidien.example/rss2-cdata.xml", "https://www.diario.example/latin1.xml",
      ])
    #expect(plan.requests.map(\.cached) == [false, false])
    #expect(plan.requests.allSatisfy { $0.provider == .feeds && $0.jobs == [0] })
    #expect(plan.settled[1]?.reason?.description == "No feeds are configured for Italy (it).")
    #expect(plan.settled[2]?.reason?.description.hasPrefix("Feeds have no categories") == true)
    #expect(http.requests.isEmpty)  // planning sends nothing

    let results = try await feeds.headlines(jobs, options: HeadlinesOptions(pageSize: 3)) { _, _ in }
    #expect(http.requests.count == 2)
    #expect(results.map(\.strategy) == [.feeds, .none, .none])
    #expect(results.allSatisfy { $0.provider == .feeds })
    #expect(
      results[0].articles.map(\.publishedAt) == [
        "2026-11-25T13:30:00Z", "2026-11-25T13:02:11Z", "2026-11-25T08:00:00Z",
      ])
    #expect(results[0].error == nil)
    // Warm: the plan finds both in the cache, and a second run sends nothing.
    #expect(feeds.plan(jobs, options: HeadlinesOptions()).requests.map(\.cached) == [true, true])
    _ = try await provider(http, store).headlines(jobs, options: HeadlinesOptions()) { _, _ in }
    #expect(http.requests.count == 2)
  }

  @Test func whenEveryFeedFailsTheResultCarriesTheError() async throws {
    let http = FakeTransport(answer: FeedsClientTests.publish)
    let results = try await provider(http, InMemoryResponseStore()).headlines(
      [Self.job("de")], options: HeadlinesOptions()
    ) { _, _ in }
    #expect(results[0].articles.isEmpty)
    #expect(
      results[0].error == .feed(url: "https://www.zeitung.example/missing.xml", status: 404, reason: nil))
  }

  @Test func oneOffFeedsAnswerEveryJob() async throws {
    let http = FakeTransport(answer: FeedsClientTests.publish)
    let feeds = provider(http, InMemoryResponseStore(), oneOff: ["https://feeds.example/rdf.xml"])
    let jobs = [Self.job("it"), Self.job("jp")]
    let plan = feeds.plan(jobs, options: HeadlinesOptions())
    #expect(plan.requests.map(\.jobs) == [[0, 1]])  // one request for both
    let results = try await feeds.headlines(jobs, options: HeadlinesOptions()) { _, _ in }
    #expect(results.map(\.articles.count) == [2, 2])
  }

  /// `auto`: a country with feeds is answered by them, whatever else there is; the others fall through.
  @Test func autoTakesACountrysFeedsFirst() async throws {
    let http = FakeTransport(answer: FeedsClientTests.publish)
    let providers = NewsProviders(newsAPI: nil, gdelt: nil, feeds: provider(http, InMemoryResponseStore()))
    let results = try await providers.headlines(
      [Self.job("fr"), Self.job("it")], choice: .auto, options: HeadlinesOptions())
    #expect(results.map(\.provider) == [.feeds, .newsapi])
    #expect(results.map(\.strategy) == [.feeds, .none])
    #expect(results[0].articles.count == 4)
  }
}
