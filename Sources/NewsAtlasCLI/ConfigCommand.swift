import ArgumentParser
import AtlasMessages
import AtlasSettings
import Fetch
import GeoFormats
import NewsAPI
import Store

#if canImport(Glibc)
  import Glibc
#endif

struct ConfigCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "config",
    abstract: Message.configAbstract(),
    discussion: helpDiscussion(
      Message.configDiscussion(
        Settings.Key.allCases.map { "\($0.rawValue) (\($0.help))" }.joined(separator: Message.listSemicolon())
      ))
  )

  @Argument(help: ArgumentHelp(Message.configActionHelp()))
  var action: String

  @Argument(help: ArgumentHelp(Message.configKeyHelp()))
  var key: String?

  @Argument(
    help: ArgumentHelp(Message.configValueHelp()))
  var value: String?

  @Option(help: ArgumentHelp(Message.configFormatHelp()))
  var format: TextOrJSON = .text

  @OptionGroup var interface: InterfaceOptions

  /// The value on standard input: one line, its line ending dropped (at most 4 KiB).
  static func standardInputLine() throws(CLIError) -> String {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while bytes.count <= 4096 {
      let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { throw .usage(Message.configCannotRead()) }
      if count == 0 { break }
      bytes += buffer[..<count]
    }
    var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }  // the final line ending
    guard bytes.count <= 4096, lines.count == 1, var line = lines.first else {
      throw .usage(Message.configOneLine())
    }
    if line.last == 0x0D { line = line.dropLast() }
    return String(decoding: line, as: UTF8.self)
  }

  func run() throws {
    if action == "path" {
      print(Settings.defaultPath)
      return
    }
    if action == "reset" {
      var settings = Settings(path: Settings.defaultPath)
      try settings.reset()
      return
    }
    if action == "show" {
      guard key == nil else { throw CLIError.usage(Message.configShowTakesNothing()) }
      try show()
      return
    }
    guard ["get", "set", "unset"].contains(action) else {
      throw CLIError.usage(Message.configUnknownAction(action))
    }
    guard let name = key, let key = Settings.Key(rawValue: name) else {
      let names = Settings.Key.allCases.map(\.rawValue)
      if let name = key, let likely = Suggestions.likely(name, in: names) {
        throw CLIError.usage(Message.configNotASettingDidYouMean(printable(String(name.prefix(64))), likely))
      }
      throw CLIError.usage(Message.configNameASetting(names.joined(separator: ", ")))
    }
    var settings = try LaunchSettings.load()
    switch action {
    case "get":
      guard let current = settings[key] else {
        throw CLIError(description: Message.configNotSet(key.rawValue), exitCode: 1)
      }
      print(key == .apiKey ? String(repeating: "•", count: 4) + current.suffix(4) : current)
    case "set":
      guard let value else { throw CLIError.usage(Message.configGiveValue(key.rawValue)) }
      let given = value == "-" ? try Self.standardInputLine() : value
      if key == .sources { try Self.checkCachedSources(given, settings: settings) }
      try settings.set(key, given)
    default:
      try settings.set(key, nil)
    }
  }

  /// Source ids checked against the sources list the cache holds for the service in use, whatever its age, as
  /// `headlines` checks them: a typo is refused now, naming the nearest ids, not at use. Nothing is sent: with
  /// no list cached (or no cache) the ids are kept as they are.
  static func checkCachedSources(_ value: String, settings: Settings) throws {
    let ids = try Settings.Key.sourceIDs(value)  // their form first, as `set` checks it
    let path = UserFolders().cacheFile
    guard access(path, F_OK) == 0,
      let database = CacheDatabase(path: path, warn: { StandardError.write("newsatlas: \($0)\n") })
    else { return }
    do {
      try NewsAPIClient.checkCachedSources(ids, base: try settings.apiBase(given: nil), database: database)
    } catch let error as NewsAPIError {
      throw CLIError(newsAPI: error)
    }
  }

  /// Every setting, its value in use and where it comes from.
  func show() throws {
    let settings = try LaunchSettings.load()
    let shown = settings.shown(
      language: InterfaceLanguage.given(arguments: Array(CommandLine.arguments.dropFirst())))
    let out = OutputBuffer.standardOutput()
    if format == .json {
      var json = JSONWriter()
      json.object { object in
        object.string("file", settings.path)
        object.array("settings", shown) { json, item in
          json.object { entry in
            entry.string("key", item.key.rawValue)
            entry.value("value", item.value.map(JSONValue.string) ?? .null)
            switch item.origin {
            case .flag(let name):
              entry.string("origin", "flag")
              entry.string("flag", name)
            case .environment(let name):
              entry.string("origin", "environment")
              entry.string("variable", name)
            case .file(_, let line):
              entry.string("origin", "file")
              entry.number("line", Double(line))
            case .defaultValue: entry.string("origin", "default")
            case .unset: entry.string("origin", "unset")
            }
          }
        }
      }
      out.append(json.bytes)
      out.append("\n")
      return
    }
    var table = Columns(titles: Message.configColumns(), caps: [1: 40])
    for item in shown {
      let value = printable(
        item.key == .apiKey && item.value != nil ? Message.originSet() : item.value ?? "-")
      let origin: String
      switch item.origin {
      case .flag(let name): origin = Message.originFlag(name)
      case .environment(let name): origin = Message.originEnvironment(name)
      case .file(let path, let line): origin = Message.originFile(path, line)
      case .defaultValue: origin = Message.originDefault()
      case .unset: origin = Message.originUnset()
      }
      table.append([item.key.rawValue, value, printable(origin)])
    }
    out.append(table.text)
  }
}
