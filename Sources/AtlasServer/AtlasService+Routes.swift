import GeoFormats
import GeoIndex
import Hummingbird
import NIOCore

extension AtlasService {
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
}
