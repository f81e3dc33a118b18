import Foundation
import TestSupport
import Testing

/// `newsatlas feeds`: the feeds file in the settings folder, its checks and its protection.
@Suite struct FeedsCommandTests {
  let scratch: ScratchDirectory
  var environment: [String: String] { ["XDG_CONFIG_HOME": scratch.path] }
  var file: String { scratch.path + "/newsatlas/feeds.txt" }

  init() throws { scratch = try ScratchDirectory() }

  func run(_ arguments: [String]) throws -> CLI.Result { try CLI.run(arguments, environment: environment) }

  @Test func addListRemove() throws {
    #expect(try run(["feeds", "path"]).stdout == file + "\n")
    let none = try run(["feeds", "list"])
    #expect(
      none.status == 0
        && none.stdout == "No feeds are kept; add one with 'newsatlas feeds add COUNTRY URL'.\n", "\(none)")
    #expect(
      try run(["feeds", "add", "fr", "https://www.lemonde.fr/rss/une.xml"]).stdout
        == "fr: added https://www.lemonde.fr/rss/une.xml\n")
    #expect(
      try run(["feeds", "add", "France", "https://www.lemonde.fr/rss/une.xml"]).stdout
        == "fr: already has https://www.lemonde.fr/rss/une.xml\n")
    #expect(try run(["feeds", "add", "Allemagne", "http://127.0.0.1:9/de.xml"]).status == 0)
    // The URLs in one column: the names padded to the longest.
    #expect(
      try run(["feeds", "list"]).stdout
        == "fr  France   https://www.lemonde.fr/rss/une.xml\nde  Germany  http://127.0.0.1:9/de.xml\n")
    #expect(
      try run(["feeds", "list", "de", "--format", "json"]).stdout
        == "{\"feeds\":[{\"country\":\"de\",\"url\":\"http://127.0.0.1:9/de.xml\"}]}\n")
    let text = try String(contentsOfFile: file, encoding: .utf8)
    #expect(text.hasSuffix("fr https://www.lemonde.fr/rss/une.xml\nde http://127.0.0.1:9/de.xml\n"))
    // Written as the settings file is: 0600 in a 0700 folder, no temporary file left.
    let attributes = try FileManager.default.attributesOfItem(atPath: file)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let folder = try FileManager.default.attributesOfItem(atPath: scratch.path + "/newsatlas")
    #expect((folder[.posixPermissions] as? Int) == 0o700)
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/newsatlas") == ["feeds.txt"])
    #expect(try run(["feeds", "remove", "fr", "https://www.lemonde.fr/rss/une.xml"]).status == 0)
    let missing = try run(["feeds", "remove", "fr", "https://www.lemonde.fr/rss/une.xml"])
    #expect(
      missing.status == 1 && missing.stderr.contains("fr has no feed https://www.lemonde.fr/rss/une.xml"))
    #expect(try run(["feeds", "list"]).stdout == "de  Germany  http://127.0.0.1:9/de.xml\n")
  }

  /// `feeds list` with no feeds says so and how to add one, in the reader's language, and succeeds (it printed
  /// nothing); a country with none says the command for that country; JSON stays an empty list.
  @Test func anEmptyListSaysHowToAddAFeed() throws {
    let french = environment.merging(["LANG": "fr_FR.UTF-8"]) { $1 }
    let sentences: [([String: String], String)] = [
      (environment, "No feeds are kept; add one with 'newsatlas feeds add COUNTRY URL'."),
      (french, "Aucun flux n'est enregistré ; ajoutez-en un avec 'newsatlas feeds add PAYS URL'."),
    ]
    for (language, said) in sentences {
      let result = try CLI.run(["feeds", "list"], environment: language)
      #expect(result.status == 0 && result.stdout == said + "\n" && result.stderr.isEmpty, "\(result)")
    }
    let json = try run(["feeds", "list", "--format", "json"])
    #expect(json.status == 0 && json.stdout == #"{"feeds":[]}"# + "\n", "\(json)")
    #expect(try run(["feeds", "add", "fr", "https://www.lemonde.fr/rss/une.xml"]).status == 0)
    let germany = try run(["feeds", "list", "Allemagne"])
    #expect(
      germany.status == 0
        && germany.stdout == "de has no feeds; add one with 'newsatlas feeds add de URL'.\n", "\(germany)")
    let inFrench = try CLI.run(["feeds", "list", "de"], environment: french)
    #expect(inFrench.stdout == "de n'a aucun flux ; ajoutez-en un avec 'newsatlas feeds add de URL'.\n")
    let germanyJSON = try run(["feeds", "list", "de", "--format", "json"])
    #expect(germanyJSON.status == 0 && germanyJSON.stdout == #"{"feeds":[]}"# + "\n")
    // The sentence's command adds a feed: then it is listed.
    #expect(try run(["feeds", "add", "de", "http://127.0.0.1:9/de.xml"]).status == 0)
    #expect(try run(["feeds", "list", "de"]).stdout == "de  Germany  http://127.0.0.1:9/de.xml\n")
  }

  @Test(arguments: [
    (["feeds", "add", "fr", "ftp://example.org/rss"], "is not a feed URL"),
    (["feeds", "add", "fr", "https://example.org/a b"], "is not a feed URL"),
    (["feeds", "add", "dz", "https://example.org/rss"], "dz"),
    (["feeds", "add", "fr"], "takes a country and a URL"),
    (["feeds", "frobnicate"], "not a feeds action"),
    (["feeds", "list", "fr", "https://example.org/rss"], "at most a country"),
  ])
  func refusedWithUsage(_ arguments: [String], _ says: String) throws {
    let result = try run(arguments)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains(says), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: file))
  }

  @Test func aBadLineInTheFileIsAConfigurationError() throws {
    try FileManager.default.createDirectory(
      atPath: scratch.path + "/newsatlas", withIntermediateDirectories: true)
    try "# mine\nfr https://www.lemonde.fr/rss/une.xml\nfr\n".write(
      toFile: file, atomically: true, encoding: .utf8)
    let result = try run(["feeds", "list"])
    #expect(result.status == 78)
    #expect(result.stderr.contains("Line 3 of the feeds file"), "\(result.stderr)")
  }

  /// `feeds add` and `feeds list` say a feed's and the feeds file's failures in the reader's language (issue 31
  /// item 3), with the exit status they have in English: a URL or a country refused, a folder that cannot be
  /// made, a feeds file that is a folder, not UTF-8 or too large, and `feeds remove` of a feed not there. A script
  /// run in the settings folder; the sentence in French (LANG=fr_FR.UTF-8), in English (no locale), the status.
  @Test(arguments: [
    (
      #""$0" feeds add fr ftp://example.org/rss"#,
      "newsatlas: 'ftp://example.org/rss' n'est pas une URL de flux ; donnez une URL http ou https avec un hôte",
      "newsatlas: 'ftp://example.org/rss' is not a feed URL; give an http or https URL with a host", 64
    ),
    (
      #""$0" feeds add fr "https://example.org/$(head -c 2100 /dev/zero | tr '\0' a)""#,
      "…' dépasse 2048 caractères.", "…' is longer than 2048 characters.", 64
    ),
    (
      #""$0" feeds add Prusse https://example.org/rss"#,
      "newsatlas: 'Prusse' n'est pas un des 54 pays de NewsAPI",
      "newsatlas: 'Prusse' is not one of NewsAPI's 54 countries", 64
    ),
    (
      #"touch newsatlas && "$0" feeds add fr https://example.org/rss"#,
      "feeds.txt' : la création de son dossier a échoué (Not a directory).",
      "feeds.txt': creating its folder failed (Not a directory).", 73
    ),
    (
      #"mkdir -p newsatlas/feeds.txt && "$0" feeds list"#,
      "feeds.txt' n'est pas un fichier ordinaire ; supprimez-le.",
      "feeds.txt' is not a regular file; remove it.", 78
    ),
    (
      #"mkdir -p newsatlas/feeds.txt && "$0" feeds add de https://example.org/rss"#,
      "feeds.txt' n'est pas un fichier ordinaire ; supprimez-le.",
      "feeds.txt' is not a regular file; remove it.", 78
    ),
    (
      #"mkdir -p newsatlas && printf 'fr https://a.example/\xff\n' > newsatlas/feeds.txt && "$0" feeds list"#,
      "feeds.txt' n'est pas du texte UTF-8.", "feeds.txt' is not UTF-8 text.", 78
    ),
    (
      #"mkdir -p newsatlas && head -c 1100000 /dev/zero | tr '\0' '#' > newsatlas/feeds.txt && "#
        + #""$0" feeds add fr https://example.org/rss"#,
      "feeds.txt' dépasse 1 Mio ou ne peut pas être lu ; supprimez-le.",
      "feeds.txt' is larger than 1 MiB or cannot be read; remove it.", 78
    ),
    (
      #""$0" feeds remove fr https://example.org/rss"#,
      "newsatlas: fr n'a pas de flux https://example.org/rss ; 'newsatlas feeds list fr' liste ses flux.",
      "newsatlas: fr has no feed https://example.org/rss; 'newsatlas feeds list fr' lists its feeds.", 1
    ),
  ])
  func failuresInTheReadersLanguage(script: String, french: String, english: String, status: Int32) throws {
    let setUp = #"mkdir -p "$XDG_CONFIG_HOME" && cd "$XDG_CONFIG_HOME" && "#
    for (locale, sentence, other) in [("fr_FR.UTF-8", french, english), ("C", english, french)] {
      try? FileManager.default.removeItem(atPath: scratch.path + "/newsatlas")
      let result = try CLI.shell(setUp + script, environment: environment.merging(["LANG": locale]) { $1 })
      #expect(result.status == status, "\(locale) \(script): \(result.stderr)")
      #expect(result.stderr.contains(sentence), "\(locale) \(script): \(result.stderr)")
      #expect(!result.stderr.contains(other), "\(locale) \(script): \(result.stderr)")
      #expect(result.stdout.isEmpty, "\(locale) \(script): \(result.stdout)")
    }
  }

  /// Feeds added with `feeds add` (by French country names) that fail when read, from the feed server on
  /// 127.0.0.1 (a 503 for Germany's, malformed XML for the United Kingdom's): `feeds add` and `feeds list` speak
  /// French, and `headlines` says each feed's failure in French (after its country, "de  Allemagne : ", a
  /// French colon), its English twin under the C locale, with the same exit status.
  /// `feeds add` reads the URL first: a feed is added; a web page adds the first feed its `<link
  /// rel="alternate">` names that reads (a broken one named before it is passed over), saying which; a page that
  /// names none, and a URL that answers with something else, are refused (65, 69) and nothing is added; a URL
  /// that does not answer is added as given, with a line that says so.
  @Test func addFindsTheFeedAPageNames() throws {
    let server = try LocalServer(script: "feed_server.py")
    let page = server.base + "/feeds/site.html"
    let feed = server.base + "/feeds/rss2-cdata.xml"
    let added = try run(["feeds", "add", "fr", page])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(added.stdout == "fr: added \(feed), the feed the page \(page) names (Le Quotidien : Actualités et infos en France et dans le monde)\n", "\(added.stdout)")
    #expect(try run(["feeds", "list", "fr", "--format", "json"]).stdout.contains("\"url\":\"\(feed)\""))
    let direct = try run(["feeds", "add", "fr", feed])
    #expect(direct.status == 0 && direct.stdout == "fr: already has \(feed)\n", "\(direct)")
    let none = try run(["feeds", "add", "de", server.base + "/feeds/site-without-feed.html"])
    #expect(none.status == 65 && none.stderr.contains("is a web page that names no RSS or Atom feed"), "\(none)")
    let broken = try run(["feeds", "add", "de", server.base + "/feeds/malformed.xml"])
    #expect(broken.status == 69 && broken.stderr.contains("not well-formed XML"), "\(broken)")
    let missing = try run(["feeds", "add", "de", server.base + "/status/404"])
    #expect(missing.status == 69 && missing.stderr.contains("answered HTTP 404"), "\(missing)")
    #expect(try run(["feeds", "list", "de"]).stdout.contains("de has no feeds"))
    let unanswered = try run(["feeds", "add", "de", "http://127.0.0.1:9/de.xml", "--timeout", "5"])
    #expect(unanswered.status == 0 && unanswered.stdout == "de: added http://127.0.0.1:9/de.xml\n")
    #expect(unanswered.stderr.contains("could not be read now"), "\(unanswered.stderr)")
  }

  /// `feeds check` reads every feed once, fresh, at once: a header, then a line per feed in the list's order
  /// (status, items, newest date, what went wrong), or JSON; 69 with a count when any failed.
  @Test func checkSaysHowEachFeedAnswers() throws {
    let server = try LocalServer(script: "feed_server.py")
    let (good, atom, failing) = (
      server.base + "/feeds/rss2-cdata.xml", server.base + "/feeds/atom-relative.xml", server.base + "/status/503"
    )
    for (country, url) in [("fr", good), ("jp", atom), ("de", failing)] {
      #expect(try run(["feeds", "add", country, url, "--no-check"]).status == 0)
    }
    let text = try run(["feeds", "check"])
    #expect(text.status == 69 && text.stderr.contains("1 of 3 feeds did not answer with a feed"), "\(text)")
    let lines = text.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
    #expect(lines.first == "COUNTRY STATUS ITEMS NEWEST URL", "\(text.stdout)")
    #expect(lines.contains("fr 200 3 2026-11-25T13:30:00Z \(good)"), "\(text.stdout)")
    #expect(lines.contains { $0.hasPrefix("de 503 - - \(failing) The feed \(failing) answered HTTP 503") })
    let json = try run(["feeds", "check", "--format", "json", "fr"])
    #expect(json.status == 0, "\(json.stderr)")
    let feeds = try #require(json.json?["feeds"] as? [[String: Any]])
    #expect(feeds.count == 1 && feeds[0]["url"] as? String == good && feeds[0]["items"] as? Int == 3)
    #expect(feeds[0]["newest"] as? String == "2026-11-25T13:30:00Z" && feeds[0]["error"] is NSNull)
  }

  @Test func feedsAddedThatFailAreSaidInFrench() throws {
    let server = try LocalServer(script: "feed_server.py")
    let french = environment.merging(["LANG": "fr_FR.UTF-8"]) { $1 }
    func add(_ country: String, _ url: String) throws -> String {
      // Unread (--no-check): `feeds add` refuses a feed that fails when read, and these are to fail later.
      try CLI.run(["feeds", "add", country, url, "--no-check"], environment: french).stdout
    }
    let (unavailable, malformed) = (server.base + "/status/503", server.base + "/feeds/malformed.xml")
    #expect(try add("Allemagne", unavailable) == "de : ajouté \(unavailable)\n")
    #expect(try add("Royaume-Uni", malformed) == "gb : ajouté \(malformed)\n")
    #expect(try add("royaume uni", malformed) == "gb : a déjà \(malformed)\n")
    #expect(
      try CLI.run(["feeds", "list"], environment: french).stdout
        == "de  Allemagne    \(unavailable)\ngb  Royaume-Uni  \(malformed)\n")
    let arguments = ["headlines", "--countries", "de,gb", "--provider", "feeds", "--refresh"]
    let inFrench = try CLI.run(arguments, environment: french)
    let inEnglish = try run(arguments)
    #expect(inFrench.status != 0 && inFrench.status == inEnglish.status, "\(inFrench.stderr)")
    #expect(
      inFrench.stderr.contains("newsatlas: de  Allemagne : Le flux \(unavailable) a répondu HTTP 503.\n"),
      "\(inFrench.stderr)")
    #expect(
      inFrench.stderr.contains(
        "Le flux \(malformed) n'a pas pu être lu : le flux n'est pas du XML bien formé (ligne 8"),
      "\(inFrench.stderr)")
    #expect(
      inEnglish.stderr.contains("newsatlas: de  Germany: The feed \(unavailable) answered HTTP 503.\n"),
      "\(inEnglish.stderr)")
    #expect(
      inEnglish.stderr.contains(
        "The feed \(malformed) could not be read: the feed is not well-formed XML (line 8"),
      "\(inEnglish.stderr)")
  }
}
