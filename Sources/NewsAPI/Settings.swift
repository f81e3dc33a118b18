import Fetch
import Foundation
import NewsAtlas

/// Why the settings cannot be read or a value cannot be set, in one sentence.
public struct SettingsError: Error, CustomStringConvertible, Sendable {
  public enum Kind: Sendable {
    /// A value given on the command line (`config set`, a flag) is wrong.
    case usage
    /// The settings file or the environment holds something wrong (found when it is used).
    case configuration
    /// The settings file could not be written.
    case cannotWrite
  }
  public let kind: Kind
  public let description: String

  static func usage(_ message: String) -> SettingsError { SettingsError(kind: .usage, description: message) }
  static func configuration(_ message: String) -> SettingsError {
    SettingsError(kind: .configuration, description: message)
  }
  static func cannotWrite(_ message: String) -> SettingsError {
    SettingsError(kind: .cannotWrite, description: message)
  }

  /// The same sentence as a configuration error found in `place` ("NEWSAPI_KEY", "line 2 of 'FILE'").
  func found(in place: String) -> SettingsError {
    .configuration("In \(place), " + description.prefix(1).lowercased() + description.dropFirst())
  }
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
      let defaults = NewsConfiguration.defaults
      let seconds = { (value: Double) in
        "default \(Int(value))" + (value >= 86400 ? ", \(spokenDuration(value))" : "")
      }
      switch self {
      case .country:
        return "the favourite country, used by headlines when no country is named (one of the 54)"
      case .language: return "the search language (one of NewsAPI's 14)"
      case .category: return "the default headlines category"
      case .apiBase: return "the service's base URL (default \(defaults.apiBase))"
      case .apiKey: return "the NewsAPI key (the file must then be readable by you alone)"
      case .ttlHeadlines:
        return "seconds cached headlines stay fresh (\(seconds(defaults.timeToLive.headlines)))"
      case .ttlSearch: return "seconds cached searches stay fresh (\(seconds(defaults.timeToLive.search)))"
      case .ttlSources:
        return "seconds the cached sources list stays fresh (\(seconds(defaults.timeToLive.sources)))"
      case .quotaDay:
        return "the plan's requests per 24 hours (default \(defaults.dailyBudget), the free plan)"
      case .quotaHalfDay: return "the plan's requests per 12 hours (default \(defaults.halfDayBudget))"
      }
    }

    /// The value as stored, or a one-sentence reason it is refused.
    public func validate(_ value: String) throws(SettingsError) -> String {
      let shown = printable(String(value.prefix(64)))
      switch self {
      case .country:
        let identification = Country.identified(by: value)
        guard case .one(let country) = identification else {
          throw .usage(identification.refusal(shown: shown) ?? "")
        }
        return country.code
      case .language:
        let language = value.lowercased() == "se" ? "sv" : value.lowercased()
        guard newsLanguages.contains(language) else {
          throw .usage(
            "'\(shown)' is not a NewsAPI language; use one of \(newsLanguages.joined(separator: ", ")).")
        }
        return language
      case .category:
        guard newsCategories.contains(value.lowercased()) else {
          throw .usage(
            "'\(shown)' is not a NewsAPI category; use one of \(newsCategories.joined(separator: ", ")).")
        }
        return value.lowercased()
      case .apiBase:
        guard let url = HTTPURL(value), url.query == nil, url.fragment == nil else {
          throw .usage(
            "The API base '\(printable(HTTPURL.redacted(String(value.prefix(200)))))' is not an http or "
              + "https URL with a host (and no query or fragment), such as https://newsapi.org.")
        }
        return value
      case .ttlHeadlines, .ttlSearch, .ttlSources, .quotaDay, .quotaHalfDay:
        let minimum = self == .quotaDay || self == .quotaHalfDay ? 1 : 0
        guard let number = Int(value), number >= minimum else {
          throw .usage("\(rawValue) takes a whole number, \(minimum) or more, not '\(shown)'.")
        }
        return String(number)
      case .apiKey:
        // Never repeated in a message: only what is wrong with it.
        let allowed = { (c: Unicode.Scalar) in
          ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "-"
            || c == "_"
        }
        var problem: String? = nil
        if value.isEmpty {
          problem = "is empty"
        } else if value.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        ) {
          problem = "holds a control character (a line break, a tab, an escape)"
        } else if value.unicodeScalars.count > 256 {
          problem = "is longer than 256 characters"
        } else if !value.unicodeScalars.allSatisfy(allowed) {
          problem = "holds a character other than a letter, a digit, - or _"
        }
        if let problem {
          throw .usage(
            "The API key \(problem); a key is ASCII letters, digits, - and _ (NewsAPI's are 32 hexadecimal "
              + "digits).")
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

  /// The largest settings file read: a handful of lines is a few hundred bytes.
  static let largestFile = 64 << 10

  /// Reads the file (none is an empty configuration). A file that is not a regular file, is larger than
  /// 64 KiB, or holds the key while others can read it is refused (`configuration`).
  public static func load(path: String = Settings.defaultPath) throws(SettingsError) -> Settings {
    let shown = printable(path)
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)  // a FIFO in its place must not block the read
    guard fd >= 0 else {
      if errno == ENOENT { return Settings(path: path) }
      throw .configuration(
        "Cannot read the settings file '\(shown)' (\(String(cString: strerror(errno)))); check its "
          + "permissions, or run 'newsatlas config reset'.")
    }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      throw .configuration(
        "The settings file '\(shown)' is not a regular file; remove it or run 'newsatlas config reset'.")
    }
    guard status.st_size <= largestFile else {
      throw .configuration(
        "The settings file '\(shown)' is larger than \(largestFile >> 10) KiB, so it is not settings; "
          + "run 'newsatlas config reset'.")
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count <= largestFile {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else {
        throw .configuration(
          "Cannot read the settings file '\(shown)' (\(String(cString: strerror(errno)))); "
            + "run 'newsatlas config reset'.")
      }
      if count == 0 { break }
      bytes += chunk[..<count]
    }
    let settings = try parse(bytes, path: path)
    if settings.values[.apiKey] != nil, status.st_mode & 0o077 != 0 {
      throw .configuration(
        "'\(shown)' holds an API key but other users can read it, so it is not used; run: "
          + "chmod 600 '\(shown)'.")
    }
    return settings
  }

  /// Reads settings text (flat TOML: `key = "value"` or `key = 123`, `#` comments); `path` names it in errors.
  public static func parse(_ bytes: [UInt8], path: String) throws(SettingsError) -> Settings {
    var settings = Settings(path: path)
    let shown = printable(path)
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw .configuration(
        "The settings file '\(shown)' is not UTF-8 text; fix it or run 'newsatlas config reset'.")
    }
    for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") { continue }
      let place = "line \(number + 1) of '\(shown)'"
      guard let equals = line.firstIndex(of: "=") else {
        throw .configuration(
          "Line \(number + 1) of '\(shown)' is not key = \"value\"; fix it or run "
            + "'newsatlas config reset'.")
      }
      let name = line[..<equals].trimmingCharacters(in: .whitespaces)
      var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      guard let key = Key(rawValue: name) else {
        throw .configuration(
          "Line \(number + 1) of '\(shown)' sets '\(printable(String(name.prefix(64))))', which is not a "
            + "setting; 'newsatlas config --help' lists them.")
      }
      if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
        guard let unescaped = unescape(value.dropFirst().dropLast()) else {
          throw .configuration(
            "Line \(number + 1) of '\(shown)': the value of \(name) is not a TOML string (a quote or a "
              + "backslash that is not escaped); fix it or run 'newsatlas config reset'.")
        }
        value = unescaped
      } else if !(key.isNumber && !value.isEmpty && value.allSatisfy(\.isNumber)) {
        throw .configuration(
          "Line \(number + 1) of '\(shown)': the value of \(name) must be a quoted string"
            + (key.isNumber ? " or a whole number." : "."))
      }
      do {
        settings.values[key] = try key.validate(value)
      } catch {
        throw error.found(in: place)
      }
    }
    return settings
  }

  /// A TOML basic string's text as written between its quotes (`\\`, `\"`, `\b`, `\t`, `\n`, `\f`, `\r`,
  /// `\uXXXX`, `\UXXXXXXXX`), or nil when it holds a bare quote or an escape TOML does not define.
  static func unescape(_ text: Substring) -> String? {
    var result = String.UnicodeScalarView()
    var scalars = text.unicodeScalars[...]
    while let scalar = scalars.popFirst() {
      if scalar == "\"" { return nil }
      guard scalar == "\\" else {
        result.append(scalar)
        continue
      }
      guard let escape = scalars.popFirst() else { return nil }
      switch escape {
      case "\\", "\"": result.append(escape)
      case "b": result.append("\u{08}")
      case "t": result.append("\t")
      case "n": result.append("\n")
      case "f": result.append("\u{0C}")
      case "r": result.append("\r")
      case "u", "U":
        let digits = escape == "u" ? 4 : 8
        guard scalars.count >= digits,
          let value = UInt32(String(String.UnicodeScalarView(scalars.prefix(digits))), radix: 16),
          let decoded = Unicode.Scalar(value)
        else { return nil }
        scalars = scalars.dropFirst(digits)
        result.append(decoded)
      default: return nil
      }
    }
    return String(result)
  }

  /// `text` as a TOML basic string, quotes included: a quote, a backslash or a control character cannot end
  /// the value or start another line.
  static func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
        let hex = String(scalar.value, radix: 16, uppercase: true)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
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

  /// Writes the file, readable by the user alone (it may hold the key), in a folder only the user can enter.
  private func save() throws(SettingsError) {
    let text =
      "# NewsAtlas settings; 'newsatlas config --help' explains them.\n"
      + Key.allCases.compactMap { key in
        values[key].map { value in "\(key.rawValue) = \(key.isNumber ? value : Self.quoted(value))\n" }
      }.joined()
    try Self.writePrivately(Array(text.utf8), path: path, naming: "the settings file")
  }

  /// Writes `bytes` as the file at `path`, readable by the user alone, in a folder only the user can enter:
  /// the settings file and the feeds file.
  ///
  /// The bytes go to a temporary file created with `O_CREAT | O_EXCL` and mode 0600 (never wider, not even for
  /// a moment), are synced, and the file is renamed over the old one; the folder is synced too. A failure
  /// removes the temporary file and leaves the old file as it was. `what` names the file in errors.
  static func writePrivately(_ bytes: [UInt8], path: String, naming what: String) throws(SettingsError) {
    let directory = (path as NSString).deletingLastPathComponent
    let failure = { (step: String, code: Int32) -> SettingsError in
      .cannotWrite(
        "Cannot write \(what) '\(printable(path))': \(step) failed (\(String(cString: strerror(code))))."
      )
    }
    guard Self.makeFolder(directory) else { throw failure("creating its folder", errno) }
    var temporary = ""
    var fd: Int32 = -1
    for _ in 0..<8 where fd < 0 {
      temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: .min ... .max))"
      fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
      if fd < 0 && errno != EEXIST { break }
    }
    guard fd >= 0 else { throw failure("creating a temporary file", errno) }
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        let code = errno
        close(fd)
        unlink(temporary)
        throw failure("writing", code)
      }
      written += count
    }
    guard fsync(fd) == 0 else {
      let code = errno
      close(fd)
      unlink(temporary)
      throw failure("syncing", code)
    }
    close(fd)
    guard rename(temporary, path) == 0 else {
      let code = errno
      unlink(temporary)
      throw failure("renaming", code)
    }
    let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if folder >= 0 {
      _ = fsync(folder)  // the rename itself reaches the disk
      close(folder)
    }
  }

  /// Creates `directory` and any missing parent with mode 0700, and with `own` makes `directory` itself 0700
  /// when it exists (it holds the key's file); false, with `errno` set, when that fails.
  static func makeFolder(_ directory: String, own: Bool = true) -> Bool {
    var status = stat()
    if stat(directory, &status) != 0 {
      guard errno == ENOENT else { return false }
      let parent = (directory as NSString).deletingLastPathComponent
      if !parent.isEmpty && parent != directory && !makeFolder(parent, own: false) { return false }
      return mkdir(directory, 0o700) == 0 || errno == EEXIST
    }
    guard status.st_mode & S_IFMT == S_IFDIR else {
      errno = ENOTDIR
      return false
    }
    return !own || status.st_mode & 0o077 == 0 || chmod(directory, 0o700) == 0
  }
}
