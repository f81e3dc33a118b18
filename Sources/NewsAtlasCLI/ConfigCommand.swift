import ArgumentParser
import AtlasSettings
import NewsAPI

#if canImport(Glibc)
  import Glibc
#endif

struct ConfigCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "config",
    abstract: "Show or change the settings file ($XDG_CONFIG_HOME/newsatlas/config.toml).",
    discussion: """
      config get KEY | config set KEY VALUE | config unset KEY | config reset | config path. Keys: \
      \(Settings.Key.allCases.map { "\($0.rawValue) (\($0.help))" }.joined(separator: "; ")). \
      Flags and the environment (NEWSAPI_KEY, NEWSATLAS_API_BASE) override the file.
      """
  )

  @Argument(help: "get, set, unset, reset or path.")
  var action: String

  @Argument(help: "The setting's name.")
  var key: String?

  @Argument(
    help: "The value, for set; - reads it from standard input (keeps a key out of ps and shell history).")
  var value: String?

  /// The value on standard input: one line, its line ending dropped (at most 4 KiB).
  static func standardInputLine() throws(CLIError) -> String {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while bytes.count <= 4096 {
      let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { throw .usage("Cannot read the value from standard input.") }
      if count == 0 { break }
      bytes += buffer[..<count]
    }
    var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }  // the final line ending
    guard bytes.count <= 4096, lines.count == 1, var line = lines.first else {
      throw .usage("'config set KEY -' takes one line of at most 4 KiB on standard input.")
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
    guard ["get", "set", "unset"].contains(action) else {
      throw CLIError.usage("'\(action)' is not a config action; use get, set, unset, reset or path.")
    }
    guard let name = key, let key = Settings.Key(rawValue: name) else {
      throw CLIError.usage(
        "Name a setting: \(Settings.Key.allCases.map(\.rawValue).joined(separator: ", ")).")
    }
    var settings = try Settings.load()
    switch action {
    case "get":
      guard let current = settings[key] else {
        throw CLIError(description: "\(key.rawValue) is not set.", exitCode: 1)
      }
      print(key == .apiKey ? String(repeating: "•", count: 4) + current.suffix(4) : current)
    case "set":
      guard let value else { throw CLIError.usage("Give the value after 'config set \(key.rawValue)'.") }
      try settings.set(key, value == "-" ? try Self.standardInputLine() : value)
    default:
      try settings.set(key, nil)
    }
  }
}
