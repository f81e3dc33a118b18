import AtlasMessages
import Fetch
import GeoFormats
import GeoIndex
import Logging
import NewsAPI
import NewsAtlas

extension AtlasService {
  /// `GET /v1/headlines?country=CC|near=LAT,LON|cluster=ID&zoom=Z[&source=ID…][&category=C][&pageSize=N]
  /// [&provider=P]`: the CLI's headlines JSON (`HeadlinesJSON`), planned by the same providers and planner
  /// through the server's one set of clients, so every request shares one cache, one budget and one GDELT
  /// pacing. Without a key the answers come from GDELT. A failed country is an error object in its result
  /// (200), as is one whose GDELT turn is further away than the server waits (`serviceGDELTWait`); a plan the
  /// budget cannot cover is 429 with `Retry-After` (when the budget frees up);
  /// `provider=newsapi` on a server without a key, and a server started with `--no-news`, are 503. The key never
  /// leaves the process but to NewsAPI.
  func headlines(_ request: ParsedRequest) async throws -> Reply {
    let query = try allow(
      request, ["country", "near", "cluster", "zoom", "category", "pageSize", "provider", "source"],
      repeatable: ["source"])
    guard let news else {
      throw Problem.worded(
        .unavailable(newsUnavailable.text(in: .english)),
        Wording { [newsUnavailable] in newsUnavailable.text(in: $0) })
    }
    var choice = defaultProvider
    if let name = query.get("provider") {
      guard let named = ProviderChoice.named(name) else {
        let shown = printable(String(name.prefix(64)))
        throw Problem.worded(
          .badParameter(Message.notAProvider(shown, ProviderChoice.spoken(in: .english), in: .english)),
          Wording { Message.notAProvider(shown, ProviderChoice.spoken(in: $0), in: $0) })
      }
      choice = named
    }
    // Checked by the news library, as the CLI's headlines checks its flags: the same sentences. A cluster id is
    // one of the markers' map this server draws, with its zoom and this server's clustering options.
    let headlines: HeadlinesRequest
    do {
      headlines = try HeadlinesRequest(
        HeadlinesRequest.Given(
          country: query.get("country"), near: query.get("near"), cluster: query.get("cluster"),
          zoom: query.get("zoom"), category: query.get("category"), pageSize: query.get("pageSize"),
          sources: query.pairs.filter { $0.name == "source" }.map { String($0.value) }),
        offered: [.country, .near, .cluster],
        clusterOptions: store["markers"]?.index.options ?? ClusterOptions(),
        newsCountries: newsCountries(under: choice))
    } catch {
      // A text no country has: the service's users find one with /v1/countries, not the command line's list.
      let wording: Wording
      if case .unknownCountry(let text) = error {
        let sentence = CountryIdentification.refusal(
          candidates: [], shown: printable(String(text.prefix(64))), service: true)
        wording = Wording { sentence.text(in: $0) }
      } else if case .unknownWorldCountry(let text) = error {
        let sentence = CountryIdentification.refusal(
          candidates: [], shown: printable(String(text.prefix(64))), service: true, in: .world)
        wording = Wording { sentence.text(in: $0) }
      } else {
        wording = Wording { error.description(naming: \.rawValue, in: $0) }
      }
      let english = wording.text(.english)
      throw Problem.worded(error.isNotFound ? .notFound(english) : .badParameter(english), wording)
    }
    // A source's headlines come from NewsAPI (as the CLI's --source): another provider named is refused.
    if !headlines.sources.isEmpty && choice != .newsapi && choice != .auto {
      throw Problem.said(Problem.badParameter, .serviceSourceNeedsNewsAPI)
    }
    do {
      // The sources checked against NewsAPI's sources list and joined to the jobs, as the CLI's are.
      let jobs = try await news.jobs(for: headlines, fetch: true)
      let results = try await news.headlines(
        jobs, choice: choice, options: HeadlinesOptions(pageSize: headlines.pageSize, language: newsLanguage))
      // The reasons and error messages in the request's language (lang=, else Accept-Language), as the CLI's
      // are in its reader's: the same bytes for the same request in the same language.
      let language = InterfaceLanguage.requested(
        query: query.get("lang"), acceptLanguage: request.headers[.acceptLanguage])
      var reply = Reply(json: HeadlinesJSON.results(results, in: language))
      reply.headers[.vary] = "Accept-Language"
      return reply
    } catch {
      // The library's sentence names no command-line flag, in the request's language; an HTTP client is told when
      // to try again. A source id the list does not hold is worded for the service's users, who find the ids
      // this server offers at /v1/sources, not with the command line's `sources`.
      var wording = Wording { error.description(in: $0) }
      if case .unknownSource(let id, let nearest) = error {
        let sentence = NewsAPIError.unknownSourceSentence(id, nearest: nearest, service: true)
        wording = Wording { sentence.text(in: $0) }
      }
      if error.isInvalidRequest {
        throw Problem.worded(.badParameter(wording.text(.english)), wording)
      }
      guard error.isQuota else { throw Problem.worded(.unavailable(error.description), wording) }
      throw Problem.worded(
        .tooManyRequests(error.description, retryAfterSeconds: error.retryAfterSeconds), wording)
    }
  }
}

extension AtlasService {
  /// `GET /v1/sources`: the favourite NewsAPI sources this server offers (its `sources` setting), in their
  /// order, for the map page's source choice: `{"sources":[{"id":"bbc-news"},…]}`; none without NewsAPI (no
  /// key, `--no-news`), which alone serves a source's headlines. Only those NewsAPI's sources list knows (in
  /// one of the 54 countries) are offered, each other one logged with its refusal (in the process's language:
  /// the operator's): the map names the chosen one in every request, which an unknown id would make a 400.
  /// None while no sources list can be had.
  func favourites(_ request: ParsedRequest, logger: Logger) async throws -> Reply {
    try allow(request, [])
    var offered: [String] = []
    // Only where a source's headlines can be asked: with NewsAPI, and a default provider that may use it (a
    // `provider = gdelt` server would refuse every map request that named one).
    if let newsAPI = news?.newsAPI, defaultProvider == .auto || defaultProvider == .newsapi {
      if let checked = await newsAPI.usableSources(favouriteSources) {
        offered = checked.usable
        for refusal in checked.refused {
          logger.warning("\(Message.serveFavouriteLeftOut(refusal.description(in: .current)))")
        }
      } else {
        logger.warning("\(Message.serveFavouritesUnchecked())")
      }
    }
    var writer = JSONWriter()
    writer.object { object in
      object.array("sources", offered) { item, id in
        item.object { $0.string("id", id) }
      }
    }
    return Reply(json: writer.bytes + [0x0A])
  }
}
