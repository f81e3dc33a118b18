import AtlasMessages
import GeoIndex

/// One of the 54 countries NewsAPI's top-headlines endpoint was built for.
public struct Country: Hashable, Sendable {
  /// ISO 3166-1 alpha-2 code, lower case, as NewsAPI spells it ("fr").
  public let code: String
  /// English name.
  public let name: String
  /// French name, as the original app showed it.
  public let nameFrench: String
  /// The map marker, near the country's geographic centre.
  public let marker: GeoPoint
  /// The country's main language among NewsAPI's 14, or "en" where NewsAPI has none of its languages; empty
  /// for a country NewsAPI does not cover (`world`'s others).
  public let language: String

  init(code: String, name: String, nameFrench: String, latitude: Double, longitude: Double, language: String)
  {
    self.code = code
    self.name = name
    self.nameFrench = nameFrench
    self.marker = GeoPoint(uncheckedLatitude: latitude, longitude: longitude)
    self.language = language
  }

  /// The country with this ISO code (any case), if it is one of the 54.
  public static func named(code: String) -> Country? {
    let lowered = code.lowercased()
    return all.first { $0.code == lowered }
  }

  /// A great-circle index over the 54 markers; neighbour indices are offsets in `all`.
  public static let markerIndex = SphericalKDTree(points: all.map(\.marker))

  /// The countries of a cluster of the 54 markers on the map of `zoom`, the markers clustered with `options`
  /// (supercluster's defaults unless given; `serve` passes its own), so that `headlines --cluster` and
  /// `GET /v1/headlines?cluster=` name the countries of the cluster the map shows; in the cluster's leaf order.
  ///
  /// - Throws: `ClusterError.notAtZoom` when no cluster of that zoom has the id; an options error.
  public static func members(
    ofCluster id: Int, atZoom zoom: Double, options: ClusterOptions = ClusterOptions()
  )
    throws(ClusterError) -> [Country]
  {
    var options = options
    options.retainedZooms = nil
    let index = try ClusterIndex(points: all.map(\.marker), options: options)  // 54 points: microseconds
    _ = try index.cluster(id: id, atZoom: zoom)
    return try index.leaves(ofCluster: id, limit: .max).map { all[$0] }
  }
}

extension Country {
  /// The countries matching `query` by code, English or French name, ignoring case and accents.
  ///
  /// An exact code comes first, then names that start with the query, then names containing it; ties keep
  /// NewsAPI's order. An empty query returns all 54 (with `set` `.world`, every country GDELT covers).
  public static func search(_ query: String, in set: NewsCountrySet = .newsAPI) -> [Country] {
    let all = set.countries
    let folded = Folding.fold(query)
    if folded.isEmpty { return all }
    var ranked: [(rank: Int, offset: Int)] = []
    for (offset, country) in all.enumerated() {
      let names = [Folding.fold(country.name), Folding.fold(country.nameFrench)]
      let rank: Int
      if country.code == folded {
        rank = 0
      } else if names.contains(where: { $0.hasPrefix(folded) }) {
        rank = 1
      } else if names.contains(where: { $0.contains(folded) }) {
        rank = 2
      } else {
        continue
      }
      ranked.append((rank, offset))
    }
    return ranked.sorted { ($0.rank, $0.offset) < ($1.rank, $1.offset) }.map { all[$0.offset] }
  }
}

/// What a country typed by a person names: one country (of the 54, or of the world), several (the text is
/// ambiguous), or none.
public enum CountryIdentification: Equatable, Sendable {
  case one(Country)
  /// The candidates, in NewsAPI's order.
  case ambiguous([Country])
  case none
}

extension Country {
  /// The country that `text` names, as a person types it wherever a country is taken (`--country`,
  /// `?country=`, a setting): a code (any case), or an English or French name, case and accents ignored
  /// ("france", "Allemagne", "cote d'ivoire"), or the start of one name ("switz").
  ///
  /// Two letters are a code and only a code, never the start of a name: "ua" is not read as "Uganda". The
  /// common names that are not NewsAPI's (uk, usa, uae, britain, holland) name their country. A whole name
  /// wins over longer names it starts; otherwise a start, failing that a part, shared by several names is
  /// ambiguous.
  ///
  /// `set` is where to look: NewsAPI's 54, or every country GDELT covers (`NewsCountrySet.world`).
  public static func identified(by text: String, in set: NewsCountrySet = .newsAPI) -> CountryIdentification {
    let folded = Folding.fold(text)
    guard !folded.isEmpty else { return .none }
    let code = aliases[folded] ?? folded
    let all = set.countries
    if let country = named(code: code, in: set) { return .one(country) }
    guard folded.unicodeScalars.count > 2 else { return .none }
    let names = set == .newsAPI ? newsAPINames : worldNames
    if let whole = names.firstIndex(where: { $0.contains(folded) }) { return .one(all[whole]) }
    let tests: [(String) -> Bool] = [{ $0.hasPrefix(folded) }, { $0.contains(folded) }]
    for matches in tests {
      let found = all.indices.filter { names[$0].contains(where: matches) }.map { all[$0] }
      if found.count == 1 { return .one(found[0]) }
      if found.count > 1 { return .ambiguous(found) }
    }
    return .none
  }

  /// Each country's English and French names, folded, in `all`'s and `world`'s order.
  private static let newsAPINames = all.map { [Folding.fold($0.name), Folding.fold($0.nameFrench)] }
  private static let worldNames = world.map { [Folding.fold($0.name), Folding.fold($0.nameFrench)] }

  /// Names people use that are neither NewsAPI's code nor the country's English or French name.
  private static let aliases: [String: String] = [
    "uk": "gb", "great britain": "gb", "britain": "gb", "grande bretagne": "gb", "usa": "us", "uae": "ae",
    "eau": "ae", "holland": "nl", "hollande": "nl",
  ]
}

extension CountryIdentification {
  /// The sentence refusing a text that names no single country, or nil when it names one. `shown` is the text
  /// as typed, made printable and short by the caller.
  public func refusal(shown: String, in language: InterfaceLanguage = .english) -> String? {
    switch self {
    case .one: return nil
    case .none: return Self.refusal(candidates: [], shown: shown, in: language)
    case .ambiguous(let candidates): return Self.refusal(candidates: candidates, shown: shown, in: language)
    }
  }

  /// The countries a text that names no single country may mean (none for a text that names none).
  public var candidates: [Country] {
    if case .ambiguous(let candidates) = self { return candidates }
    return []
  }

  /// The sentence refusing a text as a country: no country has it (no candidates), or it may be any of
  /// `candidates`, which it lists (eight at most).
  public static func refusal(candidates: [Country], shown: String, in language: InterfaceLanguage) -> String {
    refusal(candidates: candidates, shown: shown).text(in: language)
  }

  /// The same refusal, to be said in the reader's language. `service` words a text no country has for the
  /// service's users, whose list of countries is `/v1/countries` (the command line's is `newsatlas countries`).
  ///
  /// `set` is where the text was looked for: a text no country of the world has says so, and where they are
  /// listed.
  public static func refusal(
    candidates: [Country], shown: String, service: Bool = false, in set: NewsCountrySet = .newsAPI
  ) -> Sentence {
    guard !candidates.isEmpty else {
      switch (service, set) {
      case (false, .newsAPI): return Sentence(.unknownCountry, shown)
      case (false, .world): return Sentence(.unknownWorldCountry, shown)
      case (true, .newsAPI): return Sentence(.serviceUnknownCountry, shown)
      case (true, .world): return Sentence(.serviceUnknownWorldCountry, shown)
      }
    }
    func list(_ language: InterfaceLanguage) -> String {
      let named = candidates.prefix(8).map {
        "\($0.code) (\(language == .french ? $0.nameFrench : $0.name))"
      }
      return candidates.count > 8
        ? Message.andMore(named.joined(separator: ", "), candidates.count - 8, in: language)
        : named.count > 1
          ? Message.listOr(named.dropLast().joined(separator: ", "), named.last!, in: language)
          : named.joined()
    }
    return Sentence(.ambiguousCountry, english: [shown, list(.english)], french: [shown, list(.french)])
  }
}

/// Case and accent folding for matching names typed on any keyboard ("égypte", "EGYPTE", "Egypte").
public enum Folding {
  /// Lower case, without diacritics, with hyphens and runs of spaces as one space, trimmed.
  public static func fold(_ text: String) -> String {
    var result = String.UnicodeScalarView()
    var pendingSpace = false
    for scalar in text.lowercased().unicodeScalars {
      if (0x300...0x36F).contains(scalar.value) { continue }  // combining marks
      if scalar == " " || scalar == "-" || scalar == "\t" || scalar == "'" || scalar == "\u{2019}" {
        pendingSpace = !result.isEmpty
        continue
      }
      if pendingSpace {
        result.append(" ")
        pendingSpace = false
      }
      if let base = baseLetters[scalar] {
        result.append(contentsOf: base.unicodeScalars)
      } else {
        result.append(scalar)
      }
    }
    return String(result)
  }

  /// Lower-case Latin letters with diacritics and their base letters (Latin-1 Supplement and Extended-A).
  private static let baseLetters: [Unicode.Scalar: String] = {
    let groups: [(String, String)] = [
      ("àáâãäåāăą", "a"), ("çćĉċč", "c"), ("ďđ", "d"), ("èéêëēĕėęě", "e"), ("ĝğġģ", "g"), ("ĥħ", "h"),
      ("ìíîïĩīĭįı", "i"), ("ĵ", "j"), ("ķ", "k"), ("ĺļľŀł", "l"), ("ñńņňŉ", "n"), ("òóôõöøōŏő", "o"),
      ("ŕŗř", "r"), ("śŝşšș", "s"), ("ţťŧț", "t"), ("ùúûüũūŭůűų", "u"), ("ŵ", "w"), ("ýÿŷ", "y"),
      ("źżž", "z"),
    ]
    var table: [Unicode.Scalar: String] = ["æ": "ae", "œ": "oe", "ß": "ss", "þ": "th", "ð": "d"]
    for (letters, base) in groups {
      for scalar in letters.unicodeScalars { table[scalar] = base }
    }
    return table
  }()
}

extension ClusterError {
  /// The sentence in `language`: an id no cluster has (at that zoom), more points than an index holds; an
  /// option's range stays as `description` words it (the front ends check the options before any request).
  public func text(in language: InterfaceLanguage) -> String {
    switch self {
    case .noCluster(let id): return Message.clusterNoSuchId(id, in: language)
    case .notAtZoom(let id, let zoom):
      return Message.clusterNotAtZoom(id, ClusterOptions.text(zoom), in: language)
    case .tooManyPoints(let count, let limit): return Message.clusterTooManyPoints(limit, count, in: language)
    case .outOfRange: return description
    }
  }

  /// The sentence in `language`, an option called by `name` (`--max-zoom`): an option's range worded from the
  /// catalogue, as `ClusterOptions.accepted` words it in English (`options`, the options checked, give the
  /// ranges that depend on another option).
  public func text(
    in language: InterfaceLanguage, naming name: (ClusterOptions.Option) -> String, options: ClusterOptions
  ) -> String {
    sentence(naming: name, options: options).text(in: language)
  }

  /// The sentence, to be said in the reader's language, an option called by `name`, its range from `options`
  /// (as `text(in:naming:options:)`).
  public func sentence(naming name: (ClusterOptions.Option) -> String, options: ClusterOptions) -> Sentence {
    switch self {
    case .noCluster(let id): return Sentence(.clusterNoSuchId, id)
    case .notAtZoom(let id, let zoom): return Sentence(.clusterNotAtZoom, id, ClusterOptions.text(zoom))
    case .tooManyPoints(let count, let limit): return Sentence(.clusterTooManyPoints, limit, count)
    case .outOfRange(let option, let value, _):
      let accepted =
        switch option {
        case .minZoom: Sentence(.clusterAcceptsZoom, ClusterOptions.zoomLimit)
        case .maxZoom: Sentence(.clusterAcceptsMaxZoom, options.minZoom, ClusterOptions.zoomLimit)
        case .minPoints: Sentence(.clusterAcceptsMinPoints, ClusterOptions.minPointsLimit)
        case .radius: Sentence(.clusterAcceptsRadius, ClusterOptions.text(options.extent))
        case .extent: Sentence(.clusterAcceptsExtent, ClusterOptions.extentLimit)
        case .nodeSize:
          Sentence(
            .clusterAcceptsNodeSize, ClusterOptions.nodeSizes.lowerBound, ClusterOptions.nodeSizes.upperBound)
        }
      return Sentence(.clusterOptionRange, name(option), accepted, value)
    }
  }
}
