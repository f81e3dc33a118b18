import AtlasMessages
import Foundation
import NewsAtlas

extension NewsAPIClient {
  /// What a headlines command would send for these jobs, from what is known now (what the service has said of
  /// each country's `country=` route, the cached sources list and answers); sends nothing.
  public func plan(_ jobs: [HeadlinesJob], options: HeadlinesOptions) -> HeadlinesPlan {
    plan(jobs, options: options, catalog: nil)
  }

  /// The plan, with the sources list given (just fetched) or else as the cache holds it.
  private func plan(_ jobs: [HeadlinesJob], options: HeadlinesOptions, catalog given: [NewsSource]?)
    -> HeadlinesPlan
  {
    var plan = HeadlinesPlan(jobs: jobs, options: options)
    let (viaCountry, viaSources) = routes(jobs, options: options)
    plan.requests = viaCountry.map { countryRequest(jobs, $0, options: options) }
    if !viaSources.isEmpty {
      let known = given.map { ($0, true) } ?? cachedSources()
      if let (catalog, fresh) = known {
        plan.sourcesList = fresh ? .cached : .send
        let (requests, settled) = Self.sourceRequests(
          viaSources, of: jobs, catalog: catalog, options: options)
        plan.requests += requests
        plan.settled = settled
      } else {
        plan.sourcesList = .send
        plan.awaitingSourcesList = viaSources
      }
    }
    for i in plan.requests.indices {
      plan.requests[i].cached = answersFromCache(plan.requests[i].path, plan.requests[i].parameters)
    }
    return plan
  }

  /// Refuses a plan that needs more requests than the budget has left, unless the policy says `force`.
  private func checkBudget(_ plan: HeadlinesPlan) throws(NewsAPIError) {
    guard let cache, !cache.force, !cache.offline, plan.cost > 0 else { return }
    let usage = cache.usage()
    let left = min(usage.dailyBudget - usage.lastDay, usage.halfDayBudget - usage.lastHalfDay)
    if plan.cost > left { throw .planOverBudget(requests: plan.cost, usage: usage) }
  }

  /// Headlines for every job, in as few requests as the plan allows; each result is also handed to
  /// `onResult` as soon as it is final (results arrive out of order). A failed request fails only the jobs
  /// it serves, as an error in their results.
  ///
  /// Jobs whose country answers `top-headlines?country=` go that way; the others share packed
  /// `top-headlines?sources=` requests (see `SourcePacking`), split back by each article's `source.id`; a
  /// country that a packed answer starves gets one follow-up of its own. What the `country=` route answers is
  /// kept in the cache (`RouteKnowledge`).
  /// - Throws: `.planOverBudget` when the plan needs more requests than the budget has left (unless the cache
  ///   policy says `force`); nothing is sent then.
  public func headlines(
    _ jobs: [HeadlinesJob], options: HeadlinesOptions,
    onResult: (Int, HeadlinesResult) -> Void = { _, _ in }
  ) async throws(NewsAPIError) -> [HeadlinesResult] {
    // The sources list comes first when some jobs need it: the rest of the plan depends on it. The budget is
    // checked before it is fetched, and again once the whole plan is known, before anything else is sent.
    try checkBudget(plan(jobs, options: options))
    let (viaCountry, viaSources) = routes(jobs, options: options)
    var listed: Result<[NewsSource], NewsAPIError>? = nil
    if !viaSources.isEmpty {
      listed = await sourcesResult()
      if case .success(let list) = listed { try checkBudget(plan(jobs, options: options, catalog: list)) }
    }
    let knowledge = RouteKnowledge(database: cache?.database)
    var results = [HeadlinesResult?](repeating: nil, count: jobs.count)
    func settle(_ i: Int, _ result: HeadlinesResult) {
      results[i] = result
      onResult(i, result)
    }

    // 1. top-headlines?country=, for the countries known to answer it (and those probed).
    var fallBack: [Int] = []
    await send(viaCountry.map { countryRequest(jobs, $0, options: options) }) { request, answer in
      let i = request.jobs[0]
      let job = jobs[i]
      switch answer {
      case .success(let page) where !page.articles.isEmpty:
        if job.category == nil { knowledge.record(.answers, for: job.country.code) }
        settle(
          i,
          HeadlinesResult(
            job: job, strategy: .country, totalResults: page.totalResults, articles: page.articles))
      case .success:
        // Empty: remembered (when no category narrowed it), and the country's sources asked instead.
        if job.category == nil { knowledge.record(.empty, for: job.country.code) }
        fallBack.append(i)
      case .failure(let error):
        settle(i, HeadlinesResult(job: job, strategy: .country, error: error))
      }
    }

    // 2. The countries' sources, packed; searches for countries without sources, when asked for.
    let sourceJobs = (viaSources + fallBack).sorted()
    guard !sourceJobs.isEmpty else { return results.map { $0! } }
    if listed == nil { listed = await sourcesResult() }  // only fallbacks from country= need it
    let catalog: [NewsSource]
    switch listed! {
    case .success(let list): catalog = list
    case .failure(let error):
      for i in sourceJobs { settle(i, HeadlinesResult(job: jobs[i], strategy: .sources, error: error)) }
      return results.map { $0! }
    }
    let (requests, settled) = Self.sourceRequests(sourceJobs, of: jobs, catalog: catalog, options: options)
    for (i, result) in settled.sorted(by: { $0.key < $1.key }) { settle(i, result) }
    var starved: [(job: Int, sources: [String])] = []
    await send(requests) { request, answer in
      switch answer {
      case .failure(let error):
        for i in request.jobs {
          settle(i, HeadlinesResult(job: jobs[i], strategy: Self.strategy(request.route), error: error))
        }
      case .success(let page) where request.route == .packed:
        guard case .headlines(let query) = request.query else { return }
        let truncated = page.totalResults > query.pageSize
        for (i, own) in Self.split(page, among: request.jobs, of: jobs, catalog: catalog) {
          if truncated && own.count < options.pageSize {
            starved.append((i, Self.sources(of: jobs[i], in: catalog)))
          } else {
            settle(
              i,
              HeadlinesResult(
                job: jobs[i], strategy: .sources, totalResults: own.count,
                articles: Array(own.prefix(options.pageSize))))
          }
        }
      case .success(let page):
        for i in request.jobs {
          settle(
            i,
            HeadlinesResult(
              job: jobs[i], strategy: Self.strategy(request.route), totalResults: page.totalResults,
              articles: page.articles))
        }
      }
    }

    // 3. One follow-up for each country that a packed answer crowded out.
    let followUps = starved.sorted { $0.job < $1.job }.map { item in
      var query = HeadlinesQuery(sources: item.sources)
      query.pageSize = options.pageSize
      return PlannedRequest(route: .followUp, query: .headlines(query), jobs: [item.job])
    }
    await send(followUps) { request, answer in
      let i = request.jobs[0]
      switch answer {
      case .success(let page):
        settle(
          i,
          HeadlinesResult(
            job: jobs[i], strategy: .sources, totalResults: page.totalResults, articles: page.articles))
      case .failure(let error):
        settle(i, HeadlinesResult(job: jobs[i], strategy: .sources, error: error))
      }
    }
    return results.map { $0! }
  }

  // MARK: - Planning

  /// Offsets of the jobs that ask `country=` first, and of those that go straight to their sources.
  private func routes(_ jobs: [HeadlinesJob], options: HeadlinesOptions) -> (country: [Int], sources: [Int]) {
    let knowledge = RouteKnowledge(database: cache?.database)
    var country: [Int] = []
    var sources: [Int] = []
    var asks: [String: Bool] = [:]
    for (i, job) in jobs.enumerated() {
      if job.source != nil {  // a source's headlines: top-headlines?sources=, packed with the countries'
        sources.append(i)
        continue
      }
      let code = job.country.code
      if asks[code] == nil { asks[code] = knowledge.asksCountryRoute(code, probe: options.probe) }
      if asks[code]! { country.append(i) } else { sources.append(i) }
    }
    return (country, sources)
  }

  private func countryRequest(_ jobs: [HeadlinesJob], _ i: Int, options: HeadlinesOptions) -> PlannedRequest {
    var query = HeadlinesQuery(country: jobs[i].country.code, category: jobs[i].category)
    query.pageSize = options.pageSize
    let known = RouteKnowledge(database: cache?.database).answer(for: jobs[i].country.code).answer
    return PlannedRequest(route: known == .answers ? .country : .probe, query: .headlines(query), jobs: [i])
  }

  /// The ids of a job's sources in the list: its country's, of its category if it has one, first 20 by id.
  static func sources(of job: HeadlinesJob, in catalog: [NewsSource]) -> [String] {
    if let source = job.source { return [source] }
    let own = catalog.filter {
      $0.country == job.country.code && (job.category == nil || $0.category == job.category)
    }
    return Array(own.map(\.id).sorted().prefix(SourcePacking.maximumSources))
  }

  /// The sources and search requests for these jobs, and the jobs that need none (no sources, no search).
  static func sourceRequests(
    _ offsets: [Int], of jobs: [HeadlinesJob], catalog: [NewsSource], options: HeadlinesOptions
  ) -> (requests: [PlannedRequest], settled: [Int: HeadlinesResult]) {
    var packable: [(job: Int, sources: [String])] = []
    var searches: [(query: SearchQuery, jobs: [Int])] = []
    var settled: [Int: HeadlinesResult] = [:]
    for i in offsets {
      let job = jobs[i]
      let own = sources(of: job, in: catalog)
      if !own.isEmpty {
        packable.append((i, own))
      } else if options.searchFallback {
        // everything has no category: one search per country serves all of its categories.
        var query = SearchQuery(q: job.country.searchName)
        query.language = job.country.language
        query.sortBy = "publishedAt"
        query.pageSize = options.pageSize
        if let same = searches.firstIndex(where: {
          $0.query.q == query.q && $0.query.language == query.language
        }) {
          searches[same].jobs.append(i)
        } else {
          searches.append((query, [i]))
        }
      } else {
        let (english, french) = (job.country.name, job.country.nameFrench)
        settled[i] = HeadlinesResult(
          job: job, strategy: .none,
          reason: job.category.map {
            Sentence(.providerNoCategorySources, english: [$0, english], french: [$0, french])
          } ?? Sentence(.providerNoSources, english: [english], french: [french]))
      }
    }
    var requests: [PlannedRequest] = []
    for group in SourcePacking.pack(sourceCounts: packable.map(\.sources.count)) {
      let members = group.map { packable[$0] }
      var query = HeadlinesQuery(sources: members.flatMap(\.sources))
      if members.count == 1 {
        query.pageSize = options.pageSize
        requests.append(PlannedRequest(route: .sources, query: .headlines(query), jobs: [members[0].job]))
      } else {
        query.pageSize = SourcePacking.maximumPageSize
        requests.append(PlannedRequest(route: .packed, query: .headlines(query), jobs: members.map(\.job)))
      }
    }
    requests += searches.map { PlannedRequest(route: .search, query: .search($0.query), jobs: $0.jobs) }
    return (requests, settled)
  }

  /// Each job's articles from a packed answer, in the answer's order, by the source that published them.
  static func split(_ page: ArticlePage, among offsets: [Int], of jobs: [HeadlinesJob], catalog: [NewsSource])
    -> [(job: Int, articles: [Article])]
  {
    var owner: [String: [Int]] = [:]
    for i in offsets {
      for id in sources(of: jobs[i], in: catalog) { owner[id, default: []].append(i) }
    }
    var shares: [Int: [Article]] = [:]
    for article in page.articles {
      guard let id = article.source.id else { continue }
      for i in owner[id] ?? [] { shares[i, default: []].append(article) }
    }
    return offsets.map { ($0, shares[$0] ?? []) }
  }

  static func strategy(_ route: PlannedRequest.Route) -> HeadlinesStrategy {
    switch route {
    case .country, .probe: return .country
    case .sources, .packed, .followUp: return .sources
    case .search: return .search
    }
  }

  // MARK: - Sending

  private func sourcesResult() async -> Result<[NewsSource], NewsAPIError> {
    await Result.awaiting { () async throws(NewsAPIError) in try await sources() }
  }

  /// Sends the requests at once (the HTTP client bounds how many are in flight), handing each answer to
  /// `received` as it arrives.
  private func send(
    _ requests: [PlannedRequest], received: (PlannedRequest, Result<ArticlePage, NewsAPIError>) -> Void
  ) async {
    await withTaskGroup(of: (Int, Result<ArticlePage, NewsAPIError>).self) { group in
      for (n, request) in requests.enumerated() {
        group.addTask {
          // The result bound before the tuple is built: see Result.awaiting(_:) (a release-only miscompile).
          let answer = await Result.awaiting { () async throws(NewsAPIError) in
            switch request.query {
            case .headlines(let query): return try await self.topHeadlines(query)
            case .search(let query): return try await self.everything(query)
            case .gdelt, .other: throw .invalidRequest(Sentence(.newsapiOtherProvider))
            }
          }
          return (n, answer)
        }
      }
      for await (n, answer) in group { received(requests[n], answer) }
    }
  }
}

extension NewsAPIClient {
  /// How the plan's budget stands, when the client counts its requests in a cache.
  public var quotaUsage: QuotaUsage? { cache?.usage() }
}
