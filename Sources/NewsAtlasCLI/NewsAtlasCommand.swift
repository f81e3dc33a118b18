import ArgumentParser
import AtlasMessages
import AtlasSettings
import Fetch
import Foundation
import GeoFormats
import NewsAPI

#if canImport(Glibc)
  import Glibc
#endif

@main
struct NewsAtlasCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "newsatlas",
    abstract: Message.rootAbstract(),
    discussion: helpDiscussion(Message.rootDiscussion()),
    version: "0.1.0",
    subcommands: [
      NearestCommand.self, ResolveCommand.self, ClustersCommand.self, ServeCommand.self, TilesCommand.self,
      CountriesCommand.self,
      HeadlinesCommand.self,
      SearchCommand.self,
      SourcesCommand.self, FeedsCommand.self, ConfigCommand.self, QuotaCommand.self,
    ]
  )

  /// `--lang` before the command's name (`newsatlas --lang fr nearest 1 2`) as after it; `main` reads it.
  @OptionGroup var interface: InterfaceOptions

  /// Runs a command, reporting any failure as one sentence on standard error with a sysexits(3) status.
  static func main() async {
    // A file-size limit (or a full quota) must fail the cache's write, not kill the command: the cache then
    // warns and the answer still prints.
    signal(SIGXFSZ, SIG_IGN)
    // The interface's language, chosen before parsing: help and parsing errors are written in it.
    let environment = ProcessInfo.processInfo.environment
    InterfaceLanguage.current = InterfaceLanguage.chosen(
      arguments: Array(CommandLine.arguments.dropFirst()),
      setting: LaunchSettings.readAtLaunch()?[.interfaceLanguage], environment: environment)
    Paint.decide(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
    do {
      try checkCommandName()
      var command = try parseAsRoot()
      if var command = command as? AsyncParsableCommand {
        try await command.run()
      } else {
        try command.run()
      }
      finishStandardOutput()
    } catch let error as SettingsError {
      // Every message is printed through `printable`: a value it quotes (an argument, a file's line, the
      // service's words) cannot add a line or reach the terminal as an escape sequence.
      StandardError.write("\(Paint.alarm("newsatlas:")) \(printable(error.text(in: .current)))\n")
      Glibc.exit(CLIError(error).exitCode)
    } catch let error as CLIError {
      StandardError.write("\(Paint.alarm("newsatlas:")) \(printable(error.description))\n")
      Glibc.exit(error.exitCode)
    } catch {
      let code = exitCode(for: error)
      if code == .success {  // --help and --version print and succeed, if what they print is written
        // Wrapped to the terminal's columns by ArgumentParser, and again by its words' French where longer.
        let columns = helpColumns(environment: environment)
        let text = fullMessage(for: error, columns: columns)
        var help = ArgumentParserWords.help(helpArranged(text), in: .current, columns: columns)
        while help.hasSuffix("\n") { help.removeLast() }
        let ending = ArgumentParserWords.fitted(
          helpEnding().components(separatedBy: "\n"), columns: columns, usageHeading: "\n"
        ).joined(separator: "\n")
        print(isHelp(text) ? help + ending : help)
        finishStandardOutput()
        Glibc.exit(0)
      }
      var message = message(for: error)
      if let newline = message.firstIndex(of: "\n") { message = String(message[..<newline]) }
      message = optionSuggested(message) ?? ArgumentParserWords.error(message, in: .current)
      if !message.hasSuffix(".") && !message.hasSuffix("?") { message += "." }
      StandardError.write("\(Paint.alarm("newsatlas:")) \(printable(Message.seeHelp(message)))\n")
      Glibc.exit(code == .failure ? CLIError.usage : code.rawValue)
    }
  }
}

extension NewsAtlasCommand {
  /// The subcommands' names, `help` among them.
  static var commandNames: [String] {
    configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
  }

  /// Refuses a first word that is not a command (`newsatlas neares 1 2`) with the command it most likely is, or
  /// the list; ArgumentParser would say "3 unexpected arguments".
  static func checkCommandName() throws(CLIError) {
    var arguments = CommandLine.arguments.dropFirst()[...]
    while let first = arguments.first, first.hasPrefix("-") {
      arguments = arguments.dropFirst(first == "--lang" ? 2 : 1)
    }
    guard let word = arguments.first, !commandNames.contains(word) else { return }
    let shown = printable(String(word.prefix(64)))
    if let likely = Suggestions.likely(word, in: commandNames) {
      throw .usage(Message.seeHelp(Message.notACommandDidYouMean(shown, likely)))
    }
    throw .usage(Message.seeHelp(Message.notACommand(shown, commandNames.dropLast().joined(separator: ", "))))
  }

  /// ArgumentParser's "Unknown option '--cout'" as a sentence with the option of that command it most likely
  /// is ("did you mean '--count'?"), in the reader's language; nil when there is none to suggest.
  static func optionSuggested(_ message: String) -> String? {
    guard let match = message.firstMatch(of: /Unknown option '(--[^']+)'/) else { return nil }
    let typed = String(match.1)
    let words = CommandLine.arguments.dropFirst()
    let command = configuration.subcommands.first { type in
      words.contains { $0 == type.configuration.commandName }
    }
    guard let likely = suggestedOption(typed, of: command ?? NewsAtlasCommand.self) else { return nil }
    return Message.unknownOptionDidYouMean(printable(String(typed.prefix(64))), likely)
  }

  /// The option of `command` (as its help lists them) that `typed` most likely is a typo of.
  static func suggestedOption(_ typed: String, of command: ParsableCommand.Type) -> String? {
    let help = command.helpMessage(columns: 10_000)
    let options = Array(Set(help.matches(of: /--[a-z][a-z0-9-]*/).map { String($0.output) }))
    return Suggestions.likely(typed, in: options)
  }

  /// A command's own "unknown option" refusal (`nearest` and `resolve` read their arguments raw, for negative
  /// coordinates): with the option it most likely is, else where the options are listed.
  static func unknownOption(_ typed: String, of command: ParsableCommand.Type, named name: String) -> CLIError
  {
    let shown = printable(String(typed.prefix(64)))
    if let likely = suggestedOption(typed, of: command) {
      return .usage(Message.unknownOptionDidYouMean(shown, likely))
    }
    return .usage(Message.unknownOption(shown, name))
  }
}

/// The columns help is wrapped to, as ArgumentParser counts them: `COLUMNS`, else the terminal's width (of
/// standard output), else 80.
func helpColumns(environment: [String: String]) -> Int {
  if let columns = environment["COLUMNS"].flatMap({ Int($0) }), columns > 0 { return columns }
  var size = winsize()
  if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
  return 80
}

/// A command's discussion for its help (the exit statuses and examples come at the end: `helpEnding`).
func helpDiscussion(_ text: String? = nil) -> String { text ?? "" }

extension NewsAtlasCommand {
  /// The command whose help the command line asks for (`newsatlas nearest --help`, `newsatlas help nearest`),
  /// nil for the root's.
  static var helpedCommand: String? {
    var words = CommandLine.arguments.dropFirst()[...]
    while let first = words.first {
      words = words.dropFirst(first == "--lang" ? 2 : 1)
      if commandNames.contains(first), first != "help" { return first }
    }
    return nil
  }

  /// Whether what ArgumentParser printed for a clean exit is help (not `--version`'s number).
  static func isHelp(_ text: String) -> Bool { text.hasPrefix("OVERVIEW:") || text.hasPrefix("USAGE:") }

  /// What ends a help text: its command's examples, then the exit statuses in the root's help, else one line
  /// that says where they are (issue 47: the block once, not before every command's usage).
  static func helpEnding() -> String {
    let examples: [String: Message] = [
      "nearest": .examplesNearest, "resolve": .examplesResolve, "clusters": .examplesClusters,
      "serve": .examplesServe, "tiles": .examplesTiles, "countries": .examplesCountries,
      "headlines": .examplesHeadlines, "search": .examplesSearch, "sources": .examplesSources,
      "feeds": .examplesFeeds, "config": .examplesConfig, "quota": .examplesQuota,
    ]
    guard let command = helpedCommand else {
      return "\n\n" + Message.examplesRoot() + "\n\n" + Message.exitStatusDiscussion()
    }
    return (examples[command].map { "\n\n" + $0() } ?? "") + "\n\n" + Message.exitStatusPointer()
  }

  /// ArgumentParser's help with its sections where a reader looks for them: `headlines` lists its own options
  /// before the clustering ones, which only `--cluster` uses.
  static func helpArranged(_ text: String) -> String {
    guard helpedCommand == "headlines" else { return text }
    var sections = text.components(separatedBy: "\n\n")
    let title = Message.shapeTitle().uppercased()
    guard let shape = sections.firstIndex(where: { $0.hasPrefix(title) }),
      let options = sections.firstIndex(where: { $0.hasPrefix("OPTIONS:") }), shape < options
    else { return text }
    let moved = sections.remove(at: shape)
    sections.insert(moved, at: options)
    return sections.joined(separator: "\n\n")
  }
}

/// `--lang`, which every command takes: the language of what it says (read before parsing by `main`, which
/// writes the help in it; parsed here so that each command's help lists it and a bad value is refused).
struct InterfaceOptions: ParsableArguments {
  @Option(help: ArgumentHelp(Message.langHelp(), valueName: "lang"))
  var lang: InterfaceLanguage?

  /// Read before parsing by `main` too (`Paint.decide`); here so each command lists and checks it.
  @Option(help: ArgumentHelp(Message.colorHelp(), valueName: "when"))
  var color: ColorChoice?
}

extension InterfaceLanguage: ExpressibleByArgument {}
