/// Quick structural scans of JSON text that is already known to be one balanced value (for the package's
/// modules: the cluster writers read point features through it).
package enum JSONScan {
  /// Calls `body` with each member's key (without quotes) and value text of an object; false when the text is
  /// not a plain object (or a key has escapes), so that a full parse can take over.
  package static func members(
    of text: UnsafeBufferPointer<UInt8>,
    _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool
  ) -> Bool {
    members(of: text) { key, value in body(key, value) ? .next : .fail }
  }

  /// What a member visitor asks for next.
  package enum Step {
    /// The next member.
    case next
    /// Nothing more: the members read so far are all that is needed (the rest is not checked).
    case stop
    /// The full parse: `members` returns false.
    case fail
  }

  /// `members(of:_:)` for a visitor that may stop early.
  package static func members(
    of text: UnsafeBufferPointer<UInt8>,
    _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Step
  ) -> Bool {
    var i = skip(text, 0)
    guard i < text.count, text[i] == UInt8(ascii: "{") else { return false }
    i = skip(text, i + 1)
    if i < text.count && text[i] == UInt8(ascii: "}") { return skip(text, i + 1) == text.count }
    while true {
      guard i < text.count, text[i] == UInt8(ascii: "\"") else { return false }
      var keyEnd = i + 1
      while keyEnd < text.count && text[keyEnd] != UInt8(ascii: "\"") {
        if text[keyEnd] == UInt8(ascii: "\\") { return false }
        keyEnd += 1
      }
      guard keyEnd < text.count else { return false }
      let key = UnsafeBufferPointer(rebasing: text[(i + 1)..<keyEnd])
      i = skip(text, keyEnd + 1)
      guard i < text.count, text[i] == UInt8(ascii: ":") else { return false }
      i = skip(text, i + 1)
      guard let valueEnd = valueEnd(text, i) else { return false }
      switch body(key, UnsafeBufferPointer(rebasing: text[i..<valueEnd])) {
      case .next: break
      case .stop: return true
      case .fail: return false
      }
      i = skip(text, valueEnd)
      guard i < text.count else { return false }
      if text[i] == UInt8(ascii: "}") { return skip(text, i + 1) == text.count }
      guard text[i] == UInt8(ascii: ",") else { return false }
      i = skip(text, i + 1)
    }
  }

  /// `[number, number, …]` as its first two numbers.
  static func numberPair(_ text: UnsafeBufferPointer<UInt8>) -> (Double, Double)? {
    var i = skip(text, 0)
    guard i < text.count, text[i] == UInt8(ascii: "[") else { return nil }
    var numbers: [Double] = []
    i = skip(text, i + 1)
    while numbers.count < 2 {
      var end = i
      while end < text.count
        && ![UInt8(ascii: ","), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09].contains(text[end])
      {
        end += 1
      }
      // A JSON number, not a string holding one (NumberParser, made for CSV, would take "2" as 2).
      guard end > i, text[i] == UInt8(ascii: "-") || (text[i] >= 0x30 && text[i] <= 0x39),
        let value = NumberParser.parse(UnsafeBufferPointer(rebasing: text[i..<end]))
      else {
        return nil
      }
      numbers.append(value)
      i = skip(text, end)
      guard i < text.count else { return nil }
      if text[i] == UInt8(ascii: "]") { break }
      guard text[i] == UInt8(ascii: ",") else { return nil }
      i = skip(text, i + 1)
    }
    return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
  }

  /// Whether the text is exactly one valid JSON value (RFC 8259), checked without allocating.
  static func isValid(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    guard value(text, &i, depth: 0) else { return false }
    return skip(text, i) == text.count
  }

  private static func value(_ t: UnsafeBufferPointer<UInt8>, _ i: inout Int, depth: Int) -> Bool {
    i = skip(t, i)
    guard i < t.count, depth < 512 else { return false }
    switch t[i] {
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      let close = t[i] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
      let isObject = close == UInt8(ascii: "}")
      i = skip(t, i + 1)
      if i < t.count && t[i] == close {
        i += 1
        return true
      }
      while true {
        if isObject {
          guard i < t.count, t[i] == UInt8(ascii: "\""), string(t, &i) else { return false }
          i = skip(t, i)
          guard i < t.count, t[i] == UInt8(ascii: ":") else { return false }
          i += 1
        }
        guard value(t, &i, depth: depth + 1) else { return false }
        i = skip(t, i)
        guard i < t.count else { return false }
        if t[i] == close {
          i += 1
          return true
        }
        guard t[i] == UInt8(ascii: ",") else { return false }
        i = skip(t, i + 1)
      }
    case UInt8(ascii: "\""): return string(t, &i)
    case UInt8(ascii: "t"): return literal(t, &i, "true")
    case UInt8(ascii: "f"): return literal(t, &i, "false")
    case UInt8(ascii: "n"): return literal(t, &i, "null")
    default: return number(t, &i)
    }
  }

  private static func literal(_ t: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ word: StaticString) -> Bool {
    let n = word.utf8CodeUnitCount
    guard i + n <= t.count, (0..<n).allSatisfy({ t[i + $0] == word.utf8Start[$0] }) else { return false }
    i += n
    return true
  }

  private static func string(_ t: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Bool {
    i += 1
    let start = i
    var ascii = true
    while i < t.count {
      let byte = t[i]
      if byte == UInt8(ascii: "\"") {
        let end = i
        i += 1
        return ascii || isValidUTF8(UnsafeBufferPointer(rebasing: t[start..<end]))
      }
      if byte >= 0x80 { ascii = false }
      if byte < 0x20 { return false }
      if byte == UInt8(ascii: "\\") {
        guard i + 1 < t.count else { return false }
        switch t[i + 1] {
        case UInt8(ascii: "u"):
          // A UTF-16 escape; a surrogate only as a high one followed by a low one (RFC 8259, 7), as the
          // parser reads them: a lone one is not text.
          guard let code = escapedCodeUnit(t, i) else { return false }
          i += 6
          if (0xDC00..<0xE000).contains(code) { return false }
          if (0xD800..<0xDC00).contains(code) {
            guard i + 1 < t.count, t[i] == UInt8(ascii: "\\"), t[i + 1] == UInt8(ascii: "u"),
              let low = escapedCodeUnit(t, i), (0xDC00..<0xE000).contains(low)
            else { return false }
            i += 6
          }
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
          UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
          i += 2
        default: return false
        }
        continue
      }
      i += 1
    }
    return false
  }

  /// The code unit of the `\uXXXX` escape at `i`, or nil when it is not four hexadecimal digits.
  private static func escapedCodeUnit(_ t: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
    guard i + 5 < t.count else { return nil }
    var code = 0
    for k in 2...5 {
      let c = t[i + k] | 0x20
      if c >= 0x30 && c <= 0x39 {
        code = code << 4 | Int(c - 0x30)
      } else if c >= 0x61 && c <= 0x66 {
        code = code << 4 | Int(c - 0x61 + 10)
      } else {
        return nil
      }
    }
    return code
  }

  private static func number(_ t: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Bool {
    func digits(_ i: inout Int) -> Int {
      let start = i
      while i < t.count && t[i] >= 0x30 && t[i] <= 0x39 { i += 1 }
      return i - start
    }
    if i < t.count && t[i] == UInt8(ascii: "-") { i += 1 }
    let first = i
    let count = digits(&i)
    guard count > 0, count == 1 || t[first] != 0x30 else { return false }
    if i < t.count && t[i] == UInt8(ascii: ".") {
      i += 1
      guard digits(&i) > 0 else { return false }
    }
    if i < t.count && (t[i] | 0x20) == UInt8(ascii: "e") {
      i += 1
      if i < t.count && (t[i] == UInt8(ascii: "+") || t[i] == UInt8(ascii: "-")) { i += 1 }
      guard digits(&i) > 0 else { return false }
    }
    return true
  }

  package static func equals(_ text: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
    text.count == word.utf8CodeUnitCount && (0..<text.count).allSatisfy { text[$0] == word.utf8Start[$0] }
  }

  private static func skip(_ text: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
    var i = start
    while i < text.count && (text[i] == 0x20 || text[i] == 0x0A || text[i] == 0x0D || text[i] == 0x09) {
      i += 1
    }
    return i
  }

  /// The end of the value starting at `start`: brackets balanced, strings skipped.
  static func valueEnd(_ text: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
    var i = start
    var depth = 0
    var inString = false
    while i < text.count {
      let byte = text[i]
      // A control character (a NUL of binary input, say) ends the scan here: the parser then says what is wrong.
      if byte < 0x20 && (inString || byte == 0) { return i + 1 }
      if inString {
        if byte == UInt8(ascii: "\\") {
          i += 2
          continue
        }
        if byte == UInt8(ascii: "\"") {
          inString = false
          if depth == 0 { return i + 1 }
        }
      } else {
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          if depth == 0 { return i }
          depth -= 1
          if depth == 0 { return i + 1 }
        case UInt8(ascii: ","), 0x20, 0x0A, 0x0D, 0x09:
          if depth == 0 { return i }
        default: break
        }
      }
      i += 1
    }
    return depth == 0 && !inString ? i : nil
  }

  /// Whether the bytes are well-formed UTF-8 (RFC 3629: shortest forms, no surrogates, at most U+10FFFF).
  static func isValidUTF8(_ t: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    while i < t.count {
      let lead = t[i]
      if lead < 0x80 {
        i += 1
        continue
      }
      let length: Int
      var low: UInt8 = 0x80
      var high: UInt8 = 0xBF
      switch lead {
      case 0xC2...0xDF: length = 2
      case 0xE0:
        length = 3
        low = 0xA0
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xED:
        length = 3
        high = 0x9F
      case 0xF0:
        length = 4
        low = 0x90
      case 0xF1...0xF3: length = 4
      case 0xF4:
        length = 4
        high = 0x8F
      default: return false
      }
      guard i + length <= t.count, (low...high).contains(t[i + 1]) else { return false }
      for k in 2..<length where !(0x80...0xBF).contains(t[i + k]) { return false }
      i += length
    }
    return true
  }
}
