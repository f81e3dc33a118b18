import Foundation
import TestSupport
import Testing

@testable import AtlasSettings

/// The settings file as TOML: what the old hand-written subset refused and TOML allows is read, what is not
/// flat settings is refused in one sentence naming the line, and a change leaves every other byte alone.
@Suite struct SettingsFileTests {
  func read(_ text: String) throws -> [String: SettingValue] {
    let file = try SettingsFile.parse(Array(text.utf8), path: "/x/config.toml")
    return Dictionary(uniqueKeysWithValues: file.entries.map { ($0.key, $0.value) })
  }

  @Test(arguments: [
    // Literal strings: no escapes, a backslash is a backslash.
    (#"api-base = 'http://127.0.0.1:9/a\b'"#, "api-base", SettingValue.string(#"http://127.0.0.1:9/a\b"#)),
    // A comment after a value, with or without a space before it.
    (#"country = "fr" # my favourite"#, "country", .string("fr")),
    ("country = \"fr\"#a", "country", .string("fr")),
    // Underscores in an integer; other bases; a sign.
    ("ttl-search = 3_600", "ttl-search", .integer(3600)),
    ("ttl-search = 0xE10", "ttl-search", .integer(3600)),
    ("ttl-search = +0", "ttl-search", .integer(0)),
    // Multi-line strings, basic (first line break trimmed, a line-ending backslash) and literal.
    ("api-base = \"\"\"\nhttp://127.0.0.1:9/\\\n   x\"\"\"", "api-base", .string("http://127.0.0.1:9/x")),
    ("category = '''\nhealth'''", "category", .string("health")),
    // Quotes just before the closing three belong to the value.
    ("note = \"\"\"a\"\"\"\"", "note", .string(#"a""#)),
    ("note = \"\"\"a\"\"\"\"\"", "note", .string(#"a"""#)),
    // Quoted keys, escapes in a key, spaces and tabs anywhere TOML allows them.
    (#""country" = "fr""#, "country", .string("fr")),
    (#"'api-key' = 'abc'"#, "api-key", .string("abc")),
    (#""coun\u0074ry" = "fr""#, "country", .string("fr")),
    ("\t country\t=\t\"fr\"\t", "country", .string("fr")),
    // Booleans; CRLF line endings; a BOM-less file without a final line ending.
    ("enabled = true", "enabled", .boolean(true)),
    ("# c\r\ncountry = \"fr\"\r\n", "country", .string("fr")),
  ])
  func validTOMLTheOldSubsetRefusedIsRead(text: String, key: String, value: SettingValue) throws {
    #expect(try read(text) == [key: value], "\(text.debugDescription)")
  }

  @Test func everyEntryKnowsItsLine() throws {
    let text = """
      # settings

      api-base = \"\"\"
      http://127.0.0.1:9/\"\"\"
      'country' = 'fr' # comment = "x"
      ttl-search = 1_000
      """
    let file = try SettingsFile.parse(Array(text.utf8), path: "f")
    #expect(file.entries.map(\.key) == ["api-base", "country", "ttl-search"])
    #expect(file.entries.map(\.line) == [3, 5, 6])
  }

  @Test(arguments: [
    // Not TOML: toml++'s reason, at its line.
    ("a = 1\nb = \"open\nc = 2", "Line 2 of '/x/config.toml' is not TOML ("),
    ("a = 1\n\ncountry fr", "Line 3 of '/x/config.toml' is not TOML ("),
    ("a = 1\na = 2", "Line 2 of '/x/config.toml' is not TOML ("),
    (#"api-base = "http://127.0.0.1:9/" api-key = "x""#, "Line 1 of '/x/config.toml' is not TOML ("),
    ("a = 3__600", "Line 1 of '/x/config.toml' is not TOML ("),
    (#"a = "\x""#, "Line 1 of '/x/config.toml' is not TOML ("),
    // TOML, but not flat settings.
    ("a = 1\n[news]\nkey = 1", "Line 2 of '/x/config.toml' starts a table"),
    ("a = 1\n[[news]]\nkey = 1", "Line 2 of '/x/config.toml' starts a table"),
    ("a = 1\nnews.key = 1", "Line 2 of '/x/config.toml' starts a table"),
    // A table header toml++ aborts the process on (fuzz-settings): refused before toml++ reads it.
    ("[# Had-literal stri@ng, tsailfi\nlag = true\r\n", "Line 1 of '/x/config.toml' starts a table"),
    ("a = 1\n\nb = [1, 2]", "Line 3 of '/x/config.toml': the value of b is an array"),
    ("b = { c = 1 }", "Line 1 of '/x/config.toml': the value of b is a table"),
    ("a = 1\nb = 1.5", "Line 2 of '/x/config.toml': the value of b is a TOML floating-point number"),
    ("b = 1979-05-27 07:32:00Z # a date-time with a space", "the value of b is a TOML date-time"),
    ("b = 07:32:00", "the value of b is a TOML time"),
    // A NUL, which TOMLKit's C string would end the text or the value at.
    ("a = 1\nb = \"x\u{0}y\"", "Line 2 of '/x/config.toml' holds a NUL byte"),
    ("a = 1\nb = \"x\\u0000y\"", "Line 2 of '/x/config.toml': the value of b holds a NUL character"),
    ("b = \"\"\"x\\U00000000\"\"\"", "Line 1 of '/x/config.toml': the value of b holds a NUL character"),
    ("\"b\\u0000c\" = 1", "could not be read as key = value settings"),
  ])
  func whatIsNotFlatSettingsIsOneSentenceNamingTheLine(text: String, mentions: String) {
    #expect {
      try SettingsFile.parse(Array(text.utf8), path: "/x/config.toml")
    } throws: { error in
      let description = (error as? SettingsError)?.description ?? ""
      return (error as? SettingsError)?.kind == .configuration && description.contains(mentions)
        && !description.contains("\n") && description.hasSuffix(".")
    }
  }

  @Test func textThatIsNotUTF8IsRefused() {
    #expect(throws: SettingsError.self) {
      try SettingsFile.parse([0x61, 0x20, 0x3D, 0x20, 0x22, 0xFF, 0x22], path: "f")
    }
  }

  // MARK: - Writing

  @Test func aChangeLeavesEveryOtherByteAsItWas() throws {
    let scratch = try ScratchDirectory()
    let path = scratch.path + "/newsatlas/config.toml"
    let original = """
      # My settings.
      country   =   "fr"   # the favourite
      'language' = 'fr'

      # how long searches stay
      ttl-search = 3_600
      future-key = true
      """
    let file = try SettingsFile.parse(Array(original.utf8), path: path)
    let changed = try file.setting("country", to: .string("de"))
    let expected = original.replacingOccurrences(of: #"=   "fr""#, with: #"=   "de""#)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
    #expect(changed["country"]?.value == .string("de") && changed.entries.count == 4)
    // A literal string and an underscored number are replaced by what the settings write.
    let more = try changed.setting("language", to: .string("sv")).setting("ttl-search", to: .integer(60))
    #expect(
      try String(contentsOfFile: path, encoding: .utf8)
        == expected.replacingOccurrences(of: "'language' = 'fr'", with: #"'language' = "sv""#)
        .replacingOccurrences(of: "3_600", with: "60"))
    // Removing a setting removes its line alone; a new one is the last line.
    let fewer = try more.setting("country", to: nil).setting("api-base", to: .string("http://127.0.0.1:9/"))
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false)
    #expect(
      lines == [
        "# My settings.", #"'language' = "sv""#, "", "# how long searches stay", "ttl-search = 60",
        "future-key = true", #"api-base = "http://127.0.0.1:9/""#, "",
      ])
    #expect(fewer.entries.map(\.key) == ["language", "ttl-search", "future-key", "api-base"])
    var status = stat()
    #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
    #expect(stat(scratch.path + "/newsatlas", &status) == 0 && status.st_mode & 0o777 == 0o700)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/newsatlas") == ["config.toml"])
  }

  @Test func aMultilineValueAndCRLFLineEndingsAreEditedInPlace() throws {
    let scratch = try ScratchDirectory()
    let path = scratch.path + "/config.toml"
    let original = "# c\r\napi-key = \"\"\"\r\nabc\"\"\" # k\r\nb = 1"
    let file = try SettingsFile.parse(Array(original.utf8), path: path)
    _ = try file.setting("api-key", to: .string("xyz")).setting("c", to: .integer(2))
    #expect(
      try String(contentsOfFile: path, encoding: .utf8)
        == "# c\r\napi-key = \"xyz\" # k\r\nb = 1\r\nc = 2\r\n")
  }

  @Test func aNewFileStartsWithItsHeader() throws {
    let scratch = try ScratchDirectory()
    let path = scratch.path + "/a/b/config.toml"
    _ = try SettingsFile(path: path).setting("country", to: .string(#"a"b\c"#))
    #expect(
      try String(contentsOfFile: path, encoding: .utf8)
        == SettingsFile.header + #"country = "a\"b\\c""# + "\n")
    var status = stat()
    #expect(stat(scratch.path + "/a", &status) == 0 && status.st_mode & 0o777 == 0o700)
  }
}
