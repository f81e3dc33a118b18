import Foundation
import TestSupport
import Testing

/// The headlines request planner, counted on the wire: the fake NewsAPI answers `country=` only for `us` and
/// lists 120 sources shaped like the real list (Fixtures/newsapi), and every request it receives is logged.
/// NewsAPI's planner is the subject: the settings say `provider = "newsapi"` (with `auto`, the countries
/// NewsAPI has no route for would go to GDELT).
@Suite struct HeadlinesPlanTests {
  let server: LocalServer
  let scratch: ScratchDirectory
  let catalog: [[String: Any]]
  var environment: [String: String] {
    [
      "NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": server.base,
      "XDG_CACHE_HOME": scratch.path + "/cache", "XDG_CONFIG_HOME": scratch.path + "/config",
    ]
  }

  init() throws {
    server = try LocalServer()
    scratch = try ScratchDirectory()
    try FileManager.default.createDirectory(
      atPath: scratch.path + "/config/newsatlas", withIntermediateDirectories: true)
    try Data("provider = \"newsapi\"\n".utf8).write(
      to: URL(fileURLWithPath: scratch.path + "/config/newsatlas/config.toml"))
    catalog = try #require(
      try JSONSerialization.jsonObject(with: Scratch.fixture("newsapi/sources.json")) as? [[String: Any]])
  }

  func run(_ arguments: [String], _ extra: [String: String] = [:]) throws -> CLI.Result {
    try CLI.run(arguments, environment: environment.merging(extra) { $1 })
  }

  func results(_ result: CLI.Result) throws -> [[String: Any]] {
    try #require(result.json?["results"] as? [[String: Any]], "\(result.stdout)\n\(result.stderr)")
  }

  /// Requests the service received, in order (path and query).
  func sent() throws -> [String] { try server.log() }

  /// The fixture's sources of a country as NewsAPI files them (China under zh, Israel under is).
  func sources(of code: String, category: String? = nil) -> [[String: Any]] {
    let filed = ["cn": "zh", "il": "is"][code] ?? code
    return catalog.filter {
      $0["country"] as? String == filed && (category == nil || $0["category"] as? String == category)
    }
  }

  /// The headlines the fake service holds for a country: every article of its sources.
  func available(_ code: String, category: String? = nil) -> Int {
    sources(of: code, category: category).reduce(0) { $0 + ($1["articles"] as? Int ?? 0) }
  }

  func code(_ entry: [String: Any]) -> String {
    (entry["country"] as? [String: Any])?["code"] as? String ?? ""
  }

  @Test func allCountriesColdInAHandfulOfRequestsThenWarmInNone() throws {
    let cold = try run(["headlines", "--all", "--format", "json"])
    #expect(cold.status == 0, "\(cold.stderr)")
    let log = try sent()
    // The sources list, country=us, six shared requests, gb's own, one follow-up for crowded-out Brazil.
    #expect(log.count == 9, "\(log.count) requests: \(log)")
    #expect(log.filter { $0.contains("/v2/top-headlines/sources") }.count == 1)
    #expect(log.filter { $0.contains("country=") } == ["/v2/top-headlines?country=us&pageSize=10&page=1"])
    // Sources of countries outside the 54 (es, pk) are never asked for.
    #expect(!log.contains { $0.contains("el-mundo") || $0.contains("dawn-pk") })
    let entries = try results(cold)
    #expect(entries.prefix(3).map(code) == ["ae", "ar", "at"])  // the jobs' order, whatever the packing
    #expect(entries.count == 54)
    for entry in entries {
      let country = code(entry)
      let articles = entry["articles"] as? [[String: Any]] ?? []
      if country == "us" {
        #expect(entry["strategy"] as? String == "country" && articles.count == 2)
      } else if sources(of: country).isEmpty {
        #expect(entry["strategy"] as? String == "none" && articles.isEmpty, "\(country)")
        #expect((entry["reason"] as? String)?.contains("no sources") == true)
      } else {
        // Every country with sources gets its headlines: all of them, or a full page, crowded out or not.
        #expect(entry["strategy"] as? String == "sources", "\(country)")
        #expect(articles.count == min(10, available(country)), "\(country): \(articles.count)")
        let own = Set(sources(of: country).compactMap { $0["id"] as? String })
        #expect(
          articles.allSatisfy { own.contains(($0["source"] as? [String: Any])?["id"] as? String ?? "") })
      }
    }
    // Fits the free plan's 12 hours (50) with room for a second run.
    #expect(log.count * 2 <= 50)
    let warm = try run(["headlines", "--all", "--format", "json"])
    #expect(warm.status == 0)
    #expect(try sent().count == log.count)  // nothing sent
    #expect(warm.stdout == cold.stdout)
  }

  /// Each way of naming countries: the requests sent are exactly the dry run's plan (plus follow-ups for
  /// crowded-out countries, which no plan can foresee), and a second run sends nothing.
  @Test(arguments: [
    ["--country", "fr"], ["--countries", "de,fr,it,jp"], ["--near", "-33.87,151.21"],
    ["--cluster", "CLUSTER"],
    ["--all"], ["--country", "gb", "--categories", "all"], ["--country", "us", "--category", "science"],
  ])
  func sendsWhatThePlanSays(naming: [String]) throws {
    var naming = naming
    if naming == ["--cluster", "CLUSTER"] {  // a real cluster of the 54 markers at zoom 2
      let features = try #require(
        try CLI.run(["clusters", "--zoom", "2"]).json?["features"] as? [[String: Any]])
      let cluster = try #require(
        features.compactMap { $0["properties"] as? [String: Any] }.first { $0["cluster"] as? Bool == true })
      naming = ["--cluster", String(try #require(cluster["cluster_id"] as? Int)), "--zoom", "2"]
    }
    #expect(try run(["sources"]).status == 0)  // the list the plan needs, so that the dry run sees it all
    let dry = try run(["headlines"] + naming + ["--dry-run", "--format", "json"])
    let plan = try #require(dry.json?["plan"] as? [String: Any], "\(dry.stderr)")
    let planned = Set((plan["requests"] as? [[String: Any]] ?? []).compactMap { $0["request"] as? String })
    #expect(try sent().count == 1)
    let result = try run(["headlines"] + naming + ["--format", "json"])
    #expect(result.status == 0, "\(result.stderr)")
    // As the plan writes them: no /v2/, commas unescaped, no page.
    let requests = try sent().dropFirst().map {
      ($0.removingPercentEncoding ?? $0).replacingOccurrences(of: "/v2/", with: "")
        .replacingOccurrences(of: "&page=1", with: "")
    }
    #expect(Set(requests).isSuperset(of: planned) && plan["cost"] as? Int == planned.count)
    let followUps = requests.filter { !planned.contains($0) }
    #expect(followUps.allSatisfy { $0.contains("sources=") && $0.hasSuffix("pageSize=10") }, "\(followUps)")
    #expect(requests.count == planned.count + followUps.count)  // nothing sent twice
    #expect(try run(["headlines"] + naming + ["--format", "json"]).stdout == result.stdout)
    #expect(try sent().count == 1 + requests.count)  // warm: nothing
  }

  @Test func aCrowdedOutCountryGetsOneFollowUpOfItsOwn() throws {
    // India's The Hindu is a live feed, far more than the ~10 headlines a source usually has: the shared
    // answer is full, and Brazil (two small sources) is crowded out of it, so it alone is asked again.
    let result = try run(["headlines", "--countries", "br,in,it", "--format", "json"])
    #expect(result.status == 0, "\(result.stderr)")
    let log = try sent().filter { $0.contains("sources=") }
    let packed = log.filter { $0.contains("pageSize=100") }
    #expect(packed.count == 1 && packed[0].contains("the-hindu") && packed[0].contains("globo"), "\(log)")
    #expect(
      log.filter { !$0.contains("pageSize=100") } == [
        "/v2/top-headlines?sources=blasting-news-br%2Cglobo&pageSize=10&page=1"
      ])
    for entry in try results(result) {
      #expect((entry["articles"] as? [Any])?.count == min(10, available(code(entry))), "\(code(entry))")
      #expect(entry["strategy"] as? String == "sources")
    }
  }

  @Test func everyCategoryOfOneCountryInTwoRequests() throws {
    let result = try run(["headlines", "--country", "fr", "--categories", "all", "--format", "json"])
    #expect(result.status == 0, "\(result.stderr)")
    let log = try sent()
    #expect(log.count == 2, "\(log)")  // the sources list, and one request for France's sources
    let entries = try results(result)
    #expect(entries.count == 7)
    for entry in entries {
      let category = try #require(entry["category"] as? String)
      let articles = entry["articles"] as? [Any] ?? []
      if sources(of: "fr", category: category).isEmpty {
        #expect(entry["strategy"] as? String == "none")
      } else {
        #expect(entry["strategy"] as? String == "sources")
        #expect(articles.count == min(10, available("fr", category: category)), "\(category)")
      }
    }
    #expect(try run(["headlines", "--country", "fr", "--categories", "all"]).status == 0)
    #expect(try sent() == log)  // warm: nothing more
  }

  @Test func theRouteThatAnswersIsRemembered() throws {
    // Asked again on purpose, France's country= route answers empty: remembered, and not asked next time.
    let probed = try run(["headlines", "--country", "fr", "--probe", "--format", "json"])
    #expect(try results(probed).first?["strategy"] as? String == "sources")
    #expect(try sent().filter { $0.contains("country=fr") }.count == 1)
    _ = try run(["headlines", "--country", "fr", "--refresh"])
    #expect(try sent().filter { $0.contains("country=fr") }.count == 1)
    #expect(try sent().filter { $0.contains("sources=le-monde") }.count == 2)
  }

  @Test func aDryRunSendsNothingAndShowsTheCache() throws {
    let cold = try run(["headlines", "--all", "--dry-run"])
    #expect(cold.status == 0, "\(cold.stderr)")
    #expect(try sent().isEmpty)
    #expect(cold.stdout.contains("send    top-headlines/sources"))
    #expect(cold.stdout.contains("top-headlines?country=us&pageSize=10  → us"))
    #expect(cold.stdout.contains("packed once the sources list is known"))
    #expect(try run(["headlines", "--all"]).status == 0)
    let spent = try sent().count
    let warm = try run(["headlines", "--all", "--dry-run", "--format", "json"])
    #expect(try sent().count == spent)
    let plan = try #require(warm.json?["plan"] as? [String: Any])
    #expect(plan["cost"] as? Int == 0 && plan["sourcesList"] as? String == "cached")
    let requests = try #require(plan["requests"] as? [[String: Any]])
    #expect(requests.count >= 4 && requests.allSatisfy { $0["cached"] as? Bool == true })
    #expect(
      requests.contains { $0["route"] as? String == "packed" && ($0["countries"] as? [String])!.count > 1 })
    #expect((plan["none"] as? [Any])?.count == 54 - 23)  // 23 of the 54 have sources or answer country=
    let lastDay = try #require(plan["lastDay"] as? [String: Any])
    #expect(lastDay["used"] as? Int == spent && lastDay["afterPlan"] as? Int == spent)
    // A dry run needs no key: it sends nothing.
    let keyless = try CLI.run(
      ["headlines", "--country", "de", "--dry-run"],
      environment: ["NEWSATLAS_API_BASE": server.base, "XDG_CACHE_HOME": scratch.path + "/cache"])
    #expect(keyless.status == 0 && keyless.stdout.contains("→ de"), "\(keyless.stderr)")
  }

  @Test func searchFallbackCostsOneRequestPerCountryWithoutSources() throws {
    let result = try run(
      [
        "headlines", "--countries", "mx,jp,fr", "--categories", "all", "--search-fallback", "--format",
        "json",
      ])
    #expect(result.status == 0, "\(result.stderr)")
    let searches = try sent().filter { $0.hasPrefix("/v2/everything") }
    // One search per country, whatever the categories (everything has none), in the country's language:
    // France has sources for four of the seven categories, so its other three share one search.
    #expect(searches.count == 3, "\(searches)")
    #expect(searches.contains { $0.contains("q=France") && $0.contains("language=fr") })
    #expect(searches.contains { $0.contains("q=M%C3%A9xico") && $0.contains("language=es") })
    #expect(searches.contains { $0.contains("q=Japan") && $0.contains("language=en") })
    let entries = try results(result)
    #expect(entries.filter { code($0) == "mx" }.allSatisfy { $0["strategy"] as? String == "search" })
    let france = entries.filter { code($0) == "fr" }.compactMap { $0["strategy"] as? String }
    #expect(france.filter { $0 == "sources" }.count == 4 && france.filter { $0 == "search" }.count == 3)
  }

  @Test func aPlanOverTheBudgetIsRefusedWholeBeforeSending() throws {
    _ = try run(["config", "set", "quota-half-day", "3"])
    let refused = try run(["headlines", "--all"])
    #expect(refused.status == 75)
    #expect(refused.stderrLines.count == 1 && refused.stderr.contains("--dry-run"), "\(refused.stderr)")
    // Only the sources list, which the rest of the plan depends on (and which the cache keeps for a week).
    #expect(try sent() == ["/v2/top-headlines/sources"])
    #expect(try run(["headlines", "--all", "--force"]).status == 0)
  }

  @Test func theJSONContract() throws {
    let result = try run(["headlines", "--countries", "us,gb,jp", "--format", "json"])
    let entries = try results(result)
    let keys: Set<String> = [
      "country", "category", "provider", "strategy", "totalResults", "articles", "reason", "reasonCode",
      "error",
    ]
    #expect(entries.allSatisfy { Set($0.keys) == keys })
    #expect(entries.allSatisfy { $0["provider"] as? String == "newsapi" })
    #expect(entries.allSatisfy { $0["category"] is NSNull && $0["error"] is NSNull })
    let gb = try #require(entries.first { code($0) == "gb" })
    #expect(gb["totalResults"] as? Int ?? 0 >= 10)
    let articles = try #require(gb["articles"] as? [[String: Any]])
    let articleKeys: Set<String> = [
      "source", "author", "title", "description", "url", "imageUrl", "publishedAt", "content",
    ]
    #expect(articles.allSatisfy { Set($0.keys) == articleKeys })
    #expect(articles.contains { $0["imageUrl"] is String } && articles.contains { $0["imageUrl"] is NSNull })
    // A failure is an object a script can branch on.
    let failed = try run(["headlines", "--country", "us", "--category", "health", "--format", "json"])
    #expect(failed.status == 75)
    let error = try #require(try results(failed).first?["error"] as? [String: Any])
    #expect(error["kind"] as? String == "quota" && error["status"] as? Int == 429)
    #expect(
      error["code"] as? String == "rateLimited" && (error["message"] as? String)?.hasSuffix(".") == true)
  }

  @Test func aRejectedKeyIs77AndNoKeyIs78() throws {
    let rejected = try run(
      ["headlines", "--countries", "us,fr", "--format", "json"], ["NEWSAPI_KEY": "wrong"])
    #expect(rejected.status == 77, "\(rejected.stderr)")
    #expect(rejected.stderr.contains("did not accept the key") && !rejected.stderr.contains("wrong"))
    let error = try #require(try results(rejected).first?["error"] as? [String: Any])
    #expect(error["kind"] as? String == "auth" && error["code"] as? String == "apiKeyInvalid")
    #expect(error["status"] as? Int == 401)
    let missing = try run(["headlines", "--country", "fr"], ["NEWSAPI_KEY": ""])
    #expect(missing.status == 78)
  }
}
