import AtlasSettings
import NewsAPI
import Synchronization

/// The settings file, read once per run: `main` reads it to choose the interface language (unless `--lang`
/// decides) and hands what it read to the command, which so sees the same contents the language came from
/// instead of reading the file a second time.
enum LaunchSettings {
  private static let handed = Mutex<(path: String, settings: Settings)?>(nil)

  /// Reads the settings at launch and keeps them for the command; nil when they cannot be read (the command
  /// that needs them then says why).
  static func readAtLaunch(path: String = Settings.defaultPath) -> Settings? {
    // Only a file that reads is handed on: a refusal is worded in the language chosen at launch, which is not
    // yet known here, so the command reads the file again and words it then.
    let read = try? Settings.load(path: path)
    handed.withLock { $0 = read.map { (path, $0) } }
    return read
  }

  /// The settings for the command: what `main` read, taken once (a second call, or a different path, reads the
  /// file again, so a command that writes it and reads it back sees its own change).
  static func load(path: String = Settings.defaultPath) throws(SettingsError) -> Settings {
    let launch = handed.withLock { handed in
      defer { handed = nil }
      return handed
    }
    if let launch, launch.path == path { return launch.settings }
    return try Settings.load(path: path)
  }
}
