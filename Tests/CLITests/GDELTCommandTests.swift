import Foundation
import Synchronization
import TestSupport
import Testing

/// `newsatlas headlines` with no key, against the local GDELT imitation (`gdelt()` in `Tests/Support/server.py`:
/// GDELT DOC 2.0's article list, 54 countries of very different volumes, its plain-text errors), every request
/// counted on the wire. The settings set `gdelt-spacing = 0` unless a test is about pacing.
@Suite struct GDELTCommandTests {
  let server: LocalServer
  let scratch: ScratchDirectory

  init() throws {
    server = try LocalServer()
    scratch = try ScratchDirectory()
    try settings("gdelt-spacing = 0\n")
  }

  func settings(_ text: String) throws {
    try FileManager.default.createDirectory(
      atPath: scratch.path + "/config/newsatlas", withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: scratch.path + "/config/newsatlas/config.toml"))
  }

  func run(_ arguments: [String], base: String? = nil) throws -> CLI.Result {
    try CLI.run(
      arguments,
      environment: [
        "NEWSATLAS_GDELT_BASE": base ?? server.base, "XDG_CACHE_HOME": scratch.path + "/cache",
        "XDG_CONFIG_HOME": scratch.path + "/config",
      ])
  }

  func gdeltRequests() throws -> [String] { try server.log().filter { $0.contains("/api/v2/doc/doc?") } }

  @Test func allCountriesWithoutAKeyInAtMostTwelveRequestsThenNone() throws {
    let plan = try run(["headlines", "--all", "--dry-run", "--format", "json"])
    let planned = try #require(plan.json?["plan"] as? [String: Any], "\(plan.stderr)")
    #expect(planned["cost"] as? Int == 3 && planned["followUpsAtMost"] as? Int == 9)
    #expect(try gdeltRequests().isEmpty)

    let cold = try run(["headlines", "--all", "--format", "json"])
    #expect(cold.status == 0, "\(cold.stderr)")
    let sent = try gdeltRequests()
    #expect(sent.count <= 12 && sent.count > 3, "\(sent.count)")
    let results = try #require(cold.json?["results"] as? [[String: Any]])
    #expect(results.count == 54)
    for result in results {
      #expect(result["provider"] as? String == "gdelt" && result["strategy"] as? String == "sourcecountry")
      #expect(result["error"] is NSNull)
      let code = (result["country"] as? [String: Any])?["code"] as? String ?? ""
      #expect((result["articles"] as? [Any])?.count == (code == "cu" ? 3 : 10), "\(code)")
    }
    let warm = try run(["headlines", "--all", "--format", "json"])
    #expect(warm.status == 0 && warm.stdout == cold.stdout)
    #expect(try gdeltRequests().count == sent.count)
    // Text names the provider.
    let text = try run(["headlines", "--country", "lv"])
    #expect(text.stdout.hasPrefix("lv  Latvia · 10 articles via GDELT\n"), "\(text.stdout)")
    #expect(text.stdout.contains("latvia-news0.example: Latvia story 0"))
  }

  /// Without a key every country GDELT covers is a news country (issue 47): Spain by name, by code or by a place
  /// in Madrid (which NewsAPI's 54 would give Portugal), asked with its FIPS code; the 54 stay the markers of
  /// `--all`; NewsAPI alone keeps its 54.
  @Test func anyCountryGDELTCoversIsANewsCountry() throws {
    for selection in [["--country", "spain"], ["--country", "ES"], ["--near", "40.4,-3.7"]] {
      let answer = try run(["headlines"] + selection + ["--format", "json"])
      #expect(answer.status == 0, "\(selection): \(answer.stderr)")
      let result = try #require((answer.json?["results"] as? [[String: Any]])?.first, "\(answer.stdout)")
      #expect(
        (result["country"] as? [String: Any])?["code"] as? String == "es"
          && result["provider"] as? String == "gdelt",
        "\(selection)")
      #expect((result["articles"] as? [Any])?.count == 10, "\(selection)")
    }
    #expect(
      try gdeltRequests().allSatisfy { $0.contains("sourcecountry%3ASP") || $0.contains("sourcecountry:SP") })
    let text = try run(["headlines", "--country", "kenya"])
    #expect(
      text.status == 0 && text.stdout.hasPrefix("ke  Kenya · 10 articles via GDELT\n"), "\(text.stdout)")
    let unknown = try run(["headlines", "--country", "narnia"])
    #expect(
      unknown.status == 64
        && unknown.stderr
          == "newsatlas: 'narnia' is not a country by code or name, such as es or Spain; 'newsatlas countries "
          + "--news-countries world' lists them.\n",
      "\(unknown.stderr)")
    let newsAPI = try run(["headlines", "--country", "spain", "--provider", "newsapi"])
    #expect(
      newsAPI.status == 64 && newsAPI.stderr.contains("not one of NewsAPI's 54 countries"),
      "\(newsAPI.stderr)")
    // The same place resolves to Spain, unless the provider setting is newsapi or the flag says the 54.
    #expect(try run(["resolve", "40.4", "-3.7"]).stdout == "es  Spain  (inside, marker 39.7 km away)\n")
    #expect(
      try run(["resolve", "40.4", "-3.7", "--news-countries", "newsapi"]).stdout
        == "pt  Portugal  (nearest; in Spain, marker 369.3 km away)\n")
    // A favourite country among them too: asked when none is named.
    #expect(try run(["config", "set", "country", "kenya"]).status == 0)
    let favourite = try run(["headlines", "--dry-run"])
    #expect(favourite.status == 0 && favourite.stdout.contains("sourcecountry:KE"), "\(favourite.stdout)")
    try settings("gdelt-spacing = 0\nprovider = \"newsapi\"\n")
    #expect(try run(["resolve", "40.4", "-3.7"]).stdout.hasPrefix("pt  Portugal  (nearest; in Spain"))
    let refused = try run(["resolve", "40.4", "-3.7", "--news-countries", "mars"])
    #expect(
      refused.status == 64
        && refused.stderr == "newsatlas: --news-countries takes newsapi or world, not 'mars'.\n")
    let listed = try run(["countries", "--news-countries", "world", "--format", "json"])
    let countries = try #require(listed.json?["countries"] as? [[String: Any]])
    #expect(countries.count > 200 && countries.contains { $0["code"] as? String == "es" })
    #expect(try run(["countries", "--format", "json"]).json.map { ($0["countries"] as? [Any])?.count } == 54)
  }

  @Test func refusalsAndGDELTsPlainTextErrors() throws {
    let category = try run(["headlines", "--country", "fr", "--category", "sports", "--provider", "gdelt"])
    #expect(
      category.status == 64 && category.stderr.contains("GDELT has no categories"), "\(category.stderr)")
    let unknown = try run(["headlines", "--country", "fr", "--provider", "rss"])
    #expect(unknown.status == 64 && unknown.stderr.contains("auto, newsapi, gdelt or feeds"))
    let noKey = try run(["headlines", "--country", "fr", "--provider", "newsapi"])
    #expect(noKey.status == 78 && noKey.stderr.contains("NEWSAPI_KEY"))
    #expect(try gdeltRequests().isEmpty)

    // A bad query: GDELT's sentence, one request, exit 69, an error object in JSON.
    let bad = try run(["headlines", "--country", "fr", "--format", "json"], base: server.base + "/badquery")
    #expect(bad.status == 69)
    let error = try #require(
      ((bad.json?["results"] as? [[String: Any]])?.first)?["error"] as? [String: Any], "\(bad.stdout)")
    #expect(error["kind"] as? String == "service" && error["status"] as? Int == 200)
    #expect((error["message"] as? String)?.contains("keyword that was too short") == true)
    // Too fast, every time: retried once, then the quota's exit status.
    let fast = try run(["headlines", "--country", "de"], base: server.base + "/toofast")
    #expect(fast.status == 75 && fast.stderr.contains("Please limit requests"), "\(fast.stderr)")
    #expect(try gdeltRequests().count == 1 + 2)
  }

  /// On a terminal (script(1) gives it one), a paced keyless call says each GDELT request as it answers: its
  /// number of at most 12, what it asked, what it brought and the time since the first; piped, nothing is said.
  @Test func aPacedCallSaysEachRequestOnATerminal() throws {
    try settings("gdelt-spacing = 1\n")
    // Piped: nothing said on standard error, though several requests were sent.
    let piped = try run(["headlines", "--all", "--page-size", "2"])
    #expect(piped.status == 0 && !piped.stderr.contains("GDELT request"), "\(piped.stderr)")
    let before = try gdeltRequests().count
    #expect(before >= 2)
    let terminal = try CLI.shell(
      #"script -qec "$0 headlines --all --page-size 3" /dev/null"#,
      environment: [
        "NEWSATLAS_GDELT_BASE": server.base, "XDG_CACHE_HOME": scratch.path + "/cache",
        "XDG_CONFIG_HOME": scratch.path + "/config",
      ])
    #expect(terminal.status == 0, "\(terminal.stdout)")
    let said = terminal.stdout.split(whereSeparator: \.isNewline).map {
      $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    .filter { $0.hasPrefix("newsatlas: GDELT request ") }
    let sent = try gdeltRequests().count - before
    #expect(sent >= 2 && said.count == sent, "\(sent) sent: \(terminal.stdout)")
    #expect(
      said.first?.wholeMatch(
        of: /newsatlas: GDELT request [123] of at most 12 · \d+ countries · \d+ articles · \d+\.\d s/)
        != nil, "\(said)")
    #expect(said.contains { $0.hasPrefix("newsatlas: GDELT request \(sent) of at most 12 · ") }, "\(said)")
    // One country, one request, its turn at once: nothing said.
    let lone = try CLI.shell(
      #"script -qec "$0 headlines --country fr --page-size 4" /dev/null"#,
      environment: [
        "NEWSATLAS_GDELT_BASE": server.base, "XDG_CACHE_HOME": scratch.path + "/cache2",
        "XDG_CONFIG_HOME": scratch.path + "/config",
      ])
    #expect(lone.status == 0 && !lone.stdout.contains("GDELT request"), "\(lone.stdout)")
  }

  /// `search` without a key asks GDELT (issue 47 item 8): the words, domains and dates as GDELT's query
  /// language and parameters take them, the same JSON with `provider: gdelt`, cached as searches are; what GDELT
  /// has no equivalent of is refused in one sentence that says a key gives it.
  @Test func searchWithoutAKeyAsksGDELT() throws {
    let found = try run(["search", "france story", "--page-size", "5", "--format", "json"])
    #expect(found.status == 0, "\(found.stderr)")
    let articles = found.json?["articles"] as? [[String: Any]] ?? []
    #expect(found.json?["provider"] as? String == "gdelt" && found.json?["totalResults"] as? Int == 5)
    #expect(
      articles.count == 5
        && articles.allSatisfy { ($0["title"] as? String)?.hasPrefix("France story") == true })
    let sent = try gdeltRequests()
    #expect(sent.count == 1 && sent[0].contains("query=france%20story&") && sent[0].contains("sort=DateDesc"))
    #expect(sent[0].contains("maxrecords=5") && sent[0].contains("timespan=1d"), "\(sent)")
    // Again: from the cache, nothing sent; in text, the count says where the articles come from.
    let again = try run(["search", "france story", "--page-size", "5"])
    #expect(again.status == 0 && again.stdoutLines.first == "5 articles from GDELT (no key needed)")
    #expect(try gdeltRequests().count == 1)

    // Six hours back: the imitation's German articles come every few minutes, a third from each domain.
    let from = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-6 * 3600))
    let narrowed = try run([
      "search", "story", "--domains", "germany-news1.example", "--exclude-domains", "germany-news2.example",
      "--from", from, "--sort-by", "relevancy", "--language", "en", "--format", "json",
    ])
    #expect(narrowed.status == 0, "\(narrowed.stderr)")
    let domains = Set(
      (narrowed.json?["articles"] as? [[String: Any]] ?? []).compactMap {
        ($0["source"] as? [String: Any])?["name"] as? String
      })
    #expect(domains == ["germany-news1.example"], "\(domains)")
    let last = try #require(try gdeltRequests().last)
    #expect(
      last.contains(
        "query=story%20domain%3Agermany-news1.example%20-domain%3Agermany-news2.example%20sourcelang%3Aenglish"
      ), "\(last)")
    let start = from.prefix(19).filter(\.isNumber)  // 2026-11-29T02:23:00Z → 20261129022300
    #expect(
      last.contains("startdatetime=\(start)&enddatetime=") && last.contains("sort=HybridRel"), "\(last)")

    for (arguments, refused) in [
      (["--sources", "bbc-news"], "which has no --sources; set a key"),
      (["--search-in", "title"], "which has no --search-in;"),
      (["--sort-by", "popularity"], "which has no --sort-by popularity;"),
    ] {
      let answer = try run(["search", "storm"] + arguments)
      #expect(
        answer.status == 64 && answer.stderrLines.count == 1 && answer.stderr.contains(refused),
        "\(answer.stderr)")
    }
    // GDELT's own refusal of a word too short: its sentence, the service's exit status.
    let short = try run(["search", "ab"])
    #expect(
      short.status == 69
        && short.stderr.contains("GDELT refused the query: The specified phrase is too short."),
      "\(short.stderr)")
  }

  /// Two processes sharing one cache take GDELT turns two seconds apart: the imitation refuses any request less
  /// than a second after the previous one (GDELT's "limit requests" sentence), and neither process is refused.
  @Test func processesSharingTheCacheTakeTurns() throws {
    try settings("gdelt-spacing = 2\n")
    let environment = [
      "NEWSATLAS_GDELT_BASE": server.base + "/paced-1000", "XDG_CACHE_HOME": scratch.path + "/cache",
      "XDG_CONFIG_HOME": scratch.path + "/config",
    ]
    let group = DispatchGroup()
    let outcomes = Mutex<[CLI.Result]>([])
    for countries in ["fr,de,it", "pt,gb,us"] {
      group.enter()
      Thread {
        if let result = try? CLI.run(
          ["headlines", "--countries", countries, "--format", "json"], environment: environment)
        {
          outcomes.withLock { $0.append(result) }
        }
        group.leave()
      }.start()
    }
    group.wait()
    let results = outcomes.withLock { $0 }
    #expect(results.count == 2)
    #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
    // Six turns (a late start may cost one retry a turn later, never a failure).
    #expect(try gdeltRequests().count >= 6)
  }
}
