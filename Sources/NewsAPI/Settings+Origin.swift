import AtlasMessages
import AtlasSettings
import Fetch
import Foundation

extension Settings.Key {
  /// The environment variable that overrides the setting, if one does.
  public var environmentName: String? {
    switch self {
    case .apiKey: "NEWSAPI_KEY"
    case .apiBase: "NEWSATLAS_API_BASE"
    case .gdeltBase: "NEWSATLAS_GDELT_BASE"
    case .country, .language, .category, .sources, .sortBy, .interfaceLanguage, .ttlHeadlines, .ttlSearch,
      .ttlSources,
      .quotaDay, .quotaHalfDay,
      .provider, .gdeltSpacing:
      nil
    }
  }

  /// The value used when nothing sets it (nil: none, the setting is off).
  public var defaultValue: String? {
    let defaults = NewsConfiguration.defaults
    switch self {
    case .apiBase: return defaults.apiBase
    case .ttlHeadlines: return String(Int(defaults.timeToLive.headlines))
    case .ttlSearch: return String(Int(defaults.timeToLive.search))
    case .ttlSources: return String(Int(defaults.timeToLive.sources))
    case .quotaDay: return String(defaults.dailyBudget)
    case .quotaHalfDay: return String(defaults.halfDayBudget)
    case .provider: return defaults.provider.rawValue
    case .gdeltBase: return defaults.gdeltBase
    case .gdeltSpacing: return String(Int(defaults.gdeltSpacing))
    case .country, .language, .category, .sources, .sortBy, .interfaceLanguage, .apiKey: return nil
    }
  }
}

extension Settings {
  /// Where a setting's value in use comes from.
  public enum Origin: Equatable, Sendable, CustomStringConvertible {
    /// A command-line flag (`--lang`).
    case flag(String)
    case environment(String)
    case file(path: String, line: Int)
    case defaultValue
    /// Nothing sets it and it has no default.
    case unset

    public var description: String {
      switch self {
      case .flag(let name): "flag (\(name))"
      case .environment(let name): "environment ($\(name))"
      case .file(let path, let line): "file (\(path), line \(line))"
      case .defaultValue: "default"
      case .unset: "not set"
      }
    }
  }

  /// One setting as `config show` shows it: its value in use, never the key's (`set` or nil) nor a base URL's
  /// user information, and its origin.
  public struct Shown: Equatable, Sendable {
    public let key: Key
    public let value: String?
    public let origin: Origin
  }

  /// Every setting, in `Key`'s order: the environment over the file over the default. The API key is shown as
  /// `set` or not at all, wherever it comes from. The interface's language is the one in use, as the CLI
  /// chooses it: `--lang` (`language`, as the command line gave it), else the file, else the locale (`LC_ALL`,
  /// `LC_MESSAGES`, `LANG`), else English.
  public func shown(
    environment: [String: String] = ProcessInfo.processInfo.environment, language: InterfaceLanguage? = nil
  ) -> [Shown] {
    Key.allCases.map { key in
      let value: String?
      let origin: Origin
      if key == .interfaceLanguage, let language {
        (value, origin) = (language.rawValue, .flag("--lang"))
      } else if key == .interfaceLanguage, self[key] == nil {
        let variable = InterfaceLanguage.localeVariable(environment)
        (value, origin) = (
          InterfaceLanguage.fromLocale(environment).rawValue,
          variable.map { .environment($0) } ?? .defaultValue
        )
      } else if let name = key.environmentName, let text = environment[name], !text.isEmpty {
        (value, origin) = (text, .environment(name))
      } else if let text = self[key] {
        (value, origin) = (text, file[key.rawValue].map { .file(path: path, line: $0.line) } ?? .unset)
      } else if let text = key.defaultValue {
        (value, origin) = (text, .defaultValue)
      } else {
        (value, origin) = (nil, .unset)
      }
      // The key is never shown; a base URL without any user:password@ it holds, as errors and logs show it.
      let shownValue =
        switch key {
        case .apiKey: value.map { _ in "set" }
        case .apiBase, .gdeltBase: value.map(HTTPURL.redacted)
        default: value
        }
      return Shown(key: key, value: shownValue, origin: origin)
    }
  }
}
