import Foundation
import NewsAtlas

/// Why the settings cannot be read or a value cannot be set, in one sentence.
public struct SettingsError: Error, CustomStringConvertible, Sendable {
  /// Whether the value came from the command line (else the file or the disk is at fault).
  public let isUsage: Bool
  public let description: String

  static func usage(_ message: String) -> SettingsError { SettingsError(isUsage: true, description: message) }
  static func data(_ message: String) -> SettingsError { SettingsError(isUsage: false, description: message) }
}

/// The user's settings: `$XDG_CONFIG_HOME/newsatlas/config.toml` (default `~/.config/newsatlas/config.toml`).
///
/// The file is flat TOML (`key = "value"`, one a line, `#` comments), read and written here: a handful of
/// strings needs no TOML library. Flags and the environment override it.
public struct Settings {
  /// The keys, what each accepts, and what it is for.
  public enum Key: String, CaseIterable, Sendable {
    case country
    case language
    case category
    case apiBase = "api-base"
    case apiKey = "api-key"
    case ttlHeadlines = "ttl-headlines"
    case ttlSearch = "ttl-search"
    case ttlSources = "ttl-sources"
    case quotaDay = "quota-day"
    case quotaHalfDay = "quota-half-day"

    /// Whether the value is a whole number (written unquoted, as TOML integers are).
    public var isNumber: Bool {
      switch self {
      case .ttlHeadlines, .ttlSearch, .ttlSources, .quotaDay, .quotaHalfDay: return true
      default: return false
      }
    }

    public var help: String {
      switch self {
      case .country:
        return "the favourite country, used by headlines when no country is named (one of the 54)"
      case .language: return "the search language (one of NewsAPI's 14)"
      case .category: return "the default headlines category"
      case .apiBase: return "the service's base URL"
      case .apiKey: return "the NewsAPI key (the file must then be readable by you alone)"
      case .ttlHeadlines: return "seconds cached headlines stay fresh (default 3600)"
      case .ttlSearch: return "seconds cached searches stay fresh (default 3600)"
      case .ttlSources: return "seconds the cached sources list stays fresh (default 604800, a week)"
      case .quotaDay: return "the plan's requests per 24 hours (default 100, the free plan)"
      case .quotaHalfDay: return "the plan's requests per 12 hours (default 50)"
      }
    }

    /// The value as stored, or a one-sentence reason it is refused.
    public func validate(_ value: String) throws(SettingsError) -> String {
      switch self {
      case .country:
        guard let country = Country.named(code: value) else {
          throw .usage("'\(value)' is not one of NewsAPI's 54 countries; 'newsatlas countries' lists them.")
        }
        return country.code
      case .language:
        let language = value.lowercased() == "se" ? "sv" : value.lowercased()
        guard newsLanguages.contains(language) else {
          throw .usage(
            "'\(value)' is not a NewsAPI language; use one of \(newsLanguages.joined(separator: ", ")).")
        }
        return language
      case .category:
        guard newsCategories.contains(value.lowercased()) else {
          throw .usage(
            "'\(value)' is not a NewsAPI category; use one of \(newsCategories.joined(separator: ", ")).")
        }
        return value.lowercased()
      case .apiBase:
        guard value.hasPrefix("http://") || value.hasPrefix("https://") else {
          throw .usage("The API base '\(value)' is not an http or https URL.")
        }
        return value
      case .ttlHeadlines, .ttlSearch, .ttlSources, .quotaDay, .quotaHalfDay:
        let minimum = self == .quotaDay || self == .quotaHalfDay ? 1 : 0
        guard let number = Int(value), number >= minimum else {
          throw .usage("\(rawValue) takes a whole number, \(minimum) or more, not '\(value)'.")
        }
        return String(number)
      case .apiKey:
        guard !value.isEmpty, value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        else {
          throw .usage("An API key is letters and digits (NewsAPI's are 32 hexadecimal digits).")
        }
        return value
      }
    }
  }

  public private(set) var values: [Key: String] = [:]
  public let path: String

  public init(path: String) { self.path = path }

  /// Where the file lives, from the environment.
  public static var defaultPath: String {
    let environment = ProcessInfo.processInfo.environment
    let base =
      environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
    return base + "/newsatlas/config.toml"
  }

  /// Reads the file (none is an empty configuration).
  public static func load(path: String = Settings.defaultPath) throws(SettingsError) -> Settings {
    guard FileManager.default.fileExists(atPath: path) else { return Settings(path: path) }
    let bytes: [UInt8]
    do {
      bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
      throw .data(
        "Cannot read the settings file '\(path)'; check its permissions, or run 'newsatlas config reset'.")
    }
    let settings = try parse(bytes, path: path)
    if settings.values[.apiKey] != nil {
      var status = stat()
      if stat(path, &status) == 0, status.st_mode & 0o077 != 0 {
        throw .usage(
          "'\(path)' holds an API key but other users can read it, so it is not used; run: chmod 600 '\(path)'."
        )
      }
    }
    return settings
  }

  /// Reads settings text (flat TOML: `key = "value"` or `key = 123`, `#` comments); `path` names it in errors.
  public static func parse(_ bytes: [UInt8], path: String) throws(SettingsError) -> Settings {
    var settings = Settings(path: path)
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw .data("The settings file '\(path)' is not UTF-8 text; fix it or run 'newsatlas config reset'.")
    }
    for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") { continue }
      guard let equals = line.firstIndex(of: "=") else {
        throw .data(
          "Line \(number + 1) of '\(path)' is not key = \"value\"; fix it or run 'newsatlas config reset'.")
      }
      let name = line[..<equals].trimmingCharacters(in: .whitespaces)
      var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      guard let key = Key(rawValue: name) else {
        throw .data(
          "Line \(number + 1) of '\(path)' sets '\(name)', which is not a setting; 'newsatlas config --help' lists them."
        )
      }
      if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
        value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
          .replacingOccurrences(of: "\\\\", with: "\\")
      } else if !(key.isNumber && !value.isEmpty && value.allSatisfy(\.isNumber)) {
        throw .data(
          "Line \(number + 1) of '\(path)': the value of \(name) must be a quoted string"
            + (key.isNumber ? " or a whole number." : "."))
      }
      settings.values[key] = try key.validate(value)
    }
    return settings
  }

  public subscript(key: Key) -> String? { values[key] }

  /// A whole-number setting, or `fallback`.
  public func number(_ key: Key, default fallback: Int) -> Int { values[key].flatMap { Int($0) } ?? fallback }

  /// Sets (or with nil removes) one value, validated, and saves the file.
  public mutating func set(_ key: Key, _ value: String?) throws(SettingsError) {
    values[key] = try value.map { value throws(SettingsError) in try key.validate(value) }
    try save()
  }

  /// Removes every value and the file.
  public mutating func reset() throws(SettingsError) {
    values = [:]
    try? FileManager.default.removeItem(atPath: path)
  }

  /// Writes the file, readable by the user alone (it may hold the key).
  private func save() throws(SettingsError) {
    let text =
      "# NewsAtlas settings; 'newsatlas config --help' explains them.\n"
      + Key.allCases.compactMap { key in
        values[key].map { value in
          if key.isNumber { return "\(key.rawValue) = \(value)\n" }
          let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
            of: "\"", with: "\\\"")
          return "\(key.rawValue) = \"\(escaped)\"\n"
        }
      }.joined()
    let directory = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let temporary = path + ".tmp-\(getpid())"
      guard
        FileManager.default.createFile(
          atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
      else { throw CocoaError(.fileWriteUnknown) }
      guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    } catch {
      throw .data("Cannot write the settings file '\(path)'; check that its folder is writable.")
    }
  }
}
