import ArgumentParser
import Testing

@testable import NewsAtlasCLI

/// The command line parsed in process, as `main` parses it (`parseAsRoot`), without starting the binary: which
/// command and values a line gives, and which lines are refused at parsing, with the status `main` gives them.
@Suite struct ArgumentParsingTests {
  func parse(_ arguments: [String]) throws -> ParsableCommand {
    try NewsAtlasCommand.parseAsRoot(arguments)
  }

  /// The sentence and exit status `main` prints for a line that does not parse.
  func refusal(_ arguments: [String]) -> (message: String, status: Int32)? {
    do {
      _ = try parse(arguments)
      return nil
    } catch {
      let code = NewsAtlasCommand.exitCode(for: error)
      return (NewsAtlasCommand.message(for: error), code == .failure ? CLIError.usage : code.rawValue)
    }
  }

  @Test func negativeCoordinatesAreCoordinatesNotOptions() throws {
    for arguments in [["nearest", "-33.87", "151.21"], ["nearest", "--", "-33.87", "151.21"]] {
      let nearest = try #require(try parse(arguments) as? NearestCommand, "\(arguments)")
      #expect(nearest.coordinates == ["-33.87", "151.21"], "\(arguments)")
      #expect(nearest.count == 1 && nearest.input == nil && nearest.format == nil)
    }
  }

  @Test func optionsReachTheirCommands() throws {
    let nearest = try #require(
      try parse([
        "nearest", "1", "2", "--count", "3", "--max-km", "100", "--format", "json", "--threads", "2",
      ])
        as? NearestCommand)
    #expect(nearest.count == 3 && nearest.maxKilometers == 100 && nearest.format == .json)
    #expect(nearest.threads.threads == 2)
    let clusters = try #require(
      try parse(["clusters", "--zoom", "2.5", "--bbox", "-10,35,30,60"]) as? ClustersCommand)
    #expect(clusters.zoom == 2.5 && clusters.bbox == "-10,35,30,60")
    #expect(try parse(["resolve", "48.58", "7.75"]) is ResolveCommand)
    #expect(try parse(["countries", "egypte"]) is CountriesCommand)
  }

  @Test(arguments: [
    (["nearest", "1", "2", "--threads", "0"], "--threads is 1 to 256, not 0."),
    (["nearest", "1", "2", "--threads", "257"], "--threads is 1 to 256, not 257."),
    (["nearest", "1", "2", "--format", "xml"], "xml"),
    (["nearest", "1", "2", "--count", "many"], "many"),
    (["clusters", "--zoom", "abc"], "abc"),
    (["neerest", "1", "2"], "neerest"),
  ])
  func malformedLinesAreRefusedAtParsingWithStatus64(arguments: [String], named: String) throws {
    let refused = try #require(refusal(arguments), "\(arguments) parsed")
    #expect(refused.status == 64, "\(arguments): \(refused.status)")
    #expect(refused.message.contains(named), "\(arguments): \(refused.message)")
  }

  /// Every command's help (what `--help` prints) names it and its options.
  @Test func everyCommandHasHelp() throws {
    for command in NewsAtlasCommand.configuration.subcommands {
      let name = try #require(command.configuration.commandName)
      let help = NewsAtlasCommand.helpMessage(for: command)
      #expect(help.contains("USAGE: newsatlas \(name)") && help.contains("OPTIONS:"), "\(name): \(help)")
    }
  }
}
