import Foundation
import TestSupport
import Testing

/// `newsatlas headlines`, `search` and `sources` against the fake NewsAPI on 127.0.0.1.
@Suite struct HeadlinesCommandTests {
  let server: LocalServer
  var environment: [String: String] {
    ["NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": server.base]
  }

  init() throws { server = try LocalServer() }

  func results(_ result: CLI.Result) throws -> [[String: Any]] {
    try #require(result.json?["results"] as? [[String: Any]])
  }

  @Test func countriesInInputOrderWithTheirStrategy() throws {
    // The imitation is GDELT's too: auto sends Japan, which NewsAPI has no sources for, to GDELT.
    let result = try CLI.run(
      ["headlines", "--countries", "cn,us,il,fr,jp", "--format", "json"],
      environment: environment.merging(["NEWSATLAS_GDELT_BASE": server.base]) { $1 })
    #expect(result.status == 0, "\(result.stderr)")
    let entries = try results(result)
    #expect(
      entries.compactMap { ($0["country"] as? [String: Any])?["code"] as? String } == [
        "cn", "us", "il", "fr", "jp",
      ])
    // China's and Israel's sources are filed under zh and is; Japan has none, so GDELT answers it.
    #expect(
      entries.compactMap { $0["strategy"] as? String } == [
        "sources", "country", "sources", "sources", "sourcecountry",
      ])
    #expect(
      entries.compactMap { $0["provider"] as? String } == [
        "newsapi", "newsapi", "newsapi", "newsapi", "gdelt",
      ])
    #expect((entries[4]["articles"] as? [[String: Any]])?.count == 10)
    #expect(try server.log().filter { $0.contains("api/v2/doc/doc") }.count == 1)
    #expect(
      try server.log().allSatisfy { !$0.contains("/v2/top-headlines") || !$0.contains("sourcecountry") })
    #expect((entries[1]["articles"] as? [Any])?.count == 2)  // the [Removed] placeholder is dropped
  }

  @Test func oneFailureKeepsTheOthers() throws {
    // The fake service rate-limits one category of one country.
    let result = try CLI.run(
      ["headlines", "--country", "us", "--categories", "all", "--format", "json"], environment: environment)
    #expect(result.status == 75)  // the quota: try later
    let entries = try results(result)
    #expect(entries.count == 7)
    #expect(entries.filter { $0["error"] is NSNull }.count == 6)
    let failed = try #require(entries.first { $0["category"] as? String == "health" })
    #expect((failed["error"] as? [String: Any])?["kind"] as? String == "quota")
    #expect(result.stderr.contains("1 of 7 results failed"))
  }

  @Test func everyCategoryOfACountry() throws {
    let result = try CLI.run(
      ["headlines", "--country", "gb", "--categories", "all", "--format", "json"], environment: environment)
    #expect(result.status == 0)
    #expect(
      try results(result).compactMap { $0["category"] as? String } == [
        "business", "entertainment", "general", "health", "science", "sports", "technology",
      ])
  }

  @Test func aClusterOfMarkers() throws {
    let clusters = try CLI.run(["clusters", "--zoom", "2"])
    let features = try #require(clusters.json?["features"] as? [[String: Any]])
    let cluster = try #require(
      features.first { ($0["properties"] as? [String: Any])?["cluster"] as? Bool == true })
    let properties = try #require(cluster["properties"] as? [String: Any])
    let id = try #require(properties["cluster_id"] as? Int)
    let result = try CLI.run(
      ["headlines", "--cluster", String(id), "--zoom", "2", "--format", "json"], environment: environment)
    #expect(try results(result).count == properties["point_count"] as? Int)
  }

  @Test func nearAPlace() throws {
    let result = try CLI.run(["headlines", "--near", "48.85,2.35"], environment: environment)
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("fr  France"))
  }

  @Test func countriesByName() throws {
    let result = try CLI.run(
      ["headlines", "--countries", "Allemagne, united states,FRANCE", "--format", "json"],
      environment: environment)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      try results(result).compactMap { ($0["country"] as? [String: Any])?["code"] as? String } == [
        "de", "us", "fr",
      ])
    let near = try CLI.run(["headlines", "--near", "48.85 2.35"], environment: environment)
    #expect(near.status == 0, "\(near.stderr)")
    #expect(near.stdout.hasPrefix("fr  France"))
  }

  /// The us route's article was published 2024-04-20T20:52:20.59Z: text shows it in the reader's time zone and
  /// language; --utc for scripts; JSON keeps it as sent.
  @Test func datesForTheReader() throws {
    func dateShown(_ arguments: [String], _ extra: [String: String]) throws -> String? {
      let result = try CLI.run(
        ["headlines", "--country", "us"] + arguments, environment: environment.merging(extra) { $1 })
      #expect(result.status == 0, "\(result.stderr)")
      return result.stdoutLines.dropFirst().first.map { String($0.drop { $0 == " " }.prefix { $0 != "E" }) }
    }
    let paris = ["TZ": "Europe/Paris"]
    #expect(try dateShown([], paris) == "20 Apr 2024, 22:52  ")
    #expect(try dateShown([], ["TZ": "America/New_York"]) == "20 Apr 2024, 16:52  ")
    #expect(try dateShown([], paris.merging(["LANG": "fr_FR.UTF-8"]) { $1 }) == "Le 20/04/2024 à 22:52  ")
    #expect(
      try dateShown(["--lang", "en"], paris.merging(["LANG": "fr_FR.UTF-8"]) { $1 }) == "20 Apr 2024, 22:52  "
    )
    #expect(try dateShown(["--utc", "--lang", "fr"], paris) == "2024-04-20T20:52:20Z  ")
    let json = try CLI.run(["headlines", "--country", "us", "--format", "json"], environment: environment)
    #expect(json.stdout.contains("\"publishedAt\":\"2024-04-20T20:52:20.5931133Z\""))
  }

  /// --utc is offered only where text shows articles' dates: headlines and search, not sources (a list of
  /// sources, no date), which refuses it as any option it does not take.
  @Test func onlyCommandsWithDatesTakeUTC() throws {
    for command in ["headlines", "search"] {
      #expect(try CLI.run([command, "--help"]).stdout.contains("  --utc  "), "\(command)")
    }
    #expect(!(try CLI.run(["sources", "--help"]).stdout.contains("--utc")))
    let refused = try CLI.run(["sources", "--utc"], environment: environment)
    #expect(refused.status == 64 && refused.stderr.contains("'--utc'"), "\(refused.stderr)")
  }

  /// An article's line says its source and title with the reader's colon: "Example : us one" in French (it kept
  /// the English colon), "Example: us one" in English, in headlines and search alike.
  @Test func theArticleLinesColonIsTheReaders() throws {
    let french = environment.merging(["LANG": "fr_FR.UTF-8", "TZ": "Europe/Paris"]) { $1 }
    let headlines = try CLI.run(["headlines", "--country", "us"], environment: french)
    #expect(
      headlines.stdoutLines.dropFirst().first == "    Le 20/04/2024 à 22:52  Example : us one", "\(headlines)"
    )
    let search = try CLI.run(["search", "climat"], environment: french)
    #expect(search.stdout.contains("  Example : About climat\n"), "\(search.stdout)")
    let english = try CLI.run(
      ["headlines", "--country", "us"], environment: environment.merging(["TZ": "Europe/Paris"]) { $1 })
    #expect(english.stdoutLines.dropFirst().first == "    20 Apr 2024, 22:52  Example: us one", "\(english)")
  }

  /// search's filters reach the service; dates are checked before anything is sent (a request of the day's 100).
  @Test func searchFiltersAndDates() throws {
    let search = try CLI.run(
      [
        "search", "climate", "--sources", "BBC-News, le-monde", "--domains", "lemonde.fr",
        "--exclude-domains",
        "x.com",
        "--search-in", "title,description", "--from", "2026-11-01T10:00:00Z", "--to", "2026-11-02",
      ], environment: environment)
    #expect(search.status == 0, "\(search.stderr)")
    let sent = try #require(try server.log().first { $0.contains("/v2/everything") })
    for part in [
      "searchIn=title%2Cdescription", "sources=bbc-news%2Cle-monde", "domains=lemonde.fr",
      "excludeDomains=x.com",
      "from=2026-11-01T10%3A00%3A00Z", "to=2026-11-02",
    ] {
      #expect(sent.contains(part), "\(part) in \(sent)")
    }
    // A refusal names the flag typed (--search-in), not NewsAPI's parameter (searchIn), in either language.
    for (arguments, mentions) in [
      (["--from", "yesterday"], "'yesterday' is not a date NewsAPI takes for --from;"),
      (["--to", "2026-13-01"], "not a date NewsAPI takes for --to;"),
      (
        ["--from", "2026-11-02", "--to", "2026-11-01"],
        "The --from date 2026-11-02 is after the --to date 2026-11-01."
      ),
      // A day the month does not have; a from after the to once their offsets are read (15:00Z > 12:00Z).
      (["--from", "2026-02-30"], "'2026-02-30' is not a date NewsAPI takes for --from;"),
      (["--to", "2025-02-29T10:00:00Z"], "not a date NewsAPI takes for --to;"),
      (["--from", "2026-11-01T10:00:00-05:00", "--to", "2026-11-01T12:00:00Z"], "is after the --to date"),
      (["--search-in", "body"], "--search-in takes title, description and content, not 'body'."),
      (["--page-size", "500"], "--page-size must be 1 to 100, not 500."),
      (["--from", "hier", "--lang", "fr"], "'hier' n'est pas une date que NewsAPI prend pour --from ;"),
      (
        ["--from", "2026-11-02", "--to", "2026-11-01", "--lang", "fr"],
        "La date --from 2026-11-02 est après la date --to 2026-11-01."
      ),
      (
        ["--search-in", "corps", "--lang", "fr"],
        "--search-in prend title, description et content, pas 'corps'."
      ),
      (["--page-size", "0", "--lang", "fr"], "--page-size doit aller de 1 à 100, pas 0."),
      // A source id the sources list does not hold, as headlines --source says it.
      (
        ["--sources", "le-monde,bbc-nwes"], "'bbc-nwes' is not a NewsAPI source id; the nearest are bbc-news,"
      ),
      (["--sources", "BBC News"], "'BBC News' is not a source id"),
    ] {
      let result = try CLI.run(["search", "refused"] + arguments, environment: environment)
      #expect(result.status == 64 && result.stderr.contains(mentions), "\(arguments): \(result.stderr)")
      for wire in [
        "searchIn", "pageSize", "for from", "for to", "date from", "date to", "pour from", "pour to",
      ] {
        #expect(!result.stderr.contains(wire), "\(arguments): \(result.stderr)")
      }
    }
    #expect(try server.log().filter { $0.contains("refused") }.isEmpty)
    // 10:00+05:00 is 05:00Z, before 06:00Z (compared as text it was after, and refused); a leap day is a day.
    for arguments in [
      ["--from", "2026-11-01T10:00:00+05:00", "--to", "2026-11-01T06:00:00Z"], ["--from", "2028-02-29"],
    ] {
      let accepted = try CLI.run(["search", "accepted"] + arguments, environment: environment)
      #expect(accepted.status == 0, "\(arguments): \(accepted.stderr)")
    }
    // The order and the fields in any case, as the sort-by setting takes them; sent as NewsAPI spells them.
    let spelled = try CLI.run(
      ["search", "spelled", "--sort-by", "PUBLISHEDAT", "--search-in", "Title,DESCRIPTION"],
      environment: environment)
    #expect(spelled.status == 0, "\(spelled.stderr)")
    let sentSpelled = try #require(try server.log().first { $0.contains("q=spelled") })
    #expect(
      sentSpelled.contains("sortBy=publishedAt") && sentSpelled.contains("searchIn=title%2Cdescription"),
      "\(sentSpelled)")
    // The count agrees with no noun (it said "1 of 1 articles", "1 articles sur 1").
    let counted = try CLI.run(["search", "counted"], environment: environment)
    #expect(counted.stdoutLines.first == "Articles: 1 of 1", "\(counted.stdout)")
    let french = try CLI.run(["search", "counted", "--lang", "fr"], environment: environment)
    #expect(french.stdoutLines.first == "Articles : 1 sur 1", "\(french.stdout)")
  }

  @Test func sourcesFindByNameAndSayWhenNothingMatches() throws {
    let named = try CLI.run(["sources", "YNET"], environment: environment)
    #expect(
      named.status == 0 && named.stdoutLines.count == 1 && named.stdout.hasPrefix("ynet"), "\(named.stdout)")
    let israel = try CLI.run(["sources", "--country", "Israël"], environment: environment)
    #expect(israel.stdoutLines.count == 2, "\(israel.stderr)")
    for (arguments, mentions) in [
      (["--country", "xx"], "No NewsAPI source matches --country xx;"),
      (["nothing-like-this", "--category", "sports"], "matches 'nothing-like-this' and --category sports"),
    ] {
      let result = try CLI.run(["sources"] + arguments, environment: environment)
      #expect(result.status == 64 && result.stdout.isEmpty, "\(arguments)")
      #expect(result.stderrLines.count == 1 && result.stderr.contains(mentions), "\(result.stderr)")
    }
  }

  @Test func categoriesByName() throws {
    let result = try CLI.run(
      ["headlines", "--country", "gb", "--categories", "sports, Business,sports", "--format", "json"],
      environment: environment)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try results(result).compactMap { $0["category"] as? String } == ["sports", "business"])
    for (list, mentions) in [
      ("sports,weather", "'weather' is not a NewsAPI category"), (",", "takes 'all' or"),
    ] {
      let refused = try CLI.run(
        ["headlines", "--country", "gb", "--categories", list], environment: environment)
      #expect(refused.status == 64 && refused.stderr.contains(mentions), "\(refused.stderr)")
    }
  }

  @Test func aBareHeadlinesSaysHowToKeepAFavourite() throws {
    let result = try CLI.run(["headlines"], environment: environment)
    #expect(result.status == 64)
    // The favourite country, and sources too: a flag for once, the setting to keep them.
    #expect(
      result.stderr.contains(
        "(or sources with --source ID), or keep a favourite with 'newsatlas config set country fr' or "
          + "'newsatlas config set sources bbc-news'."),
      "\(result.stderr)")
    let french = try CLI.run(["headlines", "--lang", "fr"], environment: environment)
    #expect(french.status == 64)
    #expect(
      french.stderr.contains("(ou des sources avec --source ID), ou gardez un favori avec "),
      "\(french.stderr)")
    // What it suggests works: --source alone asks for that source's headlines.
    #expect(try CLI.run(["headlines", "--source", "bbc-news"], environment: environment).status == 0)
  }

  @Test func textPrintsAsTheyArrive() throws {
    let result = try CLI.run(["headlines", "--countries", "au,us"], environment: environment)
    #expect(result.status == 0)
    // One of Australia's sources takes a second in the fake service: the United States' prints first.
    #expect(result.stdout.hasPrefix("us  United States"))
  }

  @Test func searchAndSources() throws {
    let search = try CLI.run(["search", "climate change", "--format", "json"], environment: environment)
    #expect(search.status == 0)
    #expect(search.stdout.contains("About climate change"))
    let sources = try CLI.run(["sources", "--country", "il"], environment: environment)
    #expect(sources.stdout.hasPrefix("ynet") || sources.stdout.hasPrefix("the-jerusalem-post"))
    #expect(sources.stdoutLines.count == 2)
  }

  @Test(arguments: [
    (
      ["headlines", "--country", "xx"], Int32(64),
      "'xx' is not a country by code or name, such as es or Spain"
    ),
    (["headlines", "--country", "xx", "--provider", "newsapi"], 64, "not one of NewsAPI's 54 countries"),
    (["headlines", "--country", "fr", "--all"], 64, "one of --country"),
    (["headlines", "--country", "fr", "--category", "weather"], 64, "not a NewsAPI category"),
    (["headlines", "--country", "fr", "--page-size", "500"], 64, "--page-size"),
    (["headlines", "--cluster", "999999", "--zoom", "2"], 64, "No cluster"),
    (["search", "x", "--language", "xx"], 64, "not a NewsAPI language"),
    (["headlines", "--country", "fr", "--timeout", "1e300"], 64, "at most a day"),
    (["headlines", "--countries", ""], 64, "codes or names separated by commas"),
    (
      ["headlines", "--country", "united"], 64,
      "could be ae (United Arab Emirates), gb (United Kingdom), us (United States) or vi (United States Virgin"
    ),
    (["headlines", "--countries", "fr,atlantis"], 64, "'atlantis' is not a country by code or name"),
    (["search", "  "], 64, "needs words to look for"),
    (["headlines", "--near", "-33.87,151.21", "--page-size", "-1"], 64, "--page-size must be 1 to 100"),
  ])
  func usageErrors(arguments: [String], status: Int32, mentions: String) throws {
    let result = try CLI.run(arguments, environment: environment)
    #expect(result.status == status)
    #expect(result.stderrLines.count == 1, "\(result.stderr)")
    #expect(result.stderr.contains(mentions), "\(result.stderr)")
  }

  @Test func missingKeySaysWhereToGetOne() throws {
    let result = try CLI.run(
      ["headlines", "--country", "fr", "--provider", "newsapi"],
      environment: ["NEWSATLAS_API_BASE": server.base])
    #expect(result.status == 78)
    #expect(result.stderr.contains("NEWSAPI_KEY") && result.stderr.contains("newsapi.org/register"))
  }

  @Test func unreachableServiceIsOneSentence() throws {
    let port = LocalServer.closedPort()
    let result = try CLI.run(
      ["headlines", "--country", "us", "--api-base", "http://127.0.0.1:\(port)"], environment: environment)
    #expect(result.status == 69)
    #expect(result.stderr.contains("refused the connection"))
    #expect(!result.stderr.contains(LocalServer.newsAPIKey))
  }

  /// libcurl is opened at the first fetch: without it, fetching fails with one sentence and everything else
  /// runs (the library named here does not exist, or is not libcurl).
  @Test(arguments: ["/nonexistent/libcurl.so.4", "libz.so.1"])
  func withoutLibcurlOnlyFetchingFails(library: String) throws {
    var environment = environment
    environment["NEWSATLAS_LIBCURL"] = library
    let fetch = try CLI.run(["headlines", "--country", "fr"], environment: environment)
    #expect(fetch.status == 69, "\(fetch.stderr)")
    #expect(
      fetch.stderr.contains(
        library.hasPrefix("/")
          ? "\(library) could not be loaded; install libcurl" : "The libcurl loaded lacks curl_global_init"),
      "\(fetch.stderr)")
    #expect(!fetch.stderr.contains(LocalServer.newsAPIKey))
    let local = try CLI.run(["nearest", "48.85", "2.35"], environment: environment)
    #expect(local.status == 0 && local.stdout.hasPrefix("fr  France"), "\(local.stderr)")
  }
}
