import AtlasSettings
import Foundation
import NewsAPI
import Testing

@testable import NewsAtlasCLI

/// The settings file is read once per run: what `main` read for the interface language is what the command
/// gets, and only once.
@Suite struct LaunchSettingsTests {
  @Test func theCommandGetsWhatLaunchReadAndOnlyOnce() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "LaunchSettingsTests-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    ).path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/config.toml"
    try "country = \"fr\"\ninterface-language = \"fr\"\n".write(
      toFile: path, atomically: false, encoding: .utf8)

    #expect(LaunchSettings.readAtLaunch(path: path)?[.interfaceLanguage] == "fr")
    // Changed after launch: the command still sees what the language came from, without a second read...
    try "country = \"de\"\n".write(toFile: path, atomically: false, encoding: .utf8)
    #expect(try LaunchSettings.load(path: path)[.country] == "fr")
    // ...once: a later read (config set, then a read back) reads the file as it is now.
    #expect(try LaunchSettings.load(path: path)[.country] == "de")

    // What launch read for another file is not handed to a command that reads this one.
    _ = LaunchSettings.readAtLaunch(path: folder + "/other.toml")
    #expect(try LaunchSettings.load(path: path)[.country] == "de")

    // A file launch could not read is not handed on: the command reads it again (and words the refusal in the
    // language chosen since).
    try "country = \"zz\"\n".write(toFile: path, atomically: false, encoding: .utf8)
    #expect(LaunchSettings.readAtLaunch(path: path) == nil)
    #expect(throws: SettingsError.self) { try LaunchSettings.load(path: path) }
    _ = LaunchSettings.readAtLaunch(path: path)
    try "country = \"it\"\n".write(toFile: path, atomically: false, encoding: .utf8)
    #expect(try LaunchSettings.load(path: path)[.country] == "it")
  }
}
