import AtlasMessages
import NewsAtlas

/// The providers a front end has (NewsAPI only with a key; GDELT unless turned off; feeds once configured),
/// and the one rule that chooses among them: what `newsatlas headlines` and `GET /v1/headlines` both call.
public struct NewsProviders: Sendable {
  public let newsAPI: NewsAPIClient?
  public let gdelt: GDELTClient?
  public let feeds: (any HeadlinesProvider)?

  public init(newsAPI: NewsAPIClient?, gdelt: GDELTClient?, feeds: (any HeadlinesProvider)? = nil) {
    self.newsAPI = newsAPI
    self.gdelt = gdelt
    self.feeds = feeds
  }

  /// The provider of that name, when this front end has it.
  public func provider(_ name: NewsProvider) -> (any HeadlinesProvider)? {
    switch name {
    case .newsapi: return newsAPI
    case .gdelt: return gdelt
    case .feeds: return feeds
    }
  }

  /// Every provider this front end has.
  public var all: [any HeadlinesProvider] { NewsProvider.allCases.compactMap(provider) }

  /// A request's jobs: every country in every category, then each source asked (`--source`, `source=`, the
  /// favourite sources), checked against NewsAPI's sources list, in its source's country, to be packed with the
  /// countries' sources into the same requests and counted in the same budget. What `headlines` and
  /// `GET /v1/headlines` both call.
  ///
  /// - Parameter fetch: whether the sources list may be fetched when it is not cached fresh (a dry run: no).
  /// - Throws: `.missingKey` for sources without a key; `.unknownSource` for an id the list does not know
  ///   (with the nearest ids); `.invalidRequest` for a source outside the 54 countries, or no cached list
  ///   when `fetch` is false.
  public func jobs(for request: HeadlinesRequest, fetch: Bool) async throws(NewsAPIError) -> [HeadlinesJob] {
    guard !request.sources.isEmpty else { return request.jobs }
    guard let newsAPI else { throw .missingKey }
    return request.jobs + (try await newsAPI.sourceJobs(request.sources, fetch: fetch))
  }

  /// Where each job goes: a provider, or a result with the sentence that says why no provider can answer it.
  enum Assignment {
    case provider(NewsProvider)
    case settled(HeadlinesResult)
  }

  /// Each job's provider under `choice`.
  ///
  /// - Throws: `.missingKey` for `newsapi` without a key; `.invalidRequest` for `gdelt` with a category (GDELT
  ///   has none) or turned off.
  func assign(_ jobs: [HeadlinesJob], choice: ProviderChoice, options: HeadlinesOptions, asking: Bool)
    async throws(NewsAPIError) -> [Assignment]
  {
    // A source's headlines (a favourite source) come from NewsAPI alone.
    if jobs.contains(where: { $0.source != nil }) {
      guard choice == .auto || choice == .newsapi else {
        throw .invalidRequest(Sentence(.headlinesSourceNeedsNewsAPI))
      }
      guard newsAPI != nil else { throw .missingKey }
    }
    switch choice {
    case .newsapi:
      guard newsAPI != nil else { throw .missingKey }
      return jobs.map { job in
        job.country.isNewsAPI || job.source != nil
          ? .provider(.newsapi)
          : .settled(
            HeadlinesResult(
              job: job, provider: .newsapi, strategy: .none, reason: Self.notNewsAPI(job.country)))
      }
    case .gdelt:
      guard gdelt != nil else { throw .invalidRequest(Sentence(.gdeltOff)) }
      if let job = jobs.first(where: { $0.category != nil }) {
        throw .invalidRequest(GDELTClient.noCategories(job))
      }
      return jobs.map { _ in .provider(.gdelt) }
    case .feeds:
      let routes = await feeds?.routes(for: jobs, options: options, asking: asking) ?? jobs.map { _ in false }
      return zip(jobs, routes).map { job, route in
        route != false
          ? .provider(.feeds)
          : .settled(
            HeadlinesResult(job: job, provider: .feeds, strategy: .none, reason: Self.noFeeds(job.country)))
      }
    case .auto:
      let fromFeeds =
        await feeds?.routes(for: jobs, options: options, asking: asking) ?? jobs.map { _ in false }
      let fromNewsAPI =
        await newsAPI?.routes(for: jobs, options: options, asking: asking) ?? jobs.map { _ in false }
      return jobs.indices.map { i in
        if jobs[i].source != nil { return .provider(.newsapi) }
        if fromFeeds[i] == true { return .provider(.feeds) }
        // Not known without the sources list (a dry run): NewsAPI's plan says it waits for the list.
        if newsAPI != nil && fromNewsAPI[i] != false && jobs[i].country.isNewsAPI {
          return .provider(.newsapi)
        }
        guard gdelt != nil else {
          return .settled(
            HeadlinesResult(
              job: jobs[i], provider: .newsapi, strategy: .none,
              reason: Sentence(
                .providerNoRouteGDELTOff, english: [jobs[i].country.name],
                french: [jobs[i].country.nameFrench])))
        }
        if jobs[i].category != nil {
          return .settled(
            HeadlinesResult(
              job: jobs[i], provider: .gdelt, strategy: .none, reason: GDELTClient.noCategories(jobs[i])))
        }
        return .provider(.gdelt)
      }
    }
  }

  /// "NewsAPI's top headlines cover 54 countries, and Spain is not one of them; …"
  static func notNewsAPI(_ country: Country) -> Sentence {
    Sentence(.providerNotNewsAPICountry, english: [country.name], french: [country.nameFrench])
  }

  /// "No feeds are configured for France (fr)."
  static func noFeeds(_ country: Country) -> Sentence {
    Sentence(
      .providerNoFeeds, english: [country.name, country.code], french: [country.nameFrench, country.code])
  }

  /// What `headlines` would send under `choice`: every provider's plan, in one (its requests name their
  /// provider; `seconds` is the time the paced ones take). Sends nothing, but with `auto` and a key, NewsAPI's
  /// routes come from the cached sources list only.
  public func plan(_ jobs: [HeadlinesJob], choice: ProviderChoice, options: HeadlinesOptions)
    async throws(NewsAPIError) -> HeadlinesPlan
  {
    let assignments = try await assign(jobs, choice: choice, options: options, asking: false)
    var plan = HeadlinesPlan(jobs: jobs, options: options)
    for (name, offsets) in Self.groups(assignments) {
      guard let provider = provider(name) else { continue }
      let part = provider.plan(offsets.map { jobs[$0] }, options: options)
      for var request in part.requests {
        request.jobs = request.jobs.map { offsets[$0] }
        plan.requests.append(request)
      }
      for (i, result) in part.settled { plan.settled[offsets[i]] = result }
      plan.awaitingSourcesList += part.awaitingSourcesList.map { offsets[$0] }
      if part.sourcesList != .notNeeded { plan.sourcesList = part.sourcesList }
      plan.seconds = max(plan.seconds, part.seconds)
      plan.secondsAtMost = max(plan.secondsAtMost, part.secondsAtMost)
      plan.followUpsAtMost += part.followUpsAtMost
      plan.spacing = max(plan.spacing, part.spacing)
    }
    for (i, assignment) in assignments.enumerated() {
      if case .settled(let result) = assignment { plan.settled[i] = result }
    }
    return plan
  }

  /// Headlines for every job, each from the provider `choice` gives it; the providers work at once (each paces
  /// and budgets its own requests). Each result is handed to `onResult` as soon as it is final.
  ///
  /// - Throws: what `assign` throws, and a provider's refusal of its whole share (NewsAPI's plan over the
  ///   budget) when that provider has every job; nothing is sent by that provider then. When other providers
  ///   (or settled results) share the jobs, the refused share's jobs carry the error instead, and the rest is
  ///   kept.
  public func headlines(
    _ jobs: [HeadlinesJob], choice: ProviderChoice, options: HeadlinesOptions,
    onResult: (Int, HeadlinesResult) -> Void = { _, _ in }
  ) async throws(NewsAPIError) -> [HeadlinesResult] {
    let assignments = try await assign(jobs, choice: choice, options: options, asking: true)
    var results = [HeadlinesResult?](repeating: nil, count: jobs.count)
    for (i, assignment) in assignments.enumerated() {
      if case .settled(let result) = assignment {
        results[i] = result
        onResult(i, result)
      }
    }
    let groups = Self.groups(assignments).compactMap { name, offsets in
      provider(name).map { ($0, offsets) }
    }
    // The providers work at once; their results come back through one stream, to `onResult` here.
    let (stream, arrivals) = AsyncStream.makeStream(of: (Int, HeadlinesResult).self)
    async let answers = withTaskGroup(of: (Int, Result<[HeadlinesResult], NewsAPIError>).self) { group in
      for (n, (provider, offsets)) in groups.enumerated() {
        group.addTask {
          // The result bound before the tuple is built: see Result.awaiting(_:) (a release-only miscompile).
          let answer = await Result.awaiting { () async throws(NewsAPIError) in
            try await provider.headlines(offsets.map { jobs[$0] }, options: options) { i, result in
              arrivals.yield((offsets[i], result))
            }
          }
          return (n, answer)
        }
      }
      var answers: [Int: Result<[HeadlinesResult], NewsAPIError>] = [:]
      for await (n, answer) in group { answers[n] = answer }
      arrivals.finish()
      return answers
    }
    for await (i, result) in stream { onResult(i, result) }
    let parts = await answers
    // One provider for every job: its refusal is the command's. Several: a refused share (NewsAPI's plan over
    // the budget) fails its own jobs, each with that error, and what the others answered is kept.
    let shared = groups.count > 1 || results.contains { $0 != nil }
    for (n, (_, offsets)) in groups.enumerated() {
      switch parts[n]! {
      case .success(let part):
        for (k, result) in part.enumerated() { results[offsets[k]] = result }
      case .failure(let error):
        guard shared else { throw error }
        for i in offsets {
          let result = HeadlinesResult(
            job: jobs[i], provider: groups[n].0.provider, strategy: .none, error: error)
          results[i] = result
          onResult(i, result)
        }
      }
    }
    return results.map { $0! }
  }

  /// The offsets of the jobs each provider serves, providers in their order.
  static func groups(_ assignments: [Assignment]) -> [(NewsProvider, [Int])] {
    NewsProvider.allCases.compactMap { name in
      let offsets = assignments.indices.filter {
        if case .provider(let assigned) = assignments[$0] { return assigned == name }
        return false
      }
      return offsets.isEmpty ? nil : (name, offsets)
    }
  }

  /// Requests answered from the cache and sent, by all the providers.
  public var counters: (cacheHits: Int, sent: Int) {
    all.reduce((0, 0)) { ($0.0 + $1.counters.cacheHits, $0.1 + $1.counters.sent) }
  }
}
