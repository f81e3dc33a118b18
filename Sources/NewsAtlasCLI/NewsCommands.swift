import ArgumentParser
import AtlasSettings
import Fetch
import Foundation
import GeoFormats
import GeoIndex
import NewsAPI
import NewsAtlas
import Store

/// What every command that talks to NewsAPI takes.
struct ServiceOptions: ParsableArguments {
  @Option(
    name: .customLong("api-base"),
    help: ArgumentHelp(
      "The service's base URL (default $NEWSATLAS_API_BASE, else \(NewsConfiguration.defaults.apiBase)).",
      valueName: "url"))
  var apiBase: String?

  @Option(
    parsing: .unconditional, help: ArgumentHelp("Seconds allowed for each request.", valueName: "seconds"))
  var timeout = NewsConfiguration.defaults.requestTimeout

  @Option(parsing: .unconditional, help: ArgumentHelp("Requests in flight at once.", valueName: "n"))
  var concurrency = NewsConfiguration.defaults.concurrency

  @Option(help: "Output format: text or json.")
  var format: TextOrJSON = .text

  @Flag(help: "Dates in text as ISO 8601 in UTC (2026-11-24T10:15:00Z), for scripts that parse text.")
  var utc = false

  @Option(
    help: ArgumentHelp(
      "Language of dates in text: en or fr (default: fr when LC_ALL, LC_MESSAGES or LANG starts with fr).",
      valueName: "lang"))
  var lang: InterfaceLanguage?

  @Flag(help: "Ask the service even when a fresh answer is cached.")
  var refresh = false

  @Flag(help: "Answer only from the cache, saying how old each answer is.")
  var offline = false

  @Flag(help: "Send even when the plan's daily budget is spent.")
  var force = false

  /// How text output shows an article's date: in the reader's time zone (`TZ`, else the system's) and language.
  var dates: HumanDate { HumanDate(language: lang ?? .fromLocale(), utc: utc) }

  /// A client from the flags, else the environment (`NEWSAPI_KEY`, `NEWSATLAS_API_BASE`), else the settings file.
  func client(settings: Settings, keyRequired: Bool = true) throws(CLIError) -> (NewsAPIClient, HTTPClient) {
    let http = try httpClient()
    let base: String
    var key: String
    do {
      base = try settings.apiBase(given: apiBase)
      key = try settings.apiKey() ?? ""
    } catch {
      http.shutdown()
      throw CLIError(error)
    }
    if key.isEmpty && !keyRequired { key = "not-sent" }  // a dry run sends nothing
    let cache: CachePolicy?
    do {
      cache = try cachePolicy(settings: settings, needed: keyRequired || offline)
    } catch {
      http.shutdown()
      throw error
    }
    do {
      return (try makeClient(key: key, base: base, http: http, cache: cache), http)
    } catch {
      http.shutdown()
      throw error
    }
  }

  /// The providers headlines may use under `choice`, on one libcurl client and one cache: NewsAPI when a key is
  /// set (or, for a dry run of `newsapi`, without one: it sends nothing), GDELT (no key; its base from
  /// `NEWSATLAS_GDELT_BASE` or the `gdelt-base` setting) and the feeds: the feeds file's, or `oneOff` feeds
  /// (`--feed`) for every country asked.
  func providers(settings: Settings, choice: ProviderChoice, dryRun: Bool, oneOff: [String] = [])
    throws(CLIError) -> (NewsProviders, HTTPClient)
  {
    let http = try httpClient()
    do {
      let base = try settings.apiBase(given: apiBase)
      let gdeltBase = try settings.gdeltBase()
      var key = try settings.apiKey() ?? ""
      if key.isEmpty && dryRun && choice == .newsapi { key = "not-sent" }  // a dry run sends nothing
      let cache = try cachePolicy(settings: settings, needed: !dryRun || offline)
      let newsAPI = key.isEmpty ? nil : try makeClient(key: key, base: base, http: http, cache: cache)
      let gdelt: GDELTClient
      do {
        gdelt = try GDELTClient(
          baseURL: gdeltBase, http: http, timeout: .milliseconds(Int(timeout * 1000)), cache: cache,
          configuration: NewsConfiguration(settings: settings))
      } catch {
        throw CLIError(newsAPI: error)
      }
      let feeds = FeedsProvider(
        client: FeedsClient(http: http, timeout: .milliseconds(Int(timeout * 1000)), cache: cache),
        list: oneOff.isEmpty ? try FeedList.load() : FeedList(path: FeedList.defaultPath), oneOff: oneOff)
      return (NewsProviders(newsAPI: newsAPI, gdelt: gdelt, feeds: feeds), http)
    } catch let error as SettingsError {
      http.shutdown()
      throw CLIError(error)
    } catch let error as CLIError {
      http.shutdown()
      throw error
    } catch {
      http.shutdown()
      throw CLIError(description: "\(error)", exitCode: 70)
    }
  }

  /// The libcurl client the flags describe.
  private func httpClient() throws(CLIError) -> HTTPClient {
    guard timeout > 0, timeout <= 86_400 else {
      throw .usage("--timeout must be a number of seconds above 0 and at most a day (86400).")
    }
    guard (1...256).contains(concurrency) else {
      throw .usage("--concurrency must be 1 to 256, not \(concurrency).")
    }
    guard !(refresh && offline) else {
      throw .usage("--refresh asks the service and --offline never does; give one.")
    }
    var configuration = HTTPClientConfiguration()
    configuration.maxConcurrentTransfers = concurrency
    configuration.requestTimeout = .milliseconds(Int(timeout * 1000))
    // --timeout is the whole request's limit, its connection included: a fixed 10 s connect timeout, retried,
    // gave up on a black-holed port after 20 s while saying 30.
    configuration.connectTimeout = configuration.requestTimeout
    return HTTPClient(configuration: configuration)
  }

  /// The cache policy the flags and settings describe, or nil when the cache cannot be opened and is not
  /// `needed` (a dry run sends nothing); when it is needed, its absence is the command's failure.
  private func cachePolicy(settings: Settings, needed: Bool) throws(CLIError) -> CachePolicy? {
    do {
      let database = try CacheDatabase(opening: UserFolders().cacheFile) {
        StandardError.write("newsatlas: \($0)\n")
      }
      var policy = CachePolicy(database: database, settings: settings) {
        StandardError.write("newsatlas: \(printable($0))\n")  // it may quote source ids from the service
      }
      policy.refresh = refresh
      policy.offline = offline
      policy.force = force
      return policy
    } catch {
      // The cache counts every request against the budget: without it nothing is sent (a dry run sends
      // nothing anyway, and only loses what the cache would have answered).
      guard needed else {
        StandardError.write("newsatlas: \(error.description)\n")
        return nil
      }
      throw CLIError(
        description: error.description
          + (offline
            ? " --offline answers only from it."
            : " Without it no request can be counted against the budget, so nothing is sent."),
        exitCode: error.isTemporary ? 75 : error.isIOError ? 74 : 73)
    }
  }

  private func makeClient(key: String, base: String, http: HTTPClient, cache: CachePolicy?) throws(CLIError)
    -> NewsAPIClient
  {
    do {
      return try NewsAPIClient(key: key, baseURL: base, http: http, cache: cache)
    } catch {
      throw CLIError(newsAPI: error)
    }
  }
}

extension CLIError {
  /// sysexits(3) statuses for the service's failures: 78 no key configured, 77 a key the service rejects
  /// (fix the key), 64 a request refused before sending, 75 the quota (try later), 69 anything else the network
  /// or the service did.
  init(newsAPI error: NewsAPIError) {
    let code: Int32
    switch error {
    case .missingKey: code = 78
    case .notCached: code = 69
    case .invalidRequest: code = CLIError.usage
    case _ where error.isKeyRejected: code = 77
    case _ where error.isQuota: code = 75
    default: code = 69
    }
    // What only a command line can do about our own budget.
    var description = error.description
    if case .planOverBudget = error {
      description += " --dry-run shows the plan; --force sends anyway."
    } else if error.isOwnBudget {
      description += " --force sends anyway."
    }
    self.init(description: description, exitCode: code)
  }
}

struct HeadlinesCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "headlines",
    abstract: "Fetch headlines for news countries in as few requests as their provider allows.",
    discussion: """
      Headlines come from a provider: newsapi, gdelt or feeds; auto (the default) takes, for each country, \
      its configured feeds if it has any, else NewsAPI when a key is set and NewsAPI has a route for it, else \
      GDELT, which needs no key. NewsAPI's top-headlines?country= now answers only for us. The others are \
      served by their sources: several countries share one request of up to 20 sources, split back by each \
      article's source, and a country that a shared answer crowds out gets one request of its own. GDELT \
      packs several countries into one sourcecountry query, split back by each article's sourcecountry, at \
      most one request every 5 seconds (across processes) and 12 a run. --dry-run prints the plan and how \
      long it takes, and sends nothing. The key comes from NEWSAPI_KEY and travels only in a request header \
      to NewsAPI's host.
      """
  )

  @Option(
    help: ArgumentHelp(
      "One country: a code (fr) or an English or French name, any case, accents optional (France, Allemagne).",
      valueName: "country"))
  var country: String?

  @Option(
    help: ArgumentHelp(
      "Several countries, comma-separated codes or names (fr,de or France,Germany).", valueName: "list"))
  var countries: String?

  @Option(
    parsing: .unconditional,  // "--near -33.87,151.21" needs no "="
    help: ArgumentHelp(
      "The news country of a place: the one it is in, else the nearest (as resolve).", valueName: "lat,lon"))
  var near: String?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Every country of a cluster of the 54 markers (with --zoom, and the clustering options of its map).",
      valueName: "id"))
  var cluster: String?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("The zoom of the map --cluster is on (0 to 31).", valueName: "z"))
  var zoom: String?

  @OptionGroup(title: "Clustering (with --cluster: the options of the map its id came from)")
  var clustering: ClusterShapeOptions

  @Flag(help: "All 54 countries.")
  var all = false

  @Option(
    help: ArgumentHelp(
      "One category (business, entertainment, general, health, science, sports, technology).", valueName: "c")
  )
  var category: String?

  @Option(
    help: ArgumentHelp(
      "Several categories of each country, comma-separated (business,sports), or all seven.",
      valueName: "list"))
  var categories: String?

  @Option(
    name: .customLong("page-size"), parsing: .unconditional,
    help: ArgumentHelp(
      "Articles per country, 1 to 100 (default \(HeadlinesRequest.defaultPageSize)).", valueName: "n"))
  var pageSize: String?

  @Flag(
    name: .customLong("search-fallback"),
    help: "Search everything for countries that have no sources (one request each).")
  var searchFallback = false

  @Flag(help: "Ask top-headlines?country= again, even where the service is known to answer it empty.")
  var probe = false

  @Flag(name: .customLong("dry-run"), help: "Print the requests the command would send, and send nothing.")
  var dryRun = false

  @Option(
    help: ArgumentHelp(
      "Where headlines come from: auto, newsapi, gdelt or feeds (default the provider setting, else auto).",
      valueName: "name"))
  var provider: String?

  @Option(
    name: .customLong("feed"),
    help: ArgumentHelp(
      "An RSS or Atom feed for this run alone, in place of the feeds file's (repeatable); it answers every "
        + "country asked, with --provider feeds or auto.", valueName: "url"))
  var feeds: [String] = []

  @OptionGroup var service: ServiceOptions

  func run() async throws {
    let settings = try Settings.load()
    for url in feeds { _ = try FeedList.validate(url: url) }
    let request = try Self.request(
      HeadlinesRequest.Given(
        country: country, countries: countries, near: near, cluster: cluster, zoom: zoom, all: all,
        category: category, categories: categories, pageSize: pageSize),
      settings: settings, clusterOptions: cluster == nil ? ClusterOptions() : clustering.checkedOptions())
    let choice: ProviderChoice
    do {
      choice = try settings.provider(given: provider)
    } catch {
      throw CLIError.usage(error.description.replacingOccurrences(of: "provider;", with: "--provider;"))
    }
    if !feeds.isEmpty && choice != .feeds && choice != .auto {
      throw CLIError.usage("--feed is read by the feeds provider: use it with --provider feeds or auto.")
    }
    let (providers, http) = try service.providers(
      settings: settings, choice: choice, dryRun: dryRun, oneOff: feeds)
    defer { http.shutdown() }
    let jobs = request.jobs
    let options = HeadlinesOptions(
      pageSize: request.pageSize, searchFallback: searchFallback, probe: probe, language: settings[.language])
    let format = service.format
    let out = OutputBuffer.standardOutput()
    if dryRun {
      let plan: HeadlinesPlan
      do { plan = try await providers.plan(jobs, choice: choice, options: options) } catch {
        throw CLIError(newsAPI: error)
      }
      let usage = providers.newsAPI?.quotaUsage
      out.append(
        format == .json ? HeadlinesJSON.plan(plan, usage: usage) : Array(Self.text(plan, usage: usage).utf8))
      return
    }
    let results: [HeadlinesResult]
    do {
      results = try await providers.headlines(jobs, choice: choice, options: options) { _, result in
        guard format == .text else { return }
        if let error = result.error {  // as they complete; a lone result's error is the closing sentence
          if jobs.count > 1 { StandardError.write("newsatlas: \(result.job.label): \(error.description)\n") }
        } else {
          out.append(Self.text(result, dates: service.dates))
          out.flush()
        }
      }
    } catch {
      throw CLIError(newsAPI: error)
    }
    if format == .json { out.append(HeadlinesJSON.results(results)) }
    out.flush()
    let failed = results.filter { $0.error != nil }
    let worst =
      failed.first { $0.error!.isKeyRejected } ?? failed.first { $0.error!.isQuota } ?? failed.first
    guard let worst, let error = worst.error else { return }
    throw CLIError(
      description: Self.failureSentence(
        failed: failed.count, of: jobs.count, worst: "\(worst.job.label): \(error.description)",
        errorsPrinted: format == .text),
      exitCode: CLIError(newsAPI: error).exitCode)
  }

  /// The closing sentence when results failed, each error said once: a lone result's error is the sentence;
  /// in text each error was printed as it came, so the sentence counts them; in JSON the errors are in the
  /// document, and the sentence names the one that sets the exit status.
  static func failureSentence(failed: Int, of total: Int, worst: String, errorsPrinted: Bool) -> String {
    if total == 1 { return worst }
    let count = failed == total ? "All \(total) results failed" : "\(failed) of \(total) results failed"
    let rest = total - failed
    let others =
      rest == 0 ? "" : rest == 1 ? "; the other one is above" : "; the other \(rest) are above"
    if errorsPrinted { return count + others + "." }
    return count + " (their errors are in the JSON); " + worst
  }

  /// The request the flags make, checked by the news library as the service's `/v1/headlines` checks its
  /// query (the same sentences, the flags named as flags). With no country named, the settings' favourite;
  /// with no category, the settings' default one.
  static func request(
    _ given: HeadlinesRequest.Given, settings: Settings, clusterOptions: ClusterOptions
  ) throws(CLIError) -> HeadlinesRequest {
    var given = given
    if !given.namesCountries { given.country = settings[.country] }
    if given.category == nil && given.categories == nil { given.category = settings[.category] }
    do {
      return try HeadlinesRequest(given, clusterOptions: clusterOptions)
    } catch {
      let sentence = error.description(naming: flag)
      guard case .oneSelection = error, !given.namesCountries else { throw .usage(sentence) }
      // Nothing named and no favourite: say how to keep one.
      throw .usage(sentence.dropLast() + ", or keep a favourite with 'newsatlas config set country fr'.")
    }
  }

  /// The command-line name of a request parameter.
  static func flag(_ parameter: HeadlinesRequest.Parameter) -> String {
    parameter == .pageSize ? "--page-size" : "--" + parameter.rawValue
  }

  static func text(_ result: HeadlinesResult, dates: HumanDate) -> String {
    var text = result.job.label
    let count = result.articles.count
    switch result.strategy {
    case .none:
      return text + " · no headlines: \(result.reason ?? "nothing to ask")\n"
    case .country: text += " · \(count) article\(count == 1 ? "" : "s") via top headlines\n"
    case .sources: text += " · \(count) article\(count == 1 ? "" : "s") via its sources\n"
    case .search: text += " · \(count) article\(count == 1 ? "" : "s") via a search of its name\n"
    case .sourcecountry: text += " · \(count) article\(count == 1 ? "" : "s") via GDELT\n"
    case .feeds: text += " · \(count) article\(count == 1 ? "" : "s") via its feeds\n"
    }
    for article in result.articles { text += article.textLines(dates) }
    return text
  }

  /// The plan as people read it: each request with the countries it serves, then the cost against the budget.
  static func text(_ plan: HeadlinesPlan, usage: QuotaUsage?) -> String {
    let codes = { (offsets: [Int]) in
      offsets.map { plan.jobs[$0].label(short: true) }.joined(separator: ", ")
    }
    var text =
      "Plan for \(plan.jobs.count) result\(plan.jobs.count == 1 ? "" : "s"), "
      + "\(plan.options.pageSize) article\(plan.options.pageSize == 1 ? "" : "s") each:\n"
    switch plan.sourcesList {
    case .notNeeded: break
    case .cached: text += "  cached  top-headlines/sources  (the sources list)\n"
    case .send: text += "  send    top-headlines/sources  (the sources list)\n"
    }
    for request in plan.requests {
      let provider = request.provider == .newsapi ? "" : request.provider.rawValue + " "
      text +=
        "  \(request.cached ? "cached" : "send  ")  \(provider)\(printable(request.text))  → "
        + codes(request.jobs)
        + (request.route == .packed ? " (packed)" : request.route == .probe ? " (probe)" : "") + "\n"
    }
    if !plan.awaitingSourcesList.isEmpty {
      text +=
        "  later   top-headlines?sources=…  → \(codes(plan.awaitingSourcesList)), packed once the sources "
        + "list is known (a dry run does not fetch it)\n"
    }
    for i in plan.settled.keys.sorted() {
      let result = plan.settled[i]!
      text += "  none    \(codes([i])): \(printable(result.reason ?? "nothing to ask"))\n"
    }
    text += "Sends \(plan.cost) request\(plan.cost == 1 ? "" : "s")"
    if plan.followUpsAtMost > 0 {
      text += " (up to \(plan.followUpsAtMost) more if shared answers crowd countries out)"
    } else {
      text += " (more only if a shared answer crowds a country out)"
    }
    if let usage, plan.requests.contains(where: { $0.provider == .newsapi }) {
      text +=
        "; last 24 hours: \(usage.lastDay) + \(plan.cost) of \(usage.dailyBudget); "
        + "last 12 hours: \(usage.lastHalfDay) + \(plan.cost) of \(usage.halfDayBudget)"
    }
    text += ".\n"
    if plan.seconds > 0 || plan.secondsAtMost > 0 {
      text +=
        "Takes about \(spokenDuration(plan.seconds))"
        + (plan.secondsAtMost > plan.seconds ? ", at most \(spokenDuration(plan.secondsAtMost))" : "")
        + ", GDELT being asked once every \(spokenDuration(plan.spacing)).\n"
    }
    return text
  }
}

extension HeadlinesJob {
  /// "fr  France · business", or with `short` "fr/business".
  func label(short: Bool = false) -> String {
    if short { return country.code + (category.map { "/" + $0 } ?? "") }
    return "\(country.code)  \(country.name)" + (category.map { " · " + $0 } ?? "")
  }
  var label: String { label() }
}

struct SearchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search", abstract: "Search every article NewsAPI indexes (its everything endpoint).")

  @Argument(help: "Words to look for; NewsAPI's syntax (\"exact phrase\", +must, -not, AND/OR/NOT) works.")
  var query: String

  @Option(help: ArgumentHelp("One of NewsAPI's 14 languages, such as fr.", valueName: "l"))
  var language: String?

  @Option(
    name: .customLong("sort-by"),
    help: ArgumentHelp("relevancy, popularity or publishedAt.", valueName: "order"))
  var sortBy: String?

  @Option(
    help: ArgumentHelp(
      "Oldest date or time, ISO 8601 (2026-11-01 or 2026-11-01T10:00:00), UTC unless it has an offset.",
      valueName: "date"))
  var from: String?

  @Option(help: ArgumentHelp("Newest date or time, ISO 8601.", valueName: "date"))
  var to: String?

  @Option(
    help: ArgumentHelp("Only these sources, comma-separated ids (up to 20; see sources).", valueName: "ids"))
  var sources: String?

  @Option(
    help: ArgumentHelp("Only these domains, comma-separated (bbc.co.uk,lemonde.fr).", valueName: "domains"))
  var domains: String?

  @Option(
    name: .customLong("exclude-domains"),
    help: ArgumentHelp("Never these domains, comma-separated.", valueName: "domains"))
  var excludeDomains: String?

  @Option(
    name: .customLong("search-in"),
    help: ArgumentHelp(
      "Where the words must be: title, description, content, comma-separated.", valueName: "fields"))
  var searchIn: String?

  @Option(
    name: .customLong("page-size"), parsing: .unconditional,
    help: ArgumentHelp("Articles, 1 to 100.", valueName: "n"))
  var pageSize: Int = 20

  @OptionGroup var service: ServiceOptions

  func run() async throws {
    let settings = try Settings.load()
    var search = SearchQuery(q: query)
    search.language = language ?? settings[.language]
    search.sortBy = sortBy
    search.from = from
    search.to = to
    func list(_ text: String?) -> [String] {
      (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
        !$0.isEmpty
      }
    }
    (search.sources, search.domains) = (list(sources), list(domains))
    (search.excludeDomains, search.searchIn) = (list(excludeDomains), list(searchIn))
    search.pageSize = pageSize
    let (client, http) = try service.client(settings: settings)
    defer { http.shutdown() }
    let page: ArticlePage
    do { page = try await client.everything(search) } catch { throw CLIError(newsAPI: error) }
    let out = OutputBuffer.standardOutput()
    if service.format == .json {
      struct Body: Encodable {
        let totalResults: Int
        let articles: [Article]
      }
      out.append(encodedLine(Body(totalResults: page.totalResults, articles: page.articles)))
      return
    }
    out.append("\(page.articles.count) of \(page.totalResults) articles\n")
    let dates = service.dates
    for article in page.articles { out.append(article.textLines(dates)) }
  }
}

struct SourcesCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sources",
    abstract: "List NewsAPI's top-headline sources (country codes normalised: zh→cn, is→il).")

  @Argument(help: "Only sources whose id or name contains this text (any case).")
  var name: String?

  @Option(
    help: ArgumentHelp(
      "A country: a two-letter code, or the name of one of the 54 in English or French.", valueName: "country"
    ))
  var country: String?

  @Option(help: ArgumentHelp("A language.", valueName: "l"))
  var language: String?

  @Option(help: ArgumentHelp("A category.", valueName: "c"))
  var category: String?

  @OptionGroup var service: ServiceOptions

  func run() async throws {
    let (client, http) = try service.client(settings: try Settings.load())
    defer { http.shutdown() }
    let list: [NewsSource]
    do {
      // A name of one of the 54 becomes its code; other text goes as given (NewsAPI's sources list countries
      // beyond the 54), where the client checks it is two letters.
      let code = country.map { text in
        if case .one(let found) = Country.identified(by: text) { return found.code }
        return text.lowercased()
      }
      list = try await client.sources(country: code, language: language, category: category).filter {
        source in
        guard let name, !name.isEmpty else { return true }
        return source.id.localizedCaseInsensitiveContains(name)
          || source.name.localizedCaseInsensitiveContains(name)
      }
    } catch {
      throw CLIError(newsAPI: error)
    }
    if list.isEmpty {  // a filter that names nothing is not an empty success
      let filters = [
        name.map { "'\(printable($0))'" }, country.map { "--country \(printable($0))" },
        language.map { "--language \(printable($0))" }, category.map { "--category \(printable($0))" },
      ].compactMap { $0 }
      throw CLIError.usage(
        filters.isEmpty
          ? "NewsAPI listed no sources."
          : "No NewsAPI source matches \(filters.joined(separator: " and ")); 'newsatlas sources' lists them all."
      )
    }
    let out = OutputBuffer.standardOutput()
    if service.format == .json {
      out.append(encodedLine(["sources": list]))
      return
    }
    for source in list {  // the service's text, made safe for a terminal
      let (id, country, language) = (printable(source.id), source.country ?? "--", source.language ?? "--")
      out.append(
        "\(id.padding(to: 28)) \(printable(country))  \(printable(language))  \(printable(source.name))\n")
    }
  }
}

extension Article {
  /// Two lines for people: date (as `dates` shows it), source and title, then the link; the service's text
  /// made safe for a terminal (no control character, so no escape sequence and no forged line).
  func textLines(_ dates: HumanDate) -> String {
    "    \(printable(dates.text(publishedAt)))  \(printable(source.name)): \(printable(title))\n"
      + "                \(printable(url))\n"
  }
}

extension InterfaceLanguage: ExpressibleByArgument {}

/// One JSON document on a line, keys sorted, slashes as they are.
func encodedLine(_ value: some Encodable) -> [UInt8] {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  return Array((try? encoder.encode(value)) ?? Data("null".utf8)) + [0x0A]
}

struct QuotaCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "quota",
    abstract: "Show the requests sent in the last 24 and 12 hours, and when they free up.")

  func run() throws {
    let settings = try Settings.load()
    let path = UserFolders().cacheFile
    guard let database = CacheDatabase(path: path, warn: { StandardError.write("newsatlas: \($0)\n") }) else {
      throw CLIError.data("There is no cache at \(path), so no requests are counted.")
    }
    let usage = CachePolicy(database: database, settings: settings) { _ in }.usage()
    var text =
      "\(usage.lastDay) of \(usage.dailyBudget) requests in the last 24 hours, "
      + "\(usage.lastHalfDay) of \(usage.halfDayBudget) in the last 12 hours.\n"
    if let next = usage.nextFreeAt {
      text +=
        "The budget is spent; the next request frees up in \(spokenDuration(next.timeIntervalSinceNow)).\n"
    } else if let oldest = usage.dayFreesAt {
      text +=
        "The oldest of them leaves the 24-hour window in \(spokenDuration(oldest.timeIntervalSinceNow)).\n"
    }
    print(text, terminator: "")
  }
}
