import AtlasMessages
import Foundation
import Store

/// How a `NewsAPIClient` uses the on-disk cache and counts its requests against the plan.
public struct CachePolicy: Sendable {
  /// Where answers are kept and requests counted: the SQLite cache, or a store in memory.
  public let database: any ResponseStore
  /// Seconds an answer stays fresh, by kind.
  public var timeToLive: NewsConfiguration.TimeToLive
  /// Ask the service even when a fresh answer is cached.
  public var refresh = false
  /// Never ask the service: answer from the cache, whatever its age, or fail.
  public var offline = false
  /// Send even when the plan's budget is spent.
  public var force = false
  /// The plan's requests per rolling 24 hours and 12 hours (`NewsConfiguration`'s defaults: the free plan).
  public var dailyBudget: Int
  public var halfDayBudget: Int
  /// Where warnings go (stale answers served, cache trouble): one sentence each.
  public let warn: @Sendable (String) -> Void

  /// The policy of `configuration` (its times to live and budgets) over `database`.
  public init(
    database: any ResponseStore, configuration: NewsConfiguration = .defaults,
    warn: @escaping @Sendable (String) -> Void
  ) {
    self.database = database
    self.warn = warn
    timeToLive = configuration.timeToLive
    dailyBudget = configuration.dailyBudget
    halfDayBudget = configuration.halfDayBudget
  }

  /// Counts one request about to be sent, if the budget has room for it (whatever the use with `force`);
  /// throws, and nothing may be sent, when it has none or when the cache cannot count it.
  func reserve() throws(NewsAPIError) {
    let windows: [(seconds: Double, limit: Int)] =
      force ? [] : [(86400, dailyBudget), (43200, halfDayBudget)]
    switch database.reserveRequest(windows: windows) {
    case .reserved: return
    case .overBudget, .tooLate: throw .budgetSpent(usage())  // tooLate: never, with no time limit
    case .failed(let reason): throw .cacheUnavailable(database.path, reason: reason)
    }
  }

  /// How the quota stands now.
  public func usage(now: Date = Date()) -> QuotaUsage {
    let day = database.requests(since: now.addingTimeInterval(-86400))
    let half = day.filter { $0 > now.addingTimeInterval(-43200) }
    return QuotaUsage(
      lastDay: day.count, lastHalfDay: half.count, dailyBudget: dailyBudget, halfDayBudget: halfDayBudget,
      dayFreesAt: day.first.map { $0.addingTimeInterval(86400) },
      halfDayFreesAt: half.first.map { $0.addingTimeInterval(43200) })
  }
}

/// Requests sent in the rolling windows, against the plan.
public struct QuotaUsage: Sendable, Equatable {
  public let lastDay: Int
  public let lastHalfDay: Int
  public let dailyBudget: Int
  public let halfDayBudget: Int
  /// When the oldest request of each window leaves it.
  public let dayFreesAt: Date?
  public let halfDayFreesAt: Date?

  public var isSpent: Bool { lastDay >= dailyBudget || lastHalfDay >= halfDayBudget }

  /// When the next request may be sent, if the budget is spent now.
  public var nextFreeAt: Date? {
    var dates: [Date] = []
    if lastDay >= dailyBudget, let date = dayFreesAt { dates.append(date) }
    if lastHalfDay >= halfDayBudget, let date = halfDayFreesAt { dates.append(date) }
    return dates.max()
  }
}

/// "3 minutes", "2 hours", "5 days": a duration as people say it.
public func spokenDuration(_ seconds: Double, in language: InterfaceLanguage = .english) -> String {
  let seconds = max(0, seconds)
  func unit(_ value: Double, _ one: Message, _ many: Message) -> String {
    let whole = Int(value.rounded())
    return whole == 1 ? one(in: language) : many(whole, in: language)
  }
  if seconds < 90 { return unit(seconds, .durationSecond, .durationSeconds) }
  if seconds < 90 * 60 { return unit(seconds / 60, .durationMinute, .durationMinutes) }
  if seconds < 36 * 3600 { return unit(seconds / 3600, .durationHour, .durationHours) }
  return unit(seconds / 86400, .durationDay, .durationDays)
}
