import AtlasAnswers
import AtlasMessages
import Foundation
import GeoFormats
import GeoIndex
import Hummingbird
import NIOCore
import Logging
import NewsAPI
import ServiceLifecycle

/// `newsatlas serve`: the datasets over HTTP on Hummingbird 2. Its answers are written by the same libraries as
/// the CLI's, so the service and the CLI give the same bytes for the same question; every error is
/// `{"error":"one sentence"}`.
///
/// The library product's surface is deliberate and small: this type's initialiser and settings, `run` (the
/// whole server: the event-loop lane, connection limits and timeouts, graceful shutdown) and `router()` (the
/// routes for a host application's own `Application`, without the lane or the connection handlers), with
/// `Dataset`, `ConnectionLimits` and `BatchedLog` (the log writer `serve` uses). Everything else is internal.
public struct AtlasService: Sendable {
  /// The datasets served now, by name (each write over HTTP swaps one).
  public var datasets: [String: Dataset] { store.byName }
  /// Dataset names in the order they were given or first written (`markers` first).
  public var names: [String] { store.all.map(\.name) }
  /// The datasets, each swapped whole when it is written.
  let store: DatasetStore
  /// Who may write datasets (`PUT /v1/datasets/{name}`, …), and where they are kept; nil when writes are off.
  let writeAccess: WriteAccess
  let writes: DatasetWrites?
  /// The `Access-Control-Allow-Origin` to send, if any.
  public let corsOrigin: String?
  /// The largest request body a batch POST takes, in bytes.
  public let maxBodyBytes: Int
  /// How many cores answer each batch POST's rows (the answers are the same whatever the number).
  public let batchThreads: Int
  /// The news providers behind `/v1/headlines` (NewsAPI with a key, GDELT without one): one cache, one
  /// request budget and one GDELT pacing for the whole server.
  public let news: NewsProviders?
  /// The provider a request that names none gets (the `provider` setting, else `auto`).
  public let defaultProvider: ProviderChoice
  /// The language headlines are asked in (the `language` setting: GDELT's `sourcelang:`), nil for any.
  public let newsLanguage: String?
  /// Why there is no news (`--no-news`, no cache): the 503 sentence of `/v1/headlines`.
  public let newsUnavailable: Sentence
  /// The favourite NewsAPI sources (the `sources` setting) the map page offers: `GET /v1/sources`.
  public let favouriteSources: [String]
  /// What `/metrics` reports.
  let metrics: Metrics
  /// Where Debian's libjs-leaflet put Leaflet, which the map page loads from this server.
  public let leafletDirectory: String
  let basemaps = BasemapCache()
  /// Encoded tiles kept between requests.
  let tileCache: TileCache
  /// Filtered datasets (`filter=`), built on first use, kept up to `serve --filter-cache-mb`.
  let filtered: FilteredDatasets
  /// How long a connection may be idle, or send its head or body, or leave its answer unread.
  public let connectionLimits: ConnectionLimits
  /// The most features one cluster, children or leaves answer holds (422 beyond it).
  public let maxFeatures: Int
  /// The datasets read from PostgreSQL tables (`serve --postgres`), each with its table (`schema.table`): kept
  /// as their tables change, written in their tables.
  public let tables: [String: String]
  /// What follows those tables (nil without any).
  let followers: TableDatasets?
  /// `Cache-Control` of tiles and cluster answers of a dataset that does not change while served: shared caches
  /// may keep them five minutes, and revalidate them with the `ETag` after that.
  static let cacheControl = "public, max-age=300"
  /// `Cache-Control` of tiles and cluster answers of a dataset that writes may change (any but the markers
  /// when writes are on): a cache keeps them but asks again with the `ETag` each time (a 304 while unchanged),
  /// so that a change is seen at once, not five minutes later.
  static let revalidatedCacheControl = "public, no-cache"

  /// The `Cache-Control` of `dataset`'s tiles and cluster answers.
  func cacheControl(_ dataset: Dataset) -> String {
    writes != nil && writeAccess.isOn && dataset.name != "markers"
      ? Self.revalidatedCacheControl : Self.cacheControl
  }

  public init(
    datasets: [Dataset], corsOrigin: String? = nil, maxBodyBytes: Int = 1 << 30, news: NewsProviders? = nil,
    defaultProvider: ProviderChoice = .auto, newsLanguage: String? = nil, favouriteSources: [String] = [],
    newsUnavailable: Sentence = Sentence(.serviceNoNews),
    leafletDirectory: String = "/usr/share/javascript/leaflet",
    batchThreads: Int = ProcessInfo.processInfo.activeProcessorCount, tileCacheBytes: Int = 64 << 20,
    connectionLimits: ConnectionLimits = .init(), maxFeatures: Int = 100_000,
    filterCacheBytes: Int = 256 << 20,
    filterBuilds: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2), filterQueue: Int = 16,
    writeToken: String? = nil, datasetsDirectory: String? = nil,
    clusterOptions: ClusterOptions = ClusterOptions(), aggregations: [Aggregation] = [],
    journalCompactionBytes: Int = 1 << 20, tables: [String: TableDataset] = [:],
    tableCompactionBytes: Int = 256 << 20
  ) {
    let metrics = Metrics()
    self.metrics = metrics
    let filtered = FilteredDatasets(budget: filterCacheBytes, builders: filterBuilds, queueLimit: filterQueue)
    self.filtered = filtered
    let store = DatasetStore(datasets)
    self.store = store
    if let datasetsDirectory {
      writeAccess = WriteAccess(token: writeToken)
      writes = DatasetWrites(
        directory: datasetsDirectory, options: clusterOptions, aggregations: aggregations, store: store,
        metrics: metrics, compactionBytes: journalCompactionBytes,
        log: { FileHandle.standardError.write(Data(("newsatlas serve: " + $0 + "\n").utf8)) }
      ) { name, dataset in filtered.forget(name, keeping: dataset?.contentHash) }
    } else {
      writeAccess = WriteAccess(token: nil, offReason: .serviceWritesOffNoFolder)
      writes = nil
    }
    self.connectionLimits = connectionLimits
    self.maxFeatures = maxFeatures
    self.tables = tables.mapValues(\.link.qualifiedName)
    followers =
      tables.isEmpty
      ? nil
      : TableDatasets(
        tables, store: store, options: clusterOptions, aggregations: aggregations, metrics: metrics,
        compactionBytes: tableCompactionBytes, log: { FileHandle.standardError.write(Data(("newsatlas serve: " + $0 + "\n").utf8)) }
      ) { name, dataset in filtered.forget(name, keeping: dataset?.contentHash) }
    tileCache = TileCache(budget: tileCacheBytes)
    self.leafletDirectory = leafletDirectory
    self.maxBodyBytes = maxBodyBytes
    self.batchThreads = max(1, batchThreads)
    self.corsOrigin = corsOrigin
    self.news = news
    self.defaultProvider = defaultProvider
    self.newsLanguage = newsLanguage
    self.newsUnavailable = newsUnavailable
    self.favouriteSources = favouriteSources
  }

  /// Serves until SIGINT or SIGTERM, letting requests in flight finish for up to `gracePeriod` (a client that
  /// stalls mid-request cannot keep the server alive after that); `ready` hears the bound port.
  public func run(
    host: String, port: Int, logger: Logger, gracePeriod: Duration = .seconds(10),
    ready: @escaping @Sendable (Int) async -> Void
  ) async throws {
    let open = OpenConnections()
    let lane = DirectLane(routes: directRoutes, answering: answering, logger: logger, serverName: "newsatlas")
    let app = Application(
      router: router(),
      server: .http1(
        configuration: .init(additionalChannelHandlers: [
          ConnectionTimeoutHandler(connectionLimits, open: open), ExpectContinueHandler(),
          DirectLaneHandler(lane),
        ])),
      configuration: .init(address: .hostname(host, port: port), serverName: lane.serverName),
      onServerRunning: { channel in await ready(channel.localAddress?.port ?? port) }, logger: logger)
    var configuration = ServiceGroupConfiguration(
      services: [app] + (followers.map { [$0] } ?? []), gracefulShutdownSignals: [.sigterm, .sigint],
      logger: logger)
    configuration.maximumGracefulShutdownDuration = gracePeriod
    try await ServiceGroup(configuration: configuration).run()
  }

  /// The features of a file `serve` reads: one given with `--points`, or a write's body (streamed to a file),
  /// read alike so that a dataset given at start and one written are typed the same way. A CSV field that is a
  /// JSON number as written is a number, any other a string (`.jsonNumbers`): a dataset is kept as GeoJSON, and
  /// a restart must read the same properties and values back (a string read as a number would be summed before
  /// its first write and not after it).
  ///
  /// - Throws: `FormatError`, as `FeatureFile.load` does.
  public static func features(
    path: String, aggregations: [Aggregation], name: (any CustomStringConvertible & Sendable)? = nil,
    showProgress: Bool = false
  ) throws(FormatError) -> FeatureFile {
    try FeatureFile.load(
      path: path, propertyNames: aggregations.map(\.property), showProgress: showProgress, name: name,
      csvFields: .jsonNumbers)
  }

  /// The datasets kept in `directory` by writes over HTTP, to serve at start (as `DatasetWrites` keeps them);
  /// `warn` hears of a file that cannot be served.
  public static func keptDatasets(
    directory: String, options: ClusterOptions, aggregations: [Aggregation], warn: (String) -> Void
  ) -> [Dataset] {
    DatasetWrites.load(directory: directory, options: options, aggregations: aggregations, warn: warn)
  }

  /// Failures as `{"error":…}`, `/metrics` counts and the log line, for every request.
  var answering: Answering { Answering(corsOrigin: corsOrigin, metrics: metrics) }
}

extension AtlasService {
  /// The system's error number behind a failure to serve (NIO's `IOError` from `bind`, `listen`, ...), if it is
  /// one: `serve` says it in words ("Address already in use"), not as NIO's call and errno.
  public static func systemErrorNumber(of error: any Error) -> Int32? {
    (error as? IOError)?.errnoCode
  }

  /// Whether serving failed because the host named is no address (NIO's `SocketAddressError`).
  public static func isUnknownHost(_ error: any Error) -> Bool {
    error is SocketAddressError || error is SocketAddressError.UnknownHost
  }
}
