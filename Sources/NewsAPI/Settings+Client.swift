import Foundation
import Store

extension Settings {
  /// The key: `NEWSAPI_KEY` when set and not empty, else the settings file's; nil when neither has one.
  ///
  /// - Throws: `SettingsError` (`configuration`) for a key that could not travel in a header as it is: a
  ///   control character, a space, anything but ASCII letters, digits, `-` and `_`. The file's key was
  ///   checked when the file was read.
  public func apiKey(environment: [String: String] = ProcessInfo.processInfo.environment)
    throws(SettingsError)
    -> String?
  {
    guard let key = environment["NEWSAPI_KEY"], !key.isEmpty else { return self[.apiKey] }
    do {
      return try Key.apiKey.validate(key)
    } catch {
      throw error.found(in: "NEWSAPI_KEY")
    }
  }

  /// The service's base URL: `given` (a flag), else `NEWSATLAS_API_BASE`, else the file's, else newsapi.org.
  ///
  /// - Throws: `SettingsError` for a base that is not an absolute http(s) URL with a host and without a query
  ///   or a fragment: `usage` when it is `given`, `configuration` when it comes from the environment.
  public func apiBase(
    given: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(SettingsError) -> String {
    if let given { return try Key.apiBase.validate(given) }
    if let base = environment["NEWSATLAS_API_BASE"], !base.isEmpty {
      do {
        return try Key.apiBase.validate(base)
      } catch {
        throw error.found(in: "NEWSATLAS_API_BASE")
      }
    }
    return self[.apiBase] ?? "https://newsapi.org"
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
