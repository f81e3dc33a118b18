import AtlasMessages
import Feeds
import Fetch
import Foundation
import Store

/// Headlines from RSS 2.0, RSS 1.0 and Atom 1.0 feeds, over an `HTTPTransport` (libcurl's `HTTPClient`, or a
/// fake in tests) and, optionally, the cache.
///
/// Each feed is cached as the articles read from it with its `ETag` and `Last-Modified`; a fresh entry answers
/// without a request, a stale one is asked again conditionally, and a `304` keeps the articles and makes them
/// fresh again. A country's feeds are fetched at once, merged, de-duplicated by link and sorted newest first.
/// Feeds count against no budget (they are no one's quota), but `--offline` and `--refresh` apply.
public final class FeedsClient: Sendable {
  private let http: any HTTPTransport
  let cache: CachePolicy?
  private let timeout: Duration?
  /// Feeds answered from the cache and sent, since the client was made.
  public let counters = RequestCounters()

  public init(http: any HTTPTransport, timeout: Duration? = nil, cache: CachePolicy? = nil) {
    self.http = http
    self.timeout = timeout
    self.cache = cache
  }

  /// A feed as the cache keeps it: the articles read from it and the validators its server sent.
  struct Entry: Codable {
    var etag: String?
    var lastModified: String?
    var articles: [Article]
  }

  /// The cache kind of feed entries (their time to live is the headlines').
  static let cacheKind = "feed"

  /// The cache key of a feed: its URL without user information (which is never stored).
  static func cacheKey(_ url: String) -> String { "feed " + HTTPURL.redacted(url) }

  /// Whether a run would answer this feed from the cache without sending.
  public func answersFromCache(_ url: String) -> Bool {
    guard let cache, !cache.refresh, let stored = cache.database.lookup(Self.cacheKey(url)) else {
      return false
    }
    return cache.offline || Date().timeIntervalSince(stored.storedAt) <= cache.timeToLive.headlines
  }

  /// One feed's articles, in the feed's order: from the cache when fresh (or offline), else fetched,
  /// conditionally when the cache has the feed. A failed fetch falls back to the cached articles, with a
  /// warning, when there are any.
  public func articles(of url: String) async throws(NewsAPIError) -> [Article] {
    let key = Self.cacheKey(url)
    let stored = cache?.database.lookup(key)
    let entry = stored.flatMap { try? JSONDecoder().decode(Entry.self, from: Data($0.body)) }
    let age = stored.map { Date().timeIntervalSince($0.storedAt) } ?? .infinity
    let shown = printable(HTTPURL.redacted(url))
    if let cache, let entry {
      if cache.offline || (!cache.refresh && age <= cache.timeToLive.headlines) {
        if cache.offline { cache.warn(Message.staleFeedOffline(shown, spokenDuration(age, in: .current))) }
        counters.count(hit: true)
        return entry.articles
      }
    } else if let cache, cache.offline {
      throw .notCached(Sentence(.theFeed, shown))
    }
    var headers: [(String, String)] = [
      ("Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9")
    ]
    if let etag = entry?.etag { headers.append(("If-None-Match", etag)) }
    if let lastModified = entry?.lastModified { headers.append(("If-Modified-Since", lastModified)) }
    counters.count(hit: false)
    do throws(NewsAPIError) {
      let response: HTTPResponse
      do {
        response = try await http.get(url, headers: headers, timeout: timeout)
      } catch {
        throw .transport(error)
      }
      if response.status == 304, var entry {
        entry.etag = response.header("ETag") ?? entry.etag
        entry.lastModified = response.header("Last-Modified") ?? entry.lastModified
        keep(entry, key: key)
        return entry.articles
      }
      guard (200..<300).contains(response.status) else {
        throw .feed(url: HTTPURL.redacted(url), status: response.status, reason: nil)
      }
      let feed: Feed
      do {
        feed = try Self.feed(in: response, from: url)
      } catch {
        throw .feed(url: HTTPURL.redacted(url), status: response.status, reason: error.sentence)
      }
      let fresh = Entry(
        etag: response.header("ETag"), lastModified: response.header("Last-Modified"),
        articles: Self.articles(of: feed, url: url))
      keep(fresh, key: key)
      return fresh.articles
    } catch {
      guard let cache, let entry else { throw error }
      cache.warn(Message.staleFeed(shown, spokenDuration(age, in: .current), lowercasedFirst(error)))
      return entry.articles
    }
  }

  private func keep(_ entry: Entry, key: String) {
    guard let cache, let body = try? JSONEncoder().encode(entry) else { return }
    cache.database.store(key, kind: Self.cacheKind, body: Array(body))
  }

  /// Several feeds fetched at once, merged: newest first, one article per link (the newest), at most `limit`;
  /// with the feeds that failed and why, in the order given.
  public func merged(_ urls: [String], limit: Int) async -> (
    articles: [Article], failures: [(url: String, error: NewsAPIError)]
  ) {
    let answers = await withTaskGroup(of: (Int, Result<[Article], NewsAPIError>).self) { group in
      for (index, url) in urls.enumerated() {
        group.addTask {
          // The result bound before the tuple is built: see Result.awaiting(_:) (a release-only miscompile).
          let answer = await Result.awaiting { () async throws(NewsAPIError) in
            try await self.articles(of: url)
          }
          return (index, answer)
        }
      }
      var answers = [Result<[Article], NewsAPIError>?](repeating: nil, count: urls.count)
      for await (index, answer) in group { answers[index] = answer }
      return answers
    }
    var all: [Article] = []
    var failures: [(url: String, error: NewsAPIError)] = []
    for (index, answer) in answers.enumerated() {
      switch answer {
      case .success(let articles): all += articles
      case .failure(let error): failures.append((HTTPURL.redacted(urls[index]), error))
      case nil: break  // every child answers once, at its own index (FuzzHeadlines checks it)
      }
    }
    return (Self.newestFirst(all, limit: limit), failures)
  }

  /// Newest first (ties keep their order), the undated after the dated, one article per link, at most `limit`.
  static func newestFirst(_ articles: [Article], limit: Int) -> [Article] {
    var seen = Set<String>()
    // publishedAt is always `YYYY-MM-DDTHH:MM:SSZ` here, so the text orders as the time does ("" for none).
    let sorted = articles.enumerated().sorted {
      let (a, b) = ($0.element.publishedAt ?? "", $1.element.publishedAt ?? "")
      return a != b ? a > b : $0.offset < $1.offset
    }
    var result: [Article] = []
    for (_, article) in sorted where result.count < limit && seen.insert(article.url).inserted {
      result.append(article)
    }
    return result
  }

  /// A feed's items as articles in the contract's shape: the source is the feed's title (else its host); an
  /// item whose date is missing or cannot be read has none (`publishedAt` null), never the feed's date or the
  /// time it was read, which would show an old article as new.
  static func articles(of feed: Feed, url: String) -> [Article] {
    let name = feed.title ?? String(HTTPURL.hostAndPort(of: url))
    return feed.items.compactMap { item in
      Article(
        source: .init(id: nil, name: name), author: item.author,
        title: item.title.isEmpty ? item.link : item.title, description: item.summary, url: item.link,
        urlToImage: item.imageURL, publishedAt: item.published?.iso8601, content: nil
      ).sanitized()
    }
  }
}

extension FeedsClient {
  /// One feed read once, fresh (no cache), for `feeds check`: the HTTP status it was answered with (nil when
  /// none came), its items, the newest item's date, the feed's title, and what went wrong if anything did.
  public struct Check: Sendable {
    public let url: String
    public let status: Int?
    public let items: Int
    public let newest: String?
    public let title: String?
    public let error: NewsAPIError?
  }

  /// What `feeds add` finds at a URL the user gives: a feed, or a web page naming one.
  public enum Discovery: Sendable {
    /// The URL is a feed (its title and items).
    case feed(title: String?, items: Int)
    /// The URL is a web page that names the feed at `url`, which was read (its title and items).
    case named(url: String, title: String?, items: Int)
    /// A web page that names no feed NewsAtlas reads (the links it tried, if any failed).
    case pageWithoutFeed(tried: Int)
    /// Nothing could be asked (no answer: a name that does not resolve, a refused connection, a timeout).
    case unanswered(NewsAPIError)
    /// Answered, but not with a feed (an HTTP error, a document that is not a feed).
    case notAFeed(NewsAPIError)
  }

  /// Reads `url` once, without the cache.
  public func check(_ url: String) async -> Check {
    let response: HTTPResponse
    do {
      response = try await http.get(url, headers: Self.acceptFeeds, timeout: timeout)
    } catch {
      return Check(url: url, status: nil, items: 0, newest: nil, title: nil, error: .transport(error))
    }
    guard (200..<300).contains(response.status) else {
      let error = NewsAPIError.feed(url: HTTPURL.redacted(url), status: response.status, reason: nil)
      return Check(url: url, status: response.status, items: 0, newest: nil, title: nil, error: error)
    }
    do {
      let feed = try Self.feed(in: response, from: url)
      let newest = feed.items.compactMap(\.published).max()?.iso8601
      return Check(
        url: url, status: response.status, items: feed.items.count, newest: newest, title: feed.title, error: nil)
    } catch {
      let failure = NewsAPIError.feed(url: HTTPURL.redacted(url), status: response.status, reason: error.sentence)
      return Check(url: url, status: response.status, items: 0, newest: nil, title: nil, error: failure)
    }
  }

  /// What `url` is: a feed, or a page whose `<link rel="alternate">` names one (the first of them, at most
  /// five tried, that reads as a feed).
  public func discover(_ url: String) async -> Discovery {
    let response: HTTPResponse
    do {
      response = try await http.get(url, headers: Self.acceptFeedsOrPages, timeout: timeout)
    } catch {
      return .unanswered(.transport(error))
    }
    guard (200..<300).contains(response.status) else {
      return .notAFeed(.feed(url: HTTPURL.redacted(url), status: response.status, reason: nil))
    }
    let contentType = response.header("Content-Type")
    do {
      let feed = try Self.feed(in: response, from: url)
      return .feed(title: feed.title, items: feed.items.count)
    } catch {
      guard FeedDiscovery.isPage(response.body, contentType: contentType) else {
        return .notAFeed(.feed(url: HTTPURL.redacted(url), status: response.status, reason: error.sentence))
      }
    }
    let links = FeedDiscovery.links(inPage: response.body, url: url, contentType: contentType).prefix(5)
    for link in links {
      let check = await check(link.url)
      if check.error == nil { return .named(url: link.url, title: check.title ?? link.title, items: check.items) }
    }
    return .pageWithoutFeed(tried: links.count)
  }

  /// The feed a response from `url` holds, read with the headers that say its encoding and its base.
  static func feed(in response: HTTPResponse, from url: String) throws(FeedError) -> Feed {
    try FeedParser.parse(
      response.body, url: url, contentType: response.header("Content-Type"),
      contentLocation: response.header("Content-Location"))
  }

  private static let acceptFeeds = [
    ("Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9")
  ]
  private static let acceptFeedsOrPages = [
    ("Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/html;q=0.5")
  ]
}
