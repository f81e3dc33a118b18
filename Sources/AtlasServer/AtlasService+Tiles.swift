import AtlasAnswers
import AtlasMessages
import Fetch
import GeoFormats
import GeoIndex
import HTTPTypes
import Hummingbird
import NIOCore

extension AtlasService {
  /// `GET /tiles/{name}/{z}/{x}/{y}.mvt` (Mapbox Vector Tile 2.1, 204 when empty) or `.geojson`, from the
  /// tile cache when it holds it.
  func tile(_ request: ParsedRequest) async throws -> Reply {
    let base = try dataset(request)
    let dataset = try await filtered(base, try allow(request, ["filter"]))
    let file = request.parameters.get("file") ?? ""
    let isVector = file.hasSuffix(".mvt")
    guard isVector || file.hasSuffix(".geojson") else {
      throw Problem.said(Problem.notFound, .serviceTileFile, file)
    }
    // Y is all that comes before the suffix: `0.5.mvt` is no tile's name (it was read as 0).
    let y = file.dropLast(isVector ? 4 : 8)
    let address = "\(request.parameters.get("z") ?? "")/\(request.parameters.get("x") ?? "")/\(y)"
    let (z, x, yValue) = try parameter { () throws(FormatError) in
      try Coordinates.tile(address, name: "A tile")
    }
    if let unchanged = notModified(request, dataset) { return unchanged }
    metrics.tileServed(dataset: dataset.name)
    let gzip = request.acceptsGzip
    // Tiles are kept under the content hash of the dataset (or filtered subset) they come from: the same
    // features, the same tiles; a dataset written over HTTP has new ones.
    let cacheName = dataset.name + (dataset === base ? "\u{1}" : "\u{0}") + dataset.contentHash
    let key = TileCache.Key(dataset: cacheName, z: z, x: x, y: yValue, vector: isVector, gzip: gzip)
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
    guard let body = entry.body else { return validated(Reply(status: .noContent), dataset) }
    var reply = Reply(
      status: .ok,
      headers: [.contentType: isVector ? "application/vnd.mapbox-vector-tile" : "application/json"],
      body: body)
    if entry.gzipped { reply.headers[.contentEncoding] = "gzip" }
    return validated(reply, dataset)
  }

  /// TileJSON 3.0.0 for `/tiles/{name}.json`, its URL template built from the request's host.
  func tileJSON(_ request: ParsedRequest) async throws -> Reply {
    let file = Self.pathSegment(request.parameters.get("name") ?? "")
    guard file.hasSuffix(".json"), let unfiltered = store[String(file.dropLast(5))] else {
      throw Problem.said(Problem.notFound, .serviceNoTileJSON, file)
    }
    let parameters = try allow(request, ["filter"])
    let dataset = try await filtered(unfiltered, parameters)
    // The tiles of a filtered TileJSON carry its filter, in its canonical form.
    let filterQuery =
      try parameters.get("filter").map { text in
        "?filter="
          + queryEscaped(try parameter { () throws(FormatError) in try FeatureFilter(json: text) }.canonical)
      } ?? ""
    let options = dataset.index.options
    let host = Self.safeHost(request.authority) ?? "127.0.0.1"
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
      tile.value("tiles", .array([.string(base + "/{z}/{x}/{y}.mvt" + filterQuery)]))
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
    return Reply(json: writer.bytes + [0x0A])
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
}
