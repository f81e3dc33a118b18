import ArgumentParser

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@main
struct NewsAtlasCLI: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "newsatlas",
    abstract: "Find the news country for a place, exactly and fast.",
    version: "0.1.0",
    subcommands: [
      NearestCommand.self, ResolveCommand.self, ClustersCommand.self, CountriesCommand.self,
      HeadlinesCommand.self,
      SearchCommand.self,
      SourcesCommand.self, ConfigCommand.self, QuotaCommand.self,
    ]
  )

  /// Writes `--bbox -10,35,30,60` as `--bbox=-10,35,30,60` (and likewise for every option given a value that
  /// starts with a minus and a digit), so that negative numbers are not mistaken for options.
  static func attachingNegativeValues(_ arguments: [String]) -> [String] {
    var result: [String] = []
    var i = 0
    while i < arguments.count {
      let argument = arguments[i]
      if argument.hasPrefix("--"), !argument.contains("="), i + 1 < arguments.count,
        Self.looksNegative(arguments[i + 1]), !Self.positionalNumbers(before: i, in: arguments)
      {
        result.append(argument + "=" + arguments[i + 1])
        i += 2
        continue
      }
      result.append(argument)
      i += 1
    }
    return result
  }

  private static func looksNegative(_ text: String) -> Bool {
    let scalars = Array(text.unicodeScalars.prefix(2))
    return scalars.count == 2 && scalars[0] == "-" && (("0"..."9").contains(scalars[1]) || scalars[1] == ".")
  }

  /// Flags that take no value must not swallow a negative number after them. Every valueless flag of every
  /// command belongs in this list.
  private static func positionalNumbers(before index: Int, in arguments: [String]) -> Bool {
    ["--help", "--version", "--", "--all", "--refresh", "--offline", "--force"].contains(arguments[index])
  }

  /// Runs a command, reporting any failure as one sentence on standard error with a sysexits(3) status.
  static func main() async {
    // A file-size limit (or a full quota) must fail the cache's write, not kill the command: the cache then
    // warns and the answer still prints.
    signal(SIGXFSZ, SIG_IGN)
    do {
      var command = try parseAsRoot(attachingNegativeValues(Array(CommandLine.arguments.dropFirst())))
      if var command = command as? AsyncParsableCommand {
        try await command.run()
      } else {
        try command.run()
      }
    } catch let error as CLIError {
      StandardError.write("newsatlas: \(error.description)\n")
      Glibc.exit(error.exitCode)
    } catch {
      let code = exitCode(for: error)
      if code == .success { exit(withError: error) }  // --help and --version print and succeed
      var message = message(for: error)
      if let newline = message.firstIndex(of: "\n") { message = String(message[..<newline]) }
      if !message.hasSuffix(".") { message += "." }
      StandardError.write("newsatlas: \(message) See 'newsatlas help'.\n")
      Glibc.exit(code == .failure ? CLIError.usage : code.rawValue)
    }
  }
}
