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
    #expect(try run(["feeds", "list"]).stdout == "")
    #expect(
      try run(["feeds", "add", "fr", "https://www.lemonde.fr/rss/une.xml"]).stdout
        == "fr: added https://www.lemonde.fr/rss/une.xml\n")
    #expect(
      try run(["feeds", "add", "France", "https://www.lemonde.fr/rss/une.xml"]).stdout
        == "fr: already has https://www.lemonde.fr/rss/une.xml\n")
    #expect(try run(["feeds", "add", "Allemagne", "http://127.0.0.1:9/de.xml"]).status == 0)
    #expect(
      try run(["feeds", "list"]).stdout
        == "fr  France  https://www.lemonde.fr/rss/une.xml\nde  Germany  http://127.0.0.1:9/de.xml\n")
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
}
