import Fetch
import Foundation
import GeoFormats
import GeoIndex
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import AtlasServer

/// The service's handlers in process: through its router on Hummingbird's test client (as a host application
/// mounts it), and called as plain functions of a parsed request, each against the answer of the binary's
/// `serve` to the same request.
@Suite struct ServeRoutesTests {
  static let cafes = "name,lat,lon,seats\na,48.85,2.35,10\nb,48.86,2.36,4\nc,48.87,2.37,1\n"

  /// The service as `serve --points cafes=PATH` builds it.
  static func service(cafes path: String, maxFeatures: Int = 100_000) throws -> AtlasService {
    let options = ClusterOptions()
    let markers = try Dataset(name: "markers", file: nil, options: options, aggregations: [])
    let file = try AtlasService.features(path: path, aggregations: [])
    let cafes = try Dataset(name: "cafes", file: file, options: options, aggregations: [])
    return AtlasService(datasets: [markers, cafes], maxFeatures: maxFeatures)
  }

  /// `filter=` answers as a dataset of the matching features alone would (supercluster on those points: their
  /// ids, their order): clusters, a cluster's leaves, expansion zoom and tiles; TileJSON's tiles carry the filter;
  /// each filter has its own validator; two spellings of one filter share one index; a bad one is a 400.
  @Test func aFilterAnswersAsTheMatchingFeaturesAlone() async throws {
    var random = SplitMix64(state: 30)
    let categories = ["news", "sports", "culture"]
    var all: [String] = []
    var sports: [String] = []
    for i in 0..<600 {
      let (lat, lon) = (Double.random(in: 46...52, using: &random), Double.random(in: -2...8, using: &random))
      let feature =
        #"{"type":"Feature","properties":{"i":\#(i),"category":"\#(categories[i % 3])"},"#
        + #""geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]}}"#
      all.append(feature)
      if i % 3 == 1 { sports.append(feature) }
    }
    func dataset(_ name: String, _ features: [String]) throws -> Dataset {
      let text = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
      return try Dataset(
        name: name, file: try FeatureFile.parse(Array(text.utf8)), options: ClusterOptions(), aggregations: []
      )
    }
    let service = AtlasService(datasets: [try dataset("all", all), try dataset("sports", sports)])
    let filter = #"["==", ["get", "category"], "sports"]"#
    let spelledOtherwise = #"["==",["get","category"],"sports"]"#
    let app = Application(router: service.router())
    try await app.test(.router) { client in
      func get(_ uri: String) async throws -> (status: Int, body: String, etag: String?) {
        let answer = try await client.execute(uri: uri, method: .get)
        return (answer.status.code, String(buffer: answer.body), answer.headers[.eTag])
      }
      let clusters = try await get("/v1/datasets/all/clusters?zoom=5&filter=\(queryEscaped(filter))")
      let alone = try await get("/v1/datasets/sports/clusters?zoom=5")
      let unfiltered = try await get("/v1/datasets/all/clusters?zoom=5")
      #expect(clusters.status == 200)
      #expect(clusters.body == alone.body)
      #expect(!clusters.body.contains("\"news\""))
      #expect(clusters.etag != nil && clusters.etag != unfiltered.etag)
      let id = try #require(
        ((try JSONSerialization.jsonObject(with: Data(clusters.body.utf8)) as? [String: Any])?["features"]
          as? [[String: Any]])?.compactMap { $0["properties"] as? [String: Any] }
          .first { $0["cluster"] as? Bool == true }?["cluster_id"] as? Int)
      for path in [
        "clusters/\(id)/leaves?limit=0&", "clusters/\(id)/children?", "clusters/\(id)/expansion-zoom?",
      ] {
        let filtered = try await get("/v1/datasets/all/\(path)filter=\(queryEscaped(spelledOtherwise))")
        #expect(filtered.status == 200, "\(path) \(filtered.body)")
        let expected = try await get("/v1/datasets/sports/\(path)")
        #expect(filtered.body == expected.body, "\(path)")
      }
      for tile in ["5/16/11.geojson", "4/8/5.geojson", "3/4/2.geojson"] {
        let filtered = try await get("/tiles/all/\(tile)?filter=\(queryEscaped(filter))")
        let expected = try await get("/tiles/sports/\(tile)")
        #expect(filtered.status == 200 && filtered.body == expected.body, "\(tile)")
      }
      let vector = try await get("/tiles/all/3/4/2.mvt?filter=\(queryEscaped(filter))")
      let everything = try await get("/tiles/all/3/4/2.mvt")
      #expect(vector.status == 200 && vector.body != everything.body)
      let tileJSON = try await get("/tiles/all.json?filter=\(queryEscaped(filter))")
      #expect(
        tileJSON.body.contains("/{z}/{x}/{y}.mvt?filter=\(queryEscaped(spelledOtherwise))\""),
        "\(tileJSON.body)")
      // Both spellings, many requests: one index built.
      #expect(service.filtered.counters.builds == 1)
      for (uri, mentions) in [
        (
          "/v1/datasets/all/clusters?zoom=5&filter=\(queryEscaped(#"["~", 1]"#))",
          "'~' is not a filter operator"
        ),
        ("/v1/datasets/all/clusters?zoom=5&filter=%5B", "The filter is not JSON"),
        ("/tiles/all/3/4/2.mvt?filter=\(queryEscaped(#"["get", "i"]"#))", "A filter must be a test"),
        ("/tiles/all/3/4/2.mvt?colour=red", "takes no parameter 'colour'"),
      ] {
        let refused = try await get(uri)
        #expect(refused.status == 400 && refused.body.contains(mentions), "\(uri): \(refused.body)")
      }
    }
    // With no room to keep filtered indexes, the answers are the same, built each time.
    let keepsNone = AtlasService(
      datasets: [try dataset("all", all), try dataset("sports", sports)], filterCacheBytes: 0)
    try await Application(router: keepsNone.router()).test(.router) { client in
      for _ in 0..<2 {
        let answer = try await client.execute(
          uri: "/v1/datasets/all/clusters?zoom=5&filter=\(queryEscaped(filter))", method: .get)
        let alone = try await client.execute(uri: "/v1/datasets/sports/clusters?zoom=5", method: .get)
        #expect(String(buffer: answer.body) == String(buffer: alone.body))
      }
    }
    #expect(keepsNone.filtered.counters.builds == 2 && keepsNone.filtered.counters.kept == 0)
  }

  /// Every route that answers from memory, its problems too: status, type, validator and body are the
  /// binary's (the datasets' build times aside), HEAD is GET's head without the body, and a gzipped answer
  /// inflates to the plain one.
  @Test func theRouterAnswersAsTheBinaryDoes() async throws {
    let scratch = try ScratchFile(named: "cafes.csv", contents: Self.cafes)
    defer { scratch.remove() }
    // Without news, as the in-process service is built (its /healthz says "news": false).
    let served = try Served(["--points", "cafes=\(scratch.path)", "--no-news"])
    defer { _ = served.stop() }
    let client = HTTPClient()
    let paths = [
      "/healthz", "/v1/nearest?lat=48.85&lon=2.35&count=3", "/v1/nearest?lat=48.85&lon=2.35&count=100",
      "/v1/nearest?lat=48.85&lon=2.35&count=2&dataset=cafes", "/v1/resolve?lat=48.85&lon=2.35",
      "/v1/datasets", "/v1/datasets/markers/clusters?zoom=1&bbox=-10,35,30,60",
      "/v1/datasets/cafes/clusters?zoom=16", "/v1/datasets/markers/clusters/120/children",
      "/v1/datasets/markers/clusters/120/leaves?limit=3&offset=2",
      "/v1/datasets/markers/clusters/120/expansion-zoom", "/tiles/markers/3/4/2.mvt",
      "/tiles/markers/2/1/1.geojson", "/tiles/markers/9/0/0.mvt", "/tiles/cafes.json", "/", "/map.js",
      "/v1/basemap?zoom=1",
      // Problems.
      "/v1/nearest?lat=91&lon=1", "/v1/nearest?lat=1&lon=1&dataset=nope", "/v1/datasets/nope/clusters?zoom=1",
      "/v1/datasets/markers/clusters?zoom=1&radius=60", "/v1/datasets/markers/clusters?zoom=abc",
      "/v1/datasets/markers/clusters/99999/children", "/v1/datasets/markers/clusters/abc/leaves",
      "/tiles/markers/2/9/1.mvt", "/tiles/markers/2/1/1.png", "/tiles/nope.json", "/elsewhere",
      "/v1/resolve?lat=48.85&lon=2.35&lat=0", "/static/leaflet/nothing.js",
    ]
    let app = Application(router: try Self.service(cafes: scratch.path).router())
    try await app.test(.router) { inProcess in
      for path in paths {
        let binary = try await client.get(served.base + path)
        let answer = try await inProcess.execute(uri: path, method: .get)
        var expected = String(decoding: binary.body, as: UTF8.self)
        var body = String(buffer: answer.body)
        if path == "/v1/datasets" {  // the build times differ
          let time = /"buildMilliseconds":[0-9.e-]+/
          (expected, body) = (expected.replacing(time, with: ""), body.replacing(time, with: ""))
        }
        // The in-process client's host is localhost, the router's ParsedRequest has it.
        if path == "/tiles/cafes.json" {
          #expect(body.contains(#""tiles":["http://localhost/tiles/cafes/{z}/{x}/{y}.mvt"]"#), "\(body)")
        }
        body = body.replacing("http://localhost/", with: served.base + "/")
        #expect(Int(answer.status.code) == binary.status, "\(path)")
        #expect(body == expected, "\(path)")
        for name in ["Content-Type", "ETag", "Cache-Control", "Vary", "Allow"] {
          #expect(answer.headers[HTTPField.Name(name)!] == binary.header(name), "\(path) \(name)")
        }
        let head = try await inProcess.execute(uri: path, method: .head)
        #expect(head.status == answer.status && head.body.readableBytes == 0, "HEAD \(path)")
        #expect(head.headers[.contentLength] == answer.headers[.contentLength], "HEAD \(path)")
        let gzipped = try await inProcess.execute(uri: path, method: .get, headers: [.acceptEncoding: "gzip"])
        if gzipped.headers[.contentEncoding] == "gzip" {
          #expect(try ServeTests.gunzip(Array(buffer: gzipped.body)) == Array(buffer: answer.body), "\(path)")
        }
      }
      // The CLI's answers to the same questions (its own code path through GeoFormats).
      for (path, arguments) in [
        (
          "/v1/nearest?lat=48.85&lon=2.35&count=3",
          ["nearest", "48.85", "2.35", "--count", "3", "--format", "json"]
        ),
        (
          "/v1/resolve?lat=36.75&lon=3.06&newsCountries=newsapi",
          ["resolve", "36.75", "3.06", "--format", "json", "--news-countries", "newsapi"]
        ),
        (
          "/v1/resolve?lat=36.75&lon=3.06&newsCountries=world",
          ["resolve", "36.75", "3.06", "--format", "json", "--news-countries", "world"]
        ),
        (
          "/v1/datasets/markers/clusters?zoom=1&bbox=-10,35,30,60",
          ["clusters", "--zoom", "1", "--bbox", "-10,35,30,60"]
        ),
        ("/v1/datasets/markers/clusters/120/expansion-zoom", ["clusters", "--expansion-zoom", "120"]),
        ("/v1/datasets/markers/clusters/120/children", ["clusters", "--children", "120"]),
        (
          "/v1/datasets/markers/clusters/120/leaves?limit=3&offset=2",
          ["clusters", "--leaves", "120", "--limit", "3", "--offset", "2"]
        ),
        ("/tiles/markers/2/1/1.geojson", ["clusters", "--tile", "2/1/1"]),
      ] {
        let answer = try await inProcess.execute(uri: path, method: .get)
        #expect(String(buffer: answer.body) == (try CLI.run(arguments)).stdout, "\(path)")
      }
      // What the paths cover: gzip, a 204, each kind of problem.
      let statuses = try await paths.asyncMap {
        try await inProcess.execute(uri: $0, method: .get).status.code
      }
      #expect(Set(statuses) == [200, 204, 400, 404])
    }
  }

  /// Batch POSTs stream through the router in process as through the binary, and its refusals are the same.
  @Test func batchPostsAnswerInProcessAsTheBinaryDoes() async throws {
    let served = try Served()
    defer { _ = served.stop() }
    let rows =
      "latitude,longitude\n48.85,2.35\nabc,1\n\n36.75,3.06\r\n"
      + (0..<3000).map { "\(Double($0 % 170) - 85),\(Double($0 % 350) - 175)" }.joined(separator: "\n")
    let app = Application(
      router: AtlasService(datasets: [
        try Dataset(name: "markers", file: nil, options: .init(), aggregations: [])
      ]).router())
    try await app.test(.router) { inProcess in
      for path in [
        "/v1/resolve?newsCountries=world", "/v1/resolve?format=jsonl&newsCountries=newsapi",
        "/v1/nearest?format=jsonl&count=3&maxKm=2000",
        "/v1/resolve?format=xml", "/v1/nearest?count=2",
      ] {
        let binary = try served.raw(ServeTests.post(path, rows))
        let answer = try await inProcess.execute(uri: path, method: .post, body: ByteBuffer(string: rows))
        #expect(binary.hasPrefix("HTTP/1.1 \(answer.status.code) "), "\(path)")
        let expected =
          answer.status == .ok
          ? ServeTests.dechunked(binary) : String(binary[binary.range(of: "\r\n\r\n")!.upperBound...])
        #expect(String(buffer: answer.body) == expected, "\(path)")
      }
      let json = try await inProcess.execute(
        uri: "/v1/resolve", method: .post, headers: [.contentType: "application/json"],
        body: ByteBuffer(string: #"{"lat":1,"lon":2}"#))
      #expect(json.status == .unsupportedMediaType)
      let put = try await inProcess.execute(uri: "/v1/resolve", method: .put)
      #expect(put.status == .methodNotAllowed && put.headers[.allow] == "GET, HEAD, POST, OPTIONS")
      let options = try await inProcess.execute(uri: "/tiles/markers/0/0/0.mvt", method: .options)
      #expect(options.status == .noContent && options.headers[.allow] == "GET, HEAD, OPTIONS")
    }
  }

  /// The handlers are functions of a parsed request: a query's checks come before `If-None-Match` (400, not
  /// 304), a matching tag is a 304 with the validator, an answer over `maxFeatures` is refused before it is
  /// built (422), and a tile is gzipped only for a client that takes gzip.
  @Test func handlersAreFunctionsOfTheParsedRequest() async throws {
    let scratch = try ScratchFile(named: "cafes.csv", contents: Self.cafes)
    defer { scratch.remove() }
    let service = try Self.service(cafes: scratch.path, maxFeatures: 20)
    let markers: Parameters = ["name": "markers"]
    let tag = try #require(service.datasets["markers"]).entityTag
    func problem(_ body: () async throws -> Reply) async -> Problem? {
      do {
        _ = try await body()
        return nil
      } catch { return error as? Problem }
    }
    let badZoom = ParsedRequest(
      target: "/v1/datasets/markers/clusters?zoom=abc", parameters: markers, headers: [.ifNoneMatch: "*"])
    #expect(await problem { try await service.clusters(badZoom) }?.status == .badRequest)
    let unchanged = try await service.clusters(
      ParsedRequest(
        target: "/v1/datasets/markers/clusters?zoom=9&bbox=2,48,3,49", parameters: markers,
        headers: [.ifNoneMatch: "\"x\", W/\(tag)"]))
    #expect(unchanged.status == .notModified && unchanged.body.readableBytes == 0)
    #expect(unchanged.headers[.eTag] == "W/" + tag)
    let world = ParsedRequest(target: "/v1/datasets/markers/clusters?zoom=9", parameters: markers)
    let refusal = await problem { try await service.clusters(world) }
    #expect(refusal?.status == .unprocessableContent)
    #expect(refusal?.message.contains("would hold 54 features, over this server's limit of 20") == true)
    let big = try #require(
      service.datasets["markers"]!.index.clusters(in: .world, zoom: 0).lazy.compactMap { item -> Cluster? in
        guard case .cluster(let cluster) = item, cluster.pointCount > 20 else { return nil }
        return cluster
      }.first)
    let leaves = ParsedRequest(
      target: "/v1/datasets/markers/clusters/\(big.id)/leaves?limit=0",
      parameters: ["name": "markers", "id": Substring(String(big.id))])
    #expect(await problem { try await service.leaves(leaves) }?.status == .unprocessableContent)
    var tile = ParsedRequest(
      target: "/tiles/markers/0/0/0.mvt",
      parameters: ["name": "markers", "z": "0", "x": "0", "file": "0.mvt"])
    let plain = try await service.tile(tile)
    #expect(plain.status == .ok && plain.headers[.contentEncoding] == nil)
    tile.headers[.acceptEncoding] = "gzip"
    let gzipped = try await service.tile(tile)
    #expect(gzipped.headers[.contentEncoding] == "gzip")
    #expect(try ServeTests.gunzip(Array(buffer: gzipped.body)) == Array(buffer: plain.body))
    let tileJSON = try await service.tileJSON(
      ParsedRequest(
        target: "/tiles/cafes.json", parameters: ["name": "cafes.json"], authority: "tiles.example.org:8080"))
    #expect(String(buffer: tileJSON.body).contains(#""tiles":["http://tiles.example.org:8080/tiles/cafes/"#))
  }
}

extension Sequence {
  fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
    var results: [T] = []
    for element in self { results.append(try await transform(element)) }
    return results
  }
}

/// The filter cache's estimate of a dataset's memory (`--filter-cache-mb`).
@Suite struct FilterCacheEstimateTests {
  /// The estimate follows the cluster index's items at each zoom, not points times zooms: 2,000 points at one
  /// place are one cluster at every zoom but the last, 32 bytes a point besides the features (the zoom-17
  /// level's items, parents and tree, and the projected positions and clearances; an estimate of 40 bytes a
  /// point at each of 18 zooms said 744).
  @Test func theEstimateFollowsTheIndexItems() throws {
    let features = (0..<2000).map { i in
      #"{"type":"Feature","id":\#(i),"properties":{},"geometry":{"type":"Point","coordinates":[10,20]}}"#
    }
    let text = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
    let file = try FeatureFile.parse(Array(text.utf8), name: "same")
    let dataset = try Dataset(name: "same", file: file, options: ClusterOptions(), aggregations: [])
    #expect(dataset.index.itemCount(atZoom: 16) == 1 && dataset.index.itemCount(atZoom: 17) == 2000)
    let beside = (dataset.approximateBytes - file.bytesInMemory) / 2000
    #expect(beside == 32, "\(beside) bytes a point besides the features")
  }

  /// The estimate counts what the index keeps, each zoom's k-d tree too (12 bytes an item, built or not: a
  /// filtered dataset's trees are built by the first tile at each zoom, after the cache has counted it), and a
  /// level shared by zooms where nothing merged once. 25 pairs of points, each pair at one place, 0.2 of the
  /// world apart: zoom 17 keeps 50 lone points (items 200, tree 600, parents 200), zoom 16 25 clusters (items
  /// 100, tree 300, the cluster table 700), which zooms 15 to 0 share (no parents), and the points' projected
  /// positions 400 and clearances 200: 2,700 bytes, the same before and after every tree is built.
  @Test func theEstimateCountsEachLevelOnceWithItsTree() throws {
    var features: [String] = []
    for column in 0..<5 {
      for row in 0..<5 {
        let longitude = (0.1 + 0.2 * Double(column)) * 360 - 180
        let latitude = atan(sinh(Double.pi * (1 - 2 * (0.1 + 0.2 * Double(row))))) * 180 / .pi
        for _ in 0..<2 {
          features.append(
            #"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":["#
              + "\(longitude),\(latitude)]}}")
        }
      }
    }
    let text = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
    let file = try FeatureFile.parse(Array(text.utf8), name: "pairs")
    let dataset = try Dataset(name: "pairs", file: file, options: ClusterOptions(), aggregations: [])
    #expect(dataset.index.itemCount(atZoom: 17) == 50)
    #expect((0...16).allSatisfy { dataset.index.itemCount(atZoom: Double($0)) == 25 })
    #expect(dataset.index.keptBytes == 2700)
    #expect(dataset.approximateBytes == file.bytesInMemory + 2700)
    dataset.index.buildDeferredTrees()
    #expect(dataset.index.deferredTreeCount == 0 && dataset.index.keptBytes == 2700)
  }
}
