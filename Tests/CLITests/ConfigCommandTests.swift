import Foundation
import TestSupport
import Testing

/// `newsatlas config` and the settings file: validation, precedence (flags, then the environment, then the file)
/// and the key's protection.
@Suite struct ConfigCommandTests {
  let scratch: ScratchDirectory
  var home: String { scratch.path }
  var environment: [String: String] { ["XDG_CONFIG_HOME": home] }
  var file: String { home + "/newsatlas/config.toml" }

  init() throws {
    scratch = try ScratchDirectory()
  }

  func run(_ arguments: [String], _ extra: [String: String] = [:]) throws -> CLI.Result {
    try CLI.run(arguments, environment: environment.merging(extra) { $1 })
  }

  /// A `config.toml` that is a symbolic link (kept by a dotfiles manager) is written through: the link stays a
  /// link and the file it leads to gets the setting, readable by its owner alone. A link that leads nowhere is
  /// refused with the reason, and left as it was.
  @Test func aLinkedSettingsFileIsWrittenThrough() throws {
    let manager = home + "/dotfiles"
    try FileManager.default.createDirectory(atPath: manager, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: home + "/newsatlas", withIntermediateDirectories: true)
    try "language = \"fr\"\n".write(toFile: manager + "/newsatlas.toml", atomically: false, encoding: .utf8)
    try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: manager + "/newsatlas.toml")
    let set = try run(["config", "set", "country", "fr"])
    #expect(set.status == 0, "\(set.stderr)")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file) == manager + "/newsatlas.toml")
    let text = try String(contentsOfFile: manager + "/newsatlas.toml", encoding: .utf8)
    #expect(text.contains("language = \"fr\"") && text.contains("country = \"fr\""), "\(text)")
    let mode = try FileManager.default.attributesOfItem(atPath: manager + "/newsatlas.toml")[.posixPermissions]
    #expect((mode as? Int).map { $0 & 0o077 == 0 } == true)
    try FileManager.default.removeItem(atPath: manager + "/newsatlas.toml")
    let dangling = try run(["config", "set", "country", "de"])
    #expect(dangling.status != 0 && dangling.stderr.contains("following its symbolic link"), "\(dangling.stderr)")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file) == manager + "/newsatlas.toml")
  }

  /// Every setting with its value in use and where it comes from; the key's value never, from either place.
  @Test func showSaysWhereEachValueComesFrom() throws {
    let fileKey = "filekey-0123456789abcdefWXYZ"
    #expect(try run(["config", "set", "country", "royaume-uni"]).status == 0)
    #expect(try run(["config", "set", "api-key", fileKey]).status == 0)
    #expect(try run(["config", "set", "ttl-search", "60"]).status == 0)
    let text = try run(
      ["config", "show"], ["NEWSATLAS_API_BASE": "http://proxyuser:proxysecret@127.0.0.1:9"])
    #expect(text.status == 0, "\(text.stderr)")
    let lines = text.stdoutLines.map { $0.split(separator: " ").joined(separator: " ") }
    #expect(lines.contains("country gb file (\(file), line 2)"), "\(text.stdout)")
    #expect(lines.contains("api-key set file (\(file), line 3)"))
    #expect(lines.contains("ttl-search 60 file (\(file), line 4)"))
    #expect(lines.contains("api-base http://127.0.0.1:9 environment ($NEWSATLAS_API_BASE)"))
    #expect(lines.contains("ttl-headlines 3600 default"))
    #expect(lines.contains("language - not set"))
    #expect(
      !text.stdout.contains("WXYZ") && !text.stdout.contains("filekey") && !text.stdout.contains("proxy"))
    let environmentKey = "envkey-0123456789abcdefQRST"
    let json = try run(["config", "show", "--format", "json"], ["NEWSAPI_KEY": environmentKey])
    #expect(!json.stdout.contains("QRST") && !json.stdout.contains("WXYZ"))
    let settings = try #require(json.json?["settings"] as? [[String: Any]])
    let key = try #require(settings.first { $0["key"] as? String == "api-key" })
    #expect(key["value"] as? String == "set" && key["origin"] as? String == "environment")
    #expect(key["variable"] as? String == "NEWSAPI_KEY")
    #expect(settings.compactMap { $0["key"] as? String }.first == "country")
    let refused = try run(["config", "show", "country"])
    #expect(refused.status == 64 && refused.stderr.contains("takes no setting"))
  }

  /// The interface's language is shown as in use, with where it comes from, as the CLI chooses it: --lang (a
  /// flag), the file, the locale, else English. It said "not set" under --lang fr or a French LANG.
  @Test func showSaysTheInterfaceLanguageInUse() throws {
    func line(_ result: CLI.Result) -> String {
      result.stdoutLines.first { $0.hasPrefix("interface-language ") }.map {
        $0.split(separator: " ").joined(separator: " ")
      } ?? result.stderr
    }
    #expect(try line(run(["config", "show", "--lang", "fr"])) == "interface-language fr option (--lang)")
    #expect(
      try line(run(["--lang", "en", "config", "show"], ["LANG": "fr_FR.UTF-8"]))
        == "interface-language en flag (--lang)")
    #expect(
      try line(run(["config", "show"], ["LANG": "fr_FR.UTF-8"]))
        == "interface-language fr environnement ($LANG)")
    #expect(
      try line(run(["config", "show"], ["LANG": "", "LC_MESSAGES": "fr_CA.UTF-8"]))
        == "interface-language fr environnement ($LC_MESSAGES)")
    #expect(try line(run(["config", "show"], ["LANG": ""])) == "interface-language en default")
    #expect(try run(["config", "set", "interface-language", "fr"]).status == 0)
    #expect(try line(run(["config", "show"])) == "interface-language fr fichier (\(file), ligne 2)")
    let json = try run(["config", "show", "--format", "json", "--lang=en"])
    let shown = try #require(
      (json.json?["settings"] as? [[String: Any]])?.first { $0["key"] as? String == "interface-language" })
    #expect(shown["value"] as? String == "en" && shown["origin"] as? String == "flag")
    #expect(shown["flag"] as? String == "--lang")
  }

  @Test func setGetUnsetResetPath() throws {
    #expect(try run(["config", "path"]).stdout == file + "\n")
    #expect(try run(["config", "set", "country", "FR"]).status == 0)
    #expect(try run(["config", "get", "country"]).stdout == "fr\n")
    #expect(try run(["config", "set", "language", "se"]).status == 0)  // the old code for Swedish
    #expect(try run(["config", "get", "language"]).stdout == "sv\n")
    #expect(try run(["config", "unset", "country"]).status == 0)
    let unset = try run(["config", "get", "country"])
    #expect(unset.status == 1 && unset.stderr.contains("country is not set"))
    #expect(try run(["config", "reset"]).status == 0)
    #expect(!FileManager.default.fileExists(atPath: file))
  }

  @Test(arguments: [
    (["config", "set", "country", "xx"], "'xx' is not a country by code or name"),
    (["config", "set", "language", "xx"], "not a NewsAPI language"),
    (["config", "set", "category", "weather"], "not a NewsAPI category"),
    (["config", "set", "api-base", "ftp://x"], "not an http or https URL"),
    (["config", "set", "colour", "blue"], "Name a setting"),
    (["config", "frobnicate"], "not a config action"),
  ])
  func invalidValuesAreRefused(arguments: [String], mentions: String) throws {
    let result = try run(arguments)
    #expect(result.status == 64)
    #expect(result.stderrLines.count == 1 && result.stderr.contains(mentions), "\(result.stderr)")
    let written = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    #expect(!written.contains(arguments.last!))
  }

  @Test func theKeyFileMustBePrivate() throws {
    #expect(try run(["config", "set", "api-key", LocalServer.newsAPIKey]).status == 0)
    let attributes = try FileManager.default.attributesOfItem(atPath: file)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    #expect(try run(["config", "get", "api-key"]).stdout.hasSuffix("6789\n"))  // never printed whole
    chmod(file, 0o644)
    let refused = try run(["config", "get", "country"])
    #expect(refused.status == 78 && refused.stderr.contains("chmod 600"))
  }

  @Test func precedenceFlagsThenEnvironmentThenFile() throws {
    let server = try LocalServer()
    let closed = "http://127.0.0.1:\(LocalServer.closedPort())"
    #expect(try run(["config", "set", "api-key", LocalServer.newsAPIKey]).status == 0)
    #expect(try run(["config", "set", "country", "fr"]).status == 0)
    // The file alone: its base (refused) fails; the environment's base wins over it.
    #expect(try run(["config", "set", "api-base", closed]).status == 0)
    #expect(try run(["headlines"]).status == 69)
    let viaEnvironment = try run(["headlines"], ["NEWSATLAS_API_BASE": server.base])
    #expect(viaEnvironment.status == 0 && viaEnvironment.stdout.hasPrefix("fr  France"))  // the favourite country
    // A flag beats the environment.
    #expect(try run(["headlines", "--api-base", closed], ["NEWSATLAS_API_BASE": server.base]).status == 69)
    // The environment's key beats the file's (and the service rejects it: 77, fix the key).
    #expect(try run(["headlines", "--api-base", server.base], ["NEWSAPI_KEY": "wrong"]).status == 77)
  }

  func write(_ text: String) throws {
    try FileManager.default.createDirectory(atPath: home + "/newsatlas", withIntermediateDirectories: true)
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    chmod(file, 0o600)
  }

  @Test(arguments: [
    ("country = fr\n", "line 1 of '\(Self.fileName)' is not TOML"),
    ("# a\ncountry = 33\n", "line 2 of '\(Self.fileName)': the value of country must be a quoted string"),
    (
      "country = \"fr\"\ncolour = \"blue\"\n",
      "line 2 of '\(Self.fileName)' sets 'colour', which is not a setting"
    ),
    ("api_key = \"abc\"\n", "sets 'api_key', which is not a setting (did you mean api-key?)"),
    ("country = \"fr\"\n[news]\ncountry = \"de\"\n", "line 2 of '\(Self.fileName)' starts a table"),
    ("country = \"fr\"\nnews.country = \"de\"\n", "line 2 of '\(Self.fileName)' starts a table"),
    ("ttl-search = 1.5\n", "the value of ttl-search is a TOML floating-point number"),
    (
      "ttl-search = -1\n",
      "line 1 of '\(Self.fileName)', ttl-search takes a whole number, 0 or more, not '-1'"
    ),
    // Issue 43: the largest 64-bit number was taken ("106751991167301 days").
    (
      "gdelt-spacing = 9223372036854775807\n",
      "gdelt-spacing takes at most 3600 (an hour, in seconds), not '9223372036854775807'"
    ),
    ("quota-day = 1000001\n", "quota-day takes at most 1000000 (a million requests), not '1000001'"),
    ("ttl-headlines = 31536001\n", "ttl-headlines takes at most 31536000 (a year, in seconds)"),
  ])
  func aBrokenFileIsOneSentenceNamingItsLine(text: String, mentions: String) throws {
    try write(text)
    for arguments in [["headlines"], ["config", "get", "country"], ["config", "set", "country", "it"]] {
      let result = try run(arguments)
      #expect(result.status == 78 && result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
      #expect(
        result.stderr.lowercased().contains(mentions.replacing(Self.fileName, with: file).lowercased()),
        "\(result.stderr)")
    }
    #expect(try String(contentsOfFile: file, encoding: .utf8) == text)  // config set left it alone
  }
  static let fileName = "FILE"

  @Test func aHandEditedFileKeepsItsCommentsAndLayoutThroughConfigSet() throws {
    try write("# mine\n\ncountry = 'fr'   # my favourite\nttl-search = 3_600 # an hour\n")
    #expect(try run(["config", "get", "country"]).stdout == "fr\n")
    #expect(try run(["config", "get", "ttl-search"]).stdout == "3600\n")
    #expect(try run(["config", "set", "country", "DE"]).status == 0)
    #expect(
      try String(contentsOfFile: file, encoding: .utf8)
        == "# mine\n\ncountry = \"de\"   # my favourite\nttl-search = 3_600 # an hour\n")
    #expect(try run(["config", "set", "ttl-sources", "60"]).status == 0)
    #expect(try run(["config", "unset", "ttl-search"]).status == 0)
    #expect(
      try String(contentsOfFile: file, encoding: .utf8)
        == "# mine\n\ncountry = \"de\"   # my favourite\nttl-sources = 60\n")
    #expect(try run(["config", "get", "ttl-sources"]).stdout == "60\n")
  }
}
