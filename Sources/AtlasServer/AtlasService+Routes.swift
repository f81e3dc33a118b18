import CBoundaries
import GeoFormats
import GeoIndex
import Hummingbird
import NIOCore

extension AtlasService {
  /// Every route of the service, in one table, with the `Answering` middleware (errors as one sentence in
  /// JSON, 405 and OPTIONS, CORS, `/metrics` counts, the log line). `run` serves it; a host application can
  /// serve it too (`Application(router: service.router())`), without the event-loop lane, whose routes are
  /// here as well.
  ///
  /// Which routes the event-loop lane (`DirectLaneHandler`) answers is said by `directRoutes` alone: their
  /// GETs are answered on the connection's event loop when small, everything else by this router, each
  /// request in a task of its own.
  public func router() -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: Errors(answering: answering))
    // The event-loop lane's routes, for HEAD, for the GETs the lane passes on and for host applications.
    for route in directRoutes {
      router.readable(RouterPath(stringLiteral: route.path)) { request, _ in
        try route.answer(request.uri.string).response
      }
    }
    router.post("/v1/nearest") { request, context in
      try batch(ParsedRequest(request, context), body: request.body, resolving: false)
    }
    router.post("/v1/resolve") { request, context in
      try batch(ParsedRequest(request, context), body: request.body, resolving: true)
    }
    router.readable("/v1/datasets", datasetList)
    router.readable("/v1/datasets/:name", datasetEntry)
    // Writes (behind the write token): the dataset, its features, one feature.
    router.put("/v1/datasets/:name", use: putDataset)
    router.delete("/v1/datasets/:name", use: removeDataset)
    router.post("/v1/datasets/:name/features", use: addFeatures)
    router.delete("/v1/datasets/:name/features/:id", use: removeFeature)
    router.readable("/v1/datasets/:name/clusters", waiting: clusters)
    router.readable("/v1/datasets/:name/clusters/:id/children", waiting: children)
    router.readable("/v1/datasets/:name/clusters/:id/leaves", waiting: leaves)
    router.readable("/v1/datasets/:name/clusters/:id/expansion-zoom", waiting: expansionZoom)
    router.readable("/tiles/:name/:z/:x/:file", waiting: tile)
    router.readable("/tiles/:name", waiting: tileJSON)  // {name}.json
    router.readable("/v1/headlines") { request, context in
      try await headlines(ParsedRequest(request, context)).response
    }
    router.readable("/v1/sources") { request, context in
      try await favourites(ParsedRequest(request, context), logger: context.logger).response
    }
    router.readable("/metrics", metricsText)
    // The news map: the page, its script and style, Leaflet from its Debian package, the base map.
    router.readable("/", mapPage)
    router.readable("/map.js") { _ in Reply(text: MapPage.script, type: "text/javascript; charset=utf-8") }
    router.readable("/map.css") { _ in Reply(text: MapPage.css, type: "text/css; charset=utf-8") }
    router.readable("/static/leaflet/:file") { try leafletFile($0.parameters.get("file") ?? "") }
    router.readable("/static/leaflet/images/:file") {
      try leafletFile("images/" + ($0.parameters.get("file") ?? ""))
    }
    router.readable("/openapi.json", openAPI)
    router.readable("/v1/basemap", basemap)
    router.readable("/v1/countries", countries)
    return router
  }

  /// `GET /openapi.json`: the HTTP API as an OpenAPI 3.1 document (Documentation/openapi.json, embedded).
  func openAPI(_ request: ParsedRequest) throws -> Reply {
    try allow(request, [])
    return Reply(json: Self.openAPIDocument)
  }

  static let openAPIDocument = ByteBuffer(
    bytes: UnsafeBufferPointer(start: copenapi_bytes(), count: copenapi_count()))

  /// `GET /metrics`: the counters in Prometheus' text format.
  func metricsText(_ request: ParsedRequest) throws -> Reply {
    try allow(request, [])
    let text = metrics.text(
      news: news?.newsAPI.map { ($0.counters.cacheHits, $0.counters.sent) },
      gdelt: news?.gdelt.map { ($0.counters.cacheHits, $0.counters.sent) }, tileCache: tileCache.counters,
      filterCache: filtered.counters, filterQueue: filtered.queueCounters, tables: followers?.report() ?? [])
    return Reply(text: text, type: "text/plain; version=0.0.4; charset=utf-8")
  }

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

  /// A GET and HEAD route answered by one of the service's handlers, a function of the parsed request.
  @discardableResult
  func readable(_ path: RouterPath, _ handler: @escaping @Sendable (ParsedRequest) throws -> Reply) -> Self {
    readable(path) { request, context in try handler(ParsedRequest(request, context)).response }
  }

  /// `readable` for a handler that waits (for a filtered index built off the request pool).
  @discardableResult
  func readable(
    _ path: RouterPath, waiting handler: @escaping @Sendable (ParsedRequest) async throws -> Reply
  ) -> Self {
    readable(path) { request, context in try await handler(ParsedRequest(request, context)).response }
  }
}
