import AtlasMessages
import NewsAtlas

/// One country's headlines, in one category or in none, or one NewsAPI source's (a favourite source, in its
/// country): what a headlines command asks for.
public struct HeadlinesJob: Hashable, Sendable {
  public let country: Country
  public let category: String?
  /// A NewsAPI source's id: this source's headlines alone (NewsAPI only; `country` is the source's).
  public let source: String?

  public init(country: Country, category: String? = nil, source: String? = nil) {
    self.country = country
    self.category = source == nil ? category : nil
    self.source = source
  }
}

/// The route that served a result.
public enum HeadlinesStrategy: String, Sendable {
  /// NewsAPI's `top-headlines?country=`, which it answers only for `us` since 2024.
  case country
  /// NewsAPI's `top-headlines?sources=` with the country's sources, alone or packed with other countries'.
  case sources
  /// NewsAPI's `everything` with the country's name in its language (only with `searchFallback`).
  case search
  /// GDELT's `sourcecountry:` filter, alone or packed with other countries' (split back by each article's
  /// `sourcecountry`).
  case sourcecountry
  /// The country's RSS/Atom feeds.
  case feeds
  /// Nothing to ask: the provider has no route for the country (the result says why).
  case none
}

/// How a headlines command plans its requests.
public struct HeadlinesOptions: Sendable {
  /// Articles per result, 1 to 100.
  public var pageSize = 10
  /// Search `everything` for countries that have no sources, one request each.
  public var searchFallback = false
  /// Ask `top-headlines?country=` again now, even for countries known to answer it empty.
  public var probe = false
  /// Only articles in this language (one of NewsAPI's 14 codes; GDELT's `sourcelang:`); nil for any.
  public var language: String? = nil

  public init(pageSize: Int = 10, searchFallback: Bool = false, probe: Bool = false, language: String? = nil)
  {
    self.pageSize = pageSize
    self.searchFallback = searchFallback
    self.probe = probe
    self.language = language
  }
}

/// One country's headlines, how they were found, or why there are none.
public struct HeadlinesResult: Sendable {
  public let job: HeadlinesJob
  /// The provider that answered (or that had no route, for `none`).
  public var provider: NewsProvider = .newsapi
  public var strategy: HeadlinesStrategy
  /// The service's count of matches for the request that served this country; for a packed request, the
  /// articles it returned from this country's sources.
  public var totalResults = 0
  public var articles: [Article] = []
  /// Why the strategy is `none`: English in JSON, the reader's language in text.
  public var reason: Sentence?
  /// Why the request that would have served this country failed.
  public var error: NewsAPIError?

  public init(
    job: HeadlinesJob, provider: NewsProvider = .newsapi, strategy: HeadlinesStrategy, totalResults: Int = 0,
    articles: [Article] = [], reason: Sentence? = nil, error: NewsAPIError? = nil
  ) {
    self.job = job
    self.provider = provider
    self.strategy = strategy
    self.totalResults = totalResults
    self.articles = articles
    self.reason = reason
    self.error = error
  }
}

/// A request a plan sends (or finds in the cache), and the jobs it serves.
public struct PlannedRequest: Sendable {
  public enum Route: String, Sendable {
    /// `top-headlines?country=` for a country known to answer it; GDELT's `sourcecountry:` for one country.
    case country
    /// `top-headlines?country=` asked again for a country known to answer it empty.
    case probe
    /// `top-headlines?sources=` for one country.
    case sources
    /// `top-headlines?sources=` shared by several countries, split back by `source.id`; GDELT's
    /// `(sourcecountry:A OR sourcecountry:B …)`, split back by each article's `sourcecountry`.
    case packed
    /// A request again for countries that a packed answer starved (alone, or with GDELT packed anew).
    case followUp = "follow-up"
    /// `everything?q=` for countries without sources.
    case search
  }

  enum Query: Sendable {
    case headlines(HeadlinesQuery)
    case search(SearchQuery)
    case gdelt(GDELTQuery)
    /// Another provider's request, as it writes it (the feeds provider's feed URL).
    case other(String)
  }

  public let route: Route
  let query: Query
  /// Offsets of the jobs it serves.
  public internal(set) var jobs: [Int]
  /// Whether the cache answers it, so that nothing is sent.
  public internal(set) var cached = false

  init(route: Route, query: Query, jobs: [Int]) {
    self.route = route
    self.query = query
    self.jobs = jobs
  }

  /// A request of another provider (feeds), written as `text`.
  public init(route: Route, provider: NewsProvider, text: String, jobs: [Int], cached: Bool) {
    self.route = route
    self.query = .other(text)
    self.jobs = jobs
    self.cached = cached
    self.otherProvider = provider
  }
  private var otherProvider: NewsProvider? = nil

  /// The provider it goes to.
  public var provider: NewsProvider {
    switch query {
    case .headlines, .search: return .newsapi
    case .gdelt: return .gdelt
    case .other: return otherProvider ?? .feeds
    }
  }

  var path: String {
    if case .search = query { return "/v2/everything" }
    return "/v2/top-headlines"
  }

  var parameters: [(String, String)] {
    switch query {
    case .headlines(let query): return (try? NewsAPIClient.parameters(query)) ?? []
    case .search(let query): return (try? NewsAPIClient.parameters(query)) ?? []
    case .gdelt(let query): return query.parameters
    case .other: return []
    }
  }

  /// The request as sent, without the key (which travels in a header): `top-headlines?sources=a,b&pageSize=100`,
  /// `doc?query=(sourcecountry:FR OR sourcecountry:GM)&maxrecords=250&…` (GDELT's).
  public var text: String {
    switch query {
    case .gdelt:
      return "doc?" + parameters.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    case .other(let text):
      return text
    default:
      return String(path.dropFirst(4)) + "?"
        + parameters.filter { $0.0 != "page" }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }
  }
}

/// What a headlines command will send, what the cache answers, and what needs no request at all.
public struct HeadlinesPlan: Sendable {
  public enum SourcesList: Sendable, Equatable {
    /// Every job goes through `top-headlines?country=`.
    case notNeeded
    /// The cache holds a fresh list.
    case cached
    /// The list must be fetched first (one request).
    case send
  }

  public let jobs: [HeadlinesJob]
  public let options: HeadlinesOptions
  /// Whether planning needs NewsAPI's sources list, and where it comes from.
  public var sourcesList: SourcesList = .notNeeded
  /// Requests sent at once: `country=` requests, then (once the sources list is known) sources and searches.
  public var requests: [PlannedRequest] = []
  /// Jobs settled without a request (`none`), by offset.
  public var settled: [Int: HeadlinesResult] = [:]
  /// Jobs whose route waits for the sources list, which a dry run does not fetch.
  public var awaitingSourcesList: [Int] = []
  /// Seconds the requests take at least, waiting for their turns where a provider is paced (GDELT).
  public var seconds: Double = 0
  /// Requests that answers may add (follow-ups for starved countries), beyond `cost`, at most.
  public var followUpsAtMost = 0
  /// Seconds the plan may take with those follow-ups.
  public var secondsAtMost: Double = 0
  /// Seconds between two requests of the paced provider (GDELT), 0 when none is paced.
  public var spacing: Double = 0

  public init(jobs: [HeadlinesJob], options: HeadlinesOptions) {
    self.jobs = jobs
    self.options = options
  }

  /// Requests the plan sends: those the cache does not answer, plus the sources list if it must be fetched.
  /// Follow-ups for starved countries, and fallbacks for a `country=` route that answers empty, come on top.
  public var cost: Int { requests.filter { !$0.cached }.count + (sourcesList == .send ? 1 : 0) }
}

/// How sources are packed into shared `top-headlines?sources=` requests.
///
/// The service takes up to 20 ids and `pageSize` up to 100 a request, and answers about 10 top headlines per
/// source. A request whose sources together hold no more than 100 articles returns all of them, so no country
/// in it is crowded out: bins of at most `sourcesPerRequest` sources, filled first-fit in decreasing order of
/// size. A country with more sources than a bin holds gets a request of its own (its first 20 sources).
public enum SourcePacking {
  public static let maximumSources = 20
  public static let maximumPageSize = 100
  /// The top headlines NewsAPI answers per source: about 10.
  public static let articlesPerSource = 10
  public static var sourcesPerRequest: Int { maximumPageSize / articlesPerSource }

  /// Groups of item offsets, each group one request; items are source counts, groups ordered by first item.
  public static func pack(sourceCounts: [Int]) -> [[Int]] {
    let order = sourceCounts.indices.sorted {
      sourceCounts[$0] != sourceCounts[$1] ? sourceCounts[$0] > sourceCounts[$1] : $0 < $1
    }
    var bins: [(items: [Int], load: Int)] = []
    for item in order {
      let size = min(sourceCounts[item], maximumSources)
      if let open = bins.firstIndex(where: { $0.load + size <= sourcesPerRequest }) {
        bins[open].items.append(item)
        bins[open].load += size
      } else {
        bins.append(([item], size))
      }
    }
    return bins.map { $0.items.sorted() }.sorted { $0[0] < $1[0] }
  }
}
