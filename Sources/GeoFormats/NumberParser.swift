/// Decimal numbers from bytes: plain decimals exactly by Clinger's fast path, anything else via the standard
/// library's correctly rounded parser. Rejects NaN, infinities and hexadecimal.
public enum NumberParser {
  /// 10^0 ... 10^22, every one exactly representable.
  private static let powersOfTen: InlineArray<23, Double> = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    1e19, 1e20, 1e21, 1e22,
  ]

  /// The number the bytes spell, nothing around it (a CSV field's quotes come off in `CSVRecord`), or nil.
  public static func parse(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
    guard !field.isEmpty else { return nil }
    var i = 0
    var negative = false
    if field[0] == 0x2D || field[0] == 0x2B {
      negative = field[0] == 0x2D
      i = 1
    }
    var mantissa: UInt64 = 0
    var digits = 0
    var fractionDigits = 0
    var seenPoint = false
    var simple = true
    var hasDigit = false
    while i < field.count {
      let c = field[i]
      if c >= 0x30 && c <= 0x39 {
        hasDigit = true
        if digits < 19 {
          mantissa = mantissa &* 10 &+ UInt64(c - 0x30)
          if mantissa != 0 || digits > 0 { digits += 1 }
          if seenPoint { fractionDigits += 1 }
        } else {
          simple = false
        }
      } else if c == 0x2E && !seenPoint {
        seenPoint = true
      } else if c == 0x65 || c == 0x45 || c == 0x2B || c == 0x2D {
        simple = false
      } else {
        return nil
      }
      i += 1
    }
    guard hasDigit else { return nil }
    if simple && mantissa < (1 << 53) && fractionDigits <= 22 {
      let value = Double(mantissa) / powersOfTen[fractionDigits]
      return negative ? -value : value
    }
    guard let value = Double(String(decoding: field, as: UTF8.self)), value.isFinite else { return nil }
    return value
  }
}
