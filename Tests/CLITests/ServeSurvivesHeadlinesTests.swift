import Fetch
import Foundation
import TestSupport
import Testing

/// No `/v1/headlines` request takes `serve` down (issue 46): every form of the route (country, near, cluster,
/// source, a category, each provider), cold then answered from the cache, against the GDELT and NewsAPI
/// imitation (server.py) and the feed server, on a server with no key (the default, and what runs in public)
/// and on one with a key. After each request the server still answers `/healthz`. CI runs this against the
/// release binary (NEWSATLAS_BINARY), where the task group's miscompile (Result.awaiting(_:)) trapped.
@Suite struct ServeSurvivesHeadlinesTests {
  let client = HTTPClient()

  func titles(_ response: HTTPResponse) -> [String] {
    let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
    return (json?["results"] as? [[String: Any]] ?? []).flatMap {
      ($0["articles"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    }
  }

  @Test(arguments: [false, true]) func everyHeadlinesFormLeavesTheServerAnswering(withKey: Bool) async throws {
    let news = try LocalServer()
    let feeds = try LocalServer(script: "feed_server.py")
    let config = try ScratchDirectory()
    try FileManager.default.createDirectory(
      atPath: config.path + "/newsatlas", withIntermediateDirectories: true)
    // Two feeds of France (an RSS and an Atom document: the release build dropped one's items), one of Germany.
    try """
    fr \(feeds.base)/feeds/rss2-cdata.xml
    fr \(feeds.base)/feeds/atom-relative.xml
    de \(feeds.base)/feeds/rdf.xml

    """.write(toFile: config.path + "/newsatlas/feeds.txt", atomically: true, encoding: .utf8)
    var environment = ["NEWSATLAS_GDELT_BASE": news.base, "XDG_CONFIG_HOME": config.path]
    if withKey {
      environment["NEWSAPI_KEY"] = LocalServer.newsAPIKey
      environment["NEWSATLAS_API_BASE"] = news.base
    }
    let served = try Served([], environment: environment)
    let cluster = try NumberRangeTests.markerCluster(zoom: 2)

    var forms = [
      "country=fr", "country=de", "country=it", "country=cn", "near=48.85,2.35", "near=-33.9,151.2",
      "cluster=\(cluster)&zoom=2", "country=de&category=business", "country=us&pageSize=3",
    ]
    if withKey { forms += ["source=bbc-news", "source=bbc-news,le-monde&country=fr"] }
    var asked: [String] = []
    for form in forms {
      for provider in ["", "&provider=auto", "&provider=gdelt", "&provider=feeds", "&provider=newsapi"] {
        asked.append(form + provider)
      }
    }
    for round in ["cold", "cached"] {
      for query in asked {
        let answer = try await client.get(served.base + "/v1/headlines?" + query)
        #expect([200, 400, 404, 429, 503].contains(answer.status), "\(round) \(query): \(answer.status)")
        let health = try await client.get(served.base + "/healthz")
        try #require(health.status == 200, "the server stopped answering after \(round) \(query)")
      }
      // Several countries at once through GDELT (a cluster of several), then both of France's feeds merged.
      let both = titles(try await client.get(served.base + "/v1/headlines?country=fr&provider=feeds"))
      #expect(both.contains("Storm warning for the coast"), "\(round): the Atom feed's items: \(both)")
      #expect(both.contains("Sans lien mais avec un guid permanent"), "\(round): the RSS feed's items: \(both)")
    }
    // Concurrent requests of every form at once, still answering after.
    try await withThrowingTaskGroup(of: Void.self) { group in
      for query in asked {
        group.addTask { _ = try await client.get(served.base + "/v1/headlines?" + query) }
      }
      try await group.waitForAll()
    }
    #expect(try await client.get(served.base + "/healthz").status == 200)
    #expect(served.process.isRunning)
    let log = served.log()
    #expect(!log.contains("Fatal error") && !log.contains("runtime failure"), "\(log)")
  }
}
