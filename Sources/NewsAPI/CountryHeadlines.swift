import Fetch
import NewsAtlas

/// Headlines for one country, and how they were found.
public struct CountryHeadlines: Sendable {
  /// Which request served the articles. NewsAPI's `top-headlines?country=` answers only for `us` since 2024, so
  /// the others fall back in order.
  public enum Strategy: String, Sendable {
    /// `top-headlines?country=`.
    case country
    /// `top-headlines?sources=` with the country's sources.
    case sources
    /// `everything` in the country's language, restricted to its sources' domains.
    case everything
    /// Nothing anywhere: a result, not an error.
    case none
  }

  public let country: Country
  public let category: String?
  public let strategy: Strategy
  public let articles: [Article]
}

extension NewsAPIClient {
  /// Headlines for a country, falling back from `top-headlines?country=` to its sources, then to `everything`
  /// restricted to their domains. "No headlines anywhere" is a result with strategy `.none`.
  public func headlines(
    for country: Country, category: String? = nil, pageSize: Int = 20, catalog: SourceCatalog
  )
    async throws(NewsAPIError) -> CountryHeadlines
  {
    var query = HeadlinesQuery(country: country.code, category: category)
    query.pageSize = pageSize
    let direct = try await topHeadlines(query)
    if !direct.articles.isEmpty {
      return CountryHeadlines(
        country: country, category: category, strategy: .country, articles: direct.articles)
    }
    let all = try await catalog.all()
    let own = all.filter { $0.country == country.code && (category == nil || $0.category == category) }
    guard !own.isEmpty else {
      return CountryHeadlines(country: country, category: category, strategy: .none, articles: [])
    }
    var bySource = HeadlinesQuery(sources: Array(own.prefix(20).map(\.id)))
    bySource.pageSize = pageSize
    let viaSources = try await topHeadlines(bySource)
    if !viaSources.articles.isEmpty {
      return CountryHeadlines(
        country: country, category: category, strategy: .sources, articles: viaSources.articles)
    }
    let domains = Array(Set(own.compactMap(\.domain))).sorted()
    guard !domains.isEmpty else {
      return CountryHeadlines(country: country, category: category, strategy: .none, articles: [])
    }
    var search = SearchQuery()
    search.domains = Array(domains.prefix(20))
    search.language = country.language
    search.sortBy = "publishedAt"
    search.pageSize = pageSize
    let viaDomains = try await everything(search)
    return CountryHeadlines(
      country: country, category: category, strategy: viaDomains.articles.isEmpty ? .none : .everything,
      articles: viaDomains.articles)
  }
}

/// The sources list, fetched once however many countries ask for it at the same time.
public actor SourceCatalog {
  private let client: NewsAPIClient
  private var loading: Task<Result<[NewsSource], NewsAPIError>, Never>?

  public init(client: NewsAPIClient) { self.client = client }

  public func all() async throws(NewsAPIError) -> [NewsSource] {
    if loading == nil {
      let client = self.client
      loading = Task {
        do throws(NewsAPIError) { return .success(try await client.sources()) } catch {
          return .failure(error)
        }
      }
    }
    return try await loading!.value.get()
  }
}
