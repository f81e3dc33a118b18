import Foundation
import TestSupport
import Testing

/// A typo of a command, a flag or a setting is answered with what it most likely is (issue 47, item 9), in the
/// reader's language, exit 64; a word near nothing (or near two alike) gets the list, never a wrong guess.
@Suite struct DidYouMeanTests {
  @Test(arguments: [
    (["neares", "1", "2"], "'neares' is not a command; did you mean 'nearest'? See 'newsatlas help'."),
    (["--lang", "en", "hedlines"], "'hedlines' is not a command; did you mean 'headlines'?"),
    (["frobnicate"], "'frobnicate' is not a command; the commands are nearest, resolve, clusters, serve,"),
    (["nearest", "1", "2", "--cout", "3"], "Unknown option '--cout'; did you mean '--count'?"),
    (["resolve", "1", "2", "--formt", "json"], "Unknown option '--formt'; did you mean '--format'?"),
    (["headlines", "--contry", "fr"], "Unknown option '--contry'; did you mean '--country'?"),
    (["nearest", "1", "2", "--zzzzzz"], "Unknown option '--zzzzzz'; 'newsatlas nearest --help' lists the options."),
    (["config", "set", "contry", "fr"], "'contry' is not a setting; did you mean 'country'?"),
    (["config", "get", "ttl"], "Name a setting: country, language,"),
  ])
  func typosAreAnsweredWithWhatTheyMostLikelyAre(arguments: [String], said: String) throws {
    let scratch = try ScratchDirectory()
    let result = try CLI.run(arguments, environment: ["XDG_CONFIG_HOME": scratch.path, "LANG": "C"])
    #expect(result.status == 64, "\(arguments): \(result.stderr)")
    #expect(result.stderr.contains(said), "\(arguments): \(result.stderr)")
    #expect(result.stdout.isEmpty)
  }

  @Test func inFrench() throws {
    let result = try CLI.run(["--lang", "fr", "nearest", "1", "2", "--cout", "3"])
    #expect(result.status == 64 && result.stderr == "newsatlas: Option inconnue '--cout' ; vouliez-vous dire '--count' ?\n")
  }
}
