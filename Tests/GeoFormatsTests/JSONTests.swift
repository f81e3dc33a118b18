import GeoFormats
import TestSupport
import Testing

/// The strict JSON parser and the writer: round trips, positions in errors, and the limits.
@Suite struct JSONTests {
  func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

  @Test(arguments: [
    #"{"a":[1,-2.5e3,true,false,null,"x\u00e9\ud83d\ude00\n\"\\\/"],"b":{"c":{}},"":[]}"#,
    #"[1.50,0,-0,1E+2,1e-2]"#, #""\u0000\u001f""#, "  {\"k\" : 1 }  ",
  ])
  func roundTripsThroughTheWriter(_ text: String) throws {
    let value = try parse(text)
    var writer = JSONWriter()
    writer.value(value)
    #expect(try JSONParser.parse(writer.bytes) == value)
  }

  /// Objects are written in place: the bytes never have two owners while one appends, which copied the
  /// whole text at each object (a 10,000-result nearest answer took seconds). With room reserved, the
  /// storage stays where it is however many objects are written.
  @Test func objectsAreWrittenInPlaceWithoutCopyingTheText() {
    var writer = JSONWriter()
    writer.bytes.reserveCapacity(1 << 20)
    let storage = writer.bytes.withUnsafeBufferPointer { $0.baseAddress }
    writer.object { object in
      for i in 0..<1_000 {
        object.object("k\(i)") { $0.object("inner") { $0.number("n", Double(i)) } }
      }
    }
    #expect(writer.bytes.withUnsafeBufferPointer { $0.baseAddress } == storage)
    #expect(writer.bytes.starts(with: Array(#"{"k0":{"inner":{"n":0}},"k1""#.utf8)))
  }

  @Test func numbersKeepTheirText() throws {
    #expect(try parse("[1.50]") == .array([.number("1.50")]))
    #expect(try parse(#"{"a":1,"a":2}"#)["a"]?.doubleValue == 1)  // the first of duplicate members
  }

  @Test(arguments: [
    ("", "line 1, column 1 (byte 0): the text ends where a value was expected"),
    ("[1,]", "byte 3"), ("{\"a\" 1}", "expected ':'"), ("01", "cannot start with 0"),
    ("[1 2]", "expected ','"),
    ("\"\\ud800\"", "high surrogate"), ("\"a\nb\"", "control character"), ("nul", "expected null"),
    ("1 2", "unexpected text after"), ("\"\\x\"", "unknown escape"), ("[\n  1,\n  x]", "line 3, column 3"),
  ])
  func errorsSayWhereAndWhy(_ text: String, _ mentions: String) {
    #expect {
      try parse(text)
    } throws: { error in
      "\(error)".contains(mentions)
    }
  }

  @Test func invalidUTF8InAStringIsRefused() {
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0xFE, 0x22]) }
    // A surrogate, encoded as if it were a character.
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }
  }

  @Test func deepNestingIsAnErrorNotACrash() {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    #expect {
      try parse(deep)
    } throws: { error in
      "\(error)".contains("nesting deeper than 512 levels")
    }
    let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
    #expect((try? parse(fine)) != nil)
  }

  @Test func writerEscapesAndWritesNumbersAsJSON() {
    var writer = JSONWriter()
    writer.object { object in
      object.string("s", "a\"b\\c\n\u{1}é")
      object.number("whole", 3)
      object.number("fraction", 0.1)
      object.number("nan", .nan)
    }
    #expect(
      String(decoding: writer.bytes, as: UTF8.self)
        == #"{"s":"a\"b\\c\n\u0001é","whole":3,"fraction":0.1,"nan":null}"#)
  }

  /// The writer copies a string's bytes in runs between the characters it escapes: seeded random strings with
  /// escapes at the ends, side by side and nowhere, read back by the parser, must be the strings written.
  @Test(arguments: [1, 2, 3] as [UInt64]) func writtenStringsReadBack(seed: UInt64) throws {
    var random = SplitMix64(state: seed)
    let pieces: [String] = [
      "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1f}", "a", "Zürich", "東京", "😀", " ", "/",
    ]
    for _ in 0..<500 {
      let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in
        pieces.randomElement(using: &random)!
      }.joined()
      var writer = JSONWriter()
      writer.string(text)
      #expect(try parse(String(decoding: writer.bytes, as: UTF8.self)) == .string(text), "seed \(seed)")
    }
  }
}
