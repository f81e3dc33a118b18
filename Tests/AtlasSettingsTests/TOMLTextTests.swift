import Testing

@testable import AtlasSettings

/// The settings file's strings: what `TOMLText.quoted` writes, `TOMLText.unescape` reads back unchanged, and
/// it is always one line whose only bare quotes are its first and last characters.
@Suite struct TOMLTextTests {
  /// Seeded strings rich in what could break a line or a value: quotes, backslashes, controls, `=`, `#`.
  static func samples(seed: UInt64, count: Int) -> [String] {
    var state = seed
    func next() -> UInt64 {  // SplitMix64
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    let alphabet: [Unicode.Scalar] = [
      "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9B}", "=", "#", "a", "Z", "0",
      " ", "u", "é", "中", "\u{1F600}",
    ]
    return (0..<count).map { _ in
      var text = String.UnicodeScalarView()
      for _ in 0..<Int(next() % 24) { text.append(alphabet[Int(next() % UInt64(alphabet.count))]) }
      return String(text)
    }
  }

  @Test(arguments: [1, 2, 3, 0x5EED])
  func quotedTextReadsBackAsItWasOnOneLine(seed: UInt64) {
    for text in Self.samples(seed: seed, count: 2000) {
      let quoted = TOMLText.quoted(text)
      #expect(!quoted.contains("\n") && !quoted.contains("\r"), "seed \(seed): \(text.debugDescription)")
      #expect(
        TOMLText.unescape(quoted.dropFirst().dropLast()) == text, "seed \(seed): \(text.debugDescription)")
      // The settings reader (TOMLKit) takes it back as the value of one setting, but for a NUL, which it refuses.
      let parsed = try? SettingsFile.parse(Array("api-base = \(quoted)\n".utf8), path: "t")
      if text.unicodeScalars.contains("\u{0}") {
        #expect(parsed == nil, "seed \(seed): \(text.debugDescription)")
      } else {
        #expect(parsed?.entries.map(\.value) == [.string(text)], "seed \(seed): \(text.debugDescription)")
      }
    }
  }

  @Test(arguments: [#"a"b"#, #"a\"#, #"\x"#, #"\u12"#, #"\uD800"#, #"\U0011FFFF"#, #"\u+123"#])
  func malformedStringsAreRefused(inner: String) {
    #expect(TOMLText.unescape(Substring(inner)) == nil)
  }
}
