import Foundation
import GeoFormats
import Hummingbird
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
  public let datasets: [String: Dataset]
  /// Dataset names in the order they were given (`markers` first).
  public let names: [String]
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
  public let newsUnavailable: String
  /// What `/metrics` reports.
  let metrics = Metrics()
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
  /// `Cache-Control` of tiles and cluster answers: shared caches may keep them five minutes, and revalidate
  /// them with the `ETag` after that.
  static let cacheControl = "public, max-age=300"

  public init(
    datasets: [Dataset], corsOrigin: String? = nil, maxBodyBytes: Int = 1 << 30, news: NewsProviders? = nil,
    defaultProvider: ProviderChoice = .auto, newsLanguage: String? = nil,
    newsUnavailable: String = "This server has no news: it was started with --no-news.",
    leafletDirectory: String = "/usr/share/javascript/leaflet",
    batchThreads: Int = ProcessInfo.processInfo.activeProcessorCount, tileCacheBytes: Int = 64 << 20,
    connectionLimits: ConnectionLimits = .init(), maxFeatures: Int = 100_000,
    filterCacheBytes: Int = 256 << 20
  ) {
    filtered = FilteredDatasets(budget: filterCacheBytes)
    self.connectionLimits = connectionLimits
    self.maxFeatures = maxFeatures
    tileCache = TileCache(budget: tileCacheBytes)
    self.leafletDirectory = leafletDirectory
    self.maxBodyBytes = maxBodyBytes
    self.batchThreads = max(1, batchThreads)
    self.datasets = Dictionary(datasets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    names = datasets.map(\.name)
    self.corsOrigin = corsOrigin
    self.news = news
    self.defaultProvider = defaultProvider
    self.newsLanguage = newsLanguage
    self.newsUnavailable = newsUnavailable
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
      services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    configuration.maximumGracefulShutdownDuration = gracePeriod
    try await ServiceGroup(configuration: configuration).run()
  }

  /// Failures as `{"error":…}`, `/metrics` counts and the log line, for every request.
  var answering: Answering { Answering(corsOrigin: corsOrigin, metrics: metrics) }
}
