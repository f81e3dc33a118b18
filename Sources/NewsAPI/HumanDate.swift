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

  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// `published` (ISO 8601, as an article carries it) for people, seen at `now`; text that is not ISO 8601 is
  /// shown as it is, cut to 25 characters.
  public func text(_ published: String, now: Date = Date()) -> String {
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
    let clock = "\(two(hour)):\(two(minute))"
    let age = now.timeIntervalSince(date)
    if age >= 0, calendar.isDate(date, inSameDayAs: now) {
      let minutes = Int(age / 60)
      let ago: String
      switch (language, minutes) {
      case (.english, 0): ago = "just now"
      case (.french, 0): ago = "à l'instant"
      case (.english, ..<60): ago = "\(minutes) min ago"
      case (.french, ..<60): ago = "il y a \(minutes) min"
      case (.english, _): ago = "\(minutes / 60) h ago"
      case (.french, _): ago = "il y a \(minutes / 60) h"
      }
      return "\(clock) (\(ago))"
    }
    switch language {
    case .english: return "\(day) \(Self.months[month - 1]) \(year), \(clock)"
    case .french: return "Le \(two(day))/\(two(month))/\(year) à \(clock)"
    }
  }
}
