import ArgumentParser
import AtlasMessages
import AtlasSettings
import Fetch
import Foundation
import GeoFormats
import NewsAPI
import NewsAtlas

struct FeedsCommand: AsyncParsableCommand {
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

  @Flag(name: .customLong("no-check"), help: ArgumentHelp(Message.feedsNoCheckHelp()))
  var noCheck = false

  @Option(help: ArgumentHelp(Message.feedsTimeoutHelp(), valueName: "seconds"))
  var timeout: Double = 10

  @OptionGroup var interface: InterfaceOptions

  func validate() throws {
    guard ["add", "remove", "list", "check", "path"].contains(action) else {
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
    guard timeout > 0, timeout <= 86_400 else { throw CLIError.usage(Message.timeoutRange()) }
  }

  /// The client `add` and `check` read feeds with (no cache: they ask the feed itself).
  private func client() -> (FeedsClient, HTTPClient) {
    var configuration = HTTPClientConfiguration()
    configuration.requestTimeout = .milliseconds(Int(timeout * 1000))
    configuration.connectTimeout = configuration.requestTimeout
    let http = HTTPClient(configuration: configuration)
    return (FeedsClient(http: http, timeout: configuration.requestTimeout), http)
  }

  func run() async throws {
    if action == "path" {
      print(FeedList.defaultPath)
      return
    }
    var list = try FeedList.load()
    let code = try country.map { text throws(SettingsError) in try FeedList.validate(country: text) }
    switch action {
    case "add":
      var url = try FeedList.validate(url: url ?? "")
      let given = printable(HTTPURL.redacted(url))
      var found: (page: String, title: String)?
      if !noCheck {
        let (client, http) = client()
        defer { http.shutdown() }
        switch await client.discover(url) {
        case .feed: break
        case .named(let feed, let title, _):
          url = try FeedList.validate(url: feed)
          found = (given, printable(title ?? ""))
        case .pageWithoutFeed:
          throw CLIError(description: Message.feedsPageNamesNoFeed(given), exitCode: CLIError.data)
        case .unanswered(let error):
          StandardError.write("newsatlas: \(Message.feedsAddedUnread(given, error.description(in: .current)))\n")
        case .notAFeed(let error):
          throw CLIError(newsAPI: error)
        }
      }
      let shown = printable(HTTPURL.redacted(url))
      if try list.add(country: code!, url: url) {
        if let found {
          print(Message.feedsAddedFromPage(code!, shown, found.page, found.title.isEmpty ? shown : found.title))
        } else {
          print(Message.feedsAdded(code!, shown))
        }
      } else {
        print(Message.feedsAlreadyHas(code!, shown))
      }
    case "check":
      try await check(list.entries.filter { code == nil || $0.country == code })
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
          let country = Country.named(code: entry.country, in: .world)
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

  /// `feeds check`: every feed read once, at once, fresh; a line (or a JSON object) each, in the list's order,
  /// with its status, items, newest date and what went wrong; 69 when any did not answer with a feed.
  private func check(_ entries: [FeedList.Entry]) async throws {
    guard !entries.isEmpty else {
      print(country == nil ? Message.feedsNone() : Message.feedsNoneForCountry(country ?? ""))
      return
    }
    let (client, http) = client()
    defer { http.shutdown() }
    let checks = await withTaskGroup(of: (Int, FeedsClient.Check).self) { group in
      for (index, entry) in entries.enumerated() {
        group.addTask {
          // Bound before the tuple is built: see Result.awaiting(_:) (a release-only miscompile).
          let check = await client.check(entry.url)
          return (index, check)
        }
      }
      var checks = [FeedsClient.Check?](repeating: nil, count: entries.count)
      for await (index, check) in group { checks[index] = check }
      return checks
    }
    let failed = checks.filter { $0?.error != nil || $0 == nil }.count
    switch format {
    case .json:
      var writer = CheckDocument()
      for (entry, check) in zip(entries, checks) {
        writer.feed(country: entry.country, url: HTTPURL.redacted(entry.url), check: check)
      }
      print(writer.document)
    case .text:
      print(Message.feedsCheckColumns())
      for (entry, check) in zip(entries, checks) {
        let status = check?.status.map(String.init) ?? "-"
        let items = check.map { $0.error == nil ? String($0.items) : "-" } ?? "-"
        let newest = check?.newest ?? "-"
        var line = "\(entry.country)  \(status.padding(to: 3))  \(items.padding(to: 5))  \(newest.padding(to: 20))  "
          + printable(HTTPURL.redacted(entry.url))
        if let error = check?.error { line += "  " + printable(error.description(in: .current)) }
        print(line)
      }
    }
    if failed > 0 {
      throw CLIError(description: Message.feedsCheckFailed(failed, entries.count), exitCode: 69)
    }
  }
}

/// `feeds check --format json`: `{"feeds":[{"country":…,"url":…,"status":…,"items":…,"newest":…,"title":…,
/// "error":null|{"message":…}}]}`.
private struct CheckDocument {
  private var rows: [[String: Any]] = []

  mutating func feed(country: String, url: String, check: FeedsClient.Check?) {
    var row: [String: Any] = ["country": country, "url": url]
    row["status"] = check?.status ?? NSNull()
    row["items"] = check.map { $0.error == nil ? $0.items as Any : NSNull() } ?? NSNull()
    row["newest"] = check?.newest ?? NSNull()
    row["title"] = check?.title ?? NSNull()
    row["error"] = check?.error.map { ["message": $0.description(in: .current)] as Any } ?? NSNull()
    rows.append(row)
  }

  var document: String {
    let data = (try? JSONSerialization.data(
      withJSONObject: ["feeds": rows], options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }
}
