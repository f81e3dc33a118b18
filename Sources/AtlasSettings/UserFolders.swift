import Foundation

/// Where NewsAtlas keeps the user's files, by the XDG Base Directory rules: settings under the config home,
/// the response cache under the cache home, downloaded datasets under the data home.
///
/// `XDG_CONFIG_HOME`, `XDG_CACHE_HOME` and `XDG_DATA_HOME` are used when they are absolute paths; unset, empty
/// or relative (the specification calls a relative path invalid, to be ignored), the defaults are
/// `~/.config`, `~/.cache` and `~/.local/share`. `~` is `HOME` when it is an absolute path, else the
/// account's home directory from the password database.
public struct UserFolders: Sendable, Equatable {
  /// The folder NewsAtlas uses inside each home.
  public static let application = "newsatlas"

  /// The XDG config home (`$XDG_CONFIG_HOME`, default `~/.config`).
  public let configHome: String
  /// The XDG cache home (`$XDG_CACHE_HOME`, default `~/.cache`).
  public let cacheHome: String
  /// The XDG data home (`$XDG_DATA_HOME`, default `~/.local/share`).
  public let dataHome: String

  /// The folders the environment names.
  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    let home = Self.absolute(environment["HOME"]) ?? Self.absolute(Self.passwordDatabaseHome()) ?? ""
    configHome = Self.absolute(environment["XDG_CONFIG_HOME"]) ?? home + "/.config"
    cacheHome = Self.absolute(environment["XDG_CACHE_HOME"]) ?? home + "/.cache"
    dataHome = Self.absolute(environment["XDG_DATA_HOME"]) ?? home + "/.local/share"
  }

  /// NewsAtlas's settings folder, `$XDG_CONFIG_HOME/newsatlas` (0700 once the settings are written).
  public var config: String { configHome + "/" + Self.application }
  /// NewsAtlas's cache folder, `$XDG_CACHE_HOME/newsatlas`.
  public var cache: String { cacheHome + "/" + Self.application }
  /// NewsAtlas's data folder, `$XDG_DATA_HOME/newsatlas`.
  public var data: String { dataHome + "/" + Self.application }

  /// The settings file, `$XDG_CONFIG_HOME/newsatlas/config.toml`.
  public var settingsFile: String { config + "/config.toml" }
  /// The response cache, `$XDG_CACHE_HOME/newsatlas/cache.sqlite`.
  public var cacheFile: String { cache + "/cache.sqlite" }

  /// The account's home directory from the password database (`getpwuid_r`), or nil.
  static func passwordDatabaseHome() -> String? {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>? = nil
    var buffer = [CChar](repeating: 0, count: 16 << 10)
    guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil,
      let directory = entry.pw_dir
    else { return nil }
    return String(cString: directory)
  }

  /// `value` without trailing slashes when it is an absolute path; nil when it is unset, empty or relative.
  static func absolute(_ value: String?) -> String? {
    guard let value, value.hasPrefix("/") else { return nil }
    return trimmed(value)
  }

  /// A path without trailing slashes ("/" stays "", so that "/" + "/newsatlas" is "/newsatlas").
  static func trimmed(_ path: String) -> String {
    var path = Substring(path)
    while path.hasSuffix("/") { path = path.dropLast() }
    return String(path)
  }
}
