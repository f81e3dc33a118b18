import AtlasMessages
import NewsAtlas

/// Where headlines come from.
public enum NewsProvider: String, CaseIterable, Sendable {
  /// NewsAPI v2 (a key; 100 requests a day on the free plan).
  case newsapi
  /// GDELT DOC 2.0 (no key; one request every 5 seconds).
  case gdelt
  /// The country's own RSS and Atom feeds.
  case feeds

  /// The name people read: "NewsAPI", "GDELT", "feeds".
  public var displayName: String {
    switch self {
    case .newsapi: return "NewsAPI"
    case .gdelt: return "GDELT"
    case .feeds: return "feeds"
    }
  }
}

/// Which provider a headlines command asks: one by name, or `auto`, which chooses for each country.
public enum ProviderChoice: String, CaseIterable, Sendable {
  /// A country's configured feeds if it has any, else NewsAPI when a key is set and NewsAPI has a route for
  /// it, else GDELT.
  case auto
  case newsapi
  case gdelt
  case feeds

  /// The one provider named, nil for `auto`.
  public var provider: NewsProvider? { NewsProvider(rawValue: rawValue) }

  /// The countries a country or a place is read among under this choice: every country GDELT covers when a
  /// keyless provider may answer (gdelt, feeds, auto: Madrid is in Spain, whose news GDELT has), NewsAPI's 54
  /// for newsapi alone.
  public var newsCountries: NewsCountrySet { self == .newsapi ? .newsAPI : .world }

  /// The choice named `text`, or a sentence listing the four.
  public static func named(_ text: String) -> ProviderChoice? { ProviderChoice(rawValue: text.lowercased()) }

  /// "auto, newsapi, gdelt or feeds" ("… gdelt ou feeds" in French).
  public static func spoken(in language: InterfaceLanguage = .current) -> String {
    let names = allCases.map(\.rawValue)
    return Message.listOr(names.dropLast().joined(separator: ", "), names.last!, in: language)
  }
}

/// A source of headlines that the planner, the cache, `--dry-run`, `--offline` and pacing apply to: NewsAPI's
/// client, GDELT's, and the feeds provider. Each is built on an `HTTPTransport` and a `ResponseStore` (through
/// its `CachePolicy`), so it is tested in process with a fake transport and a store in memory.
///
/// A provider answers every job it is given, in order: articles, a `none` result with a sentence (no route for
/// that country), or an error object for a failed request; it throws only when nothing at all can be sent (a
/// plan over the budget).
public protocol HeadlinesProvider: Sendable {
  var provider: NewsProvider { get }

  /// Whether the provider has a route for each job: true, false, or nil when that is not known without a
  /// request, which `asking` allows (NewsAPI's sources list).
  func routes(for jobs: [HeadlinesJob], options: HeadlinesOptions, asking: Bool) async -> [Bool?]

  /// What `headlines` would send for these jobs, from what is known now; sends nothing.
  func plan(_ jobs: [HeadlinesJob], options: HeadlinesOptions) -> HeadlinesPlan

  /// Headlines for every job, each result also handed to `onResult` as soon as it is final.
  func headlines(
    _ jobs: [HeadlinesJob], options: HeadlinesOptions, onResult: (Int, HeadlinesResult) -> Void
  ) async throws(NewsAPIError) -> [HeadlinesResult]

  /// Requests answered from the cache and sent, since the provider was made.
  var counters: RequestCounters { get }
}

extension NewsAPIClient: HeadlinesProvider {
  public var provider: NewsProvider { .newsapi }

  /// NewsAPI has a route for a job when its `country=` route answers for the country, when its sources list
  /// lists sources of the country (in the job's category), or with `searchFallback`; the sources list comes
  /// from the cache, or with `asking` is fetched (one request, counted, kept a week).
  public func routes(for jobs: [HeadlinesJob], options: HeadlinesOptions, asking: Bool) async -> [Bool?] {
    if options.searchFallback { return jobs.map { _ in true } }
    let knowledge = RouteKnowledge(database: cache?.database)
    var catalog = cachedSources()?.sources
    if catalog == nil && asking && jobs.contains(where: { !knowledge.asksCountryRoute($0.country.code) }) {
      catalog = try? await sources()
    }
    return jobs.map { job in
      if knowledge.asksCountryRoute(job.country.code, probe: options.probe) { return true }
      guard let catalog else { return nil }
      return !Self.sources(of: job, in: catalog).isEmpty
    }
  }
}
