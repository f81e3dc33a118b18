import ArgumentParser
import AtlasSettings
import Fetch
import GeoFormats
import NewsAPI

#if canImport(Glibc)
  import Glibc
#endif

@main
struct NewsAtlasCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "newsatlas",
    abstract: "Find the news country for a place, exactly and fast.",
    discussion: """
      EXIT STATUS (sysexits): 0 success; 64 a bad command line; 65 bad data (a malformed file, failed batch \
      rows, the good ones still written); 69 the network or the service failed; 73 an output file that cannot \
      be created; 74 a read or write failed; 75 try later (quota, request budget, a locked cache); 77 the \
      service rejected the key; 78 a configuration problem (no key, a bad setting); 130 and 143 interrupted.
      """,
    version: "0.1.0",
    subcommands: [
      NearestCommand.self, ResolveCommand.self, ClustersCommand.self, ServeCommand.self, TilesCommand.self,
      CountriesCommand.self,
      HeadlinesCommand.self,
      SearchCommand.self,
      SourcesCommand.self, FeedsCommand.self, ConfigCommand.self, QuotaCommand.self,
    ]
  )

  /// Runs a command, reporting any failure as one sentence on standard error with a sysexits(3) status.
  static func main() async {
    // A file-size limit (or a full quota) must fail the cache's write, not kill the command: the cache then
    // warns and the answer still prints.
    signal(SIGXFSZ, SIG_IGN)
    do {
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
      StandardError.write("newsatlas: \(printable(error.description))\n")
      Glibc.exit(CLIError(error).exitCode)
    } catch let error as CLIError {
      StandardError.write("newsatlas: \(printable(error.description))\n")
      Glibc.exit(error.exitCode)
    } catch {
      let code = exitCode(for: error)
      if code == .success {  // --help and --version print and succeed, if what they print is written
        print(fullMessage(for: error))
        finishStandardOutput()
        Glibc.exit(0)
      }
      var message = message(for: error)
      if let newline = message.firstIndex(of: "\n") { message = String(message[..<newline]) }
      if !message.hasSuffix(".") { message += "." }
      StandardError.write("newsatlas: \(printable(message)) See 'newsatlas help'.\n")
      Glibc.exit(code == .failure ? CLIError.usage : code.rawValue)
    }
  }
}
