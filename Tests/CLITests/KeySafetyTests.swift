import Fetch
import Foundation
import TestSupport
import Testing

/// Where the key goes and never goes, what the settings file lets in, and what the service's text can do to a
/// terminal: the hardening issue's "key and settings" reproducers, each against the real binary.
@Suite struct KeySafetyTests {
  let scratch: ScratchDirectory
  var file: String { scratch.path + "/newsatlas/config.toml" }
  var settings: [String: String] { ["XDG_CONFIG_HOME": scratch.path] }

  init() throws { scratch = try ScratchDirectory() }

  /// Writes a settings file by hand, readable by its owner alone.
  func writeSettings(_ text: String) throws {
    try FileManager.default.createDirectory(
      atPath: scratch.path + "/newsatlas", withIntermediateDirectories: true)
    #expect(FileManager.default.createFile(atPath: file, contents: Data(text.utf8)))
    chmod(file, 0o600)
  }

  func mode(_ path: String) throws -> Int {
    try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
  }

  // MARK: - Redirects

  @Test func aRedirectToAnotherHostNeverCarriesTheKey() throws {
    let server = try LocalServer(secondHost: true)
    let environment = ["NEWSAPI_KEY": LocalServer.newsAPIKey]
    let result = try CLI.run(
      ["headlines", "--country", "us", "--api-base", server.base + "/hop"], environment: environment)
    #expect(result.status == 69)
    #expect(result.stderrLines.count == 1, "\(result.stderr)")
    #expect(
      result.stderr.contains("redirected the request to http://127.0.0.2:\(server.secondPort ?? 0)/v2/"))
    #expect(!result.stderr.contains(LocalServer.newsAPIKey))
    let arrivals = server.arrivals()
    #expect(arrivals.count == 1 && arrivals.allSatisfy { $0.hasPrefix("127.0.0.1 /hop/v2/top-headlines") })
    #expect(!arrivals.contains { $0.hasPrefix("127.0.0.2") }, "\(arrivals)")
    // A redirect within the base's origin is followed.
    let same = try CLI.run(
      ["headlines", "--country", "us", "--api-base", server.base + "/hop-same"], environment: environment)
    #expect(same.status == 0, "\(same.stderr)")
  }

  // MARK: - The key

  static let badKeys = [
    "abc\r\nX-Injected: 1", "abc\nX-Injected: 1", "abc\u{1B}[2J", "abc\u{7F}", "abc def", "clé-ascii-pas",
    String(repeating: "k", count: 300),
  ]

  @Test(arguments: badKeys)
  func aKeyFromTheEnvironmentThatCannotBeAHeaderIsRefusedAndNothingIsSent(key: String) throws {
    let server = try LocalServer()
    let result = try CLI.run(
      ["headlines", "--country", "us"], environment: ["NEWSAPI_KEY": key, "NEWSATLAS_API_BASE": server.base])
    #expect(result.status == 78)
    #expect(result.stderrLines.count == 1 && result.stderr.contains("NEWSAPI_KEY"), "\(result.stderr)")
    #expect(!result.stderr.contains("abc") && !result.stderr.contains("X-Injected"))  // never repeated
    #expect(try server.log().isEmpty)
  }

  @Test(arguments: badKeys)
  func aKeyThatCannotBeAHeaderIsNeitherSetNorRead(key: String) throws {
    let set = try CLI.run(["config", "set", "api-key", key], environment: settings)
    #expect(set.status == 64 && set.stderrLines.count == 1, "\(set.stderr)")
    #expect(!FileManager.default.fileExists(atPath: file))
    // Written into the file by hand (TOML escapes for the control characters): refused when read.
    let escaped = key.unicodeScalars.map {
      $0.value < 0x20 || $0.value == 0x7F ? String(format: "\\u%04X", $0.value) : String($0)
    }.joined()
    try writeSettings("api-key = \"\(escaped)\"\n")
    let server = try LocalServer()
    let read = try CLI.run(
      ["headlines", "--country", "us"],
      environment: settings.merging(["NEWSATLAS_API_BASE": server.base]) { $1 })
    #expect(read.status == 78 && read.stderrLines.count == 1, "\(read.stderr)")
    #expect(read.stderr.contains("line 1 of"))
    #expect(try server.log().isEmpty)
  }

  @Test func aKeyCanComeFromStandardInput() throws {
    let set = try CLI.run(
      ["config", "set", "api-key", "-"], stdin: LocalServer.newsAPIKey + "\r\n", environment: settings)
    #expect(set.status == 0, "\(set.stderr)")
    #expect(try CLI.run(["config", "get", "api-key"], environment: settings).stdout == "••••6789\n")
    for input in ["abc\r\nX-Injected: 1\n", "", String(repeating: "k", count: 5000)] {
      let refused = try CLI.run(["config", "set", "api-key", "-"], stdin: input, environment: settings)
      #expect(refused.status == 64 && refused.stderrLines.count == 1, "\(refused.stderr)")
    }
    #expect(try CLI.run(["config", "get", "api-key"], environment: settings).stdout == "••••6789\n")
  }

  // MARK: - The base

  @Test(arguments: [
    "http://", "http:///v2", "ftp://example.org", "https://example.org/?apiKey=x", "https://example.org/#f",
    "http://example.org:0", "http://exa mple.org", "http://example.org/\r\nX-Injected: 1", "example.org",
  ])
  func aBaseThatIsNotAnHTTPURLWithAHostIsRefused(base: String) throws {
    let set = try CLI.run(["config", "set", "api-base", base], environment: settings)
    #expect(set.status == 64 && set.stderrLines.count == 1, "\(set.stderr)")
    #expect(set.stderr.contains("is not an http or https URL with a host"))
    #expect(!FileManager.default.fileExists(atPath: file))
    let environment = ["NEWSAPI_KEY": LocalServer.newsAPIKey]
    let flag = try CLI.run(["search", "x", "--api-base", base], environment: environment)
    #expect(flag.status == 64 && flag.stderrLines.count == 1, "\(flag.stderr)")
    let fromEnvironment = try CLI.run(
      ["search", "x"], environment: environment.merging(["NEWSATLAS_API_BASE": base]) { $1 })
    #expect(fromEnvironment.status == 78 && fromEnvironment.stderr.contains("NEWSATLAS_API_BASE"))
    let quoted = Array(base.unicodeScalars).contains { $0.value < 0x20 } ? nil : base
    if let quoted {
      try writeSettings("api-base = \"\(quoted)\"\n")
      let fromFile = try CLI.run(["search", "x"], environment: settings.merging(environment) { $1 })
      #expect(fromFile.status == 78 && fromFile.stderr.contains("line 1 of"), "\(fromFile.stderr)")
    }
  }

  @Test func userInformationInTheBaseIsNeverShownNorCached() throws {
    let server = try LocalServer()
    let cache = scratch.path + "/cache"
    let environment = ["NEWSAPI_KEY": LocalServer.newsAPIKey, "XDG_CACHE_HOME": cache]
    let withUser = "http://someone:hunter2@127.0.0.1:\(server.port)"
    let answered = try CLI.run(["search", "climate", "--api-base", withUser], environment: environment)
    #expect(answered.status == 0, "\(answered.stderr)")
    let closed = "http://someone:hunter2@127.0.0.1:\(LocalServer.closedPort())"
    let refused = try CLI.run(["search", "climate", "--api-base", closed], environment: environment)
    #expect(refused.status == 69 && refused.stderr.contains("127.0.0.1:"), "\(refused.stderr)")
    let invalid = try CLI.run(
      ["search", "x"], environment: ["NEWSATLAS_API_BASE": "http://someone:hunter2@"])
    #expect(invalid.status == 78)
    for text in [answered.stderr, refused.stderr, invalid.stderr] {
      #expect(!text.contains("hunter2") && !text.contains("someone"), "\(text)")
    }
    // Neither the password nor the key is in any file of the cache.
    let files = try FileManager.default.subpathsOfDirectory(atPath: cache)
    #expect(!files.isEmpty)
    for name in files {
      let bytes = (try? Data(contentsOf: URL(fileURLWithPath: cache + "/" + name))) ?? Data()
      #expect(bytes.range(of: Data("hunter2".utf8)) == nil, "\(name)")
      #expect(bytes.range(of: Data(LocalServer.newsAPIKey.utf8)) == nil, "\(name)")
    }
  }

  /// Issue 26, item 14: `serve`'s `/v1/headlines` error text never shows the base's user information.
  @Test func serveNeverShowsTheBasesUserInformation() async throws {
    let base = "http://someone:hunter2@127.0.0.1:\(LocalServer.closedPort())"
    let served = try Served(
      [], environment: ["NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": base])
    let client = HTTPClient()
    defer { client.shutdown() }
    let body = String(
      decoding: try await client.get(served.base + "/v1/headlines?country=us").body, as: UTF8.self)
    #expect(body.contains("refused the connection"), "\(body)")
    #expect(!body.contains("hunter2") && !body.contains("someone"), "\(body)")
    _ = served.stop()
    #expect(!served.log().contains("hunter2"))
  }

  @Test(arguments: [
    (["sources", "--language", "xx"], "not a NewsAPI language"),
    (["sources", "--category", "weather\r\nX-Injected: 1"], "not a NewsAPI category"),
    (["sources", "--country", "x&y"], "not a two-letter country code"),
  ])
  func sourcesOptionsAreCheckedBeforeSending(arguments: [String], mentions: String) throws {
    let server = try LocalServer()
    let result = try CLI.run(
      arguments, environment: ["NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": server.base])
    #expect(result.status == 64 && result.stderrLines.count == 1, "\(result.stderr)")
    #expect(result.stderr.contains(mentions))
    #expect(try server.log().isEmpty)
  }

  // MARK: - The settings file

  @Test func theSettingsFileAndItsFolderAreTheUsersAlone() throws {
    // A folder made by someone else's umask: made private when the key is written into it.
    try FileManager.default.createDirectory(
      atPath: scratch.path + "/newsatlas", withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o755])
    #expect(
      try CLI.run(["config", "set", "api-key", LocalServer.newsAPIKey], environment: settings).status == 0)
    #expect(try mode(file) == 0o600)
    #expect(try mode(scratch.path + "/newsatlas") == 0o700)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/newsatlas") == ["config.toml"])
    // A folder it creates is 0700 from the start, parents included.
    let fresh = scratch.path + "/fresh/xdg"
    #expect(
      try CLI.run(["config", "set", "country", "fr"], environment: ["XDG_CONFIG_HOME": fresh]).status == 0)
    #expect(try mode(fresh) == 0o700 && mode(fresh + "/newsatlas") == 0o700)
    #expect(try mode(fresh + "/newsatlas/config.toml") == 0o600)
  }

  @Test func aValueCannotAddASetting() throws {
    // A quote and a backslash are kept as TOML escapes them, and read back as they were.
    let odd = #"http://127.0.0.1:9/a"b\c"#
    #expect(try CLI.run(["config", "set", "api-base", odd], environment: settings).status == 0)
    #expect(try CLI.run(["config", "get", "api-base"], environment: settings).stdout == odd + "\n")
    let written = try String(contentsOfFile: file, encoding: .utf8)
    #expect(
      written.split(separator: "\n").filter { !$0.hasPrefix("#") } == [
        #"api-base = "http://127.0.0.1:9/a\"b\\c""#
      ])
    // A line break cannot start a second setting: refused, and the file is as it was.
    let injected = "http://127.0.0.1:9/x\"\napi-key = \"evil"
    let refused = try CLI.run(["config", "set", "api-base", injected], environment: settings)
    #expect(refused.status == 64 && refused.stderrLines.count == 1, "\(refused.stderr)")
    #expect(try String(contentsOfFile: file, encoding: .utf8) == written)
    // A file whose quoted value ends early is refused, not read as two settings.
    try writeSettings(#"api-base = "http://127.0.0.1:9/" api-key = "x""# + "\n")
    let early = try CLI.run(["config", "get", "api-base"], environment: settings)
    #expect(early.status == 78 && early.stderr.contains("Line 1 of"), "\(early.stderr)")
    #expect(early.stderr.contains("is not TOML") && early.stderrLines.count == 1, "\(early.stderr)")
  }

  @Test func aSettingsFileThatIsNotARegularFileIsRefused() throws {
    try FileManager.default.createDirectory(
      atPath: scratch.path + "/newsatlas", withIntermediateDirectories: true)
    #expect(mkfifo(file, 0o600) == 0)  // a FIFO nobody writes to: reading it would wait for ever
    let result = try CLI.run(["config", "get", "country"], environment: settings)
    #expect(result.status == 78 && result.stderr.contains("not a regular file"), "\(result.stderr)")
  }

  // MARK: - The service's text

  @Test func theServicesTextCannotReachTheTerminal() throws {
    let server = try LocalServer()
    let environment = ["NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": server.base + "/hostile"]
    let controls = { (text: String) in
      text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }
    }
    let search = try CLI.run(["search", "anything"], environment: environment)
    #expect(search.status == 0, "\(search.stderr)")
    #expect(!controls(search.stdout), "\(search.stdout.debugDescription)")
    #expect(search.stdoutLines.count == 3)  // the count, then the article's two lines: no forged line
    let headlines = try CLI.run(["headlines", "--country", "us"], environment: environment)
    #expect(headlines.status == 0 && !controls(headlines.stdout), "\(headlines.stdout.debugDescription)")
    let sources = try CLI.run(["sources"], environment: environment)
    #expect(sources.status == 0 && !controls(sources.stdout), "\(sources.stdout.debugDescription)")
    #expect(sources.stdoutLines.count == 1)
    let error = try CLI.run(["search", "error"], environment: environment)
    #expect(error.status == 69 && error.stderrLines.count == 1, "\(error.stderr.debugDescription)")
    #expect(!controls(error.stderr))
    // JSON too: one sanitiser for every provider's articles (Article.sanitized()) made the controls spaces, and
    // the image, whose link holds an escape, is dropped.
    let json = try CLI.run(["search", "anything", "--format", "json"], environment: environment)
    let article = (json.json?["articles"] as? [[String: Any]])?.first ?? [:]
    let title = article["title"] as? String ?? ""
    #expect(title == "Title [2J  newsatlas: forged line", "\(title.debugDescription)")
    #expect(["urlToImage", "imageUrl"].allSatisfy { article[$0] == nil || article[$0] is NSNull }, "\(article)")
  }

  @Test(arguments: [
    ["headlines", "--country", "x\u{1B}[2J\ny"], ["config", "set", "country", "x\u{1B}]0;t\u{07}\r\ny"],
    ["config", "x\u{1B}[2J\ny"],
  ])
  func anArgumentQuotedInAnErrorCannotReachTheTerminal(arguments: [String]) throws {
    let result = try CLI.run(arguments, environment: settings)
    #expect(result.status == 64)
    #expect(result.stderrLines.count == 1, "\(result.stderr.debugDescription)")
    #expect(!result.stderr.dropLast().unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
  }

  // MARK: - Failed headlines, each said once

  @Test func aFailedHeadlineIsSaidOnce() throws {
    let server = try LocalServer()
    let environment = ["NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": server.base]
    // The imitation rate-limits us's health headlines.
    let one = try CLI.run(["headlines", "--country", "us", "--category", "health"], environment: environment)
    #expect(one.status == 75)
    #expect(
      one.stderrLines.count == 1 && one.stderr.hasPrefix("newsatlas: us  United States"), "\(one.stderr)")
    #expect(!one.stderr.contains("of 1"))
    let oneJSON = try CLI.run(
      ["headlines", "--country", "us", "--category", "health", "--format", "json"], environment: environment)
    #expect(oneJSON.status == 75 && oneJSON.stderrLines.count == 1, "\(oneJSON.stderr)")
    let seven = try CLI.run(
      ["headlines", "--country", "us", "--categories", "all"], environment: environment)
    #expect(seven.status == 75)
    #expect(seven.stderrLines.count == 2, "\(seven.stderr)")
    #expect(seven.stderrLines.last == "newsatlas: 1 of 7 results failed; the other 6 are above.")
    let rejected = try CLI.run(
      ["headlines", "--countries", "us,gb"], environment: environment.merging(["NEWSAPI_KEY": "wrong"]) { $1 }
    )
    #expect(rejected.status == 77)
    #expect(rejected.stderrLines.last == "newsatlas: All 2 results failed.", "\(rejected.stderr)")
  }
}
