import AtlasMessages
import AtlasSettings
import Fetch
import Foundation
import NewsAtlas

/// The user's feeds by country: `feeds.txt` in the settings folder, one `CC URL` a line (`#` comments), kept
/// in the order added. `newsatlas feeds add|list|remove` edit it; the feeds provider reads it.
///
/// Written as the settings file is: a temporary file created 0600 with `O_EXCL`, synced, renamed over the old
/// one, in a 0700 folder (a feed URL can carry a token).
public struct FeedList: Sendable, Equatable {
  /// One feed of one country.
  public struct Entry: Sendable, Equatable, Hashable {
    /// NewsAPI's code of one of the 54 countries (`fr`).
    public let country: String
    /// An http or https URL.
    public let url: String
  }

  public private(set) var entries: [Entry] = []
  public let path: String

  public init(path: String) { self.path = path }

  /// `feeds.txt` beside the settings file.
  public static var defaultPath: String {
    UserFolders().config + "/feeds.txt"
  }

  /// The largest feeds file read: a thousand feeds is about 100 KiB.
  static let largestFile = 1 << 20
  /// The longest feed URL accepted.
  static let longestURL = 2048

  /// The feeds of one country, in the order added.
  public func feeds(of country: String) -> [String] {
    entries.filter { $0.country == country }.map(\.url)
  }

  /// The countries that have feeds.
  public var countries: Set<String> { Set(entries.map(\.country)) }

  /// Adds a feed (checked) and saves the file; false, and nothing written, when the country has it already.
  public mutating func add(country: String, url: String) throws(SettingsError) -> Bool {
    let entry = Entry(country: try Self.validate(country: country), url: try Self.validate(url: url))
    guard !entries.contains(entry) else { return false }
    entries.append(entry)
    try save()
    return true
  }

  /// Removes a feed and saves the file; false, and nothing written, when the country does not have it.
  public mutating func remove(country: String, url: String) throws(SettingsError) -> Bool {
    let entry = Entry(country: try Self.validate(country: country), url: url)
    guard let index = entries.firstIndex(of: entry) else { return false }
    entries.remove(at: index)
    try save()
    return true
  }

  /// A country as given on a command line or in the file: its code or its name (`fr`, `France`).
  public static func validate(country: String) throws(SettingsError) -> String {
    let shown = printable(String(country.prefix(64)))
    let identification = Country.identified(by: country)
    if case .one(let found) = identification { return found.code }
    throw SettingsError(
      kind: .usage,
      sentence: CountryIdentification.refusal(candidates: identification.candidates, shown: shown))
  }

  /// A feed URL: http or https with a host, no white space or control character, at most 2,048 characters.
  public static func validate(url: String) throws(SettingsError) -> String {
    let shown = printable(HTTPURL.redacted(String(url.prefix(200))))
    guard url.count <= longestURL else {
      throw .usage(.feedsURLTooLong, shown, longestURL)
    }
    guard
      !url.unicodeScalars.contains(where: {
        $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F
      }),
      HTTPURL(url) != nil
    else {
      throw .usage(.feedsNotURL, shown)
    }
    return url
  }

  /// Reads the file (none is an empty list). A file that is not a regular file or is larger than 1 MiB is
  /// refused (`configuration`), as is a line that is not a country and a URL.
  public static func load(path: String = FeedList.defaultPath) throws(SettingsError) -> FeedList {
    let shown = printable(path)
    guard let handle = FileHandle(forReadingAtPath: path) else {
      if !FileManager.default.fileExists(atPath: path) { return FeedList(path: path) }
      throw .configuration(.feedsCannotRead, shown)
    }
    defer { try? handle.close() }
    var status = stat()
    guard fstat(handle.fileDescriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      throw .configuration(.feedsNotRegular, shown)
    }
    guard status.st_size <= largestFile, let data = try? handle.read(upToCount: largestFile + 1),
      data.count <= largestFile
    else {
      throw .configuration(.feedsTooLarge, shown)
    }
    return try parse(Array(data), path: path)
  }

  /// Reads feeds text: `CC URL` a line, blank lines and `#` comments allowed; `path` names it in errors.
  public static func parse(_ bytes: [UInt8], path: String) throws(SettingsError) -> FeedList {
    let shown = printable(path)
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw .configuration(.feedsNotUTF8, shown)
    }
    var list = FeedList(path: path)
    for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
      if line.isEmpty || line.hasPrefix("#") { continue }
      let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard fields.count == 2 else {
        throw .configuration(.feedsBadLine, number + 1, shown)
      }
      do {
        let entry = Entry(
          country: try validate(country: String(fields[0])), url: try validate(url: String(fields[1])))
        if !list.entries.contains(entry) { list.entries.append(entry) }
      } catch {
        throw error.found(in: Sentence(.feedsLinePlace, number + 1, shown))
      }
    }
    return list
  }

  /// The file's text.
  var text: String {
    "# NewsAtlas feeds, one 'country URL' a line; 'newsatlas feeds add|list|remove' edit it.\n"
      + entries.map { "\($0.country) \($0.url)\n" }.joined()
  }

  private func save() throws(SettingsError) {
    try SettingsFile.writePrivately(Array(text.utf8), path: path, naming: Sentence(.theFeedsFile))
  }
}
