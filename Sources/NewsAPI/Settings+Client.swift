import AtlasSettings
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
    return self[.apiBase] ?? NewsConfiguration.defaults.apiBase
  }
}

extension Settings {
  /// GDELT's base URL: `given` (a flag), else `NEWSATLAS_GDELT_BASE`, else the file's `gdelt-base`, else
  /// GDELT's public host.
  ///
  /// - Throws: `SettingsError` for a base that is not an absolute http(s) URL with a host and without a query
  ///   or a fragment: `usage` when it is `given`, `configuration` when it comes from the environment.
  public func gdeltBase(
    given: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(SettingsError) -> String {
    if let given { return try Key.gdeltBase.validate(given) }
    if let base = environment["NEWSATLAS_GDELT_BASE"], !base.isEmpty {
      do {
        return try Key.gdeltBase.validate(base)
      } catch {
        throw error.found(in: "NEWSATLAS_GDELT_BASE")
      }
    }
    return self[.gdeltBase] ?? NewsConfiguration.defaults.gdeltBase
  }

  /// The provider: `given` (a flag or a query parameter), else the file's `provider`, else `auto`.
  ///
  /// - Throws: `SettingsError` (`usage`) for a `given` name that is not a provider.
  public func provider(given: String? = nil) throws(SettingsError) -> ProviderChoice {
    if let given { return ProviderChoice(rawValue: try Key.provider.validate(given))! }
    return self[.provider].flatMap(ProviderChoice.named) ?? NewsConfiguration.defaults.provider
  }
}

extension NewsConfiguration {
  /// The defaults, with what the settings set: `ttl-headlines`, `ttl-search`, `ttl-sources` (seconds),
  /// `quota-day`, `quota-half-day`, `provider` and `gdelt-spacing` (seconds).
  public init(settings: Settings) {
    self.init()
    timeToLive.headlines = Double(settings.number(.ttlHeadlines, default: Int(timeToLive.headlines)))
    timeToLive.search = Double(settings.number(.ttlSearch, default: Int(timeToLive.search)))
    timeToLive.sources = Double(settings.number(.ttlSources, default: Int(timeToLive.sources)))
    dailyBudget = settings.number(.quotaDay, default: dailyBudget)
    halfDayBudget = settings.number(.quotaHalfDay, default: halfDayBudget)
    provider = settings[.provider].flatMap(ProviderChoice.named) ?? provider
    gdeltSpacing = Double(settings.number(.gdeltSpacing, default: Int(gdeltSpacing)))
  }
}

extension CachePolicy {
  /// The policy the settings describe (`NewsConfiguration(settings:)`).
  public init(database: any ResponseStore, settings: Settings, warn: @escaping @Sendable (String) -> Void) {
    self.init(database: database, configuration: NewsConfiguration(settings: settings), warn: warn)
  }
}
