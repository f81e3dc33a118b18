import AtlasMessages
import Fetch
import Foundation
import NewsAPI
import Store
import Synchronization
import TestSupport
import Testing

/// The feeds client in process: a fake transport that answers as a publisher does (validators, 304) and the
/// in-memory store.
@Suite struct FeedsClientTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures/feeds")

  static func fixture(_ name: String) -> [UInt8] {
    Array((try? Data(contentsOf: fixtures.appendingPathComponent(name))) ?? Data())
  }

  static func response(_ status: Int, _ headers: [(String, String)] = [], _ body: [UInt8] = [])
    -> HTTPResponse
  {
    HTTPResponse(
      status: status, rawHeaders: Array(headers.map { "\($0.0): \($0.1)\r\n" }.joined().utf8), body: body)
  }

  /// A publisher of the fixtures at https://feeds.example/NAME, with an ETag per file: 304 when it is sent back.
  static func publisher() -> FakeTransport { FakeTransport(answer: publish) }

  @Sendable static func publish(_ url: String, _ headers: [(String, String)]) -> HTTPResponse {
    let name = String(url.split(separator: "/").last ?? "")
    let body = fixture(name)
    if body.isEmpty { return response(404, [], Array("<html>Not found</html>".utf8)) }
    let etag = "\"\(name)-v1\""
    if headers.contains(where: { $0.0 == "If-None-Match" && $0.1 == etag }) {
      return response(304, [("ETag", etag)])
    }
    return response(200, [("ETag", etag), ("Last-Modified", "Wed, 25 Nov 2026 12:00:00 GMT")], body)
  }

  func client(
    _ http: any HTTPTransport, _ store: any ResponseStore, refresh: Bool = false, offline: Bool = false
  )
    -> FeedsClient
  {
    var policy = CachePolicy(database: store) { _ in }
    policy.refresh = refresh
    policy.offline = offline
    return FeedsClient(http: http, cache: policy)
  }

  @Test func conditionalGetSendsTheValidatorsBackAndA304KeepsTheArticles() async throws {
    let store = InMemoryResponseStore()
    let http = Self.publisher()
    let url = "https://feeds.example/rss2-cdata.xml"
    let first = try await client(http, store).articles(of: url)
    #expect(first.count == 3)
    // Made stale: two hours old, so the next run asks again, conditionally.
    store.store(
      "feed " + url, kind: "feed", body: store.lookup("feed " + url)!.body,
      at: Date().addingTimeInterval(-7200))
    let sent = Mutex<[(String, String)]>([])
    let watching = FakeTransport { url, headers in
      sent.withLock { $0 = headers }
      return Self.publish(url, headers)
    }
    let second = try await client(watching, store).articles(of: url)
    let sentHeaders = sent.withLock { $0 }
    #expect(second == first)
    #expect(sentHeaders.contains { $0.0 == "If-None-Match" && $0.1 == "\"rss2-cdata.xml-v1\"" })
    #expect(sentHeaders.contains { $0.0 == "If-Modified-Since" && $0.1 == "Wed, 25 Nov 2026 12:00:00 GMT" })
    // The 304 made the entry fresh: a third run sends nothing.
    let third = FakeTransport { _, _ throws(HTTPError) in throw .connectionRefused("feeds.example") }
    #expect(try await client(third, store).articles(of: url) == first)
    #expect(third.requests.isEmpty)
  }

  @Test func aFreshEntryAnswersAndRefreshAsksConditionally() async throws {
    let store = InMemoryResponseStore()
    let http = Self.publisher()
    let url = "https://feeds.example/atom-relative.xml"
    _ = try await client(http, store).articles(of: url)
    _ = try await client(http, store).articles(of: url)
    #expect(http.requests.count == 1)
    let refreshed = try await client(http, store, refresh: true).articles(of: url)
    #expect(http.requests.count == 2)
    #expect(
      refreshed.map(\.url) == [
        "https://blog.example.org/news/2026/11/25/markets-rally",
        "https://blog.example.org/archive/storm.html",
      ])
  }

  @Test func offlineWithoutTheFeedIsNotCached() async throws {
    let http = Self.publisher()
    await #expect(throws: NewsAPIError.notCached(Sentence(.theFeed, "https://feeds.example/rdf.xml"))) {
      try await client(http, InMemoryResponseStore(), offline: true).articles(
        of: "https://feeds.example/rdf.xml")
    }
    #expect(http.requests.isEmpty)
  }

  @Test func mergedNewestFirstOneArticlePerLink() async throws {
    // The RSS fixture twice (under two URLs) and the RDF one: duplicates by link kept once.
    let http = FakeTransport { url, headers in
      let name = url.hasSuffix("copy.xml") ? "rss2-cdata.xml" : String(url.split(separator: "/").last!)
      return Self.response(200, [], Self.fixture(name))
    }
    let feeds = FeedsClient(http: http)
    let (articles, failures) = await feeds.merged(
      [
        "https://www.quotidien.example/rss2-cdata.xml", "https://www.zeitung.example/rdf.xml",
        "https://www.quotidien.example/copy.xml",
      ], limit: 10)
    #expect(failures.isEmpty)
    #expect(
      articles.map(\.publishedAt) == [
        "2026-11-25T13:30:00Z", "2026-11-25T13:02:11Z", "2026-11-25T08:30:00Z", "2026-11-25T04:59:59Z",
        "2026-11-25T00:00:00Z",
      ])
    #expect(Set(articles.map(\.url)).count == 5)
    #expect(articles[0].source.name == "Le Quotidien : Actualités et infos en France et dans le monde")
    #expect(articles[2].source.name == "Die Zeitung – Nachrichten")
    #expect(articles[2].author == "Anna Müller")
    let two = await feeds.merged(["https://www.zeitung.example/rdf.xml"], limit: 1)
    #expect(two.articles.map(\.title) == ["Koalition einigt sich über Haushalt"])
  }

  @Test func failuresAreErrorObjectsNotEmptyAnswers() async throws {
    let http = Self.publisher()
    let feeds = FeedsClient(http: http)
    let (articles, failures) = await feeds.merged(
      [
        "https://feeds.example/missing.xml", "https://feeds.example/billion-laughs.xml",
        "https://feeds.example/rdf.xml",
      ], limit: 10)
    #expect(articles.count == 2)
    #expect(
      failures.map(\.url) == [
        "https://feeds.example/missing.xml", "https://feeds.example/billion-laughs.xml",
      ])
    #expect(failures.map(\.error.kind) == ["http", "decoding"])
    #expect(failures[0].error.description == "The feed https://feeds.example/missing.xml answered HTTP 404.")
    #expect(
      failures[1].error.description
        == "The feed https://feeds.example/billion-laughs.xml could not be read: the feed declares an XML entity "
        + "(<!ENTITY ...>); such feeds are refused, so no entity is expanded and nothing it points to is read."
    )
  }
}
