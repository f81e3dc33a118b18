/// An instant to the second, in UTC, as feeds date their items.
///
/// Reads the date forms feeds write, as Python's feedparser 6 reads them: RFC 822/2822 (RSS 2.0's `pubDate`) with
/// its loose variants, asctime, RFC 3339, W3C-DTF and ISO 8601 (Atom, `dc:date`), and Korean blogs' forms. A date
/// without a time is midnight, and a time without a zone is UTC, as feedparser reads them; fractions of a second
/// are dropped. Where feedparser guesses (an unknown zone read as UTC, 30 February rolled into March, text after
/// the date ignored, a time it cannot read dropped), this refuses: no date is better than a wrong one. Days and
/// dates convert with Howard Hinnant's `days_from_civil` and `civil_from_days`
/// (http://howardhinnant.github.io/date_algorithms.html, public domain).
public struct FeedDate: Sendable, Equatable, Comparable, Hashable {
  /// Seconds since 1970-01-01T00:00:00Z.
  public var secondsSince1970: Int64

  public init(secondsSince1970: Int64) { self.secondsSince1970 = secondsSince1970 }

  /// A calendar date and time, checked (day within its month, 00:00:00 to 23:59:60, an offset under 24 hours, and
  /// years 1 to 9999 both locally and in UTC); nil otherwise.
  init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offsetMinutes: Int) {
    guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
      (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
      (-(24 * 60 - 1)...(24 * 60 - 1)).contains(offsetMinutes), (1...9999).contains(year)
    else { return nil }
    let days = Self.daysFromCivil(year: year, month: month, day: day)
    let seconds =
      Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
    guard Self.fourDigitYears.contains(seconds) else { return nil }
    secondsSince1970 = seconds
  }

  /// 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z, the instants `iso8601` writes with a four-digit year.
  static let fourDigitYears: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

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

  /// Any date a feed writes: RFC 3339 and ISO 8601, RFC 822, asctime, or Korean blogs' (`readKorean(_:)`); nil
  /// for anything else.
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  public static func parse(_ text: String) -> FeedDate? {
    let scalars = Array(text.unicodeScalars)[...]
    if let date = readISO(scalars) { return date }
    let words = words(scalars)
    return readRFC822(words) ?? readAsctime(words) ?? readKorean(words)
  }

  /// `2026-11-24T10:15:00+01:00`, `2026-11-24t09:15:00.25Z`, and the W3C-DTF and ISO 8601 forms around it.
  ///
  /// The date is `2026-11-24` (or `2026-11-2`), `20261124`, or the ordinal `2026-328` or `2026328`; W3C-DTF's
  /// `2026-11` and `2026` stand alone, meaning their first day. ISO 8601:2000's two-digit years are read as RFC
  /// 2822 reads them (`26-11-24`, `261124`, the ordinal `26328`, and `-2611` or `-26-11` for a month); Google's
  /// `2026-011-24` has a zero too many, and Hungarian blogs name the month (`2004-július-13`). The time follows
  /// `T` or white space: `09:15:00`, `09:15`, `09` or `091500`, with a `.` or `,` fraction after the seconds;
  /// `24:00:00` is the next day's midnight. The zone is `Z`, `+01:00`, `+0100`, `+01`, or one of `rfc822(_:)`'s
  /// (`+00:0`, which lost a 0, too); none is UTC. Refused: week dates, which feedparser reads wrongly, dates
  /// that need today's year (`--11-24`), and anything after the zone.
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  public static func rfc3339(_ text: String) -> FeedDate? { readISO(Array(text.unicodeScalars)[...]) }

  /// `Tue, 24 Nov 2026 10:15:00 +0100`, and the looser forms feeds write.
  ///
  /// The weekday may be missing or spelled out, and needs no space after its comma; the month may be spelled out
  /// (in English, or abbreviated in Greek) and come before the day (`Nov 24 2026`); Perforce writes `2026/11/24`. A
  /// two-digit year is RFC 2822's (00–49 is 20xx, 50–99 is 19xx). The time may be `10:15`, `9:05:00` or an hour
  /// alone, on a 24-hour clock or a 12-hour one (`8:56 pm`, `02:02:33 AM`), or missing (midnight); the zone `+0100`, `+01:00`, `GMT`, `UT`, `UTC`, `Z`, `GMT+2`, `GMT-01:30`,
  /// `Etc/GMT`, or a name in `zoneNames`, or missing (UTC); a parenthesised comment may follow. Refused: military
  /// zones other than `Z` (RFC 822 wrote their signs backwards, RFC 1123), and names that feedparser reads as UTC
  /// only because it does not know them.
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  public static func rfc822(_ text: String) -> FeedDate? {
    readRFC822(words(Array(text.unicodeScalars)[...]))
  }

  /// `Sun Jan  4 16:29:06 2004` (UTC), `Sun Jan  4 16:29:06 PST 2004`: C's `asctime`, with an optional zone.
  ///
  /// - Complexity: O(*n*) in the length of `text`.
  public static func asctime(_ text: String) -> FeedDate? {
    readAsctime(words(Array(text.unicodeScalars)[...]))
  }

  private static func readISO(_ text: Text) -> FeedDate? {
    var cursor = Cursor(rest: trimmed(text))
    var (year, month, day) = (0, 1, 1)
    let head = cursor.digits()
    switch head.count {
    case 0:
      // ISO 8601:2000's truncated `-0312` and `-03-12`: a year of the century and a month, whole.
      guard cursor.skip("-") else { return nil }
      let years = cursor.digits()
      if years.count == 4 {
        (year, month) = (centuryYear(number(years.prefix(2))), number(years.suffix(2)))
      } else {
        guard years.count == 2, cursor.skip("-") else { return nil }
        let months = cursor.digits()
        guard months.count == 2 else { return nil }
        (year, month) = (centuryYear(number(years)), number(months))
      }
      guard cursor.atEnd else { return nil }
    case 2:
      // `03-12-31`: a two-digit year, then month and day.
      let months = cursor.skip("-") ? cursor.digits() : []
      let days = months.count == 2 && cursor.skip("-") ? cursor.digits() : []
      guard days.count == 2 else { return nil }
      (year, month, day) = (centuryYear(number(head)), number(months), number(days))
    case 5:
      // `03335`: a two-digit year and a day of it.
      year = centuryYear(number(head.prefix(2)))
      guard let date = ordinalDate(year: year, day: number(head.suffix(3))) else { return nil }
      (month, day) = date
    case 6:
      // `031231`: a two-digit year, month and day.
      (year, month, day) = (
        centuryYear(number(head.prefix(2))), number(head.dropFirst(2).prefix(2)), number(head.suffix(2))
      )
    case 4:
      year = number(head)
      if cursor.skip("-") {
        let next = cursor.digits()
        if next.isEmpty, let named = cursor.letters().flatMap(monthNumber), cursor.skip("-") {
          // `2004-július-13`: the month by name (Hungarian blogs write it so).
          let last = cursor.digits()
          guard (1...2).contains(last.count) else { return nil }
          (month, day) = (named, number(last))
        } else if next.count == 3, next.first == "0", cursor.skip("-") {
          // `2003-012-31`: Google's month with a zero too many.
          let last = cursor.digits()
          guard (1...2).contains(last.count) else { return nil }
          (month, day) = (number(next), number(last))
        } else if next.count == 3 {
          guard let date = ordinalDate(year: year, day: number(next)) else { return nil }
          (month, day) = date
        } else {
          guard (1...2).contains(next.count) else { return nil }
          month = number(next)
          if cursor.skip("-") {
            let last = cursor.digits()
            guard (1...2).contains(last.count) else { return nil }
            day = number(last)
          } else if !cursor.atEnd {
            return nil
          }
        }
      } else if !cursor.atEnd {
        return nil
      }
    case 7:
      guard let date = ordinalDate(year: number(head.prefix(4)), day: number(head.suffix(3))) else {
        return nil
      }
      (year, month, day) = (number(head.prefix(4)), date.month, date.day)
    case 8:
      (year, month, day) = (
        number(head.prefix(4)), number(head.dropFirst(4).prefix(2)), number(head.suffix(2))
      )
    default:
      return nil
    }
    if cursor.atEnd { return make(year, month, day, 0, 0, 0, zone: .fixed(minutes: 0)) }
    guard cursor.skip("T") || cursor.skip("t") || cursor.skipSpaces() else { return nil }

    var (hour, minute, second) = (0, 0, 0)
    var hasSeconds = false
    let clock = cursor.digits()
    switch clock.count {
    case 1, 2:
      hour = number(clock)
      if cursor.skip(":") {
        let minutes = cursor.digits()
        guard (1...2).contains(minutes.count) else { return nil }
        minute = number(minutes)
        if cursor.skip(":") {
          let seconds = cursor.digits()
          guard (1...2).contains(seconds.count) else { return nil }
          (second, hasSeconds) = (number(seconds), true)
        }
      }
    case 4:
      (hour, minute) = (number(clock.prefix(2)), number(clock.suffix(2)))
    case 6:
      (hour, minute, second) = (
        number(clock.prefix(2)), number(clock.dropFirst(2).prefix(2)), number(clock.suffix(2))
      )
      hasSeconds = true
    default:
      return nil
    }
    var fractionIsZero = true
    if hasSeconds, cursor.skip(".") || cursor.skip(",") {
      fractionIsZero = cursor.digits().allSatisfy { $0 == "0" }
    }
    if hour == 24, minute == 0, second == 0, fractionIsZero, (1...12).contains(month),
      (1...daysIn(month: month, year: year)).contains(day)
    {
      (year, month, day) = civilFromDays(daysFromCivil(year: year, month: month, day: day) + 1)
      hour = 0
    }
    _ = cursor.skipSpaces()
    var zone = Zone.fixed(minutes: 0)
    if !cursor.atEnd {
      guard let named = readZone(cursor.rest, hoursAlone: true) else { return nil }
      zone = named
    }
    return make(year, month, day, hour, minute, second, zone: zone)
  }

  private static func readRFC822(_ words: [Text]) -> FeedDate? {
    var rest = words[...]
    if let first = rest.first, isWeekday(first) { rest.removeFirst() }
    guard let first = rest.first else { return nil }
    var (year, month, day) = (0, 0, 0)
    if let date = slashedDate(first) {
      (year, month, day) = date
      rest.removeFirst()
    } else {
      guard rest.count >= 3 else { return nil }
      let (a, b, c) = (rest[rest.startIndex], rest[rest.startIndex + 1], rest[rest.startIndex + 2])
      if let number = number(a, widths: 1...2), let named = monthNumber(b) {
        (day, month) = (number, named)
      } else if let named = monthNumber(a), let number = number(b, widths: 1...2) {
        (day, month) = (number, named)
      } else {
        return nil
      }
      guard let full = twoOrFourDigitYear(c) else { return nil }
      year = full
      rest.removeFirst(3)
    }
    var (hour, minute, second) = (0, 0, 0)
    var zone = Zone.fixed(minutes: 0)
    if let word = rest.first, word.first != "(" {
      guard var clock = readClock(word) else { return nil }
      rest.removeFirst()
      // A 12-hour clock: `8:56 am`, `02:02:33 PM`, the hour 1 to 12.
      if let word = rest.first, let afternoon = meridiem(word) {
        guard (1...12).contains(clock.hour) else { return nil }
        clock.hour = clock.hour % 12 + (afternoon ? 12 : 0)
        rest.removeFirst()
      }
      (hour, minute, second) = clock
      if let word = rest.first, word.first != "(" {
        guard let named = readZone(word, hoursAlone: false) else { return nil }
        zone = named
        rest.removeFirst()
      }
    }
    guard rest.isEmpty || (rest.first?.first == "(" && rest.last?.last == ")") else { return nil }
    return make(year, month, day, hour, minute, second, zone: zone)
  }

  private static func readAsctime(_ words: [Text]) -> FeedDate? {
    var rest = words[...]
    if let first = rest.first, isWeekday(first) { rest.removeFirst() }
    let list = Array(rest)
    guard list.count == 4 || list.count == 5, let month = monthNumber(list[0]),
      let day = number(list[1], widths: 1...2), let clock = readClock(list[2]),
      let year = twoOrFourDigitYear(list[list.count - 1])
    else { return nil }
    var zone = Zone.fixed(minutes: 0)
    if list.count == 5 {
      guard let named = readZone(list[3], hoursAlone: false) else { return nil }
      zone = named
    }
    return make(year, month, day, clock.hour, clock.minute, clock.second, zone: zone)
  }

  /// Korean blogs' dates, in Korea's time (UTC+9): Nate's `2004-05-25 오후 11:23:17` (오전 is am, 오후 pm, the
  /// hour 0 to 12) and OnBlog's `2004년 05월 28일 01:31:15` (year, month and day marked; the time may be missing).
  private static func readKorean(_ words: [Text]) -> FeedDate? {
    let korea = Zone.fixed(minutes: 9 * 60)
    if words.count == 3, let afternoon = ["오전": false, "오후": true][lowercased(words[1])] {
      var cursor = Cursor(rest: words[0])
      let year = cursor.digits()
      let month = cursor.skip("-") ? cursor.digits() : []
      let day = cursor.skip("-") ? cursor.digits() : []
      guard year.count == 4, (1...2).contains(month.count), (1...2).contains(day.count), cursor.atEnd,
        let clock = readClock(words[2]), clock.hour <= 12
      else { return nil }
      let hour = clock.hour % 12 + (afternoon ? 12 : 0)
      return make(number(year), number(month), number(day), hour, clock.minute, clock.second, zone: korea)
    }
    func marked(_ word: Text, _ mark: Unicode.Scalar, widths: ClosedRange<Int>) -> Int? {
      word.last == mark ? number(word.dropLast(), widths: widths) : nil
    }
    guard words.count == 3 || words.count == 4, let year = marked(words[0], "년", widths: 4...4),
      let month = marked(words[1], "월", widths: 1...2), let day = marked(words[2], "일", widths: 1...2)
    else { return nil }
    let clock = words.count == 4 ? readClock(words[3]) : (0, 0, 0)
    guard let clock else { return nil }
    return make(year, month, day, clock.hour, clock.minute, clock.second, zone: korea)
  }

  private static func make(
    _ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int, zone: Zone
  ) -> FeedDate? {
    let offset: Int
    switch zone {
    case .fixed(let minutes):
      offset = minutes
    case .northAmerican(let standardHours, let daylightEverywhere):
      guard let daylight = northAmericanDaylight(year: year, month: month, day: day, hour: hour),
        !daylight || daylightEverywhere
      else { return nil }
      offset = (standardHours + (daylight ? 1 : 0)) * 60
    }
    return FeedDate(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second, offsetMinutes: offset)
  }

  /// A zone as feeds name it: a fixed offset, or North American generic time (`ET`), standard or daylight by the
  /// date; `daylightEverywhere` is false where part of the zone keeps standard time all year (Arizona, Puerto
  /// Rico), so its summer dates are refused.
  private enum Zone {
    case fixed(minutes: Int)
    case northAmerican(standardHours: Int, daylightEverywhere: Bool)
  }

  /// Zone names (lowercased) that feeds write: RFC 822's, North American generic time, and Europe's. Others are
  /// refused: many are ambiguous (`BST`, `IST`, `AST`), and feedparser reads every name it does not know as UTC.
  private static let zoneNames: [String: Zone] = [
    "z": .fixed(minutes: 0), "ut": .fixed(minutes: 0), "utc": .fixed(minutes: 0), "gmt": .fixed(minutes: 0),
    "est": .fixed(minutes: -300), "edt": .fixed(minutes: -240), "cst": .fixed(minutes: -360),
    "cdt": .fixed(minutes: -300), "mst": .fixed(minutes: -420), "mdt": .fixed(minutes: -360),
    "pst": .fixed(minutes: -480), "pdt": .fixed(minutes: -420), "adt": .fixed(minutes: -180),
    "et": .northAmerican(standardHours: -5, daylightEverywhere: true),
    "ct": .northAmerican(standardHours: -6, daylightEverywhere: true),
    "mt": .northAmerican(standardHours: -7, daylightEverywhere: false),
    "pt": .northAmerican(standardHours: -8, daylightEverywhere: true),
    "at": .northAmerican(standardHours: -4, daylightEverywhere: false),
    "wet": .fixed(minutes: 0), "west": .fixed(minutes: 60), "cet": .fixed(minutes: 60),
    "cest": .fixed(minutes: 120), "met": .fixed(minutes: 60), "mest": .fixed(minutes: 120),
    "eet": .fixed(minutes: 120), "eest": .fixed(minutes: 180),
  ]

  /// `Z`, `+0130`, `+01:30` (and `+01` where `hoursAlone`, as ISO 8601 allows), `GMT+2`, `UTC-01:30`, `Etc/GMT`, or
  /// a name in `zoneNames`, in any case; nil for anything else, and for `Etc/GMT+2` (the tz database's inverted
  /// sign: it means UTC-2).
  private static func readZone(_ word: Text, hoursAlone: Bool) -> Zone? {
    guard let first = word.first, word.count <= 16 else { return nil }
    if first == "+" || first == "-" {
      return numericOffset(word, hourWidths: hoursAlone ? 2...2 : nil).map { .fixed(minutes: $0) }
    }
    guard word.allSatisfy(\.isASCII) else { return nil }
    var name = lowercased(word)
    if name.hasPrefix("etc/") {
      name.removeFirst(4)
      return ["gmt", "utc", "ut", "z"].contains(name) ? .fixed(minutes: 0) : nil
    }
    for prefix in ["gmt", "utc"] where name.hasPrefix(prefix) && name.count > prefix.count {
      return numericOffset(word.dropFirst(prefix.count), hourWidths: 1...2).map { .fixed(minutes: $0) }
    }
    return zoneNames[name]
  }

  /// `+0130`, `+01:30`, or (with `hourWidths`) hours alone: minutes east of UTC, under 24 hours; nil otherwise.
  private static func numericOffset(_ word: Text, hourWidths: ClosedRange<Int>?) -> Int? {
    var cursor = Cursor(rest: word)
    let sign = cursor.skip("+") ? 1 : cursor.skip("-") ? -1 : 0
    let digits = cursor.digits()
    var (hours, minutes) = (0, 0)
    if digits.count == 4 {
      (hours, minutes) = (number(digits.prefix(2)), number(digits.suffix(2)))
    } else if digits.count == 2, cursor.skip(":") {
      let after = cursor.digits()
      // `+00:0` lost a digit, a 0: no zone is 1 to 9 minutes off the hour.
      guard after.count == 2 || after.elementsEqual(["0"]) else { return nil }
      (hours, minutes) = (number(digits), number(after))
    } else if let widths = hourWidths, widths.contains(digits.count) {
      hours = number(digits)
    } else {
      return nil
    }
    guard sign != 0, cursor.atEnd, hours < 24, minutes < 60 else { return nil }
    return sign * (hours * 60 + minutes)
  }

  /// Whether the US and Canada keep daylight time at a local date and hour: since 2007 from the second Sunday of
  /// March to the first Sunday of November, 1987–2006 from the first Sunday of April to the last Sunday of October,
  /// changing at 02:00. Nil in the hour skipped in spring or repeated in autumn, and before 1987.
  static func northAmericanDaylight(year: Int, month: Int, day: Int, hour: Int) -> Bool? {
    guard year >= 1987 else { return nil }
    func sunday(onOrAfter month: Int, _ day: Int) -> Int {
      let days = daysFromCivil(year: year, month: month, day: day)
      return days + (7 - ((days + 4) % 7 + 7) % 7) % 7  // 1970-01-01 was a Thursday
    }
    let start = year >= 2007 ? sunday(onOrAfter: 3, 8) : sunday(onOrAfter: 4, 1)
    let end = year >= 2007 ? sunday(onOrAfter: 11, 1) : sunday(onOrAfter: 10, 25)
    let today = daysFromCivil(year: year, month: month, day: day)
    if today == start { return hour < 2 ? false : hour == 2 ? nil : true }
    if today == end { return hour < 1 ? true : hour == 1 ? nil : false }
    return today > start && today < end
  }

  /// English weekdays, abbreviated or not, and Greek abbreviations, lowercased.
  private static let weekdays: Set<String> = [
    "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "monday", "tuesday",
    "wednesday",
    "thursday", "friday", "saturday", "sunday", "δευ", "τρι", "τρί", "τετ", "πεμ", "πέμ", "παρ", "σαβ", "σάβ",
    "κυρ",
  ]

  /// English month names, abbreviated or not, Greek abbreviations and Hungarian names, lowercased, with their
  /// numbers.
  private static let monthNames: [String: Int] = [
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
    "oct": 10, "nov": 11, "dec": 12, "january": 1, "february": 2, "march": 3, "april": 4, "june": 6,
    "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "ιαν": 1, "φεβ": 2, "μάρ": 3, "μαρ": 3, "απρ": 4, "μάι": 5, "μαΐ": 5, "μαι": 5, "ιούν": 6, "ιουν": 6,
    "ιούλ": 7, "ιουλ": 7, "αύγ": 8, "αυγ": 8, "σεπ": 9, "οκτ": 10, "νοέ": 11, "νοε": 11, "δεκ": 12,
    "január": 1, "február": 2, "március": 3, "április": 4, "május": 5, "június": 6, "július": 7,
    "augusztus": 8, "szeptember": 9, "október": 10,
  ]

  /// `Fri`, `fri.`, `Friday` → true.
  private static func isWeekday(_ word: Text) -> Bool {
    word.count <= 10 && weekdays.contains(String(lowercased(word).trimmingSuffix(".")))
  }

  /// `Nov`, `nov.`, `November` → 11.
  private static func monthNumber(_ word: Text) -> Int? {
    guard word.count <= 10 else { return nil }
    return monthNames[String(lowercased(word).trimmingSuffix("."))]
  }

  /// Perforce's `2006/09/15`.
  private static func slashedDate(_ word: Text) -> (year: Int, month: Int, day: Int)? {
    let parts = word.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
    guard parts.count == 3, let year = number(parts[0], widths: 4...4),
      let month = number(parts[1], widths: 1...2), let day = number(parts[2], widths: 1...2)
    else { return nil }
    return (year, month, day)
  }

  /// A four-digit year, or a two-digit one as `centuryYear(_:)` reads it.
  private static func twoOrFourDigitYear(_ word: Text) -> Int? {
    if let year = number(word, widths: 4...4) { return year }
    return number(word, widths: 2...2).map(centuryYear)
  }

  /// A two-digit year as RFC 2822 reads it: 00–49 is 2000–2049, 50–99 is 1950–1999.
  private static func centuryYear(_ year: Int) -> Int { year < 50 ? 2000 + year : 1900 + year }

  /// `10:15:00`, `10:15`, `9:05:00`, or an hour alone (as feedparser reads it).
  private static func readClock(_ word: Text) -> (hour: Int, minute: Int, second: Int)? {
    let parts = word.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
    guard parts.count <= 3 else { return nil }
    var values = [0, 0, 0]
    for (index, part) in parts.enumerated() {
      guard let value = number(part, widths: 1...2) else { return nil }
      values[index] = value
    }
    return (values[0], values[1], values[2])
  }

  /// Whether a word is `pm` (true) or `am` (false), in any case, with or without dots (`p.m.`); nil otherwise.
  private static func meridiem(_ word: Text) -> Bool? {
    switch lowercased(word) {
    case "am", "a.m.": return false
    case "pm", "p.m.": return true
    default: return nil
    }
  }

  /// The month and day of a day of the year (1 is 1 January); nil past the year's end.
  private static func ordinalDate(year: Int, day: Int) -> (month: Int, day: Int)? {
    guard day >= 1, day <= (daysIn(month: 2, year: year) == 29 ? 366 : 365) else { return nil }
    let date = civilFromDays(daysFromCivil(year: year, month: 1, day: 1) + day - 1)
    return (date.month, date.day)
  }

  /// The words of a date: runs between white space and commas (`Fri,24 Nov` is three words).
  private static func words(_ text: Text) -> [Text] {
    text.split(whereSeparator: { $0 == "," || $0.properties.isWhitespace })
  }

  private static func trimmed(_ text: Text) -> Text {
    let start = text.firstIndex { !$0.properties.isWhitespace } ?? text.endIndex
    let end = text.lastIndex { !$0.properties.isWhitespace }.map { $0 + 1 } ?? start
    return text[start..<max(start, end)]
  }

  private static func lowercased(_ word: Text) -> String {
    var text = ""
    text.unicodeScalars.append(contentsOf: word)
    return text.lowercased()
  }

  /// The value of a word of ASCII digits whose count is in `widths`; nil otherwise.
  private static func number(_ word: Text, widths: ClosedRange<Int>) -> Int? {
    guard widths.contains(word.count), word.allSatisfy(isDigit) else { return nil }
    return number(word)
  }

  /// The value of a run of at most 9 ASCII digits.
  private static func number(_ digits: Text) -> Int {
    digits.reduce(0) { $0 * 10 + Int($1.value - 48) }
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

/// A date's text, as Unicode scalars.
private typealias Text = ArraySlice<Unicode.Scalar>

private func isDigit(_ scalar: Unicode.Scalar) -> Bool { (48...57).contains(scalar.value) }

/// Reads runs of ASCII digits and single characters off the front of a date's text.
private struct Cursor {
  var rest: Text

  var atEnd: Bool { rest.isEmpty }

  /// The run of ASCII digits at the front, consumed.
  mutating func digits() -> Text {
    let run = rest.prefix(while: isDigit)
    rest = rest.dropFirst(run.count)
    return run
  }

  /// The run of letters at the front, consumed; nil (and nothing consumed) when there is none.
  mutating func letters() -> Text? {
    let run = rest.prefix { $0.properties.isAlphabetic }
    rest = rest.dropFirst(run.count)
    return run.isEmpty ? nil : run
  }

  mutating func skip(_ character: Unicode.Scalar) -> Bool {
    guard rest.first == character else { return false }
    rest = rest.dropFirst()
    return true
  }

  /// Consumes white space at the front; whether there was any.
  mutating func skipSpaces() -> Bool {
    let run = rest.prefix { $0.properties.isWhitespace }
    rest = rest.dropFirst(run.count)
    return !run.isEmpty
  }
}

extension String {
  fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
    hasSuffix(suffix) ? self[...].dropLast(suffix.count) : self[...]
  }
}
