import AtlasMessages
import Fetch
import Foundation

/// Headlines from feeds: each country's feeds from the feeds file, or one-off feeds (`--feed URL`) for every
/// job, fetched through a `FeedsClient` (so the cache, `--refresh` and `--offline` apply).
///
/// Feeds have no categories: a job with one has no route here. A country's result merges its feeds (newest
/// first, one article per link, `pageSize` at most); a feed that fails is warned about while the others answer,
/// and when all of them fail the result carries the first one's error.
public struct FeedsProvider: HeadlinesProvider {
  public let client: FeedsClient
  public let list: FeedList
  /// Feeds that answer every job instead of the list's (`headlines --feed URL`).
  public let oneOff: [String]

  public init(client: FeedsClient, list: FeedList, oneOff: [String] = []) {
    self.client = client
    self.list = list
    self.oneOff = oneOff
  }

  public var provider: NewsProvider { .feeds }
  public var counters: RequestCounters { client.counters }

  /// The feeds that answer `job`.
  public func feeds(of job: HeadlinesJob) -> [String] {
    oneOff.isEmpty ? list.feeds(of: job.country.code) : oneOff
  }

  /// Why a job has no route here, or nil when it has one.
  func noRoute(_ job: HeadlinesJob) -> Sentence? {
    if let category = job.category {
      return Sentence(
        .providerFeedsNoCategories, english: [job.country.name, category],
        french: [job.country.nameFrench, category])
    }
    return feeds(of: job).isEmpty ? NewsProviders.noFeeds(job.country) : nil
  }

  public func routes(for jobs: [HeadlinesJob], options: HeadlinesOptions, asking: Bool) async -> [Bool?] {
    jobs.map { noRoute($0) == nil }
  }

  /// One request a feed (a feed shared by several jobs, as one-off feeds are, serves them all), cached or not.
  public func plan(_ jobs: [HeadlinesJob], options: HeadlinesOptions) -> HeadlinesPlan {
    var plan = HeadlinesPlan(jobs: jobs, options: options)
    var byURL: [String: [Int]] = [:]
    var order: [String] = []
    for (index, job) in jobs.enumerated() {
      if let reason = noRoute(job) {
        plan.settled[index] = HeadlinesResult(job: job, provider: .feeds, strategy: .none, reason: reason)
        continue
      }
      for url in feeds(of: job) {
        if byURL[url] == nil { order.append(url) }
        byURL[url, default: []].append(index)
      }
    }
    for url in order {
      plan.requests.append(
        PlannedRequest(
          route: .country, provider: .feeds, text: printable(HTTPURL.redacted(url)), jobs: byURL[url]!,
          cached: client.answersFromCache(url)))
    }
    return plan
  }

  public func headlines(
    _ jobs: [HeadlinesJob], options: HeadlinesOptions, onResult: (Int, HeadlinesResult) -> Void
  ) async throws(NewsAPIError) -> [HeadlinesResult] {
    var results = [HeadlinesResult?](repeating: nil, count: jobs.count)
    await withTaskGroup(of: (Int, HeadlinesResult).self) { group in
      for (index, job) in jobs.enumerated() {
        if let reason = noRoute(job) {
          let result = HeadlinesResult(job: job, provider: .feeds, strategy: .none, reason: reason)
          results[index] = result
          onResult(index, result)
          continue
        }
        let urls = feeds(of: job)
        group.addTask {
          let (articles, failures) = await client.merged(urls, limit: options.pageSize)
          var result = HeadlinesResult(
            job: job, provider: .feeds, strategy: .feeds, totalResults: articles.count, articles: articles)
          if failures.count == urls.count, let first = failures.first {
            result.error = first.error
          } else {
            for failure in failures { client.cache?.warn(failure.error.description) }
          }
          return (index, result)
        }
      }
      for await (index, result) in group {
        results[index] = result
        onResult(index, result)
      }
    }
    return results.map { $0! }
  }
}
