import Fetch
import Foundation
import NewsAPI
import Store
import TestSupport
import Testing

/// The feeds client through libcurl against the feed server (`Tests/Support/feed_server.py`) on 127.0.0.1.
@Suite(.serialized) struct FeedServerTests {
  let server: LocalServer

  init() throws { server = try LocalServer(script: "feed_server.py") }

  func policy(_ store: any ResponseStore, refresh: Bool = false) -> CachePolicy {
    var policy = CachePolicy(database: store) { _ in }
    policy.refresh = refresh
    return policy
  }

  /// Three feeds of one country, each held by the server until all three are in flight: they are fetched at
  /// once, through one client, and merged newest first.
  @Test func aCountrysFeedsAreFetchedAtOnceAndMerged() async throws {
    try await HTTPClient.withClient { http in
      let feeds = FeedsClient(http: http, timeout: .seconds(30))
      let urls = ["rss2-cdata.xml", "rdf.xml", "latin1.xml"].map { server.base + "/held/country/3/" + $0 }
      let (articles, failures) = await feeds.merged(urls, limit: 10)
      #expect(failures.isEmpty, "\(failures.map(\.error.description))")
      #expect(articles.count == 6)
      #expect(articles.map { $0.publishedAt ?? "" } == articles.map { $0.publishedAt ?? "" }.sorted(by: >))
      #expect(articles.contains { $0.title == "Señales de recuperación en la economía española" })
      // Relative links resolved against the URL the feed was fetched from.
      #expect(
        articles.contains { $0.url == server.base + "/planete/article/2026/11/25/cop31_6512346_3244.html" })
    }
  }

  @Test func aStaleFeedIsAskedConditionallyAndA304KeepsItsArticles() async throws {
    try await HTTPClient.withClient { http in
      let store = InMemoryResponseStore()
      let url = server.base + "/feeds/atom-relative.xml"
      let first = try await FeedsClient(http: http, cache: policy(store)).articles(of: url)
      let again = try await FeedsClient(http: http, cache: policy(store, refresh: true)).articles(of: url)
      #expect(again == first && first.count == 2)
      let lines = try server.log()
      #expect(lines.count == 2)
      #expect(lines[0] == "/feeds/atom-relative.xml if-none-match=- if-modified-since=-")
      #expect(lines[1].hasPrefix("/feeds/atom-relative.xml if-none-match=\"") && !lines[1].contains("=-"))
      // The server without stable validators: a full answer each time, never a 304.
      let changing = server.base + "/changing/rdf.xml"
      _ = try await FeedsClient(http: http, cache: policy(store)).articles(of: changing)
      let twice = try await FeedsClient(http: http, cache: policy(store, refresh: true)).articles(
        of: changing)
      #expect(twice.count == 2)
      #expect(
        try server.log().last
          == "/changing/rdf.xml if-none-match=\"changing-1\" if-modified-since=Wed, 25 Nov 2026 12:00:00 GMT")
    }
  }

  /// Billion laughs and XXE through the whole path: an error object at once, nothing of /etc/passwd anywhere
  /// (the error, the articles, the cache).
  @Test(arguments: ["billion-laughs.xml", "xxe.xml", "xxe-parameter.xml", "malformed.xml"])
  func hostileAndMalformedFeedsAreErrors(_ name: String) async throws {
    try await HTTPClient.withClient { http in
      let store = InMemoryResponseStore()
      let feeds = FeedsClient(http: http, cache: policy(store))
      let (articles, failures) = await feeds.merged([server.base + "/feeds/" + name], limit: 10)
      #expect(articles.isEmpty)
      #expect(failures.count == 1)
      #expect(failures.first?.error.kind == "decoding")
      let passwd = (try? String(contentsOfFile: "/etc/passwd", encoding: .utf8)) ?? "root:x:0:0"
      let firstLine = String(passwd.split(separator: "\n").first ?? "root:x:0:0")
      let message = failures.first?.error.description ?? ""
      #expect(!message.contains(firstLine) && !message.contains("root:"))
      #expect(store.keys().isEmpty)  // nothing cached from a feed that failed
    }
  }

  @Test func aStatusIsAnHTTPError() async throws {
    try await HTTPClient.withClient { http in
      let (_, failures) = await FeedsClient(http: http).merged([server.base + "/status/503"], limit: 10)
      #expect(failures.map(\.error) == [.feed(url: server.base + "/status/503", status: 503, reason: nil)])
      #expect(failures.first?.error.kind == "http")
    }
  }
}
