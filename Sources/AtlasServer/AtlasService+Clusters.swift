import AtlasAnswers
import AtlasMessages
import GeoFormats
import GeoIndex

extension AtlasService {
  /// `GET /v1/datasets`: each dataset's name, version, counts, options, bounds, build time and content hash.
  func datasetList(_ request: ParsedRequest) throws -> Reply {
    try allow(request, [])
    var writer = JSONWriter()
    writer.object { object in
      object.array("datasets", store.all) { json, dataset in json.object { Self.describe(dataset, in: &$0) } }
    }
    return Reply(json: writer.bytes + [0x0A])
  }

  /// `GET /v1/datasets/{name}`: one dataset as `/v1/datasets` lists it, with its `ETag` (the map polls it to
  /// see a dataset change).
  func datasetEntry(_ request: ParsedRequest) throws -> Reply {
    let dataset = try dataset(request)
    try allow(request, [])
    // The 304 says what the 200 says: a cache that takes its headers from it must ask again each time.
    if var unchanged = notModified(request, dataset) {
      unchanged.headers[.cacheControl] = "no-cache"
      return unchanged
    }
    var reply = Reply(json: Self.entry(dataset))
    reply.headers[.cacheControl] = "no-cache"
    reply.headers[.eTag] = "W/" + dataset.entityTag
    return reply
  }

  /// One dataset's entry, as JSON text.
  static func entry(_ dataset: Dataset) -> [UInt8] {
    var writer = JSONWriter()
    writer.object { Self.describe(dataset, in: &$0) }
    return writer.bytes + [0x0A]
  }

  /// A dataset's members in `/v1/datasets`.
  static func describe(_ dataset: Dataset, in item: inout JSONWriter.ObjectWriter) {
    let options = dataset.index.options
    item.string("name", dataset.name)
    item.value("version", .number(String(dataset.version)))  // an integer, exact past 2^53
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

  /// `GET /v1/datasets/{name}/clusters?zoom=Z[&bbox=W,S,E,N]`: the clusters and points of a map at zoom Z.
  func clusters(_ request: ParsedRequest) async throws -> Reply {
    let base = try dataset(request)
    // A bad query is a 400 before any 304 (RFC 9110, 13.2.1: preconditions come after the request's own
    // checks): `If-None-Match: *` with zoom=abc must not be "not modified".
    let parameters = try allow(request, ["zoom", "bbox", "filter"])
    let dataset = try await filtered(base, parameters)
    let (zoom, box) = try clusterQuery(dataset, parameters)
    if let unchanged = notModified(request, dataset) { return unchanged }
    return validated(collection(dataset, dataset.index.clusters(in: box, zoom: zoom), for: request), dataset)
  }

  /// `GET /v1/datasets/{name}/clusters/{id}/children`: the clusters and points one zoom in.
  func children(_ request: ParsedRequest) async throws -> Reply {
    let dataset = try await filtered(try dataset(request), try allow(request, ["filter"]))
    let items = try clusterCall { try dataset.index.children(ofCluster: try clusterID(request)) }
    try bounded(items.count, .serviceTooManyChildren)
    if let unchanged = notModified(request, dataset) { return unchanged }
    return validated(collection(dataset, items, for: request), dataset)
  }

  /// `GET /v1/datasets/{name}/clusters/{id}/leaves[?limit=N&offset=M]`: the cluster's points, a page at a time.
  func leaves(_ request: ParsedRequest) async throws -> Reply {
    let query = try allow(request, ["limit", "offset", "filter"])
    let dataset = try await filtered(try dataset(request), query)
    let limit = try integer(query, "limit", default: 10, minimum: 0)
    let offset = try integer(query, "offset", default: 0, minimum: 0)
    // One more than the limit at most: enough to know the answer is over it.
    let asked = limit == 0 ? maxFeatures + 1 : min(limit, maxFeatures + 1)
    let leaves = try clusterCall {
      try dataset.index.leaves(ofCluster: try clusterID(request), limit: asked, offset: offset)
    }
    // An unknown cluster is a 404 before any 304.
    if let unchanged = notModified(request, dataset) { return unchanged }
    if leaves.count > maxFeatures {
      throw Problem.said(Problem.tooManyFeatures, .serviceTooManyLeaves, maxFeatures)
    }
    return validated(collection(dataset, leaves.map { ClusterItem.point(index: $0) }, for: request), dataset)
  }

  /// `GET /v1/datasets/{name}/clusters/{id}/expansion-zoom`: the zoom at which the cluster splits.
  func expansionZoom(_ request: ParsedRequest) async throws -> Reply {
    let dataset = try await filtered(try dataset(request), try allow(request, ["filter"]))
    let id = try clusterID(request)
    let zoom = try clusterCall { try dataset.index.expansionZoom(ofCluster: id) }
    if let unchanged = notModified(request, dataset) { return unchanged }
    return validated(Reply(json: ClusterWriter.expansionZoomAnswer(clusterID: id, zoom: zoom)), dataset)
  }

  /// The zoom and box of a clusters request, checked (and the answer's size bounded) before it is built.
  func clusterQuery(_ dataset: Dataset, _ parameters: Query) throws -> (zoom: Double, box: GeoBox) {
    guard let zoom = try decimal(parameters, "zoom") else {
      throw Problem.said(Problem.badParameter, .serviceGiveMapZoom)
    }
    try parameter { () throws(FormatError) in try Coordinates.zoom(zoom) }
    var box = GeoBox.world
    if let text = parameters.get("bbox") {
      box = try parameter { () throws(FormatError) in try Coordinates.box(text, name: "bbox") }
    }
    try bounded(dataset.index.clusterCount(in: box, zoom: zoom), .serviceTooManyInArea, Format.number(zoom))
    return (zoom, box)
  }

  /// Refuses (422) an answer of more than `maxFeatures` features before it is built: a whole answer is held
  /// in memory until the client has read it (1M points at zoom 31: 98 MB).
  func bounded(_ count: Int, _ message: Message, _ zoom: String? = nil) throws(Problem) {
    guard count > maxFeatures else { return }
    if let zoom { throw .said(Problem.tooManyFeatures, message, zoom, count, maxFeatures) }
    throw .said(Problem.tooManyFeatures, message, count, maxFeatures)
  }

  /// The items as a GeoJSON FeatureCollection, gzipped if the client accepts it.
  func collection(_ dataset: Dataset, _ items: [ClusterItem], for request: ParsedRequest) -> Reply {
    compressed(
      json: OutputBuffer.collecting { dataset.writer.featureCollection(items, to: $0) }, for: request)
  }
}
