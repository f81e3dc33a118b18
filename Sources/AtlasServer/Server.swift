import CompressNIO
import Foundation
import GeoFormats
import GeoIndex
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import NewsAPI
import NewsAtlas
import ServiceLifecycle

/// `newsatlas serve`: the datasets over HTTP on Hummingbird 2. Every answer is written by GeoFormats, so the
/// service and the CLI give the same bytes for the same question; every error is `{"error":"one sentence"}`.
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
  /// The NewsAPI client behind `/v1/headlines`: one cache and one request budget for the whole server.
  public let news: NewsAPIClient?
  /// Why there is no news (no key, or `--no-news`): the 503 sentence of `/v1/headlines`.
  public let newsUnavailable: String
  /// What `/metrics` reports.
  public let metrics = Metrics()
  /// Where Debian's libjs-leaflet put Leaflet, which the map page loads from this server.
  public let leafletDirectory: String
  let basemaps = BasemapCache()
  /// Encoded tiles kept between requests.
  let tileCache: TileCache
  /// How long a connection may be idle, or send its head or body, or leave its answer unread.
  public let connectionLimits: ConnectionLimits
  /// The most features one cluster, children or leaves answer holds (422 beyond it).
  public let maxFeatures: Int
  /// `Cache-Control` of tiles and cluster answers: shared caches may keep them five minutes, and revalidate
  /// them with the `ETag` after that.
  static let cacheControl = "public, max-age=300"

  public init(
    datasets: [Dataset], corsOrigin: String? = nil, maxBodyBytes: Int = 1 << 30, news: NewsAPIClient? = nil,
    newsUnavailable: String = "This server has no news: it was started with --no-news.",
    leafletDirectory: String = "/usr/share/javascript/leaflet",
    batchThreads: Int = ProcessInfo.processInfo.activeProcessorCount, tileCacheBytes: Int = 64 << 20,
    connectionLimits: ConnectionLimits = .init(), maxFeatures: Int = 100_000
  ) {
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

  /// The routes (public so that a host application can mount them).
  public func router() -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: Errors(answering: answering))
    for route in directRoutes {
      router.readable(RouterPath(stringLiteral: route.path)) { request, _ in
        try route.answer(request.uri.string).response
      }
    }
    router.readable("/metrics") { request, _ in
      try allow(request, [])
      let text = metrics.text(
        news: news.map { ($0.counters.cacheHits, $0.counters.sent) }, tileCache: tileCache.counters)
      return Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
        body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
    router.readable("/v1/headlines") { request, _ in try await headlines(request) }
    addMapRoutes(to: router)
    router.post("/v1/nearest") { request, _ in try batch(request, resolving: false) }
    router.post("/v1/resolve") { request, _ in try batch(request, resolving: true) }
    router.readable("/v1/datasets") { _, _ in datasetList() }
    router.readable("/v1/datasets/:name/clusters") { request, context in
      let dataset = try dataset(context)
      // A bad query is a 400 before any 304 (RFC 9110, 13.2.1: preconditions come after the request's own
      // checks): `If-None-Match: *` with zoom=abc must not be "not modified".
      let (zoom, box) = try clusterQuery(dataset, request)
      if let unchanged = notModified(request, dataset) { return unchanged }
      return validated(
        collection(dataset, dataset.index.clusters(in: box, zoom: zoom), for: request), dataset)
    }
    router.readable("/v1/datasets/:name/clusters/:id/children") { request, context in
      let dataset = try dataset(context)
      try allow(request, [])
      let items = try clusterCall { try dataset.index.children(ofCluster: try clusterID(context)) }
      try bounded(items.count, "these children", less: "page through its leaves with limit and offset")
      if let unchanged = notModified(request, dataset) { return unchanged }
      return validated(collection(dataset, items, for: request), dataset)
    }
    router.readable("/v1/datasets/:name/clusters/:id/leaves") { request, context in
      let dataset = try dataset(context)
      let query = try allow(request, ["limit", "offset"])
      let limit = try integer(query, "limit", default: 10, minimum: 0)
      let offset = try integer(query, "offset", default: 0, minimum: 0)
      // One more than the limit at most: enough to know the answer is over it.
      let asked = limit == 0 ? maxFeatures + 1 : min(limit, maxFeatures + 1)
      let leaves = try clusterCall {
        try dataset.index.leaves(ofCluster: try clusterID(context), limit: asked, offset: offset)
      }
      // An unknown cluster is a 404 before any 304.
      if let unchanged = notModified(request, dataset) { return unchanged }
      if leaves.count > maxFeatures {
        throw Problem.tooManyFeatures(
          "These leaves are more than \(maxFeatures), this server's limit of features in one answer "
            + "(serve --max-features); page through them with limit and offset.")
      }
      return validated(
        collection(dataset, leaves.map { ClusterItem.point(index: $0) }, for: request), dataset)
    }
    router.readable("/v1/datasets/:name/clusters/:id/expansion-zoom") { request, context in
      let dataset = try dataset(context)
      try allow(request, [])
      let id = try clusterID(context)
      let zoom = try clusterCall { try dataset.index.expansionZoom(ofCluster: id) }
      if let unchanged = notModified(request, dataset) { return unchanged }
      return validated(json(Array("{\"clusterId\":\(id),\"expansionZoom\":\(zoom)}\n".utf8)), dataset)
    }
    router.readable("/tiles/:name/:z/:x/:file") { request, context in try tile(request, context) }
    router.readable("/tiles/:name") { request, context in try tileJSON(request, context) }  // {name}.json
    return router
  }

  /// Failures as `{"error":…}`, `/metrics` counts and the log line, for every request.
  var answering: Answering { Answering(corsOrigin: corsOrigin, metrics: metrics) }

  /// The routes of an exact path (no path parameters) asked most often, each answering a request target
  /// (`/v1/resolve?lat=…`) from memory: `DirectLaneHandler` answers their GETs on the event loop, and the
  /// router has them too, for HEAD, for the GETs the lane passes on and for host applications.
  var directRoutes: [DirectLane.Route] {
    [
      ("/healthz", healthz, { _ in true }), ("/v1/nearest", nearest, Self.isSmallNearest),
      ("/v1/resolve", resolve, { _ in true }),
    ]
  }

  /// Whether a `GET /v1/nearest` asks for few enough results to answer on the event loop: at most
  /// `laneNearestCount` (a `count` that is not a number is refused there at once). 10,000 results of a
  /// dataset with properties take tens of milliseconds to write, while the loop's other connections wait.
  static func isSmallNearest(_ target: String) -> Bool {
    guard let count = Query(target: target).get("count") else { return true }
    return Int(count).map { $0 <= laneNearestCount } ?? true
  }

  /// The most results a `GET /v1/nearest` answered on the event loop asks for.
  static let laneNearestCount = 64

  // MARK: - Handlers

  func healthz(_ target: String) throws -> Reply {
    try allow(target, [])
    return Reply(
      json: Array("{\"datasets\":\(names.count),\"news\":\(news != nil),\"status\":\"ok\"}\n".utf8))
  }

  func nearest(_ target: String) throws -> Reply {
    let parameters = try allow(target, ["lat", "lon", "count", "maxKm", "dataset"])
    let query = try place(parameters)
    let (target, count, maxKilometers) = try nearestParameters(parameters)
    let found = target.tree.neighbors(of: query, count: count, maxDistanceKilometers: maxKilometers)
    return Reply(json: target.answerJSON(found, from: query) + [0x0A])
  }

  /// `dataset`, `count` and `maxKm`, as `GET` and `POST /v1/nearest` both take them.
  func nearestParameters(_ parameters: Query) throws(Problem) -> (
    NearestTarget, count: Int, maxKilometers: Double
  ) {
    let name = parameters.get("dataset") ?? "markers"
    guard let dataset = datasets[name] else { throw .unknownDataset(name) }
    let count = try integer(parameters, "count", default: 1, minimum: 1)
    guard count <= 10_000 else { throw .badParameter("count is at most 10000, not \(count).") }
    let maxKilometers = try decimal(parameters, "maxKm") ?? .infinity
    guard maxKilometers >= 0 else {
      throw .badParameter("maxKm must be a distance of 0 kilometres or more, not \(maxKilometers).")
    }
    return (dataset.target, count, maxKilometers)
  }

  /// `POST /v1/nearest` and `/v1/resolve`: the body's `latitude,longitude` lines answered as the CLI's batch
  /// mode answers them, streamed back in input order as they are read, so a body of any length is never held
  /// whole. A failure of the whole run after the answer began (a NUL byte, a body over the limit) ends it with
  /// one error row (line 0).
  func batch(_ request: Request, resolving: Bool) throws -> Response {
    let parameters = try allow(request, resolving ? ["format"] : ["format", "count", "maxKm", "dataset"])
    let format: BatchFormat
    switch parameters.get("format") ?? "csv" {
    case "csv": format = .csv
    case "jsonl": format = .jsonl
    case let other: throw Problem.badParameter("format is csv or jsonl, not '\(other.prefix(64))'.")
    }
    let query: BatchQuery
    if resolving {
      query = .resolve
    } else {
      let (target, count, maxKilometers) = try nearestParameters(parameters)
      guard count == 1 || format == .jsonl else {
        throw Problem.badParameter("count above 1 needs format=jsonl; csv has one row per input line.")
      }
      query = .nearest(target, count: count, maxKilometers: maxKilometers)
    }
    // The body is latitude,longitude lines; a JSON document (`{"lat":1,"lon":2}`) is not read as rows, where it
    // would be one failed row under a 200.
    if let type = request.headers[.contentType]?.lowercased(),
      let media = type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces),
      media.hasSuffix("/json") || media.hasSuffix("+json")
    {
      throw Problem.unsupportedMediaType(
        "This endpoint reads latitude,longitude lines (text/csv or text/plain, a header optional), not "
          + "\(media.prefix(64)); send one latitude,longitude pair a line.")
    }
    let limit = maxBodyBytes
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
      throw Problem.tooLarge(
        "The body is \(length) bytes; this service takes at most \(limit) in one request.")
    }
    let body = request.body
    let answers = BatchAnswers(query: query, format: format, threads: batchThreads)
    let metrics = self.metrics
    return Response(
      status: .ok,
      headers: [.contentType: format == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson"],
      body: ResponseBody { writer in
        // One piece of the body answered at a time, each answer written before the next piece is read: the
        // write waits while the client does not read (the socket's buffer is full), and the body is not read
        // meanwhile, so a client that stops reading holds one piece's answer, not the whole body's; a client
        // that goes away ends the run at the next write (it throws), or at the task's cancellation.
        metrics.batchStarted()
        defer { metrics.batchEnded(rows: answers.rowCount) }
        var received = 0
        for try await buffer in body {
          received += buffer.readableBytes
          if received > limit {
            try await writer.write(
              answers.fail("The body is over \(limit) bytes, the most this service takes in one request."))
            break
          }
          answers.stage(buffer)
          while let piece = answers.nextPiece() {
            try Task.checkCancellation()
            if piece.readableBytes > 0 { try await writer.write(piece) }
          }
          if answers.failed { break }
        }
        while let piece = answers.nextPiece(final: true) {
          try Task.checkCancellation()
          if piece.readableBytes > 0 { try await writer.write(piece) }
        }
        try await writer.finish(nil)
      })
  }

  func resolve(_ target: String) throws -> Reply {
    let resolution = Country.resolve(try place(try allow(target, ["lat", "lon"])))
    var writer = JSONWriter()
    writer.bytes.reserveCapacity(512)  // an answer is 200-400 bytes: one allocation, no regrowth
    writer.object { resolution.write(to: &$0) }
    writer.bytes.append(0x0A)
    return Reply(json: writer.bytes)
  }

  func datasetList() -> Response {
    var writer = JSONWriter()
    writer.object { object in
      object.array("datasets", names.compactMap { datasets[$0] }) { json, dataset in
        json.object { item in
          let options = dataset.index.options
          item.string("name", dataset.name)
          item.number("pointCount", Double(dataset.pointCount))
          item.number("featureCount", Double(dataset.file.count))
          item.object("options") {
            $0.number("minZoom", Double(options.minZoom))
            $0.number("maxZoom", Double(options.maxZoom))
            $0.number("minPoints", Double(options.minPoints))
            $0.number("radius", options.radiusPixels)
            $0.number("extent", options.extent)
            $0.number("nodeSize", Double(options.nodeSize))
          }
          item.value(
            "bounds",
            .array(
              [dataset.bounds.west, dataset.bounds.south, dataset.bounds.east, dataset.bounds.north].map {
                .number(Format.number($0))
              }))
          item.number("buildMilliseconds", (dataset.buildSeconds * 1e6).rounded() / 1e3)
          item.string("contentHash", dataset.contentHash)
        }
      }
    }
    return json(writer.bytes + [0x0A])
  }

  /// The zoom and box of a clusters request, checked (and the answer's size bounded) before it is built.
  func clusterQuery(_ dataset: Dataset, _ request: Request) throws -> (zoom: Double, box: GeoBox) {
    let parameters = try allow(request, ["zoom", "bbox"])
    guard let zoom = try decimal(parameters, "zoom") else {
      throw Problem.badParameter("Give zoom, the map's zoom level (for example zoom=3).")
    }
    try parameter { () throws(FormatError) in try Coordinates.zoom(zoom) }
    var box = GeoBox.world
    if let text = parameters.get("bbox") {
      box = try parameter { () throws(FormatError) in try Coordinates.box(text, name: "bbox") }
    }
    try bounded(dataset.index.clusterCount(in: box, zoom: zoom), "this area at zoom \(Format.number(zoom))")
    return (zoom, box)
  }

  /// Refuses (422) an answer of more than `maxFeatures` features before it is built: a whole answer is held
  /// in memory until the client has read it (1M points at zoom 31: 98 MB).
  func bounded(_ count: Int, _ what: String, less: String = "ask for less with bbox=west,south,east,north")
    throws(Problem)
  {
    guard count > maxFeatures else { return }
    throw .tooManyFeatures(
      "The answer for \(what) would hold \(count) features, over this server's limit of \(maxFeatures) "
        + "(serve --max-features); \(less).")
  }

  func tile(_ request: Request, _ context: BasicRequestContext) throws -> Response {
    let dataset = try dataset(context)
    let file = context.parameters.get("file") ?? ""
    let isVector = file.hasSuffix(".mvt")
    guard isVector || file.hasSuffix(".geojson") else {
      throw Problem.notFound("A tile is {z}/{x}/{y}.mvt or {z}/{x}/{y}.geojson, not '\(file)'.")
    }
    let y = file.prefix { $0 != "." }
    let address = "\(context.parameters.get("z") ?? "")/\(context.parameters.get("x") ?? "")/\(y)"
    let (z, x, yValue) = try parameter { () throws(FormatError) in
      try Coordinates.tile(address, name: "A tile")
    }
    if let unchanged = notModified(request, dataset) { return unchanged }
    metrics.tileServed(dataset: dataset.name)
    let gzip = request.headers[.acceptEncoding].map(Self.acceptsGzip) ?? false
    let key = TileCache.Key(dataset: dataset.name, z: z, x: x, y: yValue, vector: isVector, gzip: gzip)
    let entry: TileCache.Entry
    if let kept = tileCache.entry(key) {
      entry = kept
    } else {
      let features = dataset.index.tile(zoom: z, x: x, y: yValue)
      let bytes =
        isVector
        ? dataset.writer.vectorTile(features, layerName: dataset.name)
        : OutputBuffer.collecting { dataset.writer.tile(features, to: $0) }
      // An empty vector tile is 204 with no body: map clients reject an empty 200.
      entry =
        bytes.map { bytes in
          let (body, gzipped) = Self.body(bytes, gzip: gzip)
          return TileCache.Entry(
            body: body, gzipped: gzipped, forEveryClient: !Self.worthGzipping(byteCount: bytes.count))
        } ?? TileCache.Entry(body: nil, gzipped: false, forEveryClient: true)
      tileCache.keep(entry, for: key)
    }
    guard let body = entry.body else { return validated(Response(status: .noContent), dataset) }
    var response = Response(
      status: .ok,
      headers: [.contentType: isVector ? "application/vnd.mapbox-vector-tile" : "application/json"],
      body: ResponseBody(byteBuffer: body))
    if entry.gzipped { response.headers[.contentEncoding] = "gzip" }
    return validated(response, dataset)
  }

  /// 304 with no body when `If-None-Match` names the dataset's tag (or `*`), compared weakly (RFC 9110,
  /// 13.1.2): the tag is the same for the gzipped and the plain bytes, so it is a weak one; nil otherwise.
  func notModified(_ request: Request, _ dataset: Dataset) -> Response? {
    guard let header = request.headers[.ifNoneMatch] else { return nil }
    let opaque = dataset.entityTag
    let matches = header.split(separator: ",").contains { item in
      let tag = item.trimmingCharacters(in: .whitespaces)
      return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == opaque
    }
    guard matches else { return nil }
    return validated(Response(status: .notModified), dataset)
  }

  /// The answer with the dataset's validator and the caching policy.
  func validated(_ response: Response, _ dataset: Dataset) -> Response {
    var response = response
    response.headers[.eTag] = "W/" + dataset.entityTag
    response.headers[.cacheControl] = Self.cacheControl
    response.headers[.vary] = "Accept-Encoding"
    return response
  }

  /// TileJSON 3.0.0 for `/tiles/{name}.json`, its URL template built from the request's host.
  func tileJSON(_ request: Request, _ context: BasicRequestContext) throws -> Response {
    let file = context.parameters.get("name") ?? ""
    guard file.hasSuffix(".json"), let dataset = datasets[String(file.dropLast(5))] else {
      throw Problem.notFound("No dataset answers '/tiles/\(file)'; /v1/datasets lists them.")
    }
    let options = dataset.index.options
    let host = Self.safeHost(request.head.authority) ?? "127.0.0.1"
    // Behind a proxy that terminates TLS, X-Forwarded-Proto says the scheme the client used.
    let forwarded = request.headers[HTTPField.Name("X-Forwarded-Proto")!]
    let scheme = forwarded == "https" ? "https" : "http"
    let base = "\(scheme)://\(host)/tiles/\(dataset.name)"
    let b = dataset.bounds
    var writer = JSONWriter()
    writer.object { tile in
      tile.string("tilejson", "3.0.0")
      tile.string("name", dataset.name)
      tile.string("scheme", "xyz")
      tile.value("tiles", .array([.string(base + "/{z}/{x}/{y}.mvt")]))
      tile.number("minzoom", Double(options.minZoom))
      tile.number("maxzoom", Double(min(options.maxZoom + 1, 30)))
      tile.value("bounds", .array([b.west, b.south, b.east, b.north].map { .number(Format.number($0)) }))
      tile.value(
        "center",
        .array([
          .number(Format.number((b.west + b.east) / 2)), .number(Format.number((b.south + b.north) / 2)),
          .number(String(options.minZoom)),
        ]))
      tile.value(
        "vector_layers",
        .array([
          .object([
            ("id", .string(dataset.name)),
            ("fields", .object(dataset.fields.map { ($0.name, .string($0.type)) })),
            ("minzoom", .number(String(options.minZoom))),
            ("maxzoom", .number(String(min(options.maxZoom + 1, 30)))),
          ])
        ]))
    }
    return json(writer.bytes + [0x0A])
  }

  /// Whether an Accept-Encoding value names gzip (or `*`) with a quality above 0 (RFC 9110, 12.5.3).
  static func acceptsGzip(_ header: String) -> Bool {
    header.split(separator: ",").contains { item in
      let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else {
        return false
      }
      let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
      return quality > 0
    }
  }

  /// A Host header fit to put in a URL, or nil.
  static func safeHost(_ authority: String?) -> String? {
    guard let authority, !authority.isEmpty, authority.count <= 255,
      authority.utf8.allSatisfy({ byte in
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
          || [UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]")]
            .contains(byte)
      })
    else { return nil }
    return authority
  }

  // MARK: - Parameters

  func dataset(_ context: BasicRequestContext) throws(Problem) -> Dataset {
    let name = context.parameters.get("name") ?? ""
    guard let dataset = datasets[name] else { throw .unknownDataset(name) }
    return dataset
  }

  func clusterID(_ context: BasicRequestContext) throws(Problem) -> Int {
    let text = context.parameters.get("id") ?? ""
    guard text.count <= 18, let id = Int(text), id >= 0 else {
      throw .badParameter(
        "A cluster id is a whole number, not '\(text)'; clusters carry theirs in cluster_id.")
    }
    return id
  }

  /// Refuses a query parameter the endpoint does not take (a misspelt or unsupported one would otherwise be
  /// silently ignored); returns the parameters, parsed once (Hummingbird parses the query at every reading).
  @discardableResult
  func allow(_ request: Request, _ names: [String]) throws(Problem) -> Query {
    try allow(request.uri.string, names)
  }

  /// `allow` for a request target (`/path?query`).
  @discardableResult
  func allow(_ target: String, _ names: [String]) throws(Problem) -> Query {
    let parameters = Query(target: target)
    for (i, (key, _)) in parameters.pairs.enumerated() {
      guard names.contains(where: { key == $0 }) else {
        throw .badParameter(
          "This endpoint takes no parameter '\(key.prefix(64))'; it takes \(names.sorted().joined(separator: ", "))."
        )
      }
      // A repeated parameter is refused, not read one way here and another way by a proxy or a cache.
      if parameters.pairs[..<i].contains(where: { $0.name == key }) {
        throw .badParameter("The parameter '\(key)' is given more than once; give it once.")
      }
    }
    return parameters
  }

  /// A parameter read by GeoFormats; its refusal is a 400 with the same sentence.
  func parameter<T>(_ body: () throws(FormatError) -> T) throws(Problem) -> T {
    do { return try body() } catch { throw .badParameter(error.description) }
  }

  func clusterCall<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as ClusterError { throw Problem.notFound(error.description) }
  }

  func place(_ parameters: Query) throws(Problem) -> GeoPoint {
    guard let latitude = parameters.get("lat"), let longitude = parameters.get("lon") else {
      throw .badParameter("Give lat and lon in degrees (for example lat=48.85&lon=2.35).")
    }
    return try parameter { () throws(FormatError) in
      try Coordinates.point(latitude: latitude, longitude: longitude)
    }
  }

  func integer(_ parameters: Query, _ name: String, default fallback: Int, minimum: Int) throws(Problem)
    -> Int
  {
    guard let text = parameters.get(name) else { return fallback }
    guard text.count <= 18, let value = Int(text), value >= minimum else {
      throw .badParameter("\(name) must be a whole number, \(minimum) or more, not '\(text)'.")
    }
    return value
  }

  func decimal(_ parameters: Query, _ name: String) throws(Problem) -> Double? {
    guard let text = parameters.get(name) else { return nil }
    guard let value = Coordinates.number(text) else {
      throw .badParameter("\(name) must be a decimal number, not '\(text)'.")
    }
    return value
  }

  func collection(_ dataset: Dataset, _ items: [ClusterItem], for request: Request? = nil) -> Response {
    let bytes = OutputBuffer.collecting { dataset.writer.featureCollection(items, to: $0) }
    guard let request else { return json(bytes) }
    return compressed(json(bytes), bytes, for: request)
  }

  /// The response gzipped when the client accepts gzip and the body is worth it (over 256 bytes).
  func compressed(_ response: Response, _ bytes: [UInt8], for request: Request) -> Response {
    var response = response
    response.headers[.vary] = "Accept-Encoding"
    let (body, gzipped) = Self.body(
      bytes, gzip: request.headers[.acceptEncoding].map(Self.acceptsGzip) ?? false)
    guard gzipped else { return response }
    response.headers[.contentEncoding] = "gzip"
    response.body = ResponseBody(byteBuffer: body)
    return response
  }

  /// The body for `bytes`: gzipped when the client accepts gzip and the bytes are worth it.
  static func body(_ bytes: [UInt8], gzip: Bool) -> (body: ByteBuffer, gzipped: Bool) {
    var buffer = ByteBuffer(bytes: bytes)
    guard gzip, worthGzipping(byteCount: bytes.count), let gzipped = try? buffer.compress(with: .gzip())
    else {
      return (buffer, false)
    }
    return (gzipped, true)
  }

  /// Over 256 bytes: below that, gzip's 18 bytes of framing and a deflate block save little or nothing.
  static func worthGzipping(byteCount: Int) -> Bool { byteCount > 256 }
}

/// A JSON response.
func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
  Reply(json: bytes, status: status).response
}

/// Made once: a dictionary literal of fields is built again at every response otherwise.
private let jsonHeaders: HTTPFields = [.contentType: "application/json"]

/// An answer whole in memory: what the direct routes and every error give. `DirectLaneHandler` writes it as
/// it is; the router sends it as a `Response` (which adds its `Content-Length`).
struct Reply: Sendable {
  var status: HTTPResponse.Status
  var headers: HTTPFields
  var body: ByteBuffer

  init(json bytes: [UInt8], status: HTTPResponse.Status = .ok) {
    self.status = status
    headers = jsonHeaders
    body = ByteBuffer(bytes: bytes)
  }

  var response: Response { Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body)) }
}

/// A request the service refuses, with its status and one sentence.
enum Problem: Error {
  case badParameter(String)
  case notFound(String)
  case unknownDataset(String)
  case tooLarge(String)
  /// Something the server cannot do as started (news without a key).
  case unavailable(String)
  /// The NewsAPI budget (or its rate limit) cannot cover the request now; when it may, in seconds, if known.
  case tooManyRequests(String, retryAfterSeconds: Int?)
  /// An answer over the server's `--max-features`.
  case tooManyFeatures(String)
  /// A body in a format the endpoint does not read.
  case unsupportedMediaType(String)

  var status: HTTPResponse.Status {
    switch self {
    case .badParameter: return .badRequest
    case .tooLarge: return .contentTooLarge
    case .notFound, .unknownDataset: return .notFound
    case .unavailable: return .serviceUnavailable
    case .tooManyRequests: return .tooManyRequests
    case .tooManyFeatures: return .unprocessableContent
    case .unsupportedMediaType: return .unsupportedMediaType
    }
  }

  var message: String {
    switch self {
    case .badParameter(let text), .notFound(let text), .tooLarge(let text), .unavailable(let text),
      .tooManyRequests(let text, _), .tooManyFeatures(let text), .unsupportedMediaType(let text):
      return text
    case .unknownDataset(let name):
      return "No dataset is named '\(name.prefix(64))'; /v1/datasets lists them."
    }
  }
}

/// Turns every failure into `{"error":"one sentence"}` with its status, answers GET and HEAD (and POST on the
/// batch paths; 405 otherwise), adds the CORS header, counts the request for `/metrics` and logs one line per
/// request: method, path, status, milliseconds. The router's middleware (`Errors`) answers through it, and so
/// does `DirectLaneHandler`.
struct Answering: Sendable {
  let corsOrigin: String?
  let metrics: Metrics

  /// `route` is the pattern `/metrics` counts the request under (`nil`: no route matched).
  func answer(
    _ request: Request, logger: Logger, route: () -> String?, _ next: () async throws -> Response
  ) async -> Response {
    let start = ContinuousClock.now
    let path = request.uri.path
    var response: Response
    if let refusal = refusal(request.method, path: path) {
      response = refusal.response
    } else {
      do {
        response = try await next()
        if request.method == .head {  // GET's headers, no body (RFC 9110, 9.3.2)
          // The length GET would send, and nothing written (a HEAD client reads no body).
          response.body = ResponseBody(contentLength: response.body.contentLength) { writer in
            try await writer.finish(nil)
          }
        }
      } catch {
        response = failure(error, path: path).response
      }
    }
    if request.method == .post, response.status == .ok {
      // A batch POST's answer streams after this returns: its log line and duration wait for the last byte
      // (they said 1.51 ms, the time to the first one, for a 57 ms request).
      if let corsOrigin { response.headers[.accessControlAllowOrigin] = corsOrigin }
      let original = response.body
      let (method, status, route) = (request.method, response.status, route())
      response.body = ResponseBody(contentLength: original.contentLength) { writer in
        defer { record(method, path, status, since: start, route: route, logger) }
        try await original.write(writer)
      }
      return response
    }
    finish(&response.headers, request.method, path, response.status, since: start, route: route(), logger)
    return response
  }

  /// `answer` for a GET of the exact-path route `path`, answered at once in memory, as `DirectLaneHandler`
  /// asks (every route answers GET: there is nothing to refuse).
  func answer(get path: String, logger: Logger, _ next: () throws -> Reply) -> Reply {
    let start = ContinuousClock.now
    var reply: Reply
    do { reply = try next() } catch { reply = failure(error, path: path) }
    finish(&reply.headers, .get, path, reply.status, since: start, route: path, logger)
    return reply
  }

  /// 405 for a method that `path` does not answer, the answer to `OPTIONS` (with `--cors`, a CORS preflight's:
  /// the methods, the request headers a page may send, and how long a browser may keep the answer), or nil.
  private func refusal(_ method: HTTPRequest.Method, path: String) -> Reply? {
    let batch = path == "/v1/nearest" || path == "/v1/resolve"
    guard method != .get && method != .head && !(batch && method == .post) else { return nil }
    let allowed = batch ? "GET, HEAD, POST, OPTIONS" : "GET, HEAD, OPTIONS"
    if method == .options {
      var reply = Reply(json: [], status: .noContent)
      reply.headers = [.allow: allowed]
      if corsOrigin != nil {
        reply.headers[.accessControlAllowMethods] = allowed
        reply.headers[.accessControlAllowHeaders] = "Content-Type, If-None-Match, Accept-Encoding"
        reply.headers[.accessControlMaxAge] = "86400"
        reply.headers[.vary] = "Origin"
      }
      return reply
    }
    var reply = Self.problem(.methodNotAllowed, "\(path.prefix(200)) answers \(allowed), not \(method).")
    reply.headers[.allow] = allowed
    return reply
  }

  /// The error answer for a failure.
  private func failure(_ error: any Error, path: String) -> Reply {
    switch error {
    case let problem as Problem:
      var reply = Self.problem(problem.status, problem.message)
      if case .unavailable = problem { reply.headers[.retryAfter] = "3600" }
      if case .tooManyRequests(_, let seconds?) = problem { reply.headers[.retryAfter] = String(seconds) }
      return reply
    case let error as HTTPError:
      let message =
        error.status == .notFound
        ? "Nothing is at \(path.prefix(200)); the README lists the endpoints."
        : (error.body ?? "The request failed (\(error.status.code)).")
      return Self.problem(error.status, message)
    default:
      return Self.problem(.internalServerError, "The server failed to answer: \(error).")
    }
  }

  /// Adds the CORS header, counts the request and logs its line.
  private func finish(
    _ headers: inout HTTPFields, _ method: HTTPRequest.Method, _ path: String, _ status: HTTPResponse.Status,
    since start: ContinuousClock.Instant, route: String?, _ logger: Logger
  ) {
    if let corsOrigin { headers[.accessControlAllowOrigin] = corsOrigin }
    record(method, path, status, since: start, route: route, logger)
  }

  /// Counts the request and logs its line, `start` to now.
  private func record(
    _ method: HTTPRequest.Method, _ path: String, _ status: HTTPResponse.Status,
    since start: ContinuousClock.Instant, route: String?, _ logger: Logger
  ) {
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.attoseconds) * 1e-18 + Double(elapsed.components.seconds)
    metrics.record(
      route: route ?? "unmatched", method: method.rawValue, status: status.code, seconds: seconds)
    let hundredths = Int(min(seconds * 1e5, 1e15).rounded())  // of a millisecond
    let milliseconds = "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    logger.info("\(method) \(path.prefix(200)) \(status.code) \(milliseconds) ms")
  }

  static func problem(_ status: HTTPResponse.Status, _ message: String) -> Reply {
    var writer = JSONWriter()
    writer.object { $0.string("error", message) }
    return Reply(json: writer.bytes + [0x0A], status: status)
  }
}

/// `Answering` as the router's middleware, for every route the router resolves.
struct Errors<Context: RequestContext>: RouterMiddleware {
  let answering: Answering

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
    async throws -> Response
  {
    await answering.answer(
      request, logger: context.logger,
      route: { context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } }
    ) { try await next(request, context) }
  }
}

/// Numbers as JSON text.
enum Format {
  static func number(_ value: Double) -> String {
    var writer = JSONWriter()
    writer.number(value)
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  static func number(_ value: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    return number((value * scale).rounded() / scale)
  }
}

/// One batch POST's rows: the request body staged as it arrives, answered a piece at a time, in input order.
///
/// A piece is `pieceBytes(for:)` of body: 128 KiB for a row with one answer, less as `count` asks for more
/// (1/count of it), so that one piece's answer stays within a few MiB whatever the request asks (a `1,2`
/// line asking 54 results answers about 9 KiB). A piece of 64 KiB or more is shared between the cores
/// (`BatchRows`' threads, the same answers whatever their number). Used by one request's body writer at a
/// time (the writer awaits each step), hence unchecked.
final class BatchAnswers: @unchecked Sendable {
  private var rows: BatchRows
  private let output: OutputBuffer
  private let box: Collected
  private final class Collected { var buffer = ByteBuffer() }
  /// Body bytes not yet answered, from `consumed` on.
  private var staged: [UInt8] = []
  private var consumed = 0
  private let pieceBytes: Int
  /// The rows answered so far.
  var rowCount: Int { rows.summary.rows }
  /// Whether the run stopped (binary input): nothing more is answered.
  private(set) var failed = false
  private var finished = false

  /// Body bytes answered at once for a row of one answer.
  static let basePieceBytes = 1 << 17

  static func pieceBytes(for query: BatchQuery) -> Int {
    guard case .nearest(_, let count, _) = query else { return basePieceBytes }
    return max(64, basePieceBytes / max(1, count))
  }

  init(query: BatchQuery, format: BatchFormat, threads: Int) {
    let box = Collected()
    output = OutputBuffer(capacity: 1 << 16) { chunk in
      box.buffer.writeBytes(chunk)
      return true
    }
    self.box = box
    pieceBytes = Self.pieceBytes(for: query)
    rows = BatchRows(query: query, format: format, output: output, name: "the request body", threads: threads)
  }

  /// The answer written since the last call.
  private func take() -> ByteBuffer {
    output.flush()
    defer { box.buffer = ByteBuffer() }
    return box.buffer
  }

  /// Answers `bytes`; true when the run must stop (binary input).
  private func answer(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    do throws(FormatError) {
      try rows.feed(bytes)
      return false
    } catch {
      rows.writeRunError(error.description.prefix(1).uppercased() + error.description.dropFirst())
      return true
    }
  }

  /// Keeps `buffer` for `nextPiece()`.
  func stage(_ buffer: ByteBuffer) {
    if consumed > 0 {
      staged.removeSubrange(0..<consumed)
      consumed = 0
    }
    buffer.withUnsafeReadableBytes { staged.append(contentsOf: $0) }
  }

  /// The answer of the next piece of staged body, or nil when less than a piece is staged (`final`: when
  /// nothing is left, the last call answering the unfinished last line too).
  func nextPiece(final: Bool = false) -> ByteBuffer? {
    guard !finished else { return nil }
    let left = staged.count - consumed
    if failed || (final && left == 0) {
      guard final else { return nil }
      finished = true
      if !failed { rows.finish() }
      return take()
    }
    guard left >= pieceBytes || (final && left > 0) else { return nil }
    let size = min(left, pieceBytes)
    failed = staged.withUnsafeBufferPointer {
      answer(UnsafeBufferPointer(rebasing: $0[consumed..<consumed + size]))
    }
    consumed += size
    return take()
  }

  /// Answers what was staged, then ends the answer with an error row for `message`.
  func fail(_ message: String) -> ByteBuffer {
    let left = staged.count - consumed
    let stopped =
      failed || staged.withUnsafeBufferPointer { answer(UnsafeBufferPointer(rebasing: $0[consumed...])) }
    consumed += left
    if !stopped { rows.writeRunError(message) }
    failed = true
    finished = true
    return take()
  }
}

extension Router {
  /// A GET route that answers HEAD too (the middleware sends HEAD the headers without the body).
  @discardableResult
  func readable(
    _ path: RouterPath,
    use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator
  ) -> Self {
    get(path, use: handler)
    return head(path, use: handler)
  }
}
