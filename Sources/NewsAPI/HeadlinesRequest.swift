import AtlasMessages
import Fetch
import Foundation
import GeoFormats
import GeoIndex
import NewsAtlas

/// A headlines request as a front end receives it, checked once for every front end: which countries (one
/// selection), which categories, how many articles. `newsatlas headlines` and `GET /v1/headlines` both build
/// one from the text they were given, so the same input is the same request or the same refusal.
public struct HeadlinesRequest: Sendable {
  /// The ways to name the countries, and the other parameters, as `HeadlinesRequestError` names them.
  public enum Parameter: String, CaseIterable, Sendable {
    case country, countries, near, cluster, zoom, all, category, categories, pageSize, source
  }

  /// The text of each parameter given (nil when absent); `all` is given when it is not nil.
  public struct Given: Sendable {
    public var country: String?
    public var countries: String?
    public var near: String?
    public var cluster: String?
    public var zoom: String?
    public var all = false
    public var category: String?
    public var categories: String?
    public var pageSize: String?
    /// NewsAPI source ids asked for as well (`--source`, `source=`, favourite sources), each text one id or a
    /// comma-separated list of them: with them no country need be named.
    public var sources: [String] = []

    public init(
      country: String? = nil, countries: String? = nil, near: String? = nil, cluster: String? = nil,
      zoom: String? = nil, all: Bool = false, category: String? = nil, categories: String? = nil,
      pageSize: String? = nil, sources: [String] = []
    ) {
      self.sources = sources
      self.country = country
      self.countries = countries
      self.near = near
      self.cluster = cluster
      self.zoom = zoom
      self.all = all
      self.category = category
      self.categories = categories
      self.pageSize = pageSize
    }

    /// Whether any selection (country, countries, near, cluster, all) is given.
    public var namesCountries: Bool {
      country != nil || countries != nil || near != nil || cluster != nil || all
    }
  }

  /// The countries, in the order asked (a cluster's in its leaf order).
  public let countries: [Country]
  /// One category, none (`[nil]`), or all seven.
  public let categories: [String?]
  /// Articles per result, 1 to 100.
  public let pageSize: Int
  /// NewsAPI source ids asked for as well, each once, in the order given, checked only for their form (the
  /// sources list knows them).
  public let sources: [String]

  /// The jobs: every country in every category asked.
  public var jobs: [HeadlinesJob] {
    countries.flatMap { country in categories.map { HeadlinesJob(country: country, category: $0) } }
  }

  /// The default articles per result.
  public static let defaultPageSize = HeadlinesOptions().pageSize

  /// Checks what was given.
  ///
  /// - Parameters:
  ///   - offered: the selections this front end takes (the service takes no `countries` and no `all`); any
  ///     other given one is refused, as are none and several.
  ///   - clusterOptions: the options the markers were clustered with on the map the cluster id came from: a
  ///     cluster id means something only with its zoom and these options.
  ///   - newsCountries: the countries a country or a place is read among: NewsAPI's 54, or every country
  ///     when a keyless provider (GDELT, feeds) may answer (`NewsCountrySet.world`). A cluster and `all` are
  ///     always of the 54 (the marker map).
  /// - Throws: `HeadlinesRequestError`, with one sentence.
  public init(
    _ given: Given, offered: [Parameter] = [.country, .countries, .near, .cluster, .all],
    clusterOptions: ClusterOptions = ClusterOptions(), newsCountries: NewsCountrySet = .newsAPI
  ) throws(HeadlinesRequestError) {
    let named: [Parameter] = [
      given.country != nil ? .country : nil, given.countries != nil ? .countries : nil,
      given.near != nil ? .near : nil, given.cluster != nil ? .cluster : nil, given.all ? .all : nil,
    ].compactMap { $0 }
    sources = try Self.sourceIDs(given.sources)
    if named.isEmpty && !sources.isEmpty {
      countries = []
    } else {
      guard named.count == 1, offered.contains(named[0]) else { throw .oneSelection(offered) }
      countries = try Self.countries(given, clusterOptions: clusterOptions, newsCountries: newsCountries)
    }
    if given.category != nil && given.categories != nil { throw .categoryAndCategories }
    // A category in any case, as --categories, the category setting and sources --category read it (Sports).
    let category = given.category.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    if let category, !newsCategories.contains(category) { throw .category(given.category ?? category) }
    if let list = given.categories {
      // `all`, or categories separated by commas, each asked once, in the order given.
      var chosen: [String] = []
      for item in list.split(separator: ",", omittingEmptySubsequences: false) {
        let name = item.trimmingCharacters(in: .whitespaces).lowercased()
        let names = name == "all" ? newsCategories : [name]
        guard names.allSatisfy(newsCategories.contains) else {
          throw name.isEmpty ? .categoriesAll(list) : .category(String(item))
        }
        for name in names where !chosen.contains(name) { chosen.append(name) }
      }
      categories = chosen
    } else {
      categories = [category]
    }
    if let text = given.pageSize {
      guard text.utf8.count <= 18, let value = Int(text), (1...100).contains(value) else {
        throw .pageSize(text)
      }
      pageSize = value
    } else {
      pageSize = Self.defaultPageSize
    }
  }

  /// NewsAPI source ids from texts that are each one id or a comma-separated list (`bbc-news,le-monde`): each
  /// letters (read in lower case), digits, `-`, `_` and `.` (at most 64), at most 20 in all (a request's limit), each
  /// kept once. The one reading of source ids: `--source`, `source=` and the `sources` setting.
  public static func sourceIDs(_ texts: [String]) throws(HeadlinesRequestError) -> [String] {
    var ids: [String] = []
    for text in texts {
      for part in text.split(separator: ",", omittingEmptySubsequences: false) {
        // Any case, as a country or a category is read: NewsAPI's ids are lower case (BBC-News is bbc-news).
        let id = part.trimmingCharacters(in: .whitespaces).lowercased()
        guard !id.isEmpty, id.utf8.count <= 64,
          id.unicodeScalars.allSatisfy({
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "."
          })
        else { throw .sourceShape(String(part)) }
        if !ids.contains(id) {
          // Refused at the first id past the limit: a long list costs no more than 20 ids' comparisons each.
          guard ids.count < SourcePacking.maximumSources else { throw .tooManySources }
          ids.append(id)
        }
      }
    }
    return ids
  }

  static func countries(_ given: Given, clusterOptions: ClusterOptions, newsCountries: NewsCountrySet)
    throws(HeadlinesRequestError) -> [Country]
  {
    func lookUp(_ text: String) throws(HeadlinesRequestError) -> Country {
      switch Country.identified(by: text, in: newsCountries) {
      case .one(let country): return country
      case .none: throw newsCountries == .world ? .unknownWorldCountry(text) : .unknownCountry(text)
      case .ambiguous(let candidates): throw .ambiguousCountry(text, candidates)
      }
    }
    if let country = given.country { return [try lookUp(country)] }
    if let countries = given.countries {
      var list: [Country] = []
      for code in countries.split(separator: ",") { list.append(try lookUp(String(code))) }
      guard !list.isEmpty else { throw .emptyCountries }
      return list
    }
    if let near = given.near {
      let parts = Coordinates.placeFields([near])
      guard parts.count == 2 else { throw .nearShape }
      do {
        let point = try Coordinates.point(latitude: parts[0], longitude: parts[1])
        return [Country.resolve(point, in: newsCountries).country]  // the country it is in, else the nearest
      } catch {
        throw .place(error.description)
      }
    }
    if let cluster = given.cluster {
      guard let zoomText = given.zoom else { throw .clusterWithoutZoom }
      guard let zoom = Coordinates.number(zoomText) else { throw .zoomNotANumber(zoomText) }
      do {
        try Coordinates.zoom(zoom, name: "\u{0}")
      } catch {
        throw .zoomOutOfRange(error.description)
      }
      guard cluster.utf8.count <= 18, let id = Int(cluster), id >= 0 else {
        // Digits past 18 are a whole number still: no map has so many clusters (the real reason).
        let digits = cluster.utf8.drop { $0 == UInt8(ascii: "+") }
        let whole = !digits.isEmpty && digits.allSatisfy { (48...57).contains($0) }
        throw whole ? .clusterIdTooLarge(cluster) : .clusterId(cluster)
      }
      do {
        return try Country.members(ofCluster: id, atZoom: zoom, options: clusterOptions)
      } catch {
        throw .noCluster(error)
      }
    }
    return Country.all
  }
}

/// Why a headlines request is refused: one sentence, naming parameters as the front end calls them.
///
/// Every case but `noCluster` is the request's shape (a usage error, 64; HTTP 400); `noCluster` names a cluster
/// that the map of that zoom does not have (64; HTTP 404).
public enum HeadlinesRequestError: Error, Equatable, Sendable, CustomStringConvertible {
  /// None or several selections given, or one the front end does not take: the ones it takes.
  case oneSelection([HeadlinesRequest.Parameter])
  case unknownCountry(String)
  /// No country of the world (`NewsCountrySet.world`) has the text.
  case unknownWorldCountry(String)
  /// A name that several countries start with or contain: the candidates.
  case ambiguousCountry(String, [Country])
  case emptyCountries
  case nearShape
  /// The place's own sentence (`Coordinates.point`).
  case place(String)
  case clusterWithoutZoom
  case zoomNotANumber(String)
  /// `Coordinates.zoom`'s sentence, its subject a NUL to be replaced by the parameter's name.
  case zoomOutOfRange(String)
  case clusterId(String)
  case clusterIdTooLarge(String)
  /// No cluster of the map of that zoom (with those options) has the id.
  case noCluster(ClusterError)
  case categoryAndCategories
  case categoriesAll(String)
  case category(String)
  case pageSize(String)
  /// A source id that is not one by its form (a NewsAPI id is lower-case letters, digits, `-`, `_`, `.`).
  case sourceShape(String)
  /// More than a request's 20 sources.
  case tooManySources

  /// Whether the request names something that does not exist (a cluster), rather than being malformed.
  public var isNotFound: Bool {
    if case .noCluster = self { return true }
    return false
  }

  /// The sentence with the parameters called as the service's query calls them (`pageSize`).
  public var description: String { description(naming: \.rawValue) }

  /// The sentence in `language`, with a parameter called by `name` (a CLI says `--page-size`, a query
  /// `pageSize`).
  public func description(
    naming name: (HeadlinesRequest.Parameter) -> String, in language: InterfaceLanguage = .english
  ) -> String {
    func shown(_ text: String) -> String { printable(String(text.prefix(64))) }
    switch self {
    case .oneSelection(let offered):
      let names = offered.map {
        $0 == .cluster ? Message.withZoom(name(.cluster), name(.zoom), in: language) : name($0)
      }
      let list =
        names.count > 1
        ? Message.listAnd(names.dropLast().joined(separator: ", "), names.last!, in: language)
        : names.joined()
      return Message.nameTheCountries(list, in: language)
    case .unknownCountry(let text):
      return CountryIdentification.refusal(candidates: [], shown: shown(text), in: language)
    case .unknownWorldCountry(let text):
      return CountryIdentification.refusal(candidates: [], shown: shown(text), in: .world).text(in: language)
    case .ambiguousCountry(let text, let candidates):
      return CountryIdentification.refusal(candidates: candidates, shown: shown(text), in: language)
    case .emptyCountries:
      return Message.countriesTakes(name(.countries), in: language)
    case .nearShape:
      return Message.nearTakes(name(.near), in: language)
    case .place(let sentence):
      return sentence
    case .clusterWithoutZoom:
      return Message.clusterNeedsZoom(name(.cluster), name(.zoom), in: language)
    case .zoomNotANumber(let text):
      return Message.zoomNotANumber(name(.zoom), shown(text), in: language)
    case .zoomOutOfRange(let sentence):
      return sentence.replacingOccurrences(of: "\u{0}", with: name(.zoom))
    case .clusterId(let text):
      return Message.clusterIdShape(shown(text), in: language)
    case .clusterIdTooLarge(let text):
      return Message.clusterIdTooLarge(shown(text), in: language)
    case .noCluster(let error):
      return error.text(in: language)
    case .categoryAndCategories:
      return Message.categoryAndCategories(name(.category), name(.categories), in: language)
    case .categoriesAll(let text):
      return Message.categoriesTakes(name(.categories), shown(text), in: language)
    case .category(let text):
      return Message.notACategory(shown(text), newsCategories.joined(separator: ", "), in: language)
    case .pageSize(let text):
      return Message.pageSizeFlag(name(.pageSize), shown(text), in: language)
    case .sourceShape(let text):
      return Message.sourceIdShape(shown(text), in: language)
    case .tooManySources:
      return Message.tooManySources(in: language)
    }
  }
}
