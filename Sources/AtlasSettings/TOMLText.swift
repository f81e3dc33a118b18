/// TOML's text forms that the settings write, and the escapes of a basic string.
enum TOMLText {
  /// Whether `byte` may stand in a bare key (`A-Za-z0-9_-`).
  static func isBareKeyByte(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
      || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
  }

  /// `key` as written before `=`: bare when it can be, else a basic string.
  static func key(_ key: String) -> String {
    !key.isEmpty && key.utf8.allSatisfy(isBareKeyByte) ? key : quoted(key)
  }

  /// A value as written after `=`.
  static func value(_ value: SettingValue) -> String {
    switch value {
    case .string(let text): return quoted(text)
    case .integer(let number): return String(number)
    case .boolean(let flag): return flag ? "true" : "false"
    }
  }

  /// `text` as a TOML basic string, quotes included: a quote, a backslash or a control character cannot end
  /// the value or start another line.
  static func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
        let hex = String(scalar.value, radix: 16, uppercase: true)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }

  /// A TOML basic string's text as written between its quotes (`\\`, `\"`, `\b`, `\t`, `\n`, `\f`, `\r`,
  /// `\uXXXX`, `\UXXXXXXXX`), or nil when it holds a bare quote or an escape TOML does not define.
  static func unescape(_ text: Substring) -> String? {
    var result = String.UnicodeScalarView()
    var scalars = text.unicodeScalars[...]
    while let scalar = scalars.popFirst() {
      if scalar == "\"" { return nil }
      guard scalar == "\\" else {
        result.append(scalar)
        continue
      }
      guard let escape = scalars.popFirst() else { return nil }
      switch escape {
      case "\\", "\"": result.append(escape)
      case "b": result.append("\u{08}")
      case "t": result.append("\t")
      case "n": result.append("\n")
      case "f": result.append("\u{0C}")
      case "r": result.append("\r")
      case "u", "U":
        let digits = escape == "u" ? 4 : 8
        guard scalars.count >= digits, scalars.prefix(digits).allSatisfy(\.properties.isASCIIHexDigit),
          let value = UInt32(String(String.UnicodeScalarView(scalars.prefix(digits))), radix: 16),
          let decoded = Unicode.Scalar(value)
        else { return nil }
        scalars = scalars.dropFirst(digits)
        result.append(decoded)
      default: return nil
      }
    }
    return String(result)
  }
}
