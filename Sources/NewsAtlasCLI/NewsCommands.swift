import ArgumentParser
import AtlasMessages
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
      Message.apiBaseHelp(NewsConfiguration.defaults.apiBase),
      valueName: "url"))
  var apiBase: String?

  @Option(
    parsing: .unconditional, help: ArgumentHelp(Message.timeoutHelp(), valueName: "seconds"))
  var timeout = NewsConfiguration.defaults.requestTimeout

  @Option(help: ArgumentHelp(Message.formatTextOrJSON()))
  var format: TextOrJSON = .text

  @OptionGroup var interface: InterfaceOptions

  @Flag(help: ArgumentHelp(Message.refreshHelp()))
  var refresh = false

  @Flag(help: ArgumentHelp(Message.offlineHelp()))
  var offline = false

  @Flag(help: ArgumentHelp(Message.forceHelp()))
  var force = false

  /// How text output shows an article's date: in the reader's time zone (`TZ`, else the system's) and the
  /// interface's language, or `--utc`'s ISO 8601.
  func dates(_ options: DateOptions) -> HumanDate {
    HumanDate(language: interface.lang ?? .current, utc: options.utc)
  }

  /// A client from the flags, else the environment (`NEWSAPI_KEY`, `NEWSATLAS_API_BASE`), else the settings file.
  func client(settings: Settings, keyRequired: Bool = true) throws(CLIError) -> (NewsAPIClient, HTTPClient) {
    let http = try httpClient(concurrency: NewsConfiguration.defaults.concurrency)
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
  func providers(
    settings: Settings, choice: ProviderChoice, dryRun: Bool, oneOff: [String] = [], concurrency: Int,
    gdeltProgress: (@Sendable (GDELTRequestProgress) -> Void)? = nil
  ) throws(CLIError) -> (NewsProviders, HTTPClient) {
    let http = try httpClient(concurrency: concurrency)
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
          configuration: NewsConfiguration(settings: settings), progress: gdeltProgress)
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
      throw CLIError(description: "\(error)", exitCode: 70)  // no sentence of ours: a programming error
    }
  }

  /// The libcurl client the flags describe, with at most `concurrency` requests in flight (headlines'
  /// `--concurrency`; search and sources send one request at a time).
  private func httpClient(concurrency: Int) throws(CLIError) -> HTTPClient {
    guard timeout > 0, timeout <= 86_400 else {
      throw .usage(Message.timeoutRange())
    }
    guard (1...256).contains(concurrency) else {
      throw .usage(Message.concurrencyRange(concurrency))
    }
    guard !(refresh && offline) else {
      throw .usage(Message.refreshAndOffline())
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
        StandardError.write("newsatlas: \(error.text(in: .current))\n")
        return nil
      }
      throw CLIError(
        description: offline
          ? Message.cacheOfflineOnly(error.text(in: .current))
          : Message.cacheNeeded(error.text(in: .current)),
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

/// `--utc`, for the commands whose text shows articles' dates (headlines, search; not sources, which has none).
struct DateOptions: ParsableArguments {
  @Flag(help: ArgumentHelp(Message.utcHelp()))
  var utc = false
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
    case .invalidRequest, .unknownSource: code = CLIError.usage
    case _ where error.isKeyRejected: code = 77
    case _ where error.isQuota: code = 75
    default: code = 69
    }
    // What only a command line can do about our own budget.
    var description = error.description(in: .current)
    if case .planOverBudget = error {
      description = Message.planOverBudgetHint(description)
    } else if error.isOwnBudget {
      description = Message.ownBudgetHint(description)
    }
    self.init(description: description, exitCode: code)
  }
}

struct HeadlinesCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "headlines",
    abstract: Message.headlinesAbstract(),
    discussion: helpDiscussion(Message.headlinesDiscussion())
  )

  @Option(
    help: ArgumentHelp(
      Message.headlinesCountryHelp(),
      valueName: "country"))
  var country: String?

  @Option(
    help: ArgumentHelp(
      Message.headlinesCountriesHelp(), valueName: "list"))
  var countries: String?

  @Option(
    parsing: .unconditional,  // "--near -33.87,151.21" needs no "="
    help: ArgumentHelp(
      Message.headlinesNearHelp(), valueName: "lat,lon"))
  var near: String?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      Message.headlinesClusterHelp(),
      valueName: "id"))
  var cluster: String?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(Message.headlinesZoomHelp(), valueName: "z"))
  var zoom: String?

  @OptionGroup(title: Message.shapeTitle())
  var clustering: ClusterShapeOptions

  @Flag(help: ArgumentHelp(Message.headlinesAllHelp()))
  var all = false

  @Option(
    help: ArgumentHelp(
      Message.headlinesCategoryHelp(), valueName: "c")
  )
  var category: String?

  @Option(
    help: ArgumentHelp(
      Message.headlinesCategoriesHelp(),
      valueName: "list"))
  var categories: String?

  @Option(
    name: .customLong("page-size"), parsing: .unconditional,
    help: ArgumentHelp(
      Message.headlinesPageSizeHelp(HeadlinesRequest.defaultPageSize), valueName: "n"))
  var pageSize: String?

  @Flag(
    name: .customLong("search-fallback"),
    help: ArgumentHelp(Message.headlinesSearchFallbackHelp()))
  var searchFallback = false

  @Flag(help: ArgumentHelp(Message.headlinesProbeHelp()))
  var probe = false

  @Flag(name: .customLong("dry-run"), help: ArgumentHelp(Message.headlinesDryRunHelp()))
  var dryRun = false

  @Option(
    help: ArgumentHelp(
      Message.headlinesProviderHelp(),
      valueName: "name"))
  var provider: String?

  @Option(
    name: .customLong("feed"),
    help: ArgumentHelp(
      Message.headlinesFeedHelp(), valueName: "url"))
  var feeds: [String] = []

  @Option(name: .customLong("source"), help: ArgumentHelp(Message.headlinesSourceHelp(), valueName: "id"))
  var sources: [String] = []

  @Option(parsing: .unconditional, help: ArgumentHelp(Message.concurrencyHelp(), valueName: "n"))
  var concurrency = NewsConfiguration.defaults.concurrency

  @OptionGroup var service: ServiceOptions

  @OptionGroup var dateOptions: DateOptions

  func run() async throws {
    let settings = try LaunchSettings.load()
    for url in feeds { _ = try FeedList.validate(url: url) }
    let choice: ProviderChoice
    do {
      choice = try settings.provider(given: provider)
    } catch {
      throw CLIError.usage(
        Message.headlinesProviderFlag(printable(String((provider ?? "").prefix(64))), ProviderChoice.spoken())
      )
    }
    let request = try Self.request(
      HeadlinesRequest.Given(
        country: country, countries: countries, near: near, cluster: cluster, zoom: zoom, all: all,
        category: category, categories: categories, pageSize: pageSize, sources: sources),
      settings: settings, clusterOptions: cluster == nil ? ClusterOptions() : clustering.checkedOptions(),
      newsCountries: choice.newsCountries)
    if !feeds.isEmpty && choice != .feeds && choice != .auto {
      throw CLIError.usage(Message.headlinesFeedNeedsFeeds())
    }
    if !request.sources.isEmpty && choice != .newsapi && choice != .auto {
      throw CLIError.usage(Message.headlinesSourceNeedsNewsAPI())
    }
    // On a terminal, a paced GDELT call (up to a minute for --all) says each request as it answers.
    let (providers, http) = try service.providers(
      settings: settings, choice: choice, dryRun: dryRun, oneOff: feeds, concurrency: concurrency,
      gdeltProgress: StandardError.isTerminal ? Self.showRequest : nil)
    defer { http.shutdown() }
    // The sources, each checked against NewsAPI's sources list (a nearest id named for a typo), join the jobs:
    // packed with the countries' sources into the same requests, counted in the same budget.
    let jobs: [HeadlinesJob]
    do { jobs = try await providers.jobs(for: request, fetch: !dryRun) } catch {
      // A favourite source the list does not know is the settings file's fault, not the command line's (78).
      if error.isInvalidRequest, sources.isEmpty, !request.sources.isEmpty {
        throw CLIError(
          description: Message.headlinesFavouriteSourcesRefused(
            settings.path, error.description(in: .current)),
          exitCode: 78)
      }
      throw CLIError(newsAPI: error)
    }
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
        format == .json
          ? HeadlinesJSON.plan(plan, usage: usage, in: .current) : Array(Self.text(plan, usage: usage).utf8))
      return
    }
    let results: [HeadlinesResult]
    do {
      results = try await providers.headlines(jobs, choice: choice, options: options) { _, result in
        guard format == .text else { return }
        if let error = result.error {  // as they complete; a lone result's error is the closing sentence
          if jobs.count > 1 {
            StandardError.write(
              "newsatlas: \(Message.labelled(result.job.label, error.description(in: .current)))\n"
            )
          }
        } else {
          out.append(Self.text(result, dates: service.dates(dateOptions)))
          out.flush()
        }
      }
    } catch {
      throw CLIError(newsAPI: error)
    }
    if format == .json { out.append(HeadlinesJSON.results(results, in: .current)) }
    out.flush()
    let failed = results.filter { $0.error != nil }
    let worst =
      failed.first { $0.error!.isKeyRejected } ?? failed.first { $0.error!.isQuota } ?? failed.first
    guard let worst, let error = worst.error else { return }
    throw CLIError(
      description: Self.failureSentence(
        failed: failed.count, of: jobs.count,
        worst: Message.labelled(worst.job.label, error.description(in: .current)),
        errorsPrinted: format == .text),
      exitCode: CLIError(newsAPI: error).exitCode)
  }

  /// One line on standard error for a GDELT request as it answers, for a call that may send more than one or
  /// a request that waited its turn: `newsatlas: GDELT request 2 of at most 12 · 17 countries · 183 articles ·
  /// 5.0 s`.
  @Sendable static func showRequest(_ request: GDELTRequestProgress) {
    guard request.limit > 1 || request.seconds >= 1 else { return }
    let asked: String
    if request.countries.count == 1, let country = Country.named(code: request.countries[0], in: .world) {
      asked = InterfaceLanguage.current == .french ? country.nameFrench : country.name
    } else {
      asked = Message.gdeltRequestCountries(request.countries.count)
    }
    let brought =
      request.articles.map { $0 == 1 ? Message.headlinesOneArticle() : Message.headlinesArticles($0) }
      ?? Message.gdeltRequestFailed()
    StandardError.write(
      "newsatlas: "
        + Message.gdeltRequestDone(
          request.number, request.limit, asked, brought, ProgressLine.seconds(request.seconds)) + "\n")
  }

  /// The closing sentence when results failed, each error said once: a lone result's error is the sentence;
  /// in text each error was printed as it came, so the sentence counts them; in JSON the errors are in the
  /// document, and the sentence names the one that sets the exit status.
  static func failureSentence(failed: Int, of total: Int, worst: String, errorsPrinted: Bool) -> String {
    if total == 1 { return worst }
    let count =
      failed == total ? Message.headlinesAllFailed(total) : Message.headlinesSomeFailed(failed, total)
    let rest = total - failed
    let others =
      rest == 0 ? "" : rest == 1 ? Message.headlinesOtherAbove() : Message.headlinesOthersAbove(rest)
    if errorsPrinted { return count + others + "." }
    return Message.headlinesErrorsInJSON(count, worst)
  }

  /// The request the flags make, checked by the news library as the service's `/v1/headlines` checks its
  /// query (the same sentences, the flags named as flags). With no country named, the settings' favourite;
  /// with no category, the settings' default one.
  static func request(
    _ given: HeadlinesRequest.Given, settings: Settings, clusterOptions: ClusterOptions,
    newsCountries: NewsCountrySet = .newsAPI
  ) throws(CLIError) -> HeadlinesRequest {
    var given = given
    // Nothing named: the favourite country and sources (a --source alone asks that source alone).
    if !given.namesCountries && given.sources.isEmpty {
      given.country = settings[.country]
      given.sources = settings[.sources].map { [$0] } ?? []
    }
    if given.category == nil && given.categories == nil { given.category = settings[.category] }
    do {
      return try HeadlinesRequest(given, clusterOptions: clusterOptions, newsCountries: newsCountries)
    } catch {
      let sentence = error.description(naming: flag, in: .current)
      guard case .oneSelection = error, !given.namesCountries else { throw .usage(sentence) }
      // Nothing named and no favourite: say how to keep one.
      throw .usage(Message.headlinesKeepFavourite(sentence.dropLast()))
    }
  }

  /// The command-line name of a request parameter.
  static func flag(_ parameter: HeadlinesRequest.Parameter) -> String {
    parameter == .pageSize ? "--page-size" : "--" + parameter.rawValue
  }

  static func text(_ result: HeadlinesResult, dates: HumanDate) -> String {
    var text = Paint.bold(result.job.label)
    let count = result.articles.count
    let articles = count == 1 ? Message.headlinesOneArticle() : Message.headlinesArticles(count)
    if result.job.source != nil && result.strategy == .sources {
      return text + " · \(articles) \(Message.headlinesViaSource())\n"
        + result.articles.map { $0.textLines(dates) }.joined()
    }
    switch result.strategy {
    case .none:
      return text + " · "
        + Message.headlinesNoHeadlines(
          result.reason?.text(in: .current) ?? Message.headlinesNothingToAsk())
        + "\n"
    case .country: text += " · \(articles) \(Message.headlinesViaTop())\n"
    case .sources: text += " · \(articles) \(Message.headlinesViaSources())\n"
    case .search: text += " · \(articles) \(Message.headlinesViaSearch())\n"
    case .sourcecountry: text += " · \(articles) \(Message.headlinesViaGDELT())\n"
    case .feeds: text += " · \(articles) \(Message.headlinesViaFeeds())\n"
    }
    for article in result.articles { text += article.textLines(dates) }
    return text
  }

  /// The plan as people read it: each request with the countries it serves, then the cost against the budget.
  static func text(_ plan: HeadlinesPlan, usage: QuotaUsage?) -> String {
    let codes = { (offsets: [Int]) in
      offsets.map { plan.jobs[$0].label(short: true) }.joined(separator: ", ")
    }
    let language = InterfaceLanguage.current
    let (cached, send) = (Message.planCached(), Message.planSend())
    let width = max(cached.count, send.count, Message.planLater().count, Message.planNone().count)
    func column(_ word: String) -> String { word.padding(to: width) }
    let results = plan.jobs.count == 1 ? Message.planOneResult() : Message.planResults(plan.jobs.count)
    let articles =
      plan.options.pageSize == 1
      ? Message.headlinesOneArticle() : Message.headlinesArticles(plan.options.pageSize)
    var text = Message.planHeading(results, articles) + "\n"
    switch plan.sourcesList {
    case .notNeeded: break
    case .cached: text += "  \(column(cached))  top-headlines/sources  \(Message.planSourcesList())\n"
    case .send: text += "  \(column(send))  top-headlines/sources  \(Message.planSourcesList())\n"
    }
    for request in plan.requests {
      let provider = request.provider == .newsapi ? "" : request.provider.rawValue + " "
      text +=
        "  \(column(request.cached ? cached : send))  \(provider)\(printable(request.text))  → "
        + codes(request.jobs)
        + (request.route == .packed
          ? " " + Message.planPacked() : request.route == .probe ? " " + Message.planProbe() : "") + "\n"
    }
    if !plan.awaitingSourcesList.isEmpty {
      text +=
        "  \(column(Message.planLater()))  top-headlines?sources=…  → \(codes(plan.awaitingSourcesList)), "
        + Message.planAwaiting() + "\n"
    }
    for i in plan.settled.keys.sorted() {
      let result = plan.settled[i]!
      text +=
        "  \(column(Message.planNone()))  \(codes([i])): "
        + "\(printable(result.reason?.text(in: .current) ?? Message.headlinesNothingToAsk()))\n"
    }
    text += Message.planSends(plan.cost == 1 ? Message.planOneRequest() : Message.planRequests(plan.cost))
    text +=
      " "
      + (plan.followUpsAtMost > 0 ? Message.planUpToMore(plan.followUpsAtMost) : Message.planMoreOnly())
    if let usage, plan.requests.contains(where: { $0.provider == .newsapi }) {
      text += Message.planBudget(
        usage.lastDay, plan.cost, usage.dailyBudget, usage.lastHalfDay, plan.cost, usage.halfDayBudget)
    }
    text += ".\n"
    if plan.seconds > 0 || plan.secondsAtMost > 0 {
      text +=
        Message.planTakes(spokenDuration(plan.seconds, in: language))
        + (plan.secondsAtMost > plan.seconds
          ? Message.planAtMost(spokenDuration(plan.secondsAtMost, in: language)) : "")
        + Message.planGDELTSpacing(spokenDuration(plan.spacing, in: language)) + "\n"
    }
    return text
  }
}

extension HeadlinesJob {
  /// "fr  France · business", or with `short` "fr/business".
  func label(short: Bool = false) -> String {
    if let source { return short ? source : "\(source)  (\(country.code))" }
    if short { return country.code + (category.map { "/" + $0 } ?? "") }
    let name = InterfaceLanguage.current == .french ? country.nameFrench : country.name
    return "\(country.code)  \(name)" + (category.map { " · " + $0 } ?? "")
  }
  var label: String { label() }
}

struct SearchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search", abstract: Message.searchAbstract(), discussion: helpDiscussion())

  @Argument(help: ArgumentHelp(Message.searchQueryHelp()))
  var query: String

  @Option(help: ArgumentHelp(Message.searchLanguageHelp(), valueName: "l"))
  var language: String?

  @Option(
    name: .customLong("sort-by"),
    help: ArgumentHelp(Message.searchSortByHelp(), valueName: "order"))
  var sortBy: String?

  @Option(
    help: ArgumentHelp(
      Message.searchFromHelp(),
      valueName: "date"))
  var from: String?

  @Option(help: ArgumentHelp(Message.searchToHelp(), valueName: "date"))
  var to: String?

  @Option(
    help: ArgumentHelp(Message.searchSourcesHelp(), valueName: "ids"))
  var sources: String?

  @Option(
    help: ArgumentHelp(Message.searchDomainsHelp(), valueName: "domains"))
  var domains: String?

  @Option(
    name: .customLong("exclude-domains"),
    help: ArgumentHelp(Message.searchExcludeDomainsHelp(), valueName: "domains"))
  var excludeDomains: String?

  @Option(
    name: .customLong("search-in"),
    help: ArgumentHelp(
      Message.searchSearchInHelp(), valueName: "fields"))
  var searchIn: String?

  @Option(
    name: .customLong("page-size"), parsing: .unconditional,
    help: ArgumentHelp(Message.searchPageSizeHelp(), valueName: "n"))
  var pageSize: Int = 20

  @OptionGroup var service: ServiceOptions

  @OptionGroup var dateOptions: DateOptions

  func run() async throws {
    let settings = try LaunchSettings.load()
    var search = SearchQuery(q: query)
    // A language by name as well as by code (french, français); the settings' language and order otherwise.
    search.language = language.map { newsLanguage($0) ?? $0 } ?? settings[.language]
    search.sortBy = sortBy ?? settings[.sortBy]
    search.from = from
    search.to = to
    func list(_ text: String?) -> [String] {
      (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
        !$0.isEmpty
      }
    }
    // Source ids as headlines reads them (any case, 20 at most), then checked against the sources list.
    do {
      search.sources = try HeadlinesRequest.sourceIDs(sources.map { [$0] } ?? [])
    } catch {
      throw CLIError.usage(error.description(naming: { _ in "--sources" }, in: .current))
    }
    search.domains = list(domains)
    (search.excludeDomains, search.searchIn) = (list(excludeDomains), list(searchIn))
    search.pageSize = pageSize
    // Without a key, GDELT answers: it is itself a search service, and needs none.
    if try Self.keyless(settings) {
      let (providers, http) = try service.providers(settings: settings, choice: .gdelt, dryRun: false, concurrency: 4)
      defer { http.shutdown() }
      let page: ArticlePage
      do {
        page = try await providers.gdelt!.search(search, naming: Self.flag)
      } catch {
        throw CLIError(newsAPI: error)
      }
      write(page, provider: "gdelt")
      return
    }
    let (client, http) = try service.client(settings: settings)
    defer { http.shutdown() }
    let page: ArticlePage
    do {
      // Everything NewsAPI would refuse, refused before the sources list is asked for.
      try NewsAPIClient.check(search, naming: Self.flag)
      try await client.checkSearchSources(search.sources)
      page = try await client.everything(search)
    } catch {
      throw CLIError(newsAPI: error)
    }
    write(page, provider: nil)
  }

  /// Whether no key is set (the environment's or the settings'), so GDELT answers.
  static func keyless(_ settings: Settings) throws(CLIError) -> Bool {
    do { return try settings.apiKey() == nil } catch { throw CLIError(error) }
  }

  /// The page: JSON (`totalResults`, `articles`, and `provider` when GDELT answered), or a count line and the
  /// articles as text.
  func write(_ page: ArticlePage, provider: String?) {
    let out = OutputBuffer.standardOutput()
    if service.format == .json {
      struct Body: Encodable {
        let totalResults: Int
        let articles: [Article]
        let provider: String?
      }
      out.append(encodedLine(Body(totalResults: page.totalResults, articles: page.articles, provider: provider)))
      return
    }
    out.append(
      (provider == nil
        ? Message.searchCount(page.articles.count, page.totalResults)
        : page.articles.count == 1
          ? Message.searchCountGDELTOne() : Message.searchCountGDELT(page.articles.count)) + "\n")
    let dates = service.dates(dateOptions)
    for article in page.articles { out.append(article.textLines(dates)) }
  }
}

extension SearchCommand {
  /// The flag a refusal names for a search parameter (NewsAPI's `searchIn` is `--search-in` here).
  static func flag(_ field: SearchQuery.Field) -> String {
    switch field {
    case .searchIn: "--search-in"
    case .from: "--from"
    case .to: "--to"
    case .pageSize: "--page-size"
    case .page: "page"  // search asks the first page alone, which is never refused
    case .sources: "--sources"
    case .sortBy: "--sort-by"
    }
  }
}

struct SourcesCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sources",
    abstract: Message.sourcesAbstract(), discussion: helpDiscussion())

  @Argument(help: ArgumentHelp(Message.sourcesNameHelp()))
  var name: String?

  @Option(
    help: ArgumentHelp(
      Message.sourcesCountryHelp(), valueName: "country"))
  var country: String?

  @Option(help: ArgumentHelp(Message.sourcesLanguageHelp(), valueName: "l"))
  var language: String?

  @Option(help: ArgumentHelp(Message.sourcesCategoryHelp(), valueName: "c"))
  var category: String?

  @OptionGroup var service: ServiceOptions

  /// The filters as NewsAPI takes them, checked before any key or request: a country's code (a name of one of
  /// the 54, or any two letters: the list has countries beyond them), a language's code (or its name, `french`),
  /// a category.
  func filters() throws(CLIError) -> (country: String?, language: String?, category: String?) {
    let code = try country.map { text throws(CLIError) in
      switch Country.identified(by: text) {
      case .one(let found): return found.code
      case .ambiguous(let candidates):
        throw .usage(
          CountryIdentification.refusal(
            candidates: candidates, shown: printable(String(text.prefix(64))), in: .current))
      case .none:
        let lower = text.lowercased()
        guard lower.count == 2, lower.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) }) else {
          throw .usage(Message.twoLetterCountry(printable(String(text.prefix(64)))))
        }
        return lower
      }
    }
    let languageCode = try language.map { text throws(CLIError) in
      guard let code = newsLanguage(text) else {
        throw .usage(
          Message.notALanguage(printable(String(text.prefix(64))), newsLanguages.joined(separator: ", ")))
      }
      return code
    }
    let categoryName = try category.map { text throws(CLIError) in
      guard newsCategories.contains(text.lowercased()) else {
        throw .usage(
          Message.notACategory(printable(String(text.prefix(64))), newsCategories.joined(separator: ", ")))
      }
      return text.lowercased()
    }
    return (code, languageCode, categoryName)
  }

  func run() async throws {
    let (code, languageCode, categoryName) = try filters()
    let (client, http) = try service.client(settings: try LaunchSettings.load())
    defer { http.shutdown() }
    let list: [NewsSource]
    do {
      list = try await client.sources(country: code, language: languageCode, category: categoryName).filter {
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
          ? Message.sourcesNoneListed()
          : Message.sourcesNoMatch(filters.joined(separator: Message.sourcesAnd())))
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
  /// Two lines for people: date (as `dates` shows it), source and title (with the reader's colon, "Source :
  /// titre" in French), then the link; the service's text made safe for a terminal (no control character, so no
  /// escape sequence and no forged line).
  func textLines(_ dates: HumanDate) -> String {
    "    \(printable(dates.text(publishedAt)))  \(Message.labelled(printable(source.name), printable(title)))\n"
      + "                \(Paint.dim(printable(url)))\n"
  }
}

/// One JSON document on a line, keys sorted, slashes as they are.
func encodedLine(_ value: some Encodable) -> [UInt8] {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  return Array((try? encoder.encode(value)) ?? Data("null".utf8)) + [0x0A]
}

struct QuotaCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "quota",
    abstract: Message.quotaAbstract(), discussion: helpDiscussion())

  @OptionGroup var interface: InterfaceOptions

  func run() throws {
    let settings = try LaunchSettings.load()
    let path = UserFolders().cacheFile
    guard let database = CacheDatabase(path: path, warn: { StandardError.write("newsatlas: \($0)\n") }) else {
      throw CLIError.data(Message.quotaNoCache(path))
    }
    let usage = CachePolicy(database: database, settings: settings) { _ in }.usage()
    var text =
      Message.quotaUsage(usage.lastDay, usage.dailyBudget, usage.lastHalfDay, usage.halfDayBudget) + "\n"
    if let next = usage.nextFreeAt {
      text += Message.quotaSpent(spokenDuration(next.timeIntervalSinceNow, in: .current)) + "\n"
    } else if let oldest = usage.dayFreesAt {
      text += Message.quotaOldest(spokenDuration(oldest.timeIntervalSinceNow, in: .current)) + "\n"
    }
    print(text, terminator: "")
  }
}
