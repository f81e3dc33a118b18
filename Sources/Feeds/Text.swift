import CLibXML2

/// Text built from UTF-8 pieces with every run of white space made one space and none at either end: what a
/// reader sees of a title or a description.
///
/// White space is Unicode's (`White_Space`, the no-break space included), recognised on the UTF-8 bytes, so a
/// megabyte of descriptions is collapsed without decoding it scalar by scalar.
struct CollapsedText {
  private(set) var bytes: [UInt8] = []
  private var pendingSpace = false

  init() {}

  /// Appends `count` bytes of UTF-8 from `start`.
  mutating func append(_ start: UnsafePointer<UInt8>, count: Int) {
    var index = 0
    while index < count {
      let width = Self.whiteSpaceWidth(start + index, left: count - index)
      if width > 0 {
        pendingSpace = !bytes.isEmpty
        index += width
      } else {
        if pendingSpace {
          bytes.append(0x20)
          pendingSpace = false
        }
        bytes.append(start[index])
        index += 1
      }
    }
  }

  /// Appends a NUL-terminated UTF-8 string (libxml2's `xmlChar *`).
  mutating func append(cString: UnsafePointer<UInt8>) {
    append(cString, count: Int(cxml_xmlStrlen(cString)))
  }

  /// Separates what comes next from what came before (a block element's edge), as white space does.
  mutating func separate() { pendingSpace = !bytes.isEmpty }

  var string: String { String(decoding: bytes, as: UTF8.self) }

  /// `text` with its white space collapsed.
  static func collapsed(_ text: String) -> String {
    var text = text
    return text.withUTF8 { buffer in
      var collapsed = CollapsedText()
      if let base = buffer.baseAddress { collapsed.append(base, count: buffer.count) }
      return collapsed.string
    }
  }

  /// The byte length of the white space character at `pointer`, or 0 when there is none.
  private static func whiteSpaceWidth(_ pointer: UnsafePointer<UInt8>, left: Int) -> Int {
    let first = pointer[0]
    switch first {
    case 0x09...0x0D, 0x20: return 1
    case 0xC2: return left >= 2 && (pointer[1] == 0x85 || pointer[1] == 0xA0) ? 2 : 0
    case 0xE1: return left >= 3 && pointer[1] == 0x9A && pointer[2] == 0x80 ? 3 : 0  // U+1680
    case 0xE2:
      guard left >= 3 else { return 0 }
      if pointer[1] == 0x80 {
        // U+2000–U+200A, U+2028, U+2029, U+202F
        return (0x80...0x8A).contains(pointer[2]) || pointer[2] == 0xA8 || pointer[2] == 0xA9
          || pointer[2] == 0xAF
          ? 3 : 0
      }
      return pointer[1] == 0x81 && pointer[2] == 0x9F ? 3 : 0  // U+205F
    case 0xE3: return left >= 3 && pointer[1] == 0x80 && pointer[2] == 0x80 ? 3 : 0  // U+3000
    default: return 0
    }
  }
}

extension String {
  /// The text with white space collapsed (`CollapsedText`).
  func collapsingWhiteSpace() -> String {
    var text = CollapsedText()
    var copy = self
    copy.withUTF8 { buffer in
      if let base = buffer.baseAddress { text.append(base, count: buffer.count) }
    }
    return text.string
  }

  /// The text without white space at either end (inner white space kept as it is).
  func trimmingSpaces() -> String {
    let scalars = unicodeScalars
    let isSpace = { (scalar: Unicode.Scalar) in scalar.properties.isWhitespace }
    guard let start = scalars.firstIndex(where: { !isSpace($0) }),
      let end = scalars.lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(scalars[start...end])
  }
}
