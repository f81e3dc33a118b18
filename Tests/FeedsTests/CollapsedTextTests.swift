import Testing

@testable import Feeds

@Suite struct CollapsedTextTests {
  /// Against the oracle of Unicode's White_Space property, scalar by scalar, on seeded random text mixing
  /// ASCII, Latin, the no-break space, the typographic spaces and characters whose UTF-8 starts like them
  /// (… is E2 80 A6, ‘ is E2 80 98, 　 is E3 80 80 but 、 is E3 80 81).
  @Test func agreesWithUnicodesWhiteSpaceProperty() {
    let alphabet: [Unicode.Scalar] = [
      "a", "Z", " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "é", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}",
      "\u{2003}", "\u{200A}", "\u{200B}", "\u{2026}", "\u{2018}", "\u{2028}", "\u{2029}", "\u{202F}",
      "\u{205F}",
      "\u{3000}", "\u{3001}", "中", "\u{1F600}",
    ]
    var seed: UInt64 = 20_261_125
    for round in 0..<2000 {
      var scalars = String.UnicodeScalarView()
      for _ in 0..<(round % 17) {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        scalars.append(alphabet[Int(seed >> 33) % alphabet.count])
      }
      let text = String(scalars)
      var expected = String.UnicodeScalarView()
      var pending = false
      for scalar in text.unicodeScalars {
        if scalar.properties.isWhitespace {
          pending = !expected.isEmpty
        } else {
          if pending { expected.append(" ") }
          pending = false
          expected.append(scalar)
        }
      }
      #expect(text.collapsingWhiteSpace() == String(expected), "round \(round), seed 20261125")
    }
  }
}
