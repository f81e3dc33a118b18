import Fetch
import Foundation
import TestSupport
import Testing

/// Sources as the original app let a reader keep them (issue 31 items 1 and 7): `headlines --source ID`, the
/// `sources` setting, search's defaults from the settings, and `sources` filters checked before any request.
@Suite struct FavouriteSourcesTests {
  let server: LocalServer
  var environment: [String: String] {
    ["NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": server.base]
  }

  init() throws { server = try LocalServer() }

  /// A source's headlines are packed into the request that carries the countries' sources: one request for
  /// Germany's five sources and the BBC, split back by each article's source.
  @Test func aSourceIsPackedWithTheCountries() throws {
    let result = try CLI.run(
      ["headlines", "--country", "de", "--source", "bbc-news", "--format", "json"], environment: environment)
    #expect(result.status == 0, "\(result.stderr)")
    let entries = try #require(result.json?["results"] as? [[String: Any]])
    #expect(entries.count == 2)
    #expect(entries[1]["source"] as? String == "bbc-news")
    #expect((entries[1]["country"] as? [String: Any])?["code"] as? String == "gb")
    let bbc = try #require(entries[1]["articles"] as? [[String: Any]])
    #expect(
      !bbc.isEmpty && bbc.allSatisfy { ($0["source"] as? [String: Any])?["id"] as? String == "bbc-news" })
    #expect(entries[0]["source"] == nil)
    let headlines = try server.log().filter { $0.contains("/v2/top-headlines?") }
    #expect(headlines.count == 1, "\(headlines)")
    #expect(
      headlines.first?.contains("bbc-news") == true && headlines.first?.contains("spiegel-online") == true)
    // The dry run shows it, the sources list now cached, and counts it in the budget.
    let plan = try CLI.shell(
      """
      "$0" headlines --country de --source bbc-news --format json >/dev/null
      "$0" headlines --country de --source bbc-news --refresh --dry-run --format json
      """, environment: environment)
    let planned = try #require(
      (try? JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])?["plan"]
        as? [String: Any], "\(plan.stdout) \(plan.stderr)")
    let requests = try #require(planned["requests"] as? [[String: Any]])
    #expect(
      requests.count == 1 && requests[0]["countries"] as? [String] == ["de", "bbc-news"], "\(plan.stdout)")
    #expect(requests[0]["route"] as? String == "packed")
    // --refresh: the sources list and the packed request, both counted against the budget.
    #expect(planned["cost"] as? Int == 2)
  }

  /// An id the sources list does not know is one sentence naming the nearest ids, and nothing else is sent; a
  /// source outside the 54, or a malformed id, is refused too.
  @Test func anUnknownSourceNamesTheNearest() throws {
    let typo = try CLI.run(["headlines", "--source", "bbc-nwes"], environment: environment)
    #expect(typo.status == 64)
    #expect(
      typo.stderr
        == "newsatlas: 'bbc-nwes' is not a NewsAPI source id; the nearest are bbc-news, cbc-news, bbc-sport "
        + "('newsatlas sources NAME' finds one by name).\n", "\(typo.stderr)")
    let french = try CLI.run(["headlines", "--source", "bbc-nwes", "--lang", "fr"], environment: environment)
    #expect(french.stderr.hasPrefix("newsatlas: 'bbc-nwes' n'est pas un identifiant de source NewsAPI ;"))
    let spain = try CLI.run(["headlines", "--source", "el-mundo"], environment: environment)
    #expect(spain.status == 64 && spain.stderr.contains("'el-mundo' is a source of es"), "\(spain.stderr)")
    let shape = try CLI.run(["headlines", "--source", "BBC News"], environment: environment)
    #expect(shape.status == 64 && shape.stderr.contains("'BBC News' is not a source id"), "\(shape.stderr)")
    let gdelt = try CLI.run(
      ["headlines", "--source", "bbc-news", "--provider", "gdelt"], environment: environment)
    #expect(gdelt.status == 64 && gdelt.stderr.contains("--source asks NewsAPI"), "\(gdelt.stderr)")
    #expect(try server.log().filter { $0.contains("/v2/top-headlines?") }.isEmpty)
    // An id in capitals is its id (NewsAPI's are lower case), as a country or a category in any case.
    let capitals = try CLI.run(
      ["headlines", "--source", "BBC-News", "--page-size", "1", "--format", "json"], environment: environment)
    #expect(capitals.status == 0 && capitals.stdout.contains(#""source":"bbc-news""#), "\(capitals.stderr)")
  }

  /// The favourite sources: kept by `config set sources`, asked by a bare `headlines` with the favourite
  /// country, shown by `config show`; a named country leaves them out.
  @Test func favouriteSourcesFromTheSettings() throws {
    let result = try CLI.shell(
      """
      "$0" config set sources "le-monde, bbc-news" && "$0" config set country de || exit 9
      "$0" config show --format json
      "$0" headlines --format json
      "$0" headlines --country it --format json
      """, environment: environment)
    let documents = result.stdoutLines.compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(documents.count == 3, "\(result.stderr)")
    let settings = try #require(documents.first?["settings"] as? [[String: Any]])
    #expect(
      settings.contains { $0["key"] as? String == "sources" && $0["value"] as? String == "le-monde,bbc-news" }
    )
    let bare = try #require(documents.dropFirst().first?["results"] as? [[String: Any]])
    #expect(bare.map { $0["source"] as? String ?? "" } == ["", "le-monde", "bbc-news"])
    #expect(((bare[0]["country"] as? [String: Any])?["code"] as? String) == "de")
    let italy = try #require(documents.last?["results"] as? [[String: Any]])
    #expect(italy.count == 1)
    let refused = try CLI.run(["config", "set", "sources", "a,,b"])
    #expect(refused.status == 64 && refused.stderr.contains("'' is not a source id"), "\(refused.stderr)")
  }

  /// A favourite source the sources list does not know is the settings file's fault: 78 (EX_CONFIG), the
  /// setting and its file named with the nearest ids, in the reader's language (it was 64, "not a NewsAPI
  /// source id", as if the command line had named it). A --source given on the command line leaves it out.
  @Test func aBadFavouriteSourceIsTheSettingsFault() throws {
    let result = try CLI.shell(
      """
      "$0" config set sources le-mnde || exit 9
      "$0" headlines; echo "status $?"
      "$0" headlines --lang fr; echo "status $?"
      "$0" headlines --source le-monde --page-size 1 >/dev/null; echo "status $?"
      "$0" config path
      """, environment: environment)
    #expect(result.stdoutLines.prefix(3) == ["status 78", "status 78", "status 0"], "\(result.stderr)")
    let file = String(result.stdoutLines.last ?? "")
    #expect(
      String(result.stderrLines.first ?? "")
        == "newsatlas: The sources setting (\(file)) cannot be used: 'le-mnde' is not a NewsAPI source id; the "
        + "nearest are le-monde, el-mundo, lenta ('newsatlas sources NAME' finds one by name). Change it with "
        + "'newsatlas config set sources ID,…' or remove it with 'newsatlas config unset sources'.", "\(file)"
    )
    #expect(
      result.stderrLines.dropFirst().first?.hasPrefix(
        "newsatlas: Le réglage sources (\(file)) est inutilisable : 'le-mnde' n'est pas un identifiant")
        == true,
      "\(result.stderr)")
  }

  /// `config set sources` checks the ids against the sources list the cache holds, with the nearest-ids sentence
  /// the other commands say, in the reader's language, and sends nothing; with no list cached the ids are kept
  /// (checked at use, as `aBadFavouriteSourceIsTheSettingsFault` shows).
  @Test func configSetChecksSourcesAgainstTheCachedList() throws {
    let result = try CLI.shell(
      """
      "$0" sources >/dev/null || exit 9
      "$0" config set sources bbc-news,le-mnde; echo "status $?"
      "$0" config set sources le-mnde --lang fr; echo "status $?"
      "$0" config get sources; echo "status $?"
      "$0" config set sources BBC-News,le-monde && "$0" config get sources
      """, environment: environment)
    #expect(
      result.stdoutLines == ["status 64", "status 64", "status 1", "bbc-news,le-monde"],
      "\(result.stdout) \(result.stderr)")
    #expect(
      result.stderrLines.prefix(2) == [
        "newsatlas: 'le-mnde' is not a NewsAPI source id; the nearest are le-monde, el-mundo, lenta ('newsatlas "
          + "sources NAME' finds one by name).",
        "newsatlas: 'le-mnde' n'est pas un identifiant de source NewsAPI ; les plus proches sont le-monde, "
          + "el-mundo, lenta ('newsatlas sources NOM' en trouve une par son nom).",
      ], "\(result.stderr)")
    // The sources list once, by `sources`: `config set` sent nothing.
    let log = try server.log()
    #expect(log.count == 1, "\(log)")
  }

  /// search's domains are domain names, refused before any request (the sources list included), in the
  /// reader's language; search takes no --concurrency (it sends one request at a time).
  @Test func searchRefusesWhatIsNotADomainBeforeAnyRequest() throws {
    for (flag, value) in [("--domains", "bbc co uk"), ("--exclude-domains", "lemonde.fr,-x.com")] {
      let shown = value.split(separator: ",").last!
      let english = try CLI.run(
        ["search", "climat", "--sources", "bbc-news", flag, value], environment: environment)
      #expect(english.status == 64)
      #expect(
        english.stderr
          == "newsatlas: '\(shown)' is not a domain name, such as bbc.co.uk (several are comma-separated: "
          + "bbc.co.uk,lemonde.fr).\n", "\(english.stderr)")
      let french = try CLI.run(
        ["search", "climat", "--sources", "bbc-news", flag, value, "--lang", "fr"], environment: environment)
      #expect(french.status == 64)
      #expect(
        french.stderr
          == "newsatlas: '\(shown)' n'est pas un nom de domaine, comme bbc.co.uk (plusieurs sont séparés par des "
          + "virgules : bbc.co.uk,lemonde.fr).\n", "\(french.stderr)")
    }
    let log = try server.log()
    #expect(log.isEmpty, "\(log)")
    let concurrency = try CLI.run(["search", "climat", "--concurrency", "4"], environment: environment)
    #expect(concurrency.status == 64)
    #expect(
      concurrency.stderr.hasPrefix("newsatlas: Unknown option '--concurrency'."), "\(concurrency.stderr)")
    #expect(try server.log().isEmpty)
    let allowed = try CLI.run(
      ["search", "climat", "--domains", "bbc.co.uk, Le-Monde.fr", "--exclude-domains", "x.com"],
      environment: environment)
    #expect(allowed.status == 0, "\(allowed.stderr)")
    let sent = try server.log()
    #expect(sent.count == 1, "\(sent)")
  }

  /// search's language and order default to the settings; a language is a code or a name.
  @Test func searchDefaultsToTheSettings() throws {
    let result = try CLI.shell(
      """
      "$0" config set language français && "$0" config set sort-by popularity || exit 9
      "$0" search climat >/dev/null && "$0" search climate --language english --sort-by relevancy >/dev/null
      """, environment: environment)
    #expect(result.status == 0, "\(result.stderr)")
    let searches = try server.log().filter { $0.contains("/v2/everything") }
    #expect(searches.count == 2)
    #expect(searches[0].contains("language=fr") && searches[0].contains("sortBy=popularity"), "\(searches)")
    #expect(searches[1].contains("language=en") && searches[1].contains("sortBy=relevancy"), "\(searches)")
  }

  /// `sources --language french` and `--country France` are taken as NewsAPI's codes; a filter that is no
  /// language, category or country is refused before the key is even looked for.
  @Test func sourcesFiltersAreCheckedFirst() throws {
    let french = try CLI.run(
      ["sources", "--language", "french", "--country", "France"], environment: environment)
    #expect(french.status == 0 && french.stdoutLines.count == 4, "\(french.stderr)")
    #expect(
      try server.log().contains { $0.contains("/v2/top-headlines/sources") && $0.contains("language=fr") })
    for (arguments, mentions) in [
      (["--language", "klingon"], "'klingon' is not a NewsAPI language"),
      (["--category", "gossip"], "'gossip' is not a NewsAPI category"),
      (["--country", "Atlantis"], "'Atlantis' is not a two-letter country code"),
      (["--country", "united"], "'united' could be ae (United Arab Emirates), gb (United Kingdom) or us"),
    ] {
      let keyless = try CLI.run(["sources"] + arguments)  // no key: still the filter's sentence, 64
      #expect(keyless.status == 64 && keyless.stderr.contains(mentions), "\(arguments): \(keyless.stderr)")
    }
  }

  /// `--source a,b` is the list `--source a --source b` is (the unsplit text was checked as a list, then asked as
  /// one id and refused as "not a NewsAPI source id"); a list is counted against a request's 20 as a whole.
  @Test func aCommaListIsTheRepeatedFlag() throws {
    let listed = try CLI.run(
      ["headlines", "--source", "bbc-news,le-monde", "--format", "json"], environment: environment)
    #expect(listed.status == 0, "\(listed.stderr)")
    let repeated = try CLI.run(
      ["headlines", "--source", "bbc-news", "--source", "le-monde", "--format", "json"],
      environment: environment)
    #expect(repeated.status == 0 && listed.stdout == repeated.stdout, "\(repeated.stderr)")
    let results = try #require(listed.json?["results"] as? [[String: Any]])
    #expect(results.map { $0["source"] as? String } == ["bbc-news", "le-monde"])
    let many = (1...21).map { "s\($0)" }.joined(separator: ",")
    let tooMany = try CLI.run(["headlines", "--source", many], environment: environment)
    #expect(tooMany.status == 64 && tooMany.stderr.contains("at most 20 sources"), "\(tooMany.stderr)")
  }

  /// `GET /v1/headlines?source=` takes what `--source` takes (repeated or a comma list), through the same
  /// planner (the CLI's bytes), with the CLI's sentence for an unknown id but for where to find one, in the
  /// request's language: an HTTP client is sent to the service's /v1/sources (it was told to run
  /// 'newsatlas sources NAME', which it has not got); the favourite sources are `GET /v1/sources`, none on a
  /// server without a key.
  @Test func theServiceTakesSourcesAsTheCLIDoes() async throws {
    let config = try ScratchDirectory()
    try FileManager.default.createDirectory(
      atPath: config.path + "/newsatlas", withIntermediateDirectories: true)
    try "sources = \"le-monde,bbc-news\"\n".write(
      toFile: config.path + "/newsatlas/config.toml", atomically: true, encoding: .utf8)
    let served = try Served([], environment: environment.merging(["XDG_CONFIG_HOME": config.path]) { $1 })
    let client = HTTPClient()
    func text(_ path: String, headers: [(String, String)] = []) async throws -> (Int, String, HTTPResponse) {
      let response = try await client.get(served.base + path, headers: headers)
      return (response.status, String(decoding: response.body, as: UTF8.self), response)
    }
    let (_, favourites, _) = try await text("/v1/sources")
    #expect(favourites == #"{"sources":[{"id":"le-monde"},{"id":"bbc-news"}]}"# + "\n")
    let (status, answer, _) = try await text("/v1/headlines?country=de&source=bbc-news")
    #expect(status == 200, "\(answer)")
    let cli = try CLI.run(
      ["headlines", "--country", "de", "--source", "bbc-news", "--format", "json"], environment: environment)
    #expect(answer == cli.stdout)
    let (_, listed, _) = try await text("/v1/headlines?source=bbc-news,le-monde")
    let (_, repeated, _) = try await text("/v1/headlines?source=bbc-news&source=le-monde")
    #expect(listed == repeated && listed.contains(#""source":"le-monde""#), "\(listed)")
    let (unknown, sentence, response) = try await text("/v1/headlines?source=bbc-nwes")
    #expect(unknown == 400)
    #expect(
      sentence
        == #"{"error":"'bbc-nwes' is not a NewsAPI source id; the nearest are bbc-news, cbc-news, bbc-sport "#
        + #"(/v1/sources lists the sources this server offers)."}"# + "\n")
    #expect(response.header("Vary") == "Accept-Language")
    let (_, french, _) = try await text("/v1/headlines?source=bbc-nwes", headers: [("Accept-Language", "fr")])
    #expect(
      french
        == #"{"error":"'bbc-nwes' n'est pas un identifiant de source NewsAPI ; les plus proches sont bbc-news, "#
        + #"cbc-news, bbc-sport (/v1/sources liste les sources que ce serveur propose)."}"# + "\n")
    // A comma list and a repeated source= are checked alike; no answer names the command line.
    let (_, listedUnknown, _) = try await text("/v1/headlines?source=le-monde,bbc-nwes")
    #expect(listedUnknown == sentence)
    #expect(!sentence.contains("newsatlas") && !french.contains("newsatlas"))
    for (query, mentions) in [
      ("source=BBC%20News", "'BBC News' is not a source id"),
      ("source=bbc-news&provider=gdelt", "provider=newsapi or auto"),
      ("source=el-mundo", "'el-mundo' is a source of es"),
    ] {
      let (refused, said, _) = try await text("/v1/headlines?" + query)
      #expect(refused == 400 && said.contains(mentions), "\(query): \(said)")
    }
    // Without a key no source can be served: none offered, and one asked is the missing key's 503.
    let keyless = try Served([], environment: ["XDG_CONFIG_HOME": config.path])
    let none = try await client.get(keyless.base + "/v1/sources")
    #expect(String(decoding: none.body, as: UTF8.self) == #"{"sources":[]}"# + "\n")
    let refused = try await client.get(keyless.base + "/v1/headlines?source=bbc-news")
    #expect(refused.status == 503)
    // Nor on a server whose default provider is not NewsAPI's: the map would name them in every request, and
    // each would be refused.
    try "sources = \"le-monde,bbc-news\"\nprovider = \"gdelt\"\n".write(
      toFile: config.path + "/newsatlas/config.toml", atomically: true, encoding: .utf8)
    let gdelt = try Served([], environment: environment.merging(["XDG_CONFIG_HOME": config.path]) { $1 })
    let offered = try await client.get(gdelt.base + "/v1/sources")
    #expect(String(decoding: offered.body, as: UTF8.self) == #"{"sources":[]}"# + "\n")
  }

  /// A favourite that NewsAPI's sources list does not know (or outside the 54 countries) is not offered to the
  /// map, and logged with its refusal in the server's language: the map names the chosen source in every
  /// request, and one bad favourite made each a 400. The good favourites are still offered and served.
  @Test func aBadFavouriteIsNotOfferedToTheMap() async throws {
    let config = try ScratchDirectory()
    try FileManager.default.createDirectory(
      atPath: config.path + "/newsatlas", withIntermediateDirectories: true)
    try "sources = \"le-monde,bbc-nwes,el-mundo\"\n".write(
      toFile: config.path + "/newsatlas/config.toml", atomically: true, encoding: .utf8)
    let client = HTTPClient()
    for (language, leftOut) in [
      ("C.UTF-8", "A favourite source is not offered to the map: 'bbc-nwes' is not a NewsAPI source id"),
      (
        "fr_FR.UTF-8",
        "Une source favorite n'est pas proposée à la carte : 'bbc-nwes' n'est pas un identifiant"
      ),
    ] {
      let served = try Served(
        [], environment: environment.merging(["XDG_CONFIG_HOME": config.path, "LANG": language]) { $1 })
      let favourites = try await client.get(served.base + "/v1/sources")
      #expect(String(decoding: favourites.body, as: UTF8.self) == #"{"sources":[{"id":"le-monde"}]}"# + "\n")
      // What the map asks with the one offered: the country's headlines and the source's.
      let map = try await client.get(served.base + "/v1/headlines?country=de&source=le-monde")
      #expect(map.status == 200, "\(String(decoding: map.body, as: UTF8.self))")
      let log = served.log()
      #expect(log.contains(leftOut), "\(log)")
      #expect(log.contains("'el-mundo'"), "\(log)")
    }
  }
}
