/// An instant to the second, in UTC, as feeds date their items.
///
/// Read from RFC 822 dates (RSS 2.0's `pubDate`, with RFC 2822's obsolete forms: two-digit years, named US zones)
/// and RFC 3339 timestamps (Atom; W3C-DTF's date-only and minute forms, as `dc:date` uses them); fractions of a
/// second are dropped. Days and dates convert with Howard Hinnant's `days_from_civil` and `civil_from_days`
/// (http://howardhinnant.github.io/date_algorithms.html, public domain).
public struct FeedDate: Sendable, Equatable, Comparable, Hashable {
  /// Seconds since 1970-01-01T00:00:00Z.
  public var secondsSince1970: Int64

  public init(secondsSince1970: Int64) { self.secondsSince1970 = secondsSince1970 }

  /// A calendar date and time in UTC, checked (day within its month, 00:00:00 to 23:59:60); nil otherwise.
  init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offsetMinutes: Int) {
    guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
      (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
      (-(24 * 60 - 1)...(24 * 60 - 1)).contains(offsetMinutes), (1...9999).contains(year)
    else { return nil }
    let days = Self.daysFromCivil(year: year, month: month, day: day)
    secondsSince1970 =
      Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
  }

  public static func < (a: FeedDate, b: FeedDate) -> Bool { a.secondsSince1970 < b.secondsSince1970 }

  /// `2026-11-24T09:15:00Z`: ISO 8601 in UTC, as the JSON contract's `publishedAt`.
  public var iso8601: String {
    let days = secondsSince1970 >= 0 ? secondsSince1970 / 86400 : (secondsSince1970 - 86399) / 86400
    let seconds = Int(secondsSince1970 - days * 86400)
    let (year, month, day) = Self.civilFromDays(Int(days))
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
    return
      "\(yearText)-\(two(month))-\(two(day))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))Z"
  }

  /// Any date a feed writes: RFC 3339 first, then RFC 822; nil for anything else.
  public static func parse(_ text: String) -> FeedDate? {
    rfc3339(text) ?? rfc822(text)
  }

  /// `2026-11-24T10:15:00+01:00`, `2026-11-24t09:15:00.25Z`, `2026-11-24 09:15:00Z`; also W3C-DTF's
  /// `2026-11-24T09:15Z` and `2026-11-24` (midnight UTC).
  public static func rfc3339(_ text: String) -> FeedDate? {
    let bytes = Array(text.utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
    var reader = Digits(bytes: bytes[...].prefix { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D })
    guard let year = reader.number(4), reader.skip("-"), let month = reader.number(2), reader.skip("-"),
      let day = reader.number(2)
    else { return nil }
    if reader.atEnd {
      return FeedDate(year: year, month: month, day: day, hour: 0, minute: 0, second: 0, offsetMinutes: 0)
    }
    guard reader.skip("T") || reader.skip("t") || reader.skip(" "), let hour = reader.number(2),
      reader.skip(":"), let minute = reader.number(2)
    else { return nil }
    var second = 0
    if reader.skip(":") {
      guard let value = reader.number(2) else { return nil }
      second = value
      if reader.skip(".") || reader.skip(",") {
        guard reader.digitRun() > 0 else { return nil }
      }
    }
    var offset = 0
    if reader.skip("Z") || reader.skip("z") {
      offset = 0
    } else if let sign = reader.sign() {
      guard let hours = reader.number(2) else { return nil }
      _ = reader.skip(":")
      guard let minutes = reader.number(2) else { return nil }
      offset = sign * (hours * 60 + minutes)
    } else {
      return nil
    }
    guard reader.atEnd else { return nil }
    return FeedDate(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second, offsetMinutes: offset)
  }

  /// `Tue, 24 Nov 2026 10:15:00 +0100`, and RFC 2822's looser forms: no weekday, no seconds, a two-digit year
  /// (00–49 is 20xx), `GMT`/`UT`/`UTC`/`Z` and the US zones (`EST`, `PDT`, ...); no zone at all, or a military
  /// letter, is read as UTC (RFC 2822: their meaning is unknown).
  public static func rfc822(_ text: String) -> FeedDate? {
    var words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })[...]
    guard let first = words.first else { return nil }
    if first.hasSuffix(",") || weekdays.contains(first.lowercased().prefix(3)) { words = words.dropFirst() }
    // day month year, or (as some feeds write) month day year.
    guard words.count >= 4 else { return nil }
    let list = Array(words)
    var day: Int
    var month: Int
    if let number = Int(list[0]), let named = monthNumber(list[1]) {
      (day, month) = (number, named)
    } else if let named = monthNumber(list[0]), let number = Int(list[1].trimmingSuffix(",")) {
      (day, month) = (number, named)
    } else {
      return nil
    }
    guard var year = Int(list[2]), list[2].allSatisfy(\.isASCII), list[2].count == 2 || list[2].count == 4
    else { return nil }
    if list[2].count == 2 { year += year < 50 ? 2000 : 1900 }
    let clock = list[3].split(separator: ":", omittingEmptySubsequences: false)
    guard clock.count == 2 || clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
      let hour = Int(clock[0]), let minute = Int(clock[1])
    else { return nil }
    let second = clock.count == 3 ? Int(clock[2]) : 0
    guard let second else { return nil }
    var offset = 0
    if list.count >= 5 {
      let zone = list[4]
      if let sign = zone.first.flatMap({ $0 == "+" ? 1 : $0 == "-" ? -1 : nil }) {
        let digits = zone.dropFirst().filter { $0 != ":" }
        guard digits.count == 4, digits.allSatisfy(\.isASCII), let value = Int(digits) else { return nil }
        offset = sign * (value / 100 * 60 + value % 100)
      } else if let hours = namedZones[zone.uppercased()] {
        offset = hours * 60
      } else if !(zone.count == 1 && zone.first!.isLetter) {
        return nil
      }
    }
    return FeedDate(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second, offsetMinutes: offset)
  }

  private static let weekdays: Set<Substring> = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
  private static let months = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
  ]
  /// RFC 822's zones, and UTC, in hours east of UTC.
  private static let namedZones: [String: Int] = [
    "GMT": 0, "UT": 0, "UTC": 0, "Z": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6,
    "PST": -8, "PDT": -7,
  ]

  /// `Nov`, `nov.`, `November` → 11.
  private static func monthNumber(_ word: Substring) -> Int? {
    let lowered = word.lowercased().trimmingSuffix(".")
    guard lowered.count >= 3, let index = months.firstIndex(of: String(lowered.prefix(3))) else { return nil }
    return index + 1
  }

  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's `days_from_civil`).
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146097 + dayOfEra - 719468
  }

  /// The date of a day since 1970-01-01 (Hinnant's `civil_from_days`).
  static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let dayOfEra = z - era * 146097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}

/// Reads fixed-width numbers and punctuation off ASCII bytes.
private struct Digits {
  var bytes: ArraySlice<UInt8>

  var atEnd: Bool { bytes.isEmpty }

  mutating func number(_ width: Int) -> Int? {
    guard bytes.count >= width else { return nil }
    var value = 0
    for byte in bytes.prefix(width) {
      guard byte >= 48 && byte <= 57 else { return nil }
      value = value * 10 + Int(byte - 48)
    }
    bytes = bytes.dropFirst(width)
    return value
  }

  mutating func skip(_ character: Unicode.Scalar) -> Bool {
    guard bytes.first == UInt8(ascii: character) else { return false }
    bytes = bytes.dropFirst()
    return true
  }

  mutating func sign() -> Int? {
    if skip("+") { return 1 }
    if skip("-") { return -1 }
    return nil
  }

  mutating func digitRun() -> Int {
    let count = bytes.prefix { $0 >= 48 && $0 <= 57 }.count
    bytes = bytes.dropFirst(count)
    return count
  }
}

extension Substring {
  fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
    hasSuffix(suffix) ? dropLast(suffix.count) : self
  }
}

extension String {
  fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
    hasSuffix(suffix) ? self[...].dropLast(suffix.count) : self[...]
  }
}
