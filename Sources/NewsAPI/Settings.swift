import AtlasMessages
import AtlasSettings
import Fetch
import Foundation
import NewsAtlas

/// NewsAPI's orders for search results (`sortBy`).
public let searchOrders = ["relevancy", "popularity", "publishedAt"]

/// The user's settings: `$XDG_CONFIG_HOME/newsatlas/config.toml` (default `~/.config/newsatlas/config.toml`).
///
/// The file is TOML, read and written by `SettingsFile` (AtlasSettings); this type gives its keys their meaning:
/// a key the file sets must be one of `Key` (a typo is refused, not ignored), and each value is validated as
/// `config set` validates it. Flags and the environment override it.
public struct Settings: Sendable {
  /// The keys, what each accepts, and what it is for.
  public enum Key: String, CaseIterable, Sendable {
    case country
    case language
    case category
    case sources
    case sortBy = "sort-by"
    case interfaceLanguage = "interface-language"
    case apiBase = "api-base"
    case apiKey = "api-key"
    case ttlHeadlines = "ttl-headlines"
    case ttlSearch = "ttl-search"
    case ttlSources = "ttl-sources"
    case quotaDay = "quota-day"
    case quotaHalfDay = "quota-half-day"
    case provider
    case gdeltBase = "gdelt-base"
    case gdeltSpacing = "gdelt-spacing"

    /// Whether the value is a whole number (written unquoted, as TOML integers are).
    public var isNumber: Bool {
      switch self {
      case .ttlHeadlines, .ttlSearch, .ttlSources, .quotaDay, .quotaHalfDay, .gdeltSpacing: return true
      default: return false
      }
    }

    /// What the setting is for, in the process's language (`config --help` lists them).
    public var help: String {
      let defaults = NewsConfiguration.defaults
      let seconds = { (value: Double) in
        Message.settingDefaultSeconds(Int(value))
          + (value >= 86400 ? ", \(spokenDuration(value, in: .current))" : "")
      }
      switch self {
      case .country: return Message.settingCountryHelp()
      case .language: return Message.settingLanguageHelp()
      case .category: return Message.settingCategoryHelp()
      case .sources: return Message.settingSourcesHelp()
      case .sortBy: return Message.settingSortByHelp()
      case .interfaceLanguage: return Message.settingInterfaceLanguageHelp()
      case .apiBase: return Message.settingAPIBaseHelp(defaults.apiBase)
      case .apiKey: return Message.settingAPIKeyHelp()
      case .ttlHeadlines: return Message.settingTTLHeadlinesHelp(seconds(defaults.timeToLive.headlines))
      case .ttlSearch: return Message.settingTTLSearchHelp(seconds(defaults.timeToLive.search))
      case .ttlSources: return Message.settingTTLSourcesHelp(seconds(defaults.timeToLive.sources))
      case .quotaDay: return Message.settingQuotaDayHelp(defaults.dailyBudget)
      case .quotaHalfDay: return Message.settingQuotaHalfDayHelp(defaults.halfDayBudget)
      case .provider: return Message.settingProviderHelp(ProviderChoice.spoken(), defaults.provider.rawValue)
      case .gdeltBase: return Message.settingGDELTBaseHelp(defaults.gdeltBase)
      case .gdeltSpacing: return Message.settingGDELTSpacingHelp(Int(defaults.gdeltSpacing))
      }
    }

    /// NewsAPI source ids, comma-separated (`bbc-news,le-monde`), as `HeadlinesRequest.sourceIDs` reads them.
    public static func sourceIDs(_ text: String) throws(SettingsError) -> [String] {
      do { return try HeadlinesRequest.sourceIDs([text]) } catch {
        // sourceIDs refuses an id by its form, or more ids than a request takes.
        guard case .sourceShape(let part) = error else { throw .usage(.tooManySources) }
        throw .usage(.sourceIdShape, printable(String(part.prefix(64))))
      }
    }

    /// The value as stored, or a one-sentence reason it is refused.
    public func validate(_ value: String) throws(SettingsError) -> String {
      let shown = printable(String(value.prefix(64)))
      switch self {
      case .country:
        // Any country GDELT covers: a favourite is asked of the provider that has its news (NewsAPI's 54 alone
        // with the newsapi provider, which then refuses another as --country does).
        let identification = Country.identified(by: value, in: .world)
        guard case .one(let country) = identification else {
          throw SettingsError(
            kind: .usage,
            sentence: CountryIdentification.refusal(
              candidates: identification.candidates, shown: shown, in: .world))
        }
        return country.code
      case .language:
        guard let language = newsLanguage(value) else {
          throw .usage(.notALanguage, shown, newsLanguages.joined(separator: ", "))
        }
        return language
      case .category:
        guard newsCategories.contains(value.lowercased()) else {
          throw .usage(.notACategory, shown, newsCategories.joined(separator: ", "))
        }
        return value.lowercased()
      case .sources:
        return try Self.sourceIDs(value).joined(separator: ",")
      case .sortBy:
        guard let order = searchOrders.first(where: { $0.lowercased() == value.lowercased() }) else {
          throw .usage(.notASortOrder, shown)
        }
        return order
      case .interfaceLanguage:
        guard let language = InterfaceLanguage(rawValue: value.lowercased()) else {
          throw .usage(.notAnInterfaceLanguage, shown)
        }
        return language.rawValue
      case .apiBase, .gdeltBase:
        guard let url = HTTPURL(value), url.query == nil, url.fragment == nil else {
          let (what, example) =
            self == .apiBase
            ? (Sentence(.apiBaseName), "https://newsapi.org")
            : (Sentence(.gdeltBaseName), "https://api.gdeltproject.org")
          throw .usage(.notABase, what, printable(HTTPURL.redacted(String(value.prefix(200)))), example)
        }
        return value
      case .provider:
        guard let choice = ProviderChoice.named(value) else {
          throw .usage(.notAProvider, shown, ProviderChoice.spoken())
        }
        return choice.rawValue
      case .ttlHeadlines, .ttlSearch, .ttlSources, .quotaDay, .quotaHalfDay, .gdeltSpacing:
        let minimum = self == .quotaDay || self == .quotaHalfDay ? 1 : 0
        guard let number = Int(value), number >= minimum else {
          throw .usage(.notAWholeNumber, rawValue, minimum, shown)
        }
        // Bounds a person could mean: beyond them a duration overflows a date ("106751991167301 days").
        let (maximum, meaning): (Int, Sentence) =
          switch self {
          case .quotaDay, .quotaHalfDay: (1_000_000, Sentence(.settingMaximumRequests))
          case .gdeltSpacing: (3_600, Sentence(.settingMaximumHour))
          default: (31_536_000, Sentence(.settingMaximumYear))
          }
        guard number <= maximum else { throw .usage(.settingTooLarge, rawValue, maximum, meaning, shown) }
        return String(number)
      case .apiKey:
        // Never repeated in a message: only what is wrong with it.
        let allowed = { (c: Unicode.Scalar) in
          ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "-"
            || c == "_"
        }
        var problem: Message? = nil
        if value.isEmpty {
          problem = .apiKeyEmpty
        } else if value.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        ) {
          problem = .apiKeyControl
        } else if value.unicodeScalars.count > 256 {
          problem = .apiKeyLong
        } else if !value.unicodeScalars.allSatisfy(allowed) {
          problem = .apiKeyCharacters
        }
        if let problem { throw .usage(.apiKeyProblem, Sentence(problem)) }
        return value
      }
    }
  }

  public private(set) var values: [Key: String] = [:]
  public var path: String { file.path }
  /// The file as read, which `set` edits in place.
  private(set) var file: SettingsFile

  /// No settings, to be written at `path`.
  public init(path: String) { file = SettingsFile(path: path) }

  /// Where the file lives, from the environment (`UserFolders`).
  public static var defaultPath: String { UserFolders().settingsFile }

  /// Reads the file (none is an empty configuration). A file that is not a regular file, is larger than
  /// 64 KiB, is not flat TOML settings, sets a key that is not a setting or a value `config set` would refuse,
  /// or holds the key while others can read it is refused (`configuration`).
  public static func load(path: String = Settings.defaultPath) throws(SettingsError) -> Settings {
    let file = try SettingsFile.read(path: path)
    let settings = try Settings(file: file)
    if settings.values[.apiKey] != nil, file.othersCanRead {
      throw .configuration(.keyFileReadable, path)
    }
    return settings
  }

  /// Reads settings text; `path` names it in errors.
  public static func parse(_ bytes: [UInt8], path: String) throws(SettingsError) -> Settings {
    try Settings(file: SettingsFile.parse(bytes, path: path))
  }

  /// The file's entries as settings: each key one of `Key`, each value valid.
  init(file: SettingsFile) throws(SettingsError) {
    self.file = file
    for entry in file.entries {
      let place = Sentence(.lineOfFile, entry.line, file.path)
      guard let key = Key(rawValue: entry.key) else {
        let near = Key.allCases.first { $0.rawValue == entry.key.lowercased().replacing("_", with: "-") }
        throw .configuration(
          .notASetting, entry.line, file.path, printable(String(entry.key.prefix(64))),
          near.map { Sentence(.didYouMean, $0.rawValue) as any CustomStringConvertible } ?? "")
      }
      let text: String
      switch entry.value {
      case .string(let string): text = string
      case .integer(let number) where key.isNumber: text = String(number)
      default:
        throw .configuration(
          key.isNumber ? .settingMustBeStringOrNumber : .settingMustBeString, entry.line, file.path,
          key.rawValue)
      }
      do {
        values[key] = try key.validate(text)
      } catch {
        throw error.found(in: place)
      }
    }
  }

  public subscript(key: Key) -> String? { values[key] }

  /// A whole-number setting, or `fallback`.
  public func number(_ key: Key, default fallback: Int) -> Int { values[key].flatMap { Int($0) } ?? fallback }

  /// Sets (or with nil removes) one value, validated, and saves the file, changing that value's line alone.
  public mutating func set(_ key: Key, _ value: String?) throws(SettingsError) {
    let valid = try value.map { value throws(SettingsError) in try key.validate(value) }
    let stored = valid.map { valid -> SettingValue in
      key.isNumber ? Int(valid).map(SettingValue.integer) ?? .string(valid) : .string(valid)
    }
    file = try file.setting(key.rawValue, to: stored)
    values[key] = valid
  }

  /// Removes every value and the file.
  public mutating func reset() throws(SettingsError) {
    try SettingsFile.remove(path: path)
    values = [:]
    file = SettingsFile(path: path)
  }
}
