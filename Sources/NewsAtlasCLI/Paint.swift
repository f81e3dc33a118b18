import ArgumentParser
import AtlasMessages

#if canImport(Glibc)
  import Glibc
#endif

/// `--color`: whether what the CLI prints is coloured.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
  case never
  case auto
  case always
}

/// Colour for people at a terminal (issue 47 item 9): table headers and the headlines' country lines in bold,
/// links dimmed, `newsatlas:` before an error in red. `--color always|never` decides; `auto` (the default)
/// colours what goes to a terminal whose `TERM` is not `dumb`, unless `NO_COLOR` is set to anything
/// (no-color.org), which `--color always` overrides. Decided once by `main`, before parsing, as the language is.
enum Paint {
  nonisolated(unsafe) static var standardOutput = false
  nonisolated(unsafe) static var standardError = false

  static func decide(arguments: [String], environment: [String: String]) {
    switch given(arguments: arguments) ?? .auto {
    case .never: (standardOutput, standardError) = (false, false)
    case .always: (standardOutput, standardError) = (true, true)
    case .auto:
      let allowed = (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
      standardOutput = allowed && isatty(STDOUT_FILENO) == 1
      standardError = allowed && isatty(STDERR_FILENO) == 1
    }
  }

  /// The choice `--color X` (or `--color=X`, before any `--`) makes on a command line, the last one given;
  /// nil when none is, or it names no choice (parsing then refuses it).
  static func given(arguments: [String]) -> ColorChoice? {
    InterfaceLanguage.lastValue(of: "--color", in: arguments).flatMap(ColorChoice.init(rawValue:))
  }

  /// `text` in bold on standard output (a table's header, a country's line of headlines).
  static func bold(_ text: String) -> String { standardOutput ? "\u{1B}[1m" + text + "\u{1B}[0m" : text }

  /// `text` dimmed on standard output (a link under its title).
  static func dim(_ text: String) -> String { standardOutput ? "\u{1B}[2m" + text + "\u{1B}[0m" : text }

  /// `text` in bold red on standard error (the `newsatlas:` before an error).
  static func alarm(_ text: String) -> String { standardError ? "\u{1B}[1;31m" + text + "\u{1B}[0m" : text }
}
