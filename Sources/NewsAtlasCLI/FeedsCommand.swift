import ArgumentParser
import AtlasSettings
import Fetch
import Foundation
import NewsAPI
import NewsAtlas

struct FeedsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "feeds",
    abstract: "List, add or remove a country's RSS and Atom feeds ($XDG_CONFIG_HOME/newsatlas/feeds.txt).",
    discussion: """
      feeds add COUNTRY URL | feeds remove COUNTRY URL | feeds list [COUNTRY] | feeds path. COUNTRY is a code \
      or a name (fr, France). A country's feeds answer its headlines with --provider feeds, and with auto \
      before NewsAPI and GDELT. NewsAtlas ships no feeds of its own.
      """
  )

  @Argument(help: "add, remove, list or path.")
  var action: String

  @Argument(help: "The country: its code or its name.")
  var country: String?

  @Argument(help: "The feed's URL (http or https), for add and remove.")
  var url: String?

  @Option(help: "Output format of list: text or json.")
  var format: TextOrJSON = .text

  func validate() throws {
    guard ["add", "remove", "list", "path"].contains(action) else {
      throw CLIError.usage(
        "'\(printable(String(action.prefix(64))))' is not a feeds action; use add, remove, list or path.")
    }
    if action == "add" || action == "remove" {
      guard country != nil, url != nil else {
        throw CLIError.usage(
          "'feeds \(action)' takes a country and a URL: newsatlas feeds \(action) fr https://….")
      }
    } else if url != nil || (action == "path" && country != nil) {
      throw CLIError.usage(
        "'feeds \(action)' takes \(action == "path" ? "nothing" : "at most a country") more.")
    }
  }

  func run() throws {
    if action == "path" {
      print(FeedList.defaultPath)
      return
    }
    var list = try FeedList.load()
    let code = try country.map { text throws(SettingsError) in try FeedList.validate(country: text) }
    switch action {
    case "add":
      let url = try FeedList.validate(url: url ?? "")
      let shown = printable(HTTPURL.redacted(url))
      if try list.add(country: code!, url: url) {
        print("\(code!): added \(shown)")
      } else {
        print("\(code!): already has \(shown)")
      }
    case "remove":
      let shown = printable(HTTPURL.redacted(url ?? ""))
      guard try list.remove(country: code!, url: url ?? "") else {
        throw CLIError(
          description: "\(code!) has no feed \(shown); 'newsatlas feeds list \(code!)' lists its feeds.",
          exitCode: 1)
      }
      print("\(code!): removed \(shown)")
    default:
      let entries = list.entries.filter { code == nil || $0.country == code }
      switch format {
      case .json:
        let rows = entries.map { ["country": $0.country, "url": HTTPURL.redacted($0.url)] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(["feeds": rows])) ?? Data("{\"feeds\":[]}".utf8)
        print(String(decoding: data, as: UTF8.self))
      case .text:
        for entry in entries {
          let name = Country.named(code: entry.country)?.name ?? entry.country
          print("\(entry.country)  \(name)  \(printable(HTTPURL.redacted(entry.url)))")
        }
      }
    }
  }
}
