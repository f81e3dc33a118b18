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

/// The comma-separated fields of one line, trimmed of spaces, without copying or allocating (the first 16).
/// A comma inside double quotes does not end a field (RFC 4180); `unquoted(_:)` takes the quotes off.
struct Fields {
  private var starts = InlineArray<16, Int>(repeating: 0)
  private var ends = InlineArray<16, Int>(repeating: 0)
  private(set) var count = 0
  private let line: UnsafeBufferPointer<UInt8>

  init(_ line: UnsafeBufferPointer<UInt8>) {
    self.line = line
    var start = 0
    var i = 0
    while count < 16 {
      var quoted = false
      while i < line.count {
        let byte = line[i]
        if byte == 0x2C && !quoted { break }
        if byte == 0x22 { quoted.toggle() }  // a doubled quote inside toggles twice
        i += 1
      }
      var s = start
      var e = i
      while s < e && (line[s] == 0x20 || line[s] == 0x09) { s += 1 }
      while e > s && (line[e - 1] == 0x20 || line[e - 1] == 0x09) { e -= 1 }
      starts[count] = s
      ends[count] = e
      count += 1
      if i >= line.count { break }
      i += 1
      start = i
    }
  }

  subscript(i: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: line[starts[i]..<ends[i]])
  }

  /// Field `i` as text, without the quotes around it (a doubled quote inside stays doubled).
  func string(_ i: Int) -> String { String(decoding: Fields.unquoted(self[i]), as: UTF8.self) }

  /// A field without the double quotes around it, if it has them.
  static func unquoted(_ field: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    if field.count >= 2 && field.first == 0x22 && field.last == 0x22 {
      return UnsafeBufferPointer(rebasing: field[1..<(field.count - 1)])
    }
    return field
  }
}
