import Fetch
import Foundation
import TestSupport
import Testing

/// `newsatlas serve`: headlines through the server's one client, health, metrics, and cache validators,
/// against the running server (and the local NewsAPI imitation on 127.0.0.1).
@Suite struct ServeNewsTests {
  let client = HTTPClient()

  func json(_ response: HTTPResponse) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
  }

  func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

  @Test func headlinesShareOneCacheAndNeverShowTheKey() async throws {
    let news = try LocalServer()
    let environment = ["NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": news.base]
    let served = try Served([], environment: environment)
    let france = try await client.get(served.base + "/v1/headlines?country=fr")
    #expect(france.status == 200, "\(text(france))")
    // The CLI's bytes for the same question (its own fresh cache, the same imitation).
    let cli = try CLI.run(["headlines", "--country", "fr", "--format", "json"], environment: environment)
    #expect(text(france) == cli.stdout)
    let sentByServer = try news.log().count - 2  // the CLI sent the sources list and one request
    #expect(sentByServer == 2)
    // Every later question shares the server's cache: the same one sends nothing more.
    let near = try await client.get(served.base + "/v1/headlines?near=48.85,2.35")
    #expect(text(near) == text(france))
    #expect(try news.log().count == sentByServer + 2)
    // A cluster of the markers at zoom 2: one result per country in it.
    let clusters = try json(try await client.get(served.base + "/v1/datasets/markers/clusters?zoom=2"))
    let cluster = try #require(
      (clusters["features"] as? [[String: Any]])?.compactMap { $0["properties"] as? [String: Any] }
        .first { $0["cluster"] as? Bool == true })
    let id = try #require(cluster["cluster_id"] as? Int)
    let members = try await client.get(served.base + "/v1/headlines?cluster=\(id)&zoom=2&category=business")
    let results = try #require(try json(members)["results"] as? [[String: Any]])
    #expect(results.count == cluster["point_count"] as? Int)
    #expect(results.allSatisfy { $0["category"] as? String == "business" })
    for (query, mentions) in [
      ("country=xx", "'xx' is not a country"), ("country=xx&provider=newsapi", "not one of NewsAPI's 54"),
      ("country=fr&near=1,2", "one of country"),
      ("cluster=\(id)", "needs the zoom"), ("country=fr&category=weather", "not a NewsAPI category"),
      ("near=91,0", "latitude"), ("cluster=99999999&zoom=2", "cluster"),
      ("country=fr&pageSize=500", "pageSize"),
      ("country=fr&apiKey=x", "no parameter 'apiKey'"),
    ] {
      let refused = try await client.get(served.base + "/v1/headlines?" + query)
      #expect(refused.status == 400 || refused.status == 404, "\(query)")
      #expect(
        (try json(refused)["error"] as? String)?.contains(mentions) == true, "\(query): \(text(refused))")
    }
    let metrics = text(try await client.get(served.base + "/metrics"))
    #expect(metrics.contains("newsatlas_newsapi_requests_sent_total \(try news.log().count - 2)"))
    #expect(metrics.contains("newsatlas_newsapi_cache_hits_total "))
    let log = served.log()
    #expect(log.contains("GET /v1/headlines 200"))
    #expect(!log.contains(LocalServer.newsAPIKey) && !text(france).contains(LocalServer.newsAPIKey))
    #expect(try news.log().allSatisfy { !$0.contains(LocalServer.newsAPIKey) })
  }

  @Test func withoutAKeyHeadlinesComeFromGDELT() async throws {
    let imitation = try LocalServer()
    let keyless = try Served([], environment: ["NEWSATLAS_GDELT_BASE": imitation.base])
    let answer = try await client.get(keyless.base + "/v1/headlines?country=fr")
    #expect(answer.status == 200, "\(text(answer))")
    let result = try #require((try json(answer)["results"] as? [[String: Any]])?.first)
    #expect(result["provider"] as? String == "gdelt" && result["strategy"] as? String == "sourcecountry")
    let articles = try #require(result["articles"] as? [[String: Any]])
    #expect(articles.count == 10)
    #expect(
      articles.allSatisfy {
        (($0["source"] as? [String: Any])?["name"] as? String)?.hasPrefix("france-news") == true
      })
    #expect(
      try imitation.log().count == 1
        && imitation.log()[0].hasPrefix("/api/v2/doc/doc?query=sourcecountry%3AFR"))
    // Asked again: the server's cache answers.
    _ = try await client.get(keyless.base + "/v1/headlines?near=48.85,2.35")
    #expect(try imitation.log().count == 1)
    // A category: GDELT has none, and says so (200, a sentence in the result).
    let business = try json(try await client.get(keyless.base + "/v1/headlines?country=de&category=business"))
    let refused = try #require((business["results"] as? [[String: Any]])?.first)
    #expect(refused["strategy"] as? String == "none")
    #expect((refused["reason"] as? String)?.contains("GDELT has no categories") == true)
    #expect(refused["reasonCode"] as? String == "providerGDELTNoCategories")
    // The reason in the request's language (lang=, else Accept-Language), its code the same; Vary says so.
    for headers in [[("Accept-Language", "fr-FR,fr;q=0.9")], []] {
      let path = "/v1/headlines?country=de&category=business" + (headers.isEmpty ? "&lang=fr" : "")
      let french = try await client.get(keyless.base + path, headers: headers)
      #expect(french.header("Vary") == "Accept-Language")
      let entry = try #require((try json(french)["results"] as? [[String: Any]])?.first)
      #expect((entry["reason"] as? String)?.hasPrefix("GDELT n'a pas de catégories") == true, "\(entry)")
      #expect(entry["reasonCode"] as? String == "providerGDELTNoCategories")
    }
    // NewsAPI by name without a key: 503 and how to set one; an unknown provider: 400.
    let newsAPI = try await client.get(keyless.base + "/v1/headlines?country=fr&provider=newsapi")
    let newsAPISentence = try json(newsAPI)["error"] as? String
    #expect(newsAPI.status == 503 && newsAPISentence?.contains("NEWSAPI_KEY=") == true)
    let unknown = try await client.get(keyless.base + "/v1/headlines?country=fr&provider=rss")
    let unknownSentence = try json(unknown)["error"] as? String
    #expect(unknown.status == 400 && unknownSentence?.contains("auto, newsapi") == true)
    let health = try json(try await client.get(keyless.base + "/healthz"))
    #expect(health["status"] as? String == "ok" && health["news"] as? Bool == true)
    // GDELT's own counters: one request sent, one country answered from the cache; no NewsAPI counters.
    let metrics = text(try await client.get(keyless.base + "/metrics"))
    #expect(metrics.contains("newsatlas_gdelt_requests_sent_total 1\n"), "\(metrics)")
    #expect(metrics.contains("newsatlas_gdelt_cache_hits_total 1\n"))
    #expect(!metrics.contains("newsatlas_newsapi_"))
    // --no-news still turns news off.
    let off = try Served(["--no-news"], environment: ["NEWSATLAS_GDELT_BASE": imitation.base])
    let offAnswer = try await client.get(off.base + "/v1/headlines?country=fr")
    let sentence = try json(offAnswer)["error"] as? String
    #expect(offAnswer.status == 503 && sentence?.contains("--no-news") == true)
    #expect(try imitation.log().count == 1)
  }

  /// A keyless server's news countries are every country GDELT covers (issue 47): a place in Madrid resolves
  /// to Spain (the map's "my location" offers Spain's news), Spain is found by name and its headlines come from
  /// GDELT; `newsCountries=newsapi` keeps NewsAPI's 54; a server without news keeps them too.
  @Test func aKeylessServerHasEveryCountryGDELTCovers() async throws {
    let imitation = try LocalServer()
    let keyless = try Served([], environment: ["NEWSATLAS_GDELT_BASE": imitation.base])
    let madrid = try json(try await client.get(keyless.base + "/v1/resolve?lat=40.4&lon=-3.7"))
    #expect(
      (madrid["country"] as? [String: Any])?["code"] as? String == "es"
        && madrid["method"] as? String == "inside")
    let fiftyFour = try json(
      try await client.get(keyless.base + "/v1/resolve?lat=40.4&lon=-3.7&newsCountries=newsapi"))
    #expect((fiftyFour["country"] as? [String: Any])?["code"] as? String == "pt")
    let batch = try keyless.raw(ServeTests.post("/v1/resolve", "40.4,-3.7\n"))
    #expect(ServeTests.dechunked(batch).contains(",es,Spain,inside,es,"), "\(batch)")
    let bad = try await client.get(keyless.base + "/v1/resolve?lat=40.4&lon=-3.7&newsCountries=mars")
    let badSentence = try json(bad)["error"] as? String
    #expect(bad.status == 400 && badSentence == "newsCountries takes newsapi or world, not 'mars'.")
    let found = try json(try await client.get(keyless.base + "/v1/countries?q=espagne"))
    #expect(((found["countries"] as? [[String: Any]])?.first?["code"] as? String) == "es")
    let listed = try json(try await client.get(keyless.base + "/v1/countries"))
    #expect(((listed["countries"] as? [Any])?.count ?? 0) > 200)
    let narnia = try await client.get(keyless.base + "/v1/headlines?country=narnia")
    #expect(narnia.status == 400)
    #expect(
      (try json(narnia)["error"] as? String)
        == "'narnia' is not a country by code or name, such as es or Spain; /v1/countries?newsCountries=world lists "
        + "them.")
    for selection in ["country=spain", "near=40.4,-3.7"] {
      let answer = try await client.get(keyless.base + "/v1/headlines?" + selection)
      #expect(answer.status == 200, "\(text(answer))")
      let result = try #require((try json(answer)["results"] as? [[String: Any]])?.first)
      #expect(
        (result["country"] as? [String: Any])?["code"] as? String == "es"
          && result["provider"] as? String == "gdelt")
      #expect((result["articles"] as? [Any])?.count == 10, "\(selection)")
    }
    #expect(
      try imitation.log().count == 1
        && imitation.log()[0].hasPrefix("/api/v2/doc/doc?query=sourcecountry%3ASP"))
    // Without news, the 54 (no provider has any other country's).
    let off = try Served(["--no-news"])
    let offMadrid = try json(try await client.get(off.base + "/v1/resolve?lat=40.4&lon=-3.7"))
    #expect((offMadrid["country"] as? [String: Any])?["code"] as? String == "pt")
    #expect(
      ((try json(try await client.get(off.base + "/v1/countries"))["countries"] as? [Any])?.count) == 54)
  }

  /// With a key, auto sends the countries NewsAPI has no route for to GDELT, on another host: the key goes
  /// to NewsAPI's host only.
  @Test func theKeyGoesOnlyToNewsAPIsHost() async throws {
    let hosts = try LocalServer(secondHost: true)
    let served = try Served(
      [],
      environment: [
        "NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": hosts.base,
        "NEWSATLAS_GDELT_BASE": "http://127.0.0.2:\(hosts.secondPort!)",
      ])
    // fr has NewsAPI sources; jp has none, so GDELT answers it.
    let france = try json(try await client.get(served.base + "/v1/headlines?country=fr"))
    let japan = try json(try await client.get(served.base + "/v1/headlines?country=jp"))
    #expect((france["results"] as? [[String: Any]])?.first?["provider"] as? String == "newsapi")
    #expect((japan["results"] as? [[String: Any]])?.first?["provider"] as? String == "gdelt")
    // Spain is not one of NewsAPI's 54: GDELT answers it, NewsAPI is not asked (issue 47).
    let before = hosts.arrivals().filter { $0.hasPrefix("127.0.0.1 ") }.count
    let spain = try json(try await client.get(served.base + "/v1/headlines?country=spain"))
    let result = (spain["results"] as? [[String: Any]])?.first
    #expect(
      result?["provider"] as? String == "gdelt"
        && (result?["country"] as? [String: Any])?["code"] as? String == "es",
      "\(spain)")
    let arrivals = hosts.arrivals()
    #expect(arrivals.filter { $0.hasPrefix("127.0.0.1 ") }.count == before, "\(arrivals)")
    let second = arrivals.filter { $0.hasPrefix("127.0.0.2 ") }
    #expect(
      second.count == 2 && second.allSatisfy { $0.contains("/api/v2/doc/doc") && $0.hasSuffix(" '-'") },
      "\(arrivals)")
    #expect(arrivals.filter { $0.hasPrefix("127.0.0.1 ") }.allSatisfy { $0.contains(LocalServer.newsAPIKey) })
  }

  @Test func tilesAndClustersRevalidateWithTheirETag() async throws {
    let served = try Served()
    let datasets = try json(try await client.get(served.base + "/v1/datasets"))
    let hash = try #require(((datasets["datasets"] as? [[String: Any]])?.first)?["contentHash"] as? String)
    for path in [
      "/tiles/markers/0/0/0.mvt", "/tiles/markers/3/0/0.mvt", "/tiles/markers/1/1/0.geojson",
      "/v1/datasets/markers/clusters?zoom=2", "/v1/datasets/markers/clusters/120/children",
      "/v1/datasets/markers/clusters/120/leaves?limit=2", "/v1/datasets/markers/clusters/120/expansion-zoom",
    ] {
      let first = try await client.get(served.base + path)
      #expect([200, 204].contains(first.status), "\(path)")
      #expect(first.header("etag") == "W/\"\(hash)\"", "\(path)")
      #expect(first.header("cache-control") == "public, max-age=300", "\(path)")
      for tag in ["W/\"\(hash)\"", "\"\(hash)\"", "\"other\", W/\"\(hash)\"", "*"] {
        let again = try await client.get(served.base + path, headers: [("If-None-Match", tag)])
        #expect(again.status == 304 && again.body.isEmpty, "\(path) \(tag)")
        #expect(again.header("etag") == first.header("etag"))
      }
      let changed = try await client.get(served.base + path, headers: [("If-None-Match", "\"other\"")])
      #expect(changed.status == first.status && changed.body == first.body, "\(path)")
    }
    // HEAD: GET's headers (its length, its tag), no body.
    let get = try await client.get(served.base + "/tiles/markers/0/0/0.mvt")
    let head = try served.raw(
      "HEAD /tiles/markers/0/0/0.mvt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    #expect(head.hasPrefix("HTTP/1.1 200") && head.hasSuffix("\r\n\r\n"), "\(head)")
    #expect(
      head.contains("content-length: \(get.body.count)\r\n")
        || head.contains("Content-Length: \(get.body.count)\r\n"))
    #expect(head.contains("W/\"\(hash)\""))
    // Other answers carry no validator.
    #expect(try await client.get(served.base + "/v1/nearest?lat=1&lon=2").header("etag") == nil)
    let metrics = text(try await client.get(served.base + "/metrics"))
    #expect(metrics.contains("newsatlas_http_not_modified_total 28"))
    #expect(metrics.contains("newsatlas_tiles_served_total{dataset=\"markers\"} 8"))  // 304s are not tiles
  }

  @Test func healthAndMetricsInPrometheusText() async throws {
    let served = try Served()
    #expect(try await client.get(served.base + "/healthz").status == 200)
    for _ in 0..<3 { _ = try await client.get(served.base + "/v1/nearest?lat=48.85&lon=2.35") }
    _ = try await client.get(served.base + "/v1/nearest?lat=999&lon=2")
    _ = try await client.get(served.base + "/nowhere")
    // A GET of /v1/nearest is answered without the router, a HEAD through it: the same headers, one route.
    let get = try await client.get(served.base + "/v1/nearest?lat=48.85&lon=2.35")
    let head = try served.raw(
      "HEAD /v1/nearest?lat=48.85&lon=2.35 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    #expect(head.hasPrefix("HTTP/1.1 200") && head.hasSuffix("\r\n\r\n"), "\(head)")
    #expect(head.lowercased().contains("content-length: \(get.body.count)\r\n"), "\(head)")
    let response = try await client.get(served.base + "/metrics")
    #expect(response.header("content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
    let lines = text(response).split(separator: "\n").map(String.init)
    #expect(
      lines.contains("newsatlas_http_requests_total{route=\"/v1/nearest\",method=\"GET\",status=\"200\"} 4"))
    #expect(
      lines.contains("newsatlas_http_requests_total{route=\"/v1/nearest\",method=\"HEAD\",status=\"200\"} 1"))
    #expect(
      lines.contains("newsatlas_http_requests_total{route=\"/healthz\",method=\"GET\",status=\"200\"} 1"))
    #expect(
      lines.contains("newsatlas_http_requests_total{route=\"/v1/nearest\",method=\"GET\",status=\"400\"} 1"))
    #expect(
      lines.contains("newsatlas_http_requests_total{route=\"unmatched\",method=\"GET\",status=\"404\"} 1"))
    #expect(lines.contains("newsatlas_http_request_duration_seconds_count{route=\"/v1/nearest\"} 6"))
    #expect(
      lines.contains("newsatlas_http_request_duration_seconds_bucket{route=\"/v1/nearest\",le=\"+Inf\"} 6"))
    // Every sample line is NAME{labels} VALUE or NAME VALUE, with a number for the value.
    for line in lines where !line.hasPrefix("#") {
      let value = line.split(separator: " ").last.map(String.init) ?? ""
      #expect(Double(value) != nil, "\(line)")
    }
    #expect(!lines.contains { $0.contains("newsapi") })  // no key, no news counters
  }

  @Test func theMapPageAndWhatItLoads() async throws {
    let served = try Served()
    let page = try await client.get(served.base + "/")
    #expect(page.status == 200 && page.header("content-type")?.hasPrefix("text/html") == true)
    // Every script and style the page loads comes from this server.
    let sources = text(page).matches(of: /(?:src|href)="([^"]+)"/).map { String($0.1) }
    #expect(sources.contains("/static/leaflet/leaflet.js") && sources.contains("/map.js"))
    #expect(
      sources.allSatisfy { $0.hasPrefix("/") || $0.hasPrefix("?") || $0.hasPrefix("data:") }, "\(sources)")
    #expect(
      try await client.get(served.base + "/map.js").header("content-type")?.contains("javascript") == true)
    #expect(try await client.get(served.base + "/map.css").status == 200)
    let leaflet = try await client.get(served.base + "/static/leaflet/leaflet.js")
    if FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js") {
      #expect(leaflet.status == 200 && text(leaflet).contains("Leaflet"))
    }
    for path in [
      "/static/leaflet/..%2F..%2F..%2Fetc%2Fpasswd", "/static/leaflet/leaflet.js.map",
      "/static/leaflet/images/x.png",
    ] {
      let refused = try await client.get(served.base + path)
      #expect(refused.status == 404 && !text(refused).contains("root:"), "\(path)")
    }
    let missing = try Served(["--leaflet", "/nonexistent/leaflet"])
    let unavailable = try await client.get(missing.base + "/static/leaflet/leaflet.js")
    #expect(unavailable.status == 503 && text(unavailable).contains("apt-get install libjs-leaflet"))

    // The base map: every country with its code and whether NewsAPI covers it, simplified per zoom.
    let coarse = try json(try await client.get(served.base + "/v1/basemap?zoom=1"))
    let fine = try json(try await client.get(served.base + "/v1/basemap?zoom=7"))
    let features = try #require(fine["features"] as? [[String: Any]])
    let properties = features.compactMap { $0["properties"] as? [String: Any] }
    #expect(properties.count > 200)
    #expect(properties.filter { $0["news"] as? Bool == true }.count == 54)
    #expect(properties.contains { $0["code"] as? String == "fr" && $0["news"] as? Bool == true })
    func pointCount(_ collection: [String: Any]) -> Int {
      ((collection["features"] as? [[String: Any]]) ?? []).reduce(0) { total, feature in
        let rings = (feature["geometry"] as? [String: Any])?["coordinates"] as? [[Any]] ?? []
        return total + rings.reduce(0) { $0 + $1.count }
      }
    }
    #expect(pointCount(coarse) * 10 < pointCount(fine))
    #expect(try await client.get(served.base + "/v1/basemap?zoom=99").status == 400)
    #expect(try await client.get(served.base + "/v1/basemap").status == 400)

    // A tile of it: France's land and borders over Paris at zoom 7, clipped, kept a day by the browser; a
    // hostile tile a 400 with the sentence that shows one.
    let tile = try await client.get(served.base + "/v1/basemap?zoom=7&x=64&y=44")
    let parts = try #require(try json(tile)["features"] as? [[String: Any]])
    #expect(tile.status == 200 && tile.header("Cache-Control") == "public, max-age=86400")
    #expect(parts.contains { ($0["properties"] as? [String: Any])?["code"] as? String == "fr" })
    #expect(tile.body.count * 50 < (try await client.get(served.base + "/v1/basemap?zoom=7")).body.count)
    let badTiles = [
      "zoom=7&x=64", "zoom=7&y=44", "zoom=7&x=128&y=0", "zoom=7&x=-1&y=0", "zoom=7&x=a&y=1",
      "zoom=7&x=99999999999999999999&y=1",
    ]
    for query in badTiles {
      let refused = try await client.get(served.base + "/v1/basemap?" + query)
      let said = text(refused)
      let shown = said.contains("each a whole number from 0 to 127 at zoom 7")
      #expect(refused.status == 400 && shown, "\(query): \(said)")
    }
    for query in ["zoom=7.5&x=1&y=1", "zoom=7&x=1&y=1&x=2", "zoom=7&x=1&y=1&z=1"] {
      let refused = try await client.get(served.base + "/v1/basemap?" + query)
      #expect(refused.status == 400 && !text(refused).isEmpty, "\(query)")
    }
  }
}
