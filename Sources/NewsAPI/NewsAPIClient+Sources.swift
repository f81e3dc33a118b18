import AtlasMessages
import Fetch
import NewsAtlas
import Store

extension NewsAPIClient {
  /// The jobs for NewsAPI source ids (`--source`, the favourite sources), each checked against the sources list:
  /// the cached one, else (with `fetch`) the service's, which is then one request of the plan's budget.
  ///
  /// - Throws: `.unknownSource` with the nearest known ids for an id the list does not hold;
  ///   `.invalidRequest` saying that a source's country is not one of the 54 or that a dry run has no list to
  ///   check against.
  public func sourceJobs(_ ids: [String], fetch: Bool) async throws(NewsAPIError) -> [HeadlinesJob] {
    guard !ids.isEmpty else { return [] }
    let catalog: [NewsSource]
    if let (cached, fresh) = cachedSources(), fresh || !fetch {
      catalog = cached
    } else if fetch {
      catalog = try await sources()
    } else {
      throw .invalidRequest(Sentence(.sourcesListNotCached))
    }
    return try Self.sourceJobs(ids, catalog: catalog)
  }

  /// The ids among `ids` that `sourceJobs` takes (the sources list knows them, each in one of the 54 countries),
  /// in order, and the refusal of each other one; nil when no sources list can be had (none cached, and
  /// fetching it failed). The service's favourite sources pass through it: one that NewsAPI does not know would
  /// otherwise be offered to the map, and every request naming it refused.
  public func usableSources(_ ids: [String]) async -> (usable: [String], refused: [NewsAPIError])? {
    guard !ids.isEmpty else { return ([], []) }
    guard let catalog = await sourcesToCheckAgainst() else { return nil }
    var usable: [String] = []
    var refused: [NewsAPIError] = []
    for id in ids {
      do throws(NewsAPIError) {
        _ = try Self.sourceJobs([id], catalog: catalog)
        usable.append(id)
      } catch {
        refused.append(error)
      }
    }
    return (usable, refused)
  }

  /// Checks `everything`'s `sources` against the sources list: the cached one, else the service's (one request
  /// of the budget), else a stale cached one. A search may name a source of any country (not only the 54's).
  /// With no list to be had the ids go unchecked, and the search itself says what failed.
  ///
  /// - Throws: `.unknownSource` with the nearest known ids for an id the list does not hold.
  public func checkSearchSources(_ ids: [String]) async throws(NewsAPIError) {
    guard !ids.isEmpty else { return }
    guard let catalog = await sourcesToCheckAgainst() else { return }
    let known = catalog.map(\.id)
    for id in ids where !known.contains(id) { throw Self.unknownSource(id, known: known) }
  }

  /// Checks source ids against the sources list `database` holds for the service at `base`, whatever its age,
  /// sending nothing (`config set sources`): with no list cached the ids pass, to be checked when used.
  ///
  /// - Throws: `.unknownSource` with the nearest known ids for an id the list does not hold.
  public static func checkCachedSources(_ ids: [String], base: String, database: any ResponseStore)
    throws(NewsAPIError)
  {
    guard !ids.isEmpty, let catalog = cachedSources(in: database, base: base) else { return }
    let known = catalog.map(\.id)
    for id in ids where !known.contains(id) { throw unknownSource(id, known: known) }
  }

  /// The refusal of a source id the sources list does not hold, with the nearest known ids.
  static func unknownSource(_ id: String, known: [String]) -> NewsAPIError {
    .unknownSource(id: id, nearest: nearestIDs(to: id, in: known))
  }

  /// One job per id (once each, in order), in its source's country.
  static func sourceJobs(_ ids: [String], catalog: [NewsSource]) throws(NewsAPIError) -> [HeadlinesJob] {
    var jobs: [HeadlinesJob] = []
    for id in ids where !jobs.contains(where: { $0.source == id }) {
      guard let source = catalog.first(where: { $0.id == id }) else {
        throw unknownSource(id, known: catalog.map(\.id))
      }
      guard let code = source.country, let country = Country.named(code: code) else {
        throw .invalidRequest(
          Sentence(.sourceOutsideCountries, printable(id), printable(source.country ?? "--")))
      }
      jobs.append(HeadlinesJob(country: country, source: id))
    }
    return jobs
  }

  /// The three known ids nearest `id` by edit distance (Levenshtein's, on characters), ties by id.
  static func nearestIDs(to id: String, in known: [String], count: Int = 3) -> [String] {
    Suggestions.nearest(to: id, in: known, count: count)
  }

  /// The sources list to check ids against: the cached one when fresh, else the service's (one request of the
  /// budget), else a stale cached one; nil when none can be had.
  private func sourcesToCheckAgainst() async -> [NewsSource]? {
    let cached = cachedSources()
    if let (list, fresh) = cached, fresh { return list }
    do throws(NewsAPIError) {
      return try await sources()
    } catch {
      return cached?.sources
    }
  }
}
