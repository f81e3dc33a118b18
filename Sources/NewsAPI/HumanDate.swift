import AtlasMessages
import Foundation

/// An article's date as a reader wants it in text output: in their time zone, in their language, and relative
/// for today. JSON keeps ISO 8601 in UTC.
///
/// - `24 Nov 2026, 11:30` in English and `Le 24/11/2026 à 11:30` in French;
/// - today: `11:30 (2 h ago)` / `11:30 (il y a 2 h)`, `(12 min ago)` within the hour, `(just now)` within the minute;
/// - `utc`: `2026-11-24T10:15:00Z`, fixed width, for scripts that parse text.
public struct HumanDate: Sendable {
  public var language: InterfaceLanguage
  public var timeZone: TimeZone
  public var utc: Bool

  /// `timeZone` defaults to the reader's: `TZ`, else the system's.
  public init(language: InterfaceLanguage = .english, timeZone: TimeZone = .current, utc: Bool = false) {
    self.language = language
    self.timeZone = timeZone
    self.utc = utc
  }

  /// The months' messages, January first: the name `dateOnDay`'s `{monthName}` shows.
  public static let months: [Message] = [
    .monthJanuary, .monthFebruary, .monthMarch, .monthApril, .monthMay, .monthJune, .monthJuly, .monthAugust,
    .monthSeptember, .monthOctober, .monthNovember, .monthDecember,
  ]

  /// `published` (ISO 8601, as an article carries it) for people, seen at `now`; text that is not ISO 8601 is
  /// shown as it is, cut to 25 characters, and no date at all as `dateUnknown`. The words and layouts are the
  /// catalogue's (`dateOnDay`, `dateToday` and the months' names).
  public func text(_ published: String?, now: Date = Date()) -> String {
    guard let published else { return Message.dateUnknown(in: language) }
    guard let date = ISO8601.parse(published) else { return String(published.prefix(25)) }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = utc ? TimeZone(identifier: "UTC")! : timeZone
    let when = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    let (year, month, day) = (when.year ?? 0, when.month ?? 1, when.day ?? 0)
    let (hour, minute) = (when.hour ?? 0, when.minute ?? 0)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    if utc {
      return "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(when.second ?? 0))Z"
    }
    var fields = ["hour": two(hour), "minute": two(minute)]
    let age = now.timeIntervalSince(date)
    if age >= 0, calendar.isDate(date, inSameDayAs: now) {
      let minutes = Int(age / 60)
      switch minutes {
      case 0: fields["ago"] = Message.dateJustNow(in: language)
      case ..<60: fields["ago"] = Message.dateMinutesAgo(minutes, in: language)
      default: fields["ago"] = Message.dateHoursAgo(minutes / 60, in: language)
      }
      return Self.filled(Message.dateToday(in: language), fields)
    }
    fields["day"] = "\(day)"
    fields["day2"] = two(day)
    fields["month2"] = two(month)
    fields["monthName"] = Self.months[month - 1](in: language)
    fields["year"] = "\(year)"
    return Self.filled(Message.dateOnDay(in: language), fields)
  }

  /// A date layout with its named fields (`{hour}`) in place; a field it does not know is left as written.
  static func filled(_ layout: String, _ fields: [String: String]) -> String {
    var result = ""
    var rest = layout[...]
    while let open = rest.firstIndex(of: "{") {
      result += rest[..<open]
      let after = rest[rest.index(after: open)...]
      guard let close = after.firstIndex(of: "}"), let value = fields[String(after[..<close])] else {
        result.append("{")
        rest = after
        continue
      }
      result += value
      rest = after[after.index(after: close)...]
    }
    return result + rest
  }
}
