import GeoFormats
import GeoIndex
import Hummingbird
import NewsAPI
import NewsAtlas

extension AtlasService {
  /// `GET /v1/headlines?country=CC|near=LAT,LON|cluster=ID&zoom=Z[&category=C][&pageSize=N]`: the CLI's
  /// headlines JSON (`HeadlinesJSON`), planned by the same planner through the server's one client, so every
  /// request shares one cache and one budget. A failed country is an error object in its result (200); a plan
  /// the budget cannot cover is 429 with `Retry-After` (when the budget frees up); a server without a key is 503. The key never leaves the process.
  func headlines(_ request: Request) async throws -> Response {
    let query = try allow(request, ["country", "near", "cluster", "zoom", "category", "pageSize"])
    guard let news else { throw Problem.unavailable(newsUnavailable) }
    let named = ["country", "near", "cluster"].filter { query.get($0) != nil }
    guard named.count == 1 else {
      throw Problem.badParameter("Give one of country, near (LAT,LON) and cluster (with zoom).")
    }
    let countries: [Country]
    if let code = query.get("country") {
      guard let country = Country.named(code: code) else {
        throw Problem.badParameter("'\(code.prefix(64))' is not one of NewsAPI's 54 countries.")
      }
      countries = [country]
    } else if let near = query.get("near") {
      let parts = near.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      guard parts.count == 2 else {
        throw Problem.badParameter("near takes LAT,LON, for example 48.85,2.35.")
      }
      let point = try parameter { () throws(FormatError) in
        try Coordinates.point(latitude: parts[0], longitude: parts[1])
      }
      countries = [Country.resolve(point).country]  // the country it is in, else the nearest
    } else {
      guard query.get("zoom") != nil else {
        throw Problem.badParameter("cluster needs the zoom of the map its id came from (zoom=Z).")
      }
      let zoom = try decimal(query, "zoom") ?? 0
      try parameter { () throws(FormatError) in try Coordinates.zoom(zoom) }
      let text = query.get("cluster") ?? ""
      guard text.count <= 18, let id = Int(text), id >= 0 else {
        throw Problem.badParameter("A cluster id is a whole number, not '\(text.prefix(64))'.")
      }
      // The markers clustered with the default options, as the CLI's headlines --cluster has them.
      countries = try clusterCall { try Country.members(ofCluster: id, atZoom: zoom) }
    }
    let category = query.get("category")
    if let category, !newsCategories.contains(category) {
      throw Problem.badParameter(
        "'\(category.prefix(64))' is not a NewsAPI category; use one of \(newsCategories.joined(separator: ", "))."
      )
    }
    let pageSize = try integer(query, "pageSize", default: 10, minimum: 1)
    guard pageSize <= 100 else { throw Problem.badParameter("pageSize is 1 to 100, not \(pageSize).") }
    let jobs = countries.map { HeadlinesJob(country: $0, category: category) }
    do {
      let results = try await news.headlines(jobs, options: HeadlinesOptions(pageSize: pageSize))
      return json(HeadlinesJSON.results(results))
    } catch {
      // The library's sentence names no command-line flag: an HTTP client is told when to try again.
      guard error.isQuota else { throw Problem.unavailable(error.description) }
      throw Problem.tooManyRequests(error.description, retryAfterSeconds: error.retryAfterSeconds)
    }
  }
}
