import ArgumentParser
import AtlasMessages
import AtlasSettings
import Fetch
import Foundation
import NewsAPI
import NewsAtlas

struct FeedsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "feeds",
    abstract: Message.feedsAbstract(),
    discussion: helpDiscussion(Message.feedsDiscussion())
  )

  @Argument(help: ArgumentHelp(Message.feedsActionHelp()))
  var action: String

  @Argument(help: ArgumentHelp(Message.feedsCountryHelp()))
  var country: String?

  @Argument(help: ArgumentHelp(Message.feedsURLHelp()))
  var url: String?

  @Option(help: ArgumentHelp(Message.feedsFormatHelp()))
  var format: TextOrJSON = .text

  @OptionGroup var interface: InterfaceOptions

  func validate() throws {
    guard ["add", "remove", "list", "path"].contains(action) else {
      throw CLIError.usage(Message.feedsUnknownAction(printable(String(action.prefix(64)))))
    }
    if action == "add" || action == "remove" {
      guard country != nil, url != nil else {
        throw CLIError.usage(Message.feedsTakesCountryAndURL(action))
      }
    } else if url != nil || (action == "path" && country != nil) {
      throw CLIError.usage(
        (action == "path" ? Message.feedsTakesNothingMore : Message.feedsTakesACountryMore)(action))
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
        print(Message.feedsAdded(code!, shown))
      } else {
        print(Message.feedsAlreadyHas(code!, shown))
      }
    case "remove":
      let shown = printable(HTTPURL.redacted(url ?? ""))
      guard try list.remove(country: code!, url: url ?? "") else {
        throw CLIError(description: Message.feedsNoSuchFeed(code!, shown), exitCode: 1)
      }
      print(Message.feedsRemoved(code!, shown))
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
        // None is a sentence saying how to add one (still a success: an empty list is a list).
        guard !entries.isEmpty else {
          print(code.map { Message.feedsNoneForCountry($0) } ?? Message.feedsNone())
          return
        }
        let names = entries.map { entry in
          let country = Country.named(code: entry.country)
          return (InterfaceLanguage.current == .french ? country?.nameFrench : country?.name) ?? entry.country
        }
        // The URLs in one column, as countries aligns its columns: the names padded to the longest shown.
        let width = names.map(\.count).max() ?? 0
        for (entry, name) in zip(entries, names) {
          print("\(entry.country)  \(name.padding(to: width))  \(printable(HTTPURL.redacted(entry.url)))")
        }
      }
    }
  }
}
