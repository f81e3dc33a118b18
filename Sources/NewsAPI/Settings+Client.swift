import Foundation
import Store

extension Settings {
  /// The key: `NEWSAPI_KEY` when set and not empty, else the settings file's; nil when neither has one.
  public func apiKey(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    environment["NEWSAPI_KEY"].flatMap { $0.isEmpty ? nil : $0 } ?? self[.apiKey]
  }

  /// The service's base URL: `given` (a flag), else `NEWSATLAS_API_BASE`, else the file's, else newsapi.org.
  public func apiBase(
    given: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    given ?? environment["NEWSATLAS_API_BASE"] ?? self[.apiBase] ?? "https://newsapi.org"
  }
}

extension CachePolicy {
  /// The policy the settings describe: answers fresh for `ttl-headlines`, `ttl-search`, `ttl-sources`
  /// seconds, and the plan's `quota-day` and `quota-half-day` budgets.
  public init(database: CacheDatabase, settings: Settings, warn: @escaping @Sendable (String) -> Void) {
    self.init(database: database, warn: warn)
    timeToLive = [
      "headlines": Double(settings.number(.ttlHeadlines, default: 3600)),
      "search": Double(settings.number(.ttlSearch, default: 3600)),
      "sources": Double(settings.number(.ttlSources, default: 7 * 86400)),
    ]
    dailyBudget = settings.number(.quotaDay, default: 100)
    halfDayBudget = settings.number(.quotaHalfDay, default: 50)
  }
}
