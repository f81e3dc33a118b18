/// Base64 (RFC 4648, section 4) as Atom's base64 content holds it: white space anywhere is skipped, padding is
/// optional; any other byte outside the alphabet makes it not base64.
enum Base64 {
  /// The bytes `text` encodes; nil when it is not base64.
  static func decoded(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    var output: [UInt8] = []
    output.reserveCapacity(text.count / 4 * 3)
    var accumulator: UInt32 = 0
    var bits = 0
    var padding = 0
    for byte in text {
      let value: UInt32
      switch byte {
      case 0x41...0x5A: value = UInt32(byte - 0x41)
      case 0x61...0x7A: value = UInt32(byte - 0x61 + 26)
      case 0x30...0x39: value = UInt32(byte - 0x30 + 52)
      case 0x2B: value = 62
      case 0x2F: value = 63
      case 0x3D:
        padding += 1
        continue
      case 0x20, 0x09, 0x0A, 0x0D: continue
      default: return nil
      }
      guard padding == 0 else { return nil }  // nothing after the padding
      accumulator = accumulator << 6 | value
      bits += 6
      if bits >= 8 {
        bits -= 8
        output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
        accumulator &= (1 << UInt32(bits)) - 1
      }
    }
    return padding <= 2 ? output : nil
  }
}
