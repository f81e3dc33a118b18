import AtlasMessages
import Foundation
import TOMLKit

/// A value in the settings file: a string, a whole number, or true or false.
public enum SettingValue: Equatable, Sendable, CustomStringConvertible {
  case string(String)
  case integer(Int)
  case boolean(Bool)

  public var description: String {
    switch self {
    case .string(let text): return text
    case .integer(let number): return String(number)
    case .boolean(let flag): return flag ? "true" : "false"
    }
  }
}

/// A settings file: TOML 1.0 (read by TOMLKit), flat, `key = value` lines whose values are strings, whole
/// numbers or booleans, with comments anywhere TOML allows them.
///
/// What it refuses, each in one sentence naming the file and, where there is one, the line: a file that is not
/// a regular file, is over 64 KiB, is not UTF-8 or holds a NUL byte; text that is not TOML (toml++'s reason and
/// line); a table (`[section]`, a dotted key, an inline table), an array, a float, a date or time, and a string
/// holding `\u0000`. What the keys mean is the caller's (`Settings` in the news library).
///
/// Changing a value (`setting(_:to:)`) edits that value in place: every other line, comment and key stays
/// byte for byte as it was.
public struct SettingsFile: Sendable {
  /// One `key = value` of the file.
  public struct Entry: Equatable, Sendable {
    public let key: String
    public let value: SettingValue
    /// Its line in the file, from 1.
    public let line: Int
    /// Where it sits in the file's bytes.
    let span: TOMLLayout.Definition
  }

  /// The file's path, as given.
  public let path: String
  /// Its entries in the order of the file.
  public private(set) var entries: [Entry] = []
  /// Whether the file exists and someone other than its owner may read it (its mode has group or other bits).
  public private(set) var othersCanRead = false
  /// The file's bytes as read.
  private(set) var bytes: [UInt8] = []

  /// No file: no entries.
  public init(path: String) { self.path = path }

  /// The largest settings file read: a handful of lines is a few hundred bytes.
  public static let largestFile = 64 << 10

  /// The entry for `key`, if the file sets it.
  public subscript(key: String) -> Entry? { entries.first { $0.key == key } }

  /// Reads the file at `path`; none is an empty file.
  ///
  /// - Throws: `SettingsError` (`configuration`) for a file that cannot be read or is not flat settings.
  public static func read(path: String) throws(SettingsError) -> SettingsFile {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)  // a FIFO in its place must not block the read
    guard fd >= 0 else {
      if errno == ENOENT { return SettingsFile(path: path) }
      throw .configuration(.settingsCannotOpen, path, String(cString: strerror(errno)))
    }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      throw .configuration(.settingsNotRegular, path)
    }
    guard status.st_size <= largestFile else {
      throw .configuration(.settingsTooLarge, path, largestFile >> 10)
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count <= largestFile {
      let count = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else {
        throw .configuration(.settingsCannotRead, path, String(cString: strerror(errno)))
      }
      if count == 0 { break }
      bytes += chunk[..<count]
    }
    guard bytes.count <= largestFile else {  // it grew while being read
      throw .configuration(.settingsTooLarge, path, largestFile >> 10)
    }
    var file = try parse(bytes, path: path)
    file.othersCanRead = status.st_mode & 0o077 != 0
    return file
  }

  /// Reads settings text; `path` names it in errors.
  ///
  /// - Throws: `SettingsError` (`configuration`) for text that is not flat TOML settings.
  public static func parse(_ bytes: [UInt8], path: String) throws(SettingsError) -> SettingsFile {
    var file = SettingsFile(path: path)
    file.bytes = bytes
    let fix = Sentence(.settingsFix)
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw .configuration(.settingsNotUTF8, path, fix)
    }
    // TOMLKit hands the text to C++ as a C string, which a NUL would cut short.
    if let nul = bytes.firstIndex(of: 0) {
      throw .configuration(.settingsNulByte, lineNumber(of: nul, in: bytes), path, fix)
    }
    /// TOMLKit's table of `text`, or its reason as a sentence.
    func tomlTable(_ text: String) throws(SettingsError) -> TOMLTable {
      do {
        return try TOMLTable(string: text)
      } catch let error as TOMLParseError {
        // toml++'s reason, without the character it saw (which could be the first of the key).
        var reason = error.description
        if let saw = reason.range(of: ", saw '", options: .backwards) {
          reason = String(reason[..<saw.lowerBound])
        }
        throw .configuration(.settingsNotTOMLLine, error.source.begin.line, path, reason, fix)
      } catch {
        throw .configuration(.settingsNotTOML, path, fix)
      }
    }
    // The flat scanner reads the file first, and toml++ only what it read: toml++ aborts the process on some
    // table headers (fuzz-settings: `[# …` then a key on the next line), and tables are refused anyway. A line
    // the scanner cannot read goes to toml++ with the lines before it, for toml++'s reason.
    let layout: TOMLLayout
    do {
      layout = try TOMLLayout(bytes)
    } catch {
      switch error {
      case .table(let line), .dottedKey(let line):
        throw .configuration(.settingsTable, line, path, fix)
      case .compound(let line, let key, let array):
        throw .configuration(array ? .settingsArrayValue : .settingsTableValue, line, path, key, fix)
      case .unexpected(let line):
        let lines = text.split(separator: "\n", maxSplits: line, omittingEmptySubsequences: false)
        _ = try tomlTable(lines.prefix(line).joined(separator: "\n"))
        throw .configuration(.settingsUnreadableLine, line, path, fix)
      }
    }
    let table = try tomlTable(text)
    // The scanner's keys must be TOMLKit's keys, one definition each: nothing read is left out or read twice.
    let keys = table.keys
    guard layout.definitions.count == keys.count, Set(layout.definitions.map(\.key)) == Set(keys) else {
      throw .configuration(.settingsNotKeyValue, path, fix)
    }
    for definition in layout.definitions {
      guard let value = table[definition.key]?.tomlValue else {
        throw .configuration(.settingsNotKeyValue, path, fix)
      }
      let (line, key) = (definition.line, definition.key)
      let setting: SettingValue
      switch value.type {
      case .string:
        guard !definition.holdsNUL, let text = value.string else {
          throw .configuration(.settingsValueNUL, line, path, key, fix)
        }
        setting = .string(text)
      case .int:
        guard let number = value.int else {
          throw .configuration(.settingsValueNotWhole, line, path, key, fix)
        }
        setting = .integer(number)
      case .bool:
        setting = .boolean(value.bool ?? false)
      case .double, .date, .time, .dateTime, .array, .table:
        throw .configuration(.settingsValueType, line, path, key, value.type, fix)
      }
      file.entries.append(Entry(key: definition.key, value: setting, line: definition.line, span: definition))
    }
    return file
  }

  /// The line, from 1, of the byte at `offset`.
  static func lineNumber(of offset: Int, in bytes: [UInt8]) -> Int {
    1 + bytes[..<offset].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
  }
}
