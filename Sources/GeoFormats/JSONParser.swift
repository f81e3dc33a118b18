import AtlasMessages

/// Where and why a JSON text is malformed.
public struct JSONSyntaxError: Error, CustomStringConvertible, Sendable {
  public let line: Int
  public let column: Int
  /// The byte offset, from 0.
  public let offset: Int
  /// Why, as a clause (no capital, no full stop), in the reader's language.
  public let reason: Sentence
  /// Where and why, as a clause: `line 1, column 5 (byte 4): …`.
  public var sentence: Sentence { Sentence(.jsonAt, line, column, offset, reason) }
  public var description: String { sentence.description }
}

/// A strict RFC 8259 parser over UTF-8 bytes, with positions in its errors.
public struct JSONParser {
  private let bytes: [UInt8]
  private var position = 0

  /// Parses one JSON value (nesting up to 512 levels deep).
  public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
    var parser = JSONParser(bytes: bytes)
    parser.skipWhitespace()
    let value = try parser.value(depth: 0)
    parser.skipWhitespace()
    if parser.position < bytes.count { throw parser.error(.jsonTextAfterValue) }
    return value
  }

  private init(bytes: [UInt8]) { self.bytes = bytes }

  private func error(_ reason: Message, _ arguments: any CustomStringConvertible...) -> JSONSyntaxError {
    var line = 1
    var lineStart = 0
    for i in 0..<min(position, bytes.count) where bytes[i] == UInt8(ascii: "\n") {
      line += 1
      lineStart = i + 1
    }
    return JSONSyntaxError(
      line: line, column: position - lineStart + 1, offset: position,
      reason: Sentence(reason, arguments: arguments))
  }

  private mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x0A, 0x0D, 0x09: position += 1
      default: return
      }
    }
  }

  private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
    guard depth < 512 else { throw error(.jsonTooDeep) }
    guard position < bytes.count else { throw error(.jsonEndsBeforeValue) }
    switch bytes[position] {
    case UInt8(ascii: "{"): return try object(depth: depth)
    case UInt8(ascii: "["): return try array(depth: depth)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"):
      try literal("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try literal("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try literal("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
    default: throw error(.jsonUnexpectedCharacter, Unicode.Scalar(bytes[position]))
    }
  }

  private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
    let count = word.utf8CodeUnitCount
    let matches =
      position + count <= bytes.count
      && (0..<count).allSatisfy { bytes[position + $0] == word.utf8Start[$0] }
    guard matches else { throw error(.jsonUnexpectedWord, word) }
    position += count
  }

  private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
    position += 1
    var members: [(key: String, value: JSONValue)] = []
    skipWhitespace()
    if position < bytes.count && bytes[position] == UInt8(ascii: "}") {
      position += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
        throw error(.formatExpectedMemberName)
      }
      let key = try string()
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
        throw error(.formatExpectedColon)
      }
      position += 1
      skipWhitespace()
      members.append((key, try value(depth: depth + 1)))
      skipWhitespace()
      guard position < bytes.count else { throw error(.jsonEndsInsideObject) }
      if bytes[position] == UInt8(ascii: ",") {
        position += 1
      } else if bytes[position] == UInt8(ascii: "}") {
        position += 1
        return .object(members)
      } else {
        throw error(.jsonBetweenMembers)
      }
    }
  }

  private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
    position += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if position < bytes.count && bytes[position] == UInt8(ascii: "]") {
      position += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try value(depth: depth + 1))
      skipWhitespace()
      guard position < bytes.count else { throw error(.jsonEndsInsideArray) }
      if bytes[position] == UInt8(ascii: ",") {
        position += 1
      } else if bytes[position] == UInt8(ascii: "]") {
        position += 1
        return .array(elements)
      } else {
        throw error(.jsonBetweenItems)
      }
    }
  }

  private mutating func number() throws(JSONSyntaxError) -> String {
    let start = position
    func digits(_ p: inout Int, _ b: [UInt8]) -> Int {
      let s = p
      while p < b.count && b[p] >= UInt8(ascii: "0") && b[p] <= UInt8(ascii: "9") { p += 1 }
      return p - s
    }
    if bytes[position] == UInt8(ascii: "-") { position += 1 }
    let intStart = position
    let intDigits = digits(&position, bytes)
    guard intDigits > 0 else { throw error(.jsonNumberDigits) }
    if intDigits > 1 && bytes[intStart] == UInt8(ascii: "0") { throw error(.jsonNumberLeadingZero) }
    if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
      position += 1
      guard digits(&position, bytes) > 0 else { throw error(.jsonFractionDigits) }
    }
    if position < bytes.count && (bytes[position] | 0x20) == UInt8(ascii: "e") {
      position += 1
      if position < bytes.count
        && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-"))
      {
        position += 1
      }
      guard digits(&position, bytes) > 0 else { throw error(.jsonExponentDigits) }
    }
    return String(decoding: bytes[start..<position], as: UTF8.self)
  }

  private mutating func string() throws(JSONSyntaxError) -> String {
    position += 1
    var result = [UInt8]()
    while true {
      guard position < bytes.count else { throw error(.jsonEndsInsideString) }
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        position += 1
        guard let text = String(validating: result, as: UTF8.self) else {
          throw error(.jsonStringNotUTF8)
        }
        return text
      }
      if byte < 0x20 { throw error(.jsonControlCharacter) }
      if byte != UInt8(ascii: "\\") {
        result.append(byte)
        position += 1
        continue
      }
      position += 1
      guard position < bytes.count else { throw error(.jsonEndsInsideEscape) }
      let escape = bytes[position]
      position += 1
      switch escape {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): result.append(escape)
      case UInt8(ascii: "b"): result.append(0x08)
      case UInt8(ascii: "f"): result.append(0x0C)
      case UInt8(ascii: "n"): result.append(0x0A)
      case UInt8(ascii: "r"): result.append(0x0D)
      case UInt8(ascii: "t"): result.append(0x09)
      case UInt8(ascii: "u"):
        var code = try hex4()
        if (0xD800..<0xDC00).contains(code) {
          guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
            bytes[position + 1] == UInt8(ascii: "u")
          else { throw error(.jsonLoneSurrogate) }
          position += 2
          let low = try hex4()
          guard (0xDC00..<0xE000).contains(low) else {
            throw error(.jsonLoneSurrogate)
          }
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(code) else { throw error(.jsonEscapeNotCharacter, "\\u") }
        result.append(contentsOf: Array(String(Character(scalar)).utf8))
      default: throw error(.jsonUnknownEscape, "\\\(Unicode.Scalar(escape))")
      }
    }
  }

  private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
    guard position + 4 <= bytes.count else { throw error(.jsonEscapeHexDigits, "\\u") }
    var code: UInt32 = 0
    for _ in 0..<4 {
      let b = bytes[position] | 0x20
      let digit: UInt8
      if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
        digit = b - UInt8(ascii: "0")
      } else if b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f") {
        digit = b - UInt8(ascii: "a") + 10
      } else {
        throw error(.jsonEscapeHexDigits, "\\u")
      }
      code = code << 4 | UInt32(digit)
      position += 1
    }
    return code
  }
}
