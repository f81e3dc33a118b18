import ArgumentParser
import NewsAPI

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

  @Argument(help: "The value, for set.")
  var value: String?

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
      try settings.set(key, value)
    default:
      try settings.set(key, nil)
    }
  }
}
