import Foundation

/// A news article as NewsAPI returns it (nullable fields stay optional).
public struct Article: Codable, Equatable, Sendable {
  public struct Source: Codable, Equatable, Sendable {
    public let id: String?
    public let name: String
    public init(id: String?, name: String) {
      self.id = id
      self.name = name
    }
  }
  public let source: Source
  public let author: String?
  public let title: String
  public let description: String?
  public let url: String
  public let urlToImage: String?
  /// As sent: ISO 8601 in UTC, with or without fractional seconds of any length; nil when the article has no
  /// date that could be read (a feed's item): never a guess such as the time it was read.
  public let publishedAt: String?
  public let content: String?

  /// An article in the contract's shape, from any provider.
  public init(
    source: Source, author: String? = nil, title: String, description: String? = nil, url: String,
    urlToImage: String? = nil, publishedAt: String?, content: String? = nil
  ) {
    self.source = source
    self.author = author
    self.title = title
    self.description = description
    self.url = url
    self.urlToImage = urlToImage
    self.publishedAt = publishedAt
    self.content = content
  }

  /// `publishedAt` as a date, fractional seconds kept; nil if it is not ISO 8601.
  public var publishedDate: Date? { publishedAt.flatMap(ISO8601.parse) }

  /// NewsAPI's placeholder for a withdrawn article.
  var isRemoved: Bool { title == "[Removed]" || url == "https://removed.com" }
}

/// A publisher from `top-headlines/sources`.
public struct NewsSource: Codable, Equatable, Sendable {
  public let id: String
  public let name: String
  public let description: String?
  public let url: String?
  public let category: String?
  public let language: String?
  /// Normalised: NewsAPI's `zh` is China (`cn`) and its `is` is Israel (`il`).
  public let country: String?

  func normalized() -> NewsSource {
    let fixed = ["zh": "cn", "is": "il"][country ?? ""] ?? country
    return NewsSource(
      id: id, name: name, description: description, url: url, category: category, language: language,
      country: fixed)
  }

  /// The host of the publisher's homepage, without `www.`, for `everything?domains=`.
  var domain: String? {
    guard let url, let start = url.range(of: "://")?.upperBound else { return nil }
    var host = url[start...].prefix { $0 != "/" && $0 != "?" && $0 != ":" }
    if host.hasPrefix("www.") { host = host.dropFirst(4) }
    return host.isEmpty ? nil : String(host)
  }
}

/// ISO 8601 timestamps as NewsAPI writes them: `2024-04-20T20:52:20Z` or with 1 to 9 fractional digits.
enum ISO8601 {
  static func parse(_ text: String) -> Date? {
    let scalars = Array(text.utf8)
    func number(_ from: Int, _ count: Int) -> Int? {
      guard from + count <= scalars.count else { return nil }
      var value = 0
      for byte in scalars[from..<(from + count)] {
        guard byte >= 48 && byte <= 57 else { return nil }
        value = value * 10 + Int(byte - 48)
      }
      return value
    }
    guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
      let minute = number(14, 2), let second = number(17, 2), scalars.count >= 20
    else { return nil }
    var index = 19
    var fraction = 0.0
    if scalars[index] == UInt8(ascii: ".") {
      index += 1
      var scale = 0.1
      while index < scalars.count, scalars[index] >= 48, scalars[index] <= 57 {
        fraction += Double(scalars[index] - 48) * scale
        scale /= 10
        index += 1
      }
    }
    guard index == scalars.count - 1, scalars[index] == UInt8(ascii: "Z") else { return nil }
    var components = DateComponents()
    components.calendar = Calendar(identifier: .gregorian)
    components.timeZone = TimeZone(identifier: "UTC")
    (components.year, components.month, components.day) = (year, month, day)
    (components.hour, components.minute, components.second) = (hour, minute, second)
    return components.date.map { $0.addingTimeInterval(fraction) }
  }
}
