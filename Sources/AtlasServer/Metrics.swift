import Foundation
import Synchronization

/// The service's counters, written out in the Prometheus text exposition format (version 0.0.4) at
/// `/metrics`: requests by route, method and status, a latency histogram per route, tiles served per dataset,
/// answers revalidated with 304, and NewsAPI requests answered from the cache or sent.
final class Metrics: Sendable {
  /// Upper bounds of the latency buckets, in seconds.
  static let buckets: [Double] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10,
  ]

  private struct Key: Hashable {
    let route: String
    let method: String
    let status: Int
  }
  private struct Histogram {
    var counts = [Int](repeating: 0, count: Metrics.buckets.count)
    var sum = 0.0
    var count = 0

    mutating func record(_ seconds: Double) {
      if let bucket = Metrics.buckets.firstIndex(where: { seconds <= $0 }) { counts[bucket] += 1 }
      sum += seconds
      count += 1
    }
  }

  private struct Counters {
    var requests: [Key: Int] = [:]
    var latency: [String: Histogram] = [:]
    var tiles: [String: Int] = [:]
    var notModified = 0
    var batchesRunning = 0
    var batches = 0
    var batchRows = 0
    /// Dataset changes written and served, changes whose write failed, builds, and the builds' durations.
    var datasetChanges = 0
    var datasetChangesFailed = 0
    var datasetBuildsExtended = 0
    var datasetBuilds = Histogram()
    /// Journals compacted into a new base, and compactions that failed (or whose folder sync did).
    var compactions = 0
    var compactionsFailed = 0
  }
  private let counters = Mutex(Counters())

  init() {}

  /// One answered request; `route` is the matched route's pattern (`/tiles/:name/:z/:x/:file`), so the
  /// number of series stays bounded whatever clients ask for.
  func record(route: String, method: String, status: Int, seconds: Double) {
    counters.withLock { counters in
      counters.requests[Key(route: route, method: method, status: status), default: 0] += 1
      // In place: a copy taken out and written back made the bucket array a fresh allocation every request.
      counters.latency[route, default: Histogram()].record(seconds)
      if status == 304 { counters.notModified += 1 }
    }
  }

  /// A batch POST's rows began to be answered.
  func batchStarted() {
    counters.withLock { counters in
      counters.batchesRunning += 1
      counters.batches += 1
    }
  }

  /// A batch POST ended (answered, failed, or given up when its client went away) after `rows` rows.
  func batchEnded(rows: Int) {
    counters.withLock { counters in
      counters.batchesRunning -= 1
      counters.batchRows += rows
    }
  }

  /// One build of a written dataset, serving `changes` changes (more than one when they were coalesced), from
  /// the batch's start to its swap, in seconds.
  func datasetBuilt(changes: Int, seconds: Double, extended: Bool = false) {
    counters.withLock { counters in
      counters.datasetChanges += changes
      counters.datasetBuilds.record(seconds)
      if extended { counters.datasetBuildsExtended += 1 }
    }
  }

  /// A journal compacted into a new base (`failed` when it could not be, or its folder not synced after).
  func datasetCompacted(failed: Bool) {
    counters.withLock { counters in
      counters.compactions += 1
      if failed { counters.compactionsFailed += 1 }
    }
  }

  /// A batch of `changes` dataset changes whose write or build failed.
  func datasetWritesFailed(_ changes: Int) {
    counters.withLock { $0.datasetChangesFailed += changes }
  }

  func tileServed(dataset: String) {
    counters.withLock { $0.tiles[dataset, default: 0] += 1 }
  }

  /// The exposition text; `news` is NewsAPI's (cache hits, requests sent) when the service has a key, `gdelt`
  /// GDELT's when it has news.
  func text(
    news: (cacheHits: Int, sent: Int)?, gdelt: (cacheHits: Int, sent: Int)? = nil,
    tileCache: (hits: Int, misses: Int, tiles: Int, bytes: Int),
    filterCache: (builds: Int, hits: Int, kept: Int, bytes: Int) = (0, 0, 0, 0),
    filterQueue: (running: Int, waiting: Int, refused: Int) = (0, 0, 0),
    tables: [(name: String, table: String, follow: TableDatasets.Follow, lagSeconds: Double)] = []
  ) -> String {
    let counters = counters.withLock { $0 }  // a copy: the text is written outside the lock
    var text = """
      # HELP newsatlas_http_requests_total HTTP requests answered, by route, method and status.
      # TYPE newsatlas_http_requests_total counter

      """
    for (key, count) in counters.requests.sorted(by: {
      ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status)
    }) {
      text +=
        "newsatlas_http_requests_total{route=\"\(Self.escaped(key.route))\",method=\"\(key.method)\","
        + "status=\"\(key.status)\"} \(count)\n"
    }
    text += """
      # HELP newsatlas_http_request_duration_seconds Time from request to response head, by route.
      # TYPE newsatlas_http_request_duration_seconds histogram

      """
    for (route, histogram) in counters.latency.sorted(by: { $0.key < $1.key }) {
      let label = "route=\"\(Self.escaped(route))\""
      var cumulative = 0
      for (bound, count) in zip(Self.buckets, histogram.counts) {
        cumulative += count
        text += "newsatlas_http_request_duration_seconds_bucket{\(label),le=\"\(bound)\"} \(cumulative)\n"
      }
      text += "newsatlas_http_request_duration_seconds_bucket{\(label),le=\"+Inf\"} \(histogram.count)\n"
      text += "newsatlas_http_request_duration_seconds_sum{\(label)} \(histogram.sum)\n"
      text += "newsatlas_http_request_duration_seconds_count{\(label)} \(histogram.count)\n"
    }
    text += """
      # HELP newsatlas_tiles_served_total Vector and GeoJSON tiles answered with a body or 204, by dataset.
      # TYPE newsatlas_tiles_served_total counter

      """
    for (dataset, count) in counters.tiles.sorted(by: { $0.key < $1.key }) {
      text += "newsatlas_tiles_served_total{dataset=\"\(Self.escaped(dataset))\"} \(count)\n"
    }
    text += """
      # HELP newsatlas_http_not_modified_total Answers revalidated by If-None-Match (304, no body).
      # TYPE newsatlas_http_not_modified_total counter
      newsatlas_http_not_modified_total \(counters.notModified)
      # HELP newsatlas_tile_cache_hits_total Tiles answered from the tile cache.
      # TYPE newsatlas_tile_cache_hits_total counter
      newsatlas_tile_cache_hits_total \(tileCache.hits)
      # HELP newsatlas_tile_cache_misses_total Tiles made because the tile cache did not hold them.
      # TYPE newsatlas_tile_cache_misses_total counter
      newsatlas_tile_cache_misses_total \(tileCache.misses)
      # HELP newsatlas_tile_cache_tiles Tiles the tile cache holds.
      # TYPE newsatlas_tile_cache_tiles gauge
      newsatlas_tile_cache_tiles \(tileCache.tiles)
      # HELP newsatlas_tile_cache_bytes Body bytes the tile cache holds.
      # TYPE newsatlas_tile_cache_bytes gauge
      newsatlas_tile_cache_bytes \(tileCache.bytes)
      # HELP newsatlas_filter_cache_builds_total Filtered indexes built (filter=), kept or not.
      # TYPE newsatlas_filter_cache_builds_total counter
      newsatlas_filter_cache_builds_total \(filterCache.builds)
      # HELP newsatlas_filter_cache_hits_total Filtered requests answered from a kept filtered index.
      # TYPE newsatlas_filter_cache_hits_total counter
      newsatlas_filter_cache_hits_total \(filterCache.hits)
      # HELP newsatlas_filter_cache_indexes Filtered indexes the filter cache holds.
      # TYPE newsatlas_filter_cache_indexes gauge
      newsatlas_filter_cache_indexes \(filterCache.kept)
      # HELP newsatlas_filter_cache_bytes Bytes the filter cache holds, by its estimate (--filter-cache-mb).
      # TYPE newsatlas_filter_cache_bytes gauge
      newsatlas_filter_cache_bytes \(filterCache.bytes)
      # HELP newsatlas_filter_builds_running Filtered indexes being built, off the request pool.
      # TYPE newsatlas_filter_builds_running gauge
      newsatlas_filter_builds_running \(filterQueue.running)
      # HELP newsatlas_filter_builds_waiting Filtered indexes waiting for a builder.
      # TYPE newsatlas_filter_builds_waiting gauge
      newsatlas_filter_builds_waiting \(filterQueue.waiting)
      # HELP newsatlas_filter_builds_refused_total Requests for a new filter refused (503): the queue was full.
      # TYPE newsatlas_filter_builds_refused_total counter
      newsatlas_filter_builds_refused_total \(filterQueue.refused)
      # HELP newsatlas_batch_requests_total Batch POSTs whose rows began to be answered.
      # TYPE newsatlas_batch_requests_total counter
      newsatlas_batch_requests_total \(counters.batches)
      # HELP newsatlas_batch_requests_running Batch POSTs whose rows are being answered.
      # TYPE newsatlas_batch_requests_running gauge
      newsatlas_batch_requests_running \(counters.batchesRunning)
      # HELP newsatlas_batch_rows_total Rows of batch POSTs answered (a POST whose client went away stops).
      # TYPE newsatlas_batch_rows_total counter
      newsatlas_batch_rows_total \(counters.batchRows)
      # HELP newsatlas_dataset_writes_total Dataset changes (PUT, POST features, DELETE) written and served.
      # TYPE newsatlas_dataset_writes_total counter
      newsatlas_dataset_writes_total \(counters.datasetChanges)
      # HELP newsatlas_dataset_writes_failed_total Dataset changes whose write or build failed (500).
      # TYPE newsatlas_dataset_writes_failed_total counter
      newsatlas_dataset_writes_failed_total \(counters.datasetChangesFailed)
      # HELP newsatlas_dataset_builds_extended_total Builds that changed the served index (features added or \
      removed) instead of clustering every zoom again (the same index).
      # TYPE newsatlas_dataset_builds_extended_total counter
      newsatlas_dataset_builds_extended_total \(counters.datasetBuildsExtended)
      # HELP newsatlas_dataset_compactions_total Dataset journals compacted into a new base file (tried).
      # TYPE newsatlas_dataset_compactions_total counter
      newsatlas_dataset_compactions_total \(counters.compactions)
      # HELP newsatlas_dataset_compactions_failed_total Compactions that failed or whose folder sync did.
      # TYPE newsatlas_dataset_compactions_failed_total counter
      newsatlas_dataset_compactions_failed_total \(counters.compactionsFailed)
      # HELP newsatlas_dataset_build_seconds Written datasets' builds (changes arriving meanwhile are coalesced \
      into the next), from write to swap.
      # TYPE newsatlas_dataset_build_seconds histogram

      """
    var cumulative = 0
    for (bound, count) in zip(Self.buckets, counters.datasetBuilds.counts) {
      cumulative += count
      text += "newsatlas_dataset_build_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
    }
    text += """
      newsatlas_dataset_build_seconds_bucket{le="+Inf"} \(counters.datasetBuilds.count)
      newsatlas_dataset_build_seconds_sum \(counters.datasetBuilds.sum)
      newsatlas_dataset_build_seconds_count \(counters.datasetBuilds.count)

      """
    if !tables.isEmpty {
      text += """
        # HELP newsatlas_table_lag_seconds How far behind its PostgreSQL table a dataset is: 0 when it serves \
        every change committed when it last read, else the seconds since it last did (reading, or not connected).
        # TYPE newsatlas_table_lag_seconds gauge

        """
      for table in tables {
        text += "newsatlas_table_lag_seconds{dataset=\"\(Self.escaped(table.name))\"} \(table.lagSeconds)\n"
      }
      text += """
        # HELP newsatlas_table_change The number of the last change of the table the dataset serves.
        # TYPE newsatlas_table_change gauge

        """
      for table in tables {
        text += "newsatlas_table_change{dataset=\"\(Self.escaped(table.name))\"} \(table.follow.cursor)\n"
      }
      text += """
        # HELP newsatlas_table_connected Whether the dataset's table is being followed (1) or its connection is \
        being made again (0).
        # TYPE newsatlas_table_connected gauge

        """
      for table in tables {
        text +=
          "newsatlas_table_connected{dataset=\"\(Self.escaped(table.name))\"} \(table.follow.connected ? 1 : 0)\n"
      }
      text += """
        # HELP newsatlas_table_changes_applied_total Keys changed in the table whose rows the dataset applied.
        # TYPE newsatlas_table_changes_applied_total counter

        """
      for table in tables {
        text +=
          "newsatlas_table_changes_applied_total{dataset=\"\(Self.escaped(table.name))\"} \(table.follow.changesApplied)\n"
      }
      text += """
        # HELP newsatlas_table_compactions_total Scratch files of a table's changed rows compacted.
        # TYPE newsatlas_table_compactions_total counter

        """
      for table in tables {
        text +=
          "newsatlas_table_compactions_total{dataset=\"\(Self.escaped(table.name))\"} \(table.follow.compactions)\n"
      }
      text += """
        # HELP newsatlas_table_disconnections_total Connections to the table's database lost.
        # TYPE newsatlas_table_disconnections_total counter

        """
      for table in tables {
        text +=
          "newsatlas_table_disconnections_total{dataset=\"\(Self.escaped(table.name))\"} \(table.follow.disconnections)\n"
      }
    }
    if let news {
      text += """
        # HELP newsatlas_newsapi_cache_hits_total NewsAPI requests answered from the cache.
        # TYPE newsatlas_newsapi_cache_hits_total counter
        newsatlas_newsapi_cache_hits_total \(news.cacheHits)
        # HELP newsatlas_newsapi_requests_sent_total Requests sent to NewsAPI (counted against the plan).
        # TYPE newsatlas_newsapi_requests_sent_total counter
        newsatlas_newsapi_requests_sent_total \(news.sent)

        """
    }
    if let gdelt {
      text += """
        # HELP newsatlas_gdelt_cache_hits_total GDELT countries answered from the cache.
        # TYPE newsatlas_gdelt_cache_hits_total counter
        newsatlas_gdelt_cache_hits_total \(gdelt.cacheHits)
        # HELP newsatlas_gdelt_requests_sent_total Requests sent to GDELT (paced, retries included).
        # TYPE newsatlas_gdelt_requests_sent_total counter
        newsatlas_gdelt_requests_sent_total \(gdelt.sent)

        """
    }
    return text
  }

  /// A label value with `\`, `"` and line feeds escaped, as the format asks.
  static func escaped(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\n", with: "\\n")
  }
}
