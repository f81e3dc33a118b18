import AtlasMessages
import Fetch
import GeoIndex
import NewsAPI
import NewsAtlas

extension AtlasService {
  /// `GET /v1/headlines?country=CC|near=LAT,LON|cluster=ID&zoom=Z[&category=C][&pageSize=N][&provider=P]`:
  /// the CLI's headlines JSON (`HeadlinesJSON`), planned by the same providers and planner through the server's
  /// one set of clients, so every request shares one cache, one budget and one GDELT pacing. Without a key the
  /// answers come from GDELT. A failed country is an error object in its result (200); a plan the budget
  /// cannot cover is 429 with `Retry-After` (when the budget frees up); `provider=newsapi` on a server without a
  /// key, and a server started with `--no-news`, are 503. The key never leaves the process but to NewsAPI.
  func headlines(_ request: ParsedRequest) async throws -> Reply {
    let query = try allow(
      request, ["country", "near", "cluster", "zoom", "category", "pageSize", "provider"])
    guard let news else { throw Problem.unavailable(newsUnavailable) }
    var choice = defaultProvider
    if let name = query.get("provider") {
      guard let named = ProviderChoice.named(name) else {
        throw Problem.said(
          Problem.badParameter, .notAProvider, printable(String(name.prefix(64))), ProviderChoice.spoken)
      }
      choice = named
    }
    // Checked by the news library, as the CLI's headlines checks its flags: the same sentences. A cluster id is
    // one of the markers' map this server draws, with its zoom and this server's clustering options.
    let headlines: HeadlinesRequest
    do {
      headlines = try HeadlinesRequest(
        HeadlinesRequest.Given(
          country: query.get("country"), near: query.get("near"), cluster: query.get("cluster"),
          zoom: query.get("zoom"), category: query.get("category"), pageSize: query.get("pageSize")),
        offered: [.country, .near, .cluster],
        clusterOptions: store["markers"]?.index.options ?? ClusterOptions())
    } catch {
      let wording = Wording { error.description(naming: \.rawValue, in: $0) }
      throw Problem.worded(
        error.isNotFound ? .notFound(error.description) : .badParameter(error.description), wording)
    }
    let jobs = headlines.jobs
    do {
      let results = try await news.headlines(
        jobs, choice: choice, options: HeadlinesOptions(pageSize: headlines.pageSize, language: newsLanguage))
      return Reply(json: HeadlinesJSON.results(results))
    } catch {
      // The library's sentence names no command-line flag, in the request's language; an HTTP client is told when
      // to try again.
      let wording = Wording { error.description(in: $0) }
      if case .invalidRequest = error { throw Problem.worded(.badParameter(error.description), wording) }
      guard error.isQuota else { throw Problem.worded(.unavailable(error.description), wording) }
      throw Problem.worded(
        .tooManyRequests(error.description, retryAfterSeconds: error.retryAfterSeconds), wording)
    }
  }
}
