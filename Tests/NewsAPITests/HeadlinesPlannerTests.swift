import Fetch
import Foundation
import NewsAPI
import NewsAtlas
import Store
import TestSupport
import Testing

/// The headlines planner in process: a fake transport answering as the local NewsAPI imitation does
/// (`FakeNewsAPI`) and a store in memory, so no Python server and no SQLite; every request is counted exactly.
@Suite struct HeadlinesPlannerTests {
  func client(_ transport: FakeTransport, _ store: InMemoryResponseStore) throws -> NewsAPIClient {
    try NewsAPIClient(
      key: FakeNewsAPI.key, baseURL: "http://127.0.0.1:9", http: transport,
      cache: CachePolicy(database: store) { _ in })
  }

  /// Requests as the plan writes them: path without `/v2/`, parameters decoded, no page.
  func written(_ urls: [String]) -> [String] {
    urls.map {
      String($0.dropFirst("http://127.0.0.1:9/v2/".count)).removingPercentEncoding!
        .replacingOccurrences(of: "&page=1", with: "")
    }
  }

  @Test func allCountriesColdInNineRequestsThenWarmInNone() async throws {
    let store = InMemoryResponseStore()
    let cold = FakeTransport(answer: FakeNewsAPI.answer)
    let jobs = Country.all.map { HeadlinesJob(country: $0) }
    let first = try await client(cold, store).headlines(jobs, options: HeadlinesOptions())
    let sent = written(cold.requests)
    // The sources list, country=us, five shared requests, gb's own, and one follow-up for crowded-out Brazil.
    #expect(sent.count == 9, "\(sent)")
    #expect(sent.first == "top-headlines/sources")  // before anything that depends on it
    #expect(
      sent.filter { $0.hasPrefix("top-headlines?country=") } == ["top-headlines?country=us&pageSize=10"])
    #expect(sent.filter { $0.hasSuffix("pageSize=100") }.count == 5)  // the shared ones
    #expect(sent.filter { $0.contains("sources=") && $0.hasSuffix("pageSize=10") }.count == 2)  // gb, br
    #expect(sent.last == "top-headlines?sources=blasting-news-br,globo&pageSize=10")
    // Each request counted against the budget, once.
    #expect(store.requests(since: .distantPast).count == 9)
    #expect(first.count == 54 && first.allSatisfy { $0.error == nil })
    #expect(first.filter { $0.strategy == .sources }.count == 22)
    #expect(first.filter { $0.strategy == .none }.count == 31)

    // Warm: a new client on the same store sends nothing and answers the same.
    let warm = FakeTransport(answer: FakeNewsAPI.answer)
    let second = try await client(warm, store).headlines(jobs, options: HeadlinesOptions())
    #expect(warm.requests.isEmpty, "\(warm.requests)")
    #expect(store.requests(since: .distantPast).count == 9)
    #expect(second.map(\.articles) == first.map(\.articles))
    #expect(second.map(\.strategy) == first.map(\.strategy))
  }

  @Test func theDryRunPlanIsWhatIsSent() async throws {
    let store = InMemoryResponseStore()
    let transport = FakeTransport(answer: FakeNewsAPI.answer)
    let client = try client(transport, store)
    _ = try await client.sources()  // the list the plan needs, so that it sees the packing
    let jobs = ["de", "fr", "it", "jp", "us"].map { HeadlinesJob(country: Country.named(code: $0)!) }
    let plan = client.plan(jobs, options: HeadlinesOptions())
    #expect(plan.sourcesList == .cached && plan.cost == plan.requests.count && plan.cost > 1)
    #expect(transport.requests.count == 1)
    _ = try await client.headlines(jobs, options: HeadlinesOptions())
    #expect(written(Array(transport.requests.dropFirst())).sorted() == plan.requests.map(\.text).sorted())
    // Now everything is cached: the plan costs nothing, and nothing more is sent.
    #expect(client.plan(jobs, options: HeadlinesOptions()).cost == 0)
    _ = try await client.headlines(jobs, options: HeadlinesOptions())
    #expect(transport.requests.count == 1 + plan.cost)
  }

  @Test func aPlanOverTheBudgetSendsNothing() async throws {
    let store = InMemoryResponseStore()
    let transport = FakeTransport(answer: FakeNewsAPI.answer)
    var configuration = NewsConfiguration()
    configuration.halfDayBudget = 5
    let client = try NewsAPIClient(
      key: FakeNewsAPI.key, baseURL: "http://127.0.0.1:9", http: transport,
      cache: CachePolicy(database: store, configuration: configuration) { _ in })
    let jobs = Country.all.map { HeadlinesJob(country: $0) }
    await #expect(throws: NewsAPIError.self) { try await client.headlines(jobs, options: HeadlinesOptions()) }
    // The sources list first (the plan depends on it), then the whole plan refused: nothing else sent.
    #expect(written(transport.requests) == ["top-headlines/sources"])
    #expect(store.requests(since: .distantPast).count == 1)
  }
}
