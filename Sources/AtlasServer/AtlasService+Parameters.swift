import AtlasMessages
import Fetch
import Foundation
import GeoFormats
import GeoIndex
import Hummingbird
import NewsAPI
import NewsAtlas

extension AtlasService {
  /// The dataset the route's `name` names.
  func dataset(_ request: ParsedRequest) throws(Problem) -> Dataset {
    let name = Self.pathSegment(request.parameters.get("name") ?? "")
    guard let dataset = store[name] else { throw .unknownDataset(name) }
    return dataset
  }

  /// A path segment as the route names it: percent-decoded, as the write routes read a dataset's name, so that
  /// `/v1/datasets/%70laces` is `places` on every route (a segment that does not decode is kept as it is).
  static func pathSegment(_ raw: String) -> String {
    raw.contains("%") ? raw.removingPercentEncoding ?? raw : raw
  }

  /// `dataset`, or the dataset of its features that pass the query's `filter` (a MapLibre filter expression in
  /// JSON, read as `clusters --filter` reads it; a malformed one is a 400 with the reason), built off the
  /// request pool (`FilteredDatasets`).
  func filtered(_ dataset: Dataset, _ parameters: Query) async throws -> Dataset {
    guard let text = parameters.get("filter") else { return dataset }
    guard text.utf8.count <= Self.maxFilterBytes else {
      throw Problem.said(Problem.badParameter, .serviceFilterTooLong, Self.maxFilterBytes, text.utf8.count)
    }
    let filter = try parameter { () throws(FormatError) in try FeatureFilter(json: text) }
    return try await filtered.dataset(dataset, filter: filter)
  }

  /// The longest `filter=` taken: a map style's filter is a few hundred bytes.
  static let maxFilterBytes = 16_384

  /// The route's cluster `id`.
  func clusterID(_ request: ParsedRequest) throws(Problem) -> Int {
    let text = request.parameters.get("id") ?? ""
    guard text.count <= 18, let id = Int(text), id >= 0 else {
      throw .said(Problem.badParameter, .serviceClusterIdShape, text.prefix(64))
    }
    return id
  }

  /// Refuses a query parameter the endpoint does not take (a misspelt or unsupported one would otherwise be
  /// silently ignored); returns the parameters, parsed once (Hummingbird parses the query at every reading).
  @discardableResult
  func allow(_ request: ParsedRequest, _ names: [String], repeatable: [String] = []) throws(Problem) -> Query
  {
    try allow(request.target, names, repeatable: repeatable)
  }

  /// `allow` for a request target (`/path?query`).
  @discardableResult
  func allow(_ target: String, _ names: [String], repeatable: [String] = []) throws(Problem) -> Query {
    let parameters = Query(target: target)
    for (i, (key, _)) in parameters.pairs.enumerated() {
      // `lang` (en or fr) is every endpoint's: the language of its error sentence.
      guard names.contains(where: { key == $0 }) || key == "lang" else {
        if names.isEmpty { throw .said(Problem.badParameter, .serviceTakesNoParameter, key.prefix(64)) }
        throw .said(
          Problem.badParameter, .serviceUnknownParameter, key.prefix(64),
          names.sorted().joined(separator: ", "))
      }
      // A repeated parameter is refused, not read one way here and another way by a proxy or a cache.
      if !repeatable.contains(where: { key == $0 }),
        parameters.pairs[..<i].contains(where: { $0.name == key })
      {
        throw .said(Problem.badParameter, .serviceParameterTwice, key)
      }
    }
    return parameters
  }

  /// A parameter read by GeoFormats; its refusal is a 400 with the same sentence, in the request's language.
  func parameter<T>(_ body: () throws(FormatError) -> T) throws(Problem) -> T {
    do {
      return try body()
    } catch {
      throw .worded(.badParameter(error.description), Wording { error.text(in: $0) })
    }
  }

  func clusterCall<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as ClusterError {
      throw Problem.worded(.notFound(error.description), Wording { error.text(in: $0) })
    }
  }

  /// The countries a place or a country is read among when a request names none: every country GDELT covers
  /// when this server's headlines may come from a keyless provider (GDELT, feeds) — Madrid is then in Spain,
  /// whose news GDELT has — NewsAPI's 54 when they come from NewsAPI alone or there are none (`--no-news`).
  public var newsCountries: NewsCountrySet { newsCountries(under: defaultProvider) }

  /// `newsCountries` for a request asking `choice`.
  func newsCountries(under choice: ProviderChoice) -> NewsCountrySet {
    guard let news, news.gdelt != nil || news.feeds != nil else { return .newsAPI }
    return choice.newsCountries
  }

  /// The `newsCountries` parameter (`newsapi` or `world`), else the server's `newsCountries`.
  func newsCountries(_ parameters: Query) throws(Problem) -> NewsCountrySet {
    guard let text = parameters.get("newsCountries") else { return newsCountries }
    guard let set = NewsCountrySet(rawValue: text.lowercased()) else {
      throw .said(Problem.badParameter, .serviceNewsCountriesValue, printable(String(text.prefix(64))))
    }
    return set
  }

  func place(_ parameters: Query) throws(Problem) -> GeoPoint {
    guard let latitude = parameters.get("lat"), let longitude = parameters.get("lon") else {
      throw .said(Problem.badParameter, .serviceGiveLatLon)
    }
    return try parameter { () throws(FormatError) in
      try Coordinates.point(latitude: latitude, longitude: longitude)
    }
  }

  func integer(_ parameters: Query, _ name: String, default fallback: Int, minimum: Int) throws(Problem)
    -> Int
  {
    guard let text = parameters.get(name) else { return fallback }
    guard text.count <= 18, let value = Int(text), value >= minimum else {
      throw .said(Problem.badParameter, .serviceWholeNumber, name, minimum, text)
    }
    return value
  }

  func decimal(_ parameters: Query, _ name: String) throws(Problem) -> Double? {
    guard let text = parameters.get(name) else { return nil }
    guard let value = Coordinates.number(text) else {
      throw .said(Problem.badParameter, .serviceDecimal, name, text)
    }
    return value
  }
}
