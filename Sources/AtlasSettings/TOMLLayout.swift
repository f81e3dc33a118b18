/// Where each `key = value` of a flat TOML document sits: its line, and the bytes of its value and its line,
/// so that an error names the line and `config set` changes one value and nothing else.
///
/// This is a scanner, not a reader: it runs on a document TOMLKit has already read without an error, and only
/// finds spans (strings of the four kinds, escapes, a date-time with a space in it). What a value *is* comes from
/// TOMLKit; the settings reader checks that the keys found here are the keys TOMLKit found.
struct TOMLLayout {
  /// One top-level `key = value`, with its comment, if any, on the same line.
  struct Definition: Equatable, Sendable {
    /// The key as TOML reads it (a quoted key's escapes decoded).
    var key: String
    /// The line the definition starts on, from 1.
    var line: Int
    /// The first byte of its line (its indentation included).
    var start: Int
    /// The value's bytes, quotes included.
    var value: Range<Int>
    /// The byte after its last line ending (the end of the text when it has none).
    var end: Int
    /// Whether the value is a basic string holding a `\u0000` escape (TOMLKit ends such a string at the NUL).
    var holdsNUL: Bool
  }

  /// What takes the document outside flat settings.
  enum Refusal: Error, Equatable {
    /// `[table]` or `[[array of tables]]` at this line.
    case table(line: Int)
    /// `a.b = …` (a dotted key defines a table) at this line.
    case dottedKey(line: Int)
    /// An array or an inline table as the value of `key` at this line.
    case compound(line: Int, key: String, array: Bool)
    /// Something this scanner did not expect in a document TOMLKit read (a bug here, not the user's).
    case unexpected(line: Int)
  }

  private(set) var definitions: [Definition] = []
  private let bytes: [UInt8]
  private var index = 0
  private var line = 1

  /// Scans `bytes`, a TOML document TOMLKit read without an error.
  init(_ bytes: [UInt8]) throws(Refusal) {
    self.bytes = bytes
    while index < bytes.count {
      let start = index
      skipBlanks()
      guard let byte = peek() else { break }
      switch byte {
      case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"):
        finishLine()
        continue
      case UInt8(ascii: "["):
        throw .table(line: line)
      default: break
      }
      let keyLine = line
      let key = try scanKey()
      skipBlanks()
      if peek() == UInt8(ascii: ".") { throw .dottedKey(line: keyLine) }
      guard peek() == UInt8(ascii: "=") else { throw .unexpected(line: line) }
      index += 1
      skipBlanks()
      let valueStart = index
      var holdsNUL = false
      switch peek() {
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        throw .compound(line: keyLine, key: key, array: peek() == UInt8(ascii: "["))
      case UInt8(ascii: "\""):
        holdsNUL = try scanString(quote: UInt8(ascii: "\""))
      case UInt8(ascii: "'"):
        _ = try scanString(quote: UInt8(ascii: "'"))
      default:
        scanBare()
      }
      let valueEnd = index
      finishLine()
      definitions.append(
        Definition(
          key: key, line: keyLine, start: start, value: valueStart..<valueEnd, end: index, holdsNUL: holdsNUL)
      )
    }
  }

  private func peek(_ offset: Int = 0) -> UInt8? {
    index + offset < bytes.count ? bytes[index + offset] : nil
  }

  private mutating func skipBlanks() {
    while let byte = peek(), byte == 0x20 || byte == 0x09 { index += 1 }
  }

  /// Skips blanks, a comment and the line ending.
  private mutating func finishLine() {
    skipBlanks()
    if peek() == UInt8(ascii: "#") {
      while let byte = peek(), byte != 0x0A { index += 1 }
    }
    if peek() == 0x0D { index += 1 }
    if peek() == 0x0A {
      index += 1
      line += 1
    }
  }

  /// A bare key (`A-Za-z0-9_-`), a basic-string key (escapes decoded) or a literal-string key.
  private mutating func scanKey() throws(Refusal) -> String {
    switch peek() {
    case UInt8(ascii: "\""):
      let start = index + 1
      _ = try scanString(quote: UInt8(ascii: "\""))
      let inner = String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
      guard let key = TOMLText.unescape(Substring(inner)) else { throw .unexpected(line: line) }
      return key
    case UInt8(ascii: "'"):
      let start = index + 1
      _ = try scanString(quote: UInt8(ascii: "'"))
      return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
    default:
      let start = index
      while let byte = peek(), TOMLText.isBareKeyByte(byte) { index += 1 }
      guard index > start else { throw .unexpected(line: line) }
      return String(decoding: bytes[start..<index], as: UTF8.self)
    }
  }

  /// A string of any of TOML's four kinds starting at `quote`; true when a basic string holds `\u0000`.
  private mutating func scanString(quote: UInt8) throws(Refusal) -> Bool {
    let multiline = peek(1) == quote && peek(2) == quote
    index += multiline ? 3 : 1
    var holdsNUL = false
    while let byte = peek() {
      if byte == UInt8(ascii: "\\") && quote == UInt8(ascii: "\"") {
        let escape = bytes[(index + 1)..<min(index + 10, bytes.count)]
        if escape.starts(with: "u0000".utf8) || escape.starts(with: "U00000000".utf8) { holdsNUL = true }
        if peek(1) == 0x0A { line += 1 }
        index += 2
        continue
      }
      if byte == 0x0A {
        guard multiline else { throw .unexpected(line: line) }
        line += 1
      }
      if byte == quote {
        guard multiline else {
          index += 1
          return holdsNUL
        }
        var run = 0
        while peek(run) == quote && run < 5 { run += 1 }
        if run >= 3 {  // up to two quotes of the content may stand just before the closing three
          index += run
          return holdsNUL
        }
        index += run
        continue
      }
      index += 1
    }
    throw .unexpected(line: line)
  }

  /// A number, a boolean or a date-time: up to a comment or the line's end, without trailing blanks (a
  /// date-time may hold a space between its date and its time).
  private mutating func scanBare() {
    var last = index
    while let byte = peek(), byte != UInt8(ascii: "#"), byte != 0x0A, byte != 0x0D {
      index += 1
      if byte != 0x20 && byte != 0x09 { last = index }
    }
    index = last
  }
}
