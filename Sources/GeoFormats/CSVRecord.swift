/// A CSV field, quoted when it holds a comma, a quote or a line break.
public func csvField(_ text: String) -> String {
  guard text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else {
    return text
  }
  return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
}

extension String {
  func replacingAll(_ target: Character, with replacement: String) -> String {
    var result = ""
    for character in self {
      if character == target { result += replacement } else { result.append(character) }
    }
    return result
  }
}

/// The fields of one CSV record read from bytes in place, one at a time: the one CSV reader behind batch rows,
/// CSV point files and `CSV.rows`.
///
/// RFC 4180, read leniently where people write CSV by hand: a field whose first byte, after spaces and tabs, is
/// a double quote is quoted, and a comma or a line feed inside the quotes does not end it, a doubled quote
/// stands for one, and spaces and tabs after the closing quote are dropped; a quote anywhere else is an ordinary
/// byte. A quoted field with other text after its closing quote, or with no closing quote, is malformed: its
/// value is its text as written, quotes and all (which no number reads as a number). An unquoted comma ends a
/// field, an unquoted line feed ends the record (with a carriage return just before it).
///
/// Nothing is copied or allocated until a field is asked for as a `String`.
/// - Complexity: O(n) over the record's bytes, each read once.
public struct CSVRecord {
  private let bytes: UnsafeBufferPointer<UInt8>
  private var position = 0
  private var finished = false
  /// Where the record ends once its last field is read: just past its line feed, or the end of the bytes.
  public private(set) var end = 0

  /// A record starting at the first of `bytes` (a line without its line break, or text holding several).
  public init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  /// The next field, or nil after the record's last one.
  public mutating func next() -> CSVField? {
    guard !finished else { return nil }
    let count = bytes.count
    var start = position
    while start < count && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
    var i = start
    var field: CSVField
    if start < count && bytes[start] == 0x22 {
      i += 1
      var doubled = false
      var closed = false
      while i < count {
        if bytes[i] == 0x22 {
          if i + 1 < count && bytes[i + 1] == 0x22 {
            doubled = true
            i += 2
            continue
          }
          closed = true
          break
        }
        i += 1
      }
      let contentEnd = i
      if closed { i += 1 }
      var wellFormed = closed
      while i < count && bytes[i] != 0x2C && bytes[i] != 0x0A {
        let byte = bytes[i]
        if byte != 0x20 && byte != 0x09 && !(byte == 0x0D && i + 1 < count && bytes[i + 1] == 0x0A) {
          wellFormed = false
        }
        i += 1
      }
      if wellFormed {
        field = CSVField(
          bytes: UnsafeBufferPointer(rebasing: bytes[(start + 1)..<contentEnd]), isQuoted: true,
          hasDoubledQuote: doubled)
      } else {
        var e = i
        if e < count && bytes[e] == 0x0A && e > start && bytes[e - 1] == 0x0D { e -= 1 }
        while e > start && (bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09) { e -= 1 }
        field = CSVField(
          bytes: UnsafeBufferPointer(rebasing: bytes[start..<e]), isQuoted: false, hasDoubledQuote: false)
      }
    } else {
      while i < count && bytes[i] != 0x2C && bytes[i] != 0x0A { i += 1 }
      var e = i
      if e < count && bytes[e] == 0x0A && e > position && bytes[e - 1] == 0x0D { e -= 1 }
      field = CSVField(
        bytes: UnsafeBufferPointer(rebasing: bytes[position..<e]), isQuoted: false, hasDoubledQuote: false)
    }
    if i < count && bytes[i] == 0x2C {
      position = i + 1
    } else {
      finished = true
      end = i < count ? i + 1 : count
    }
    return field
  }

  /// Every field of the record as text.
  public mutating func strings() -> [String] {
    var fields: [String] = []
    while let field = next() { fields.append(field.string) }
    return fields
  }
}

/// One field of a `CSVRecord`, in place.
public struct CSVField {
  /// The value's bytes: between the quotes of a quoted field (a doubled quote still two bytes when
  /// `hasDoubledQuote`), else the field as written, spaces included.
  public let bytes: UnsafeBufferPointer<UInt8>
  /// Whether the field was quoted (and well formed).
  public let isQuoted: Bool
  /// Whether the quoted value holds a doubled quote, which `string` reads as one.
  public let hasDoubledQuote: Bool

  /// The value as text.
  public var string: String { Self.text(bytes, hasDoubledQuote) }

  /// The value without spaces and tabs around it (those of a quoted value are its own): how numbers, the
  /// coordinates echoed in batch rows and header names are read.
  public var trimmed: UnsafeBufferPointer<UInt8> {
    guard !isQuoted else { return bytes }
    var s = 0
    var e = bytes.count
    while s < e && (bytes[s] == 0x20 || bytes[s] == 0x09) { s += 1 }
    while e > s && (bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09) { e -= 1 }
    return UnsafeBufferPointer(rebasing: bytes[s..<e])
  }

  /// `trimmed` as text.
  public var trimmedString: String { Self.text(trimmed, hasDoubledQuote) }

  private static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ doubled: Bool) -> String {
    guard doubled else { return String(decoding: bytes, as: UTF8.self) }
    var unescaped: [UInt8] = []
    unescaped.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
      unescaped.append(bytes[i])
      i += bytes[i] == 0x22 ? 2 : 1
    }
    return String(decoding: unescaped, as: UTF8.self)
  }
}
