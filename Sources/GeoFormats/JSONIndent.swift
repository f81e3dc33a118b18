/// JSON text laid out for people: each member and element on a line of its own, indented, a space after each
/// `:`; empty objects and arrays stay `{}` and `[]`. The text is taken as valid JSON (what `JSONWriter` and a
/// parsed file give): strings are copied byte for byte, white space outside them is dropped.
public enum JSONIndent {
  public static func indented(_ text: [UInt8], by width: Int = 2) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(text.count * 2)
    var depth = 0
    var inString = false
    var escaped = false
    var i = 0
    func newline() {
      out.append(UInt8(ascii: "\n"))
      out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * width))
    }
    /// The next byte that is not white space, from `j`.
    func next(after j: Int) -> UInt8? {
      var k = j
      while k < text.count, [0x20, 0x0A, 0x0D, 0x09].contains(text[k]) { k += 1 }
      return k < text.count ? text[k] : nil
    }
    while i < text.count {
      let byte = text[i]
      i += 1
      if inString {
        out.append(byte)
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          inString = false
        }
        continue
      }
      switch byte {
      case UInt8(ascii: "\""):
        inString = true
        out.append(byte)
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        out.append(byte)
        let closing = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
        if next(after: i) == closing {
          while text[i] != closing { i += 1 }
          out.append(closing)
          i += 1
        } else {
          depth += 1
          newline()
        }
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        depth = max(0, depth - 1)
        newline()
        out.append(byte)
      case UInt8(ascii: ","):
        out.append(byte)
        newline()
      case UInt8(ascii: ":"):
        out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
      case 0x20, 0x0A, 0x0D, 0x09:
        break
      default:
        out.append(byte)
      }
    }
    return out
  }
}
