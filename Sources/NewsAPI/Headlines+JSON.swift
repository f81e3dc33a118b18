import AtlasAnswers
import AtlasMessages
import Foundation
import NewsAtlas

/// The JSON contract of headlines answers, shared by `newsatlas headlines --format json` and the service's
/// `/v1/headlines`: every key is always present (null when it does not apply), so a script can branch on it.
/// Scripts branch on the machine codes (`reasonCode`, an error's `kind`, `status` and `code`), which are the same
/// in every language; the texts beside them (`reason`, an error's `message`) are in `language`: the interface
/// language for the CLI, the request's for the service, so the same request in the same language is the same
/// bytes from either.
public enum HeadlinesJSON {
  /// `{"results":[…]}`, in the jobs' order, on one line.
  public static func results(_ results: [HeadlinesResult], in language: InterfaceLanguage = .english)
    -> [UInt8]
  {
    line(["results": results.map { Entry($0, language) }])
  }

  /// `{"plan":{…}}`: what a dry run found, on one line.
  public static func plan(
    _ plan: HeadlinesPlan, usage: QuotaUsage?, in language: InterfaceLanguage = .english
  )
    -> [UInt8]
  {
    line(["plan": Plan(plan, usage: usage, language: language)])
  }

  /// A failure as scripts read it: `kind` (transport, http, service, quota, auth, decoding, offline, request),
  /// the HTTP `status` and NewsAPI `code` where there are any, and the sentence in the answer's language
  /// (GDELT's and NewsAPI's own words quoted in it).
  public struct ErrorObject: Encodable, Sendable {
    public let kind: String
    public let status: Int?
    public let code: String?
    public let message: String

    public init(_ error: NewsAPIError, in language: InterfaceLanguage = .english) {
      kind = error.kind
      status = error.httpStatus
      code = error.serviceCode
      message = error.description(in: language)
    }

    public func encode(to encoder: Encoder) throws {
      var container = encoder.container(keyedBy: Keys.self)
      try container.encode(kind, forKey: .kind)
      try container.encode(status, forKey: .status)
      try container.encode(code, forKey: .code)
      try container.encode(message, forKey: .message)
    }
    enum Keys: CodingKey { case kind, status, code, message }
  }

  /// A country as every answer names it (`Country.NameKey`, the members `Country.writeName` writes).
  struct Place: Encodable {
    let country: Country
    init(_ country: Country) { self.country = country }
    func encode(to encoder: Encoder) throws {
      var container = encoder.container(keyedBy: Country.NameKey.self)
      for key in Country.NameKey.allCases { try container.encode(country.value(of: key), forKey: key) }
    }
  }

  /// An article as the contract spells it: `imageUrl` (NewsAPI's `urlToImage`), nulls kept.
  struct Item: Encodable {
    let article: Article
    func encode(to encoder: Encoder) throws {
      var container = encoder.container(keyedBy: Keys.self)
      var source = container.nestedContainer(keyedBy: Keys.self, forKey: .source)
      try source.encode(article.source.id, forKey: .id)
      try source.encode(article.source.name, forKey: .name)
      try container.encode(article.author, forKey: .author)
      try container.encode(article.title, forKey: .title)
      try container.encode(article.description, forKey: .description)
      try container.encode(article.url, forKey: .url)
      try container.encode(article.urlToImage, forKey: .imageUrl)
      try container.encode(article.publishedAt, forKey: .publishedAt)
      try container.encode(article.content, forKey: .content)
    }
    enum Keys: CodingKey {
      case source, id, name, author, title, description, url, imageUrl, publishedAt, content
    }
  }

  struct Entry: Encodable {
    let result: HeadlinesResult
    let language: InterfaceLanguage
    init(_ result: HeadlinesResult, _ language: InterfaceLanguage) {
      self.result = result
      self.language = language
    }
    func encode(to encoder: Encoder) throws {
      var container = encoder.container(keyedBy: Keys.self)
      try container.encode(Place(result.job.country), forKey: .country)
      try container.encodeIfPresent(result.job.source, forKey: .source)
      try container.encode(result.job.category, forKey: .category)
      try container.encode(result.provider.rawValue, forKey: .provider)
      try container.encode(result.strategy.rawValue, forKey: .strategy)
      try container.encode(result.totalResults, forKey: .totalResults)
      try container.encode(result.articles.map(Item.init), forKey: .articles)
      try container.encode(result.reason?.text(in: language), forKey: .reason)
      try container.encode(result.reason.map(HeadlinesJSON.code), forKey: .reasonCode)
      try container.encode(result.error.map { ErrorObject($0, in: language) }, forKey: .error)
    }
    enum Keys: CodingKey {
      case country, source, category, provider, strategy, totalResults, articles, reason, reasonCode, error
    }
  }

  struct Plan: Encodable {
    struct Request: Encodable {
      let provider: String
      let request: String
      let route: String
      let countries: [String]
      let cached: Bool
    }
    struct Settled: Encodable {
      let country: String
      let category: String?
      let reason: String?
      let reasonCode: String?
      func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(country, forKey: .country)
        try container.encode(category, forKey: .category)
        try container.encode(reason, forKey: .reason)
        try container.encode(reasonCode, forKey: .reasonCode)
      }
      enum Keys: CodingKey { case country, category, reason, reasonCode }
    }
    struct Budget: Encodable {
      let used, limit, afterPlan: Int
    }
    let sourcesList: String
    let requests: [Request]
    let none: [Settled]
    let awaitingSourcesList: [String]
    let cost: Int
    let followUpsAtMost: Int
    let seconds: Double
    let secondsAtMost: Double
    let lastDay: Budget?
    let lastHalfDay: Budget?

    init(_ plan: HeadlinesPlan, usage: QuotaUsage?, language: InterfaceLanguage) {
      // A source's job is named by its id.
      let codes = { (offsets: [Int]) in offsets.map { plan.jobs[$0].source ?? plan.jobs[$0].country.code } }
      switch plan.sourcesList {
      case .notNeeded: sourcesList = "not needed"
      case .cached: sourcesList = "cached"
      case .send: sourcesList = "send"
      }
      requests = plan.requests.map {
        Request(
          provider: $0.provider.rawValue, request: $0.text, route: $0.route.rawValue,
          countries: codes($0.jobs),
          cached: $0.cached)
      }
      none = plan.settled.sorted { $0.key < $1.key }.map {
        Settled(
          country: $0.value.job.country.code, category: $0.value.job.category,
          reason: $0.value.reason?.text(in: language),
          reasonCode: $0.value.reason.map(HeadlinesJSON.code))
      }
      awaitingSourcesList = codes(plan.awaitingSourcesList)
      cost = plan.cost
      followUpsAtMost = plan.followUpsAtMost
      seconds = (plan.seconds * 10).rounded() / 10
      secondsAtMost = (plan.secondsAtMost * 10).rounded() / 10
      lastDay = usage.map {
        Budget(used: $0.lastDay, limit: $0.dailyBudget, afterPlan: $0.lastDay + plan.cost)
      }
      lastHalfDay = usage.map {
        Budget(used: $0.lastHalfDay, limit: $0.halfDayBudget, afterPlan: $0.lastHalfDay + plan.cost)
      }
    }
  }

  /// A reason's machine code: its catalogue key (`noFeeds`, `gdeltNoCategories`, …), the same in every
  /// language; `text` for a reason worded outside the catalogue.
  static func code(_ reason: Sentence) -> String { reason.message?.rawValue ?? "text" }

  static func line(_ value: some Encodable) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return Array((try? encoder.encode(value)) ?? Data("null".utf8)) + [0x0A]
  }
}
