import Foundation
import Synchronization

/// The `Date` header's value (RFC 9110, 5.6.7: `Tue, 24 Nov 2026 10:28:04 GMT`), made once a second.
final class HTTPDate: Sendable {
  private let kept = Mutex<(second: Int, text: String)>((-1, ""))

  func text() -> String {
    let second = time(nil)
    return kept.withLock { kept in
      if kept.second != second {
        kept = (second, Self.text(second: second))
      }
      return kept.text
    }
  }

  static func text(second: Int) -> String {
    var seconds = second
    var parts = tm()
    gmtime_r(&seconds, &parts)
    let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
      + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
  }
}
