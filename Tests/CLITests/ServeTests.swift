import AtlasAnswers
import Fetch
import Foundation
import GeoFormats
import GeoIndex
import SeededPoints
import TestSupport
import Testing

/// `newsatlas serve` started as a user starts it, on 127.0.0.1 and a free port, asked through libcurl.
final class Served: @unchecked Sendable {
  let process = Process()
  let base: String
  /// Standard error goes to a file: a pipe read only at the end could fill and stall the server.
  private let scratch: ScratchDirectory
  private let logPath: String

  /// Starts the server and waits for its readiness line (never a sleep); `openFiles` starts it through
  /// `sh -c 'ulimit -n N; exec …'` with that limit of open files.
  init(_ arguments: [String] = [], environment: [String: String] = [:], openFiles: Int? = nil) throws {
    if let openFiles {
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments =
        ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", CLI.executable.path, "serve", "--port", "0"]
        + arguments
    } else {
      process.executableURL = CLI.executable
      process.arguments = ["serve", "--port", "0"] + arguments
    }
    let out = Pipe()
    process.standardOutput = out
    scratch = try ScratchDirectory()
    // Never a developer's key, settings or cache: scratch folders, and only the key a test gives.
    var inherited = ProcessInfo.processInfo.environment
    inherited["NEWSAPI_KEY"] = nil
    inherited["NEWSATLAS_API_BASE"] = nil
    // Never GDELT's public host: a closed port on 127.0.0.1 unless a test gives its imitation.
    inherited["NEWSATLAS_GDELT_BASE"] = "http://127.0.0.1:\(LocalServer.closedPort())"
    inherited["XDG_CONFIG_HOME"] = scratch.path + "/config"
    inherited["XDG_CACHE_HOME"] = scratch.path + "/cache"
    inherited["XDG_DATA_HOME"] = scratch.path + "/data"  // datasets written over HTTP, unless --datasets-dir
    inherited["NEWSATLAS_WRITE_TOKEN"] = nil
    process.environment = inherited.merging(environment) { $1 }
    logPath = scratch.path + "/stderr.log"
    FileManager.default.createFile(atPath: logPath, contents: nil)
    process.standardError = FileHandle(forWritingAtPath: logPath)
    try process.run()
    let text = out.fileHandleForReading.readReadinessLine()
    guard let range = text.range(of: "http://127.0.0.1:") else {
      process.terminate()
      throw CocoaError(
        .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "no readiness line: \(text)"])
    }
    base = String(text[range.lowerBound...])
  }

  /// SIGTERM, then the exit status.
  func stop() -> Int32 {
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// What the server logged on standard error.
  func log() -> String {
    _ = stop()
    return String(decoding: FileManager.default.contents(atPath: logPath) ?? Data(), as: UTF8.self)
  }

  deinit { _ = stop() }

  /// A socket to the server, for requests sent in parts.
  func connect() throws -> Int32 {
    let port = UInt16(base.split(separator: ":").last!)!
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      throw CocoaError(.fileReadUnknown)
    }
    return fd
  }

  static func send(_ fd: Int32, _ bytes: [UInt8]) {
    var sent = 0
    while sent < bytes.count {
      let wrote = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
      if wrote <= 0 { return }
      sent += wrote
    }
  }

  static func receiveAll(_ fd: Int32) -> [UInt8] {
    var response: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let got = read(fd, &chunk, chunk.count)
      if got <= 0 { return response }
      response += chunk[0..<got]
    }
  }

  /// A raw HTTP/1.1 exchange over a socket, for what a GET client cannot send.
  func raw(_ request: String) throws -> String { String(decoding: try rawBytes(request), as: UTF8.self) }

  func rawBytes(_ request: String) throws -> [UInt8] {
    let fd = try connect()
    defer { close(fd) }
    Self.send(fd, Array(request.utf8))  // the server may stop reading (413) and answer early
    return Self.receiveAll(fd)  // to the end: requests here say Connection: close
  }

}

@Suite struct ServeTests {
  let client = HTTPClient()

  func json(_ response: HTTPResponse) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
  }

  @Test func answersAsTheCLIDoes() async throws {
    let served = try Served()
    let nearest = try await client.get(served.base + "/v1/nearest?lat=48.85&lon=2.35&count=3")
    #expect(nearest.status == 200 && nearest.header("content-type") == "application/json")
    let cli = try CLI.run(["nearest", "48.85", "2.35", "--count", "3", "--format", "json"])
    #expect(String(decoding: nearest.body, as: UTF8.self) == cli.stdout)

    let resolve = try await client.get(served.base + "/v1/resolve?lat=36.75&lon=3.06")
    #expect(
      String(decoding: resolve.body, as: UTF8.self)
        == (try CLI.run(["resolve", "36.75", "3.06", "--format", "json"])).stdout)

    let clusters = try await client.get(
      served.base + "/v1/datasets/markers/clusters?zoom=1&bbox=-10,35,30,60")
    let cliClusters = try CLI.run(["clusters", "--zoom", "1", "--bbox", "-10,35,30,60"])
    #expect(String(decoding: clusters.body, as: UTF8.self) == cliClusters.stdout)

    for (path, cli) in [
      ("/v1/datasets/markers/clusters/120/expansion-zoom", ["clusters", "--expansion-zoom", "120"]),
      ("/v1/datasets/markers/clusters/120/children", ["clusters", "--children", "120"]),
      (
        "/v1/datasets/markers/clusters/120/leaves?limit=3&offset=2",
        ["clusters", "--leaves", "120", "--limit", "3", "--offset", "2"]
      ),
      ("/tiles/markers/2/1/1.geojson", ["clusters", "--tile", "2/1/1"]),
    ] {
      let response = try await client.get(served.base + path)
      #expect(response.status == 200, "\(path)")
      #expect(String(decoding: response.body, as: UTF8.self) == (try CLI.run(cli)).stdout, "\(path)")
    }
    #expect(served.stop() == 0)  // SIGTERM ends it cleanly
  }

  /// `GET /openapi.json` is the repository's OpenAPI document, byte for byte (Documentation/openapi.json,
  /// embedded), and the rules schemathesis found broken hold (Tests/API/schemathesis_check.py checks the rest
  /// against the release binary in CI): a tile's name is Y and its suffix alone, `+` in a query is a space, a
  /// dataset's name is percent-decoded on reads as on writes, and a 304 of a dataset entry says no-cache as its
  /// 200 does.
  @Test func theAPIDocumentAndTheRulesItStates() async throws {
    let served = try Served()
    let document = try await client.get(served.base + "/openapi.json")
    #expect(document.status == 200 && document.header("content-type")?.hasPrefix("application/json") == true)
    let file = Scratch.fixtures.deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Documentation/openapi.json")
    #expect(Data(document.body) == (try Data(contentsOf: file)))
    #expect((try json(document))["openapi"] as? String == "3.1.0")
    #expect(try await client.get(served.base + "/openapi.json?x=1").status == 400)
    for path in ["/tiles/markers/0/0/0.5.mvt", "/tiles/markers/0/0/0.x.geojson", "/tiles/markers/0/0/.mvt"] {
      #expect(try await client.get(served.base + path).status == 400, "\(path)")
    }
    let plus = try await client.get(served.base + "/v1/countries?q=united+states")
    #expect(plus.status == 200 && String(decoding: plus.body, as: UTF8.self).contains(#""code":"us""#))
    let filter = try await client.get(
      served.base + "/v1/datasets/markers/clusters?zoom=0&filter=%5B%22has%22,+%22code%22%5D")
    #expect(filter.status == 200, "\(String(decoding: filter.body, as: UTF8.self))")
    #expect(try await client.get(served.base + "/tiles/%6Darkers.json").status == 200)
    #expect(try await client.get(served.base + "/v1/datasets/%6Darkers").status == 200)
    let unchanged = try await client.get(
      served.base + "/v1/datasets/markers", headers: [("If-None-Match", "*")])
    #expect(unchanged.status == 304 && unchanged.header("cache-control") == "no-cache")
  }

  @Test func vectorTilesAreTheLibrarysAndEmptyOnesAre204() async throws {
    let served = try Served()
    let index = try ClusterIndex<[Double]>(
      points: FeatureFile.countries().points, options: ClusterOptions(), map: nil, reduce: nil)
    let writer = ClusterWriter(index: index, file: FeatureFile.countries(), aggregations: [])
    for (z, x, y) in [(0, 0, 0), (1, 1, 0), (2, 1, 1), (3, 4, 2)] {
      let response = try await client.get(served.base + "/tiles/markers/\(z)/\(x)/\(y).mvt")
      let expected = writer.vectorTile(index.tile(zoom: z, x: x, y: y), layerName: "markers")
      if let expected {
        #expect(response.status == 200 && response.body == expected, "\(z)/\(x)/\(y)")
        #expect(response.header("content-type") == "application/vnd.mapbox-vector-tile")
      } else {
        #expect(response.status == 204 && response.body.isEmpty, "\(z)/\(x)/\(y)")
      }
    }
    // gzip when the client accepts it, and only then.
    let expected = try #require(writer.vectorTile(index.tile(zoom: 0, x: 0, y: 0), layerName: "markers"))
    let gzipped = try await client.get(
      served.base + "/tiles/markers/0/0/0.mvt", headers: [("Accept-Encoding", "br;q=1, gzip;q=0.8")])
    #expect(gzipped.header("content-encoding") == "gzip" && gzipped.header("vary") == "Accept-Encoding")
    #expect(gzipped.body == expected)  // libcurl inflates what it was sent
    // The bytes on the wire, inflated by an independent implementation (Python's gzip).
    let raw = try served.rawBytes(
      "GET /tiles/markers/0/0/0.mvt HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"
    )
    let headerEnd = try #require(raw.indices.first { raw[$0..<min($0 + 4, raw.count)] == [13, 10, 13, 10] })
    let wire = Array(raw[(headerEnd + 4)...])
    #expect(wire.prefix(2) == [0x1F, 0x8B] && wire.count < expected.count)
    #expect(try Self.gunzip(wire) == expected)
    for refusal in ["gzip;q=0", "gzip; q=0.000, identity", "br"] {
      let refused = try await client.get(
        served.base + "/tiles/markers/0/0/0.mvt", headers: [("Accept-Encoding", refusal)])
      #expect(refused.header("content-encoding") == nil && refused.body == expected, "\(refusal)")
    }
    let empty = try await client.get(served.base + "/tiles/markers/9/0/0.mvt")
    #expect(empty.status == 204 && empty.body.isEmpty)
  }

  /// A tile asked for again comes from the tile cache, byte for byte the same, with its own encoding; with
  /// the cache off every tile is made anew, with the same bytes. A tile too small to gzip, or empty, is kept
  /// once for every client.
  @Test(arguments: [64, 0])
  func tilesComeFromTheCacheTheSecondTime(megabytes: Int) async throws {
    let served = try Served(["--tile-cache-mb", "\(megabytes)"])
    let asks: [(path: String, gzip: Bool)] = [
      ("/tiles/markers/0/0/0.mvt", false), ("/tiles/markers/0/0/0.mvt", true),
      ("/tiles/markers/1/1/0.geojson", false), ("/tiles/markers/1/1/0.geojson", true),
      ("/tiles/markers/9/0/0.mvt", false),  // empty: 204
      ("/tiles/markers/9/0/0.mvt", true),  // the same entry
      ("/tiles/markers/5/16/11.mvt", false), ("/tiles/markers/5/16/11.mvt", true),  // 121 bytes: one entry
    ]
    let shared = 2  // asks answered from the entry of the ask before them
    func ask(_ path: String, gzip: Bool) async throws -> (Int, [UInt8], String?) {
      // The bytes on the wire, not inflated by libcurl, so that a gzipped answer to a plain request shows.
      let raw = try served.rawBytes(
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(gzip ? "Accept-Encoding: gzip\r\n" : "")"
          + "Connection: close\r\n\r\n")
      let end = try #require(raw.indices.first { raw[$0..<min($0 + 4, raw.count)] == [13, 10, 13, 10] })
      let head = String(decoding: raw[..<end], as: UTF8.self).lowercased()
      let status = Int(head.split(separator: " ")[1])!
      let encoding = head.split(separator: "\r\n").first { $0.hasPrefix("content-encoding:") }
      return (
        status, Array(raw[(end + 4)...]),
        encoding.map { String($0.dropFirst(17)).trimmingCharacters(in: .whitespaces) }
      )
    }
    var first: [(Int, [UInt8], String?)] = []
    for (path, gzip) in asks { first.append(try await ask(path, gzip: gzip)) }
    for ((path, gzip), earlier) in zip(asks, first) {
      let again = try await ask(path, gzip: gzip)
      #expect(again.0 == earlier.0 && again.1 == earlier.1 && again.2 == earlier.2, "\(path) gzip \(gzip)")
      #expect(
        (again.2 == "gzip") == (gzip && again.0 == 200 && !path.contains("/5/")),
        "\(path) gzip \(gzip): \(again.2 ?? "plain")")
    }
    #expect(first[0].0 == 200 && first[4].0 == 204 && first[4].1.isEmpty && first[5].0 == 204)
    #expect(first[6].0 == 200 && first[6].1.count <= 256 && first[7].1 == first[6].1)
    #expect(try Self.gunzip(first[1].1) == first[0].1)  // the gzipped entry is the plain one, deflated
    let metrics = String(decoding: try await client.get(served.base + "/metrics").body, as: UTF8.self)
    func counter(_ name: String) -> Int? {
      metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
        Int($0.split(separator: " ")[1])
      }
    }
    #expect(counter("newsatlas_tile_cache_hits_total") == (megabytes > 0 ? asks.count + shared : 0))
    #expect(counter("newsatlas_tile_cache_misses_total") == (megabytes > 0 ? asks.count - shared : 0))
    #expect(counter("newsatlas_tile_cache_tiles") == (megabytes > 0 ? asks.count - shared : 0))
  }

  static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", "-c", "import gzip, sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))",
    ]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(bytes))
    try input.fileHandleForWriting.close()
    let result = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return [UInt8](result)
  }

  @Test func tileJSONAndDatasets() async throws {
    let scratch = try ScratchFile(
      named: "cafes.csv", contents: "name,lat,lon,seats\na,48.85,2.35,10\nb,48.86,2.36,4\n")
    defer { scratch.remove() }
    let served = try Served(["--points", "cafes=\(scratch.path)"])
    let datasets = try json(try await client.get(served.base + "/v1/datasets"))
    let list = try #require(datasets["datasets"] as? [[String: Any]])
    #expect(list.compactMap { $0["name"] as? String } == ["markers", "cafes"])
    #expect(list[1]["pointCount"] as? Int == 2)
    #expect((list[1]["bounds"] as? [Double]) == [2.35, 48.85, 2.36, 48.86])
    let tileJSON = try json(try await client.get(served.base + "/tiles/cafes.json"))
    #expect(tileJSON["tilejson"] as? String == "3.0.0")
    #expect((tileJSON["tiles"] as? [String]) == [served.base + "/tiles/cafes/{z}/{x}/{y}.mvt"])
    let layers = try #require(tileJSON["vector_layers"] as? [[String: Any]])
    #expect(layers.first?["id"] as? String == "cafes")
    let fields = try #require(layers.first?["fields"] as? [String: String])
    #expect(fields["point_count"] == "Number" && fields["name"] == "String" && fields["seats"] == "Number")
    let proxied = try served.raw(
      "GET /tiles/cafes.json HTTP/1.1\r\nHost: tiles.example.org\r\nX-Forwarded-Proto: https\r\nConnection: close\r\n\r\n"
    )
    #expect(proxied.contains(#""tiles":["https://tiles.example.org/tiles/cafes/{z}/{x}/{y}.mvt"]"#))
    let hostile = try served.raw(
      "GET /tiles/cafes.json HTTP/1.1\r\nHost: evil\"/><script>\r\nConnection: close\r\n\r\n")
    #expect(!hostile.contains("<script>"))
    let nearest = try json(try await client.get(served.base + "/v1/nearest?lat=48.85&lon=2.35&dataset=cafes"))
    #expect(((nearest["results"] as? [[String: Any]])?.first?["index"] as? Int) == 0)
  }

  @Test(arguments: [
    ("/v1/nearest?lat=nan&lon=1", 400, "is not a number"),
    ("/v1/nearest?lat=91&lon=1", 400, "outside -90...90"),
    ("/v1/nearest?lon=1", 400, "Give lat and lon"),
    ("/v1/nearest?lat=1&lon=1&count=0", 400, "count must be"),
    ("/v1/nearest?lat=1&lon=1&dataset=nope", 404, "No dataset is named 'nope'"),
    ("/v1/datasets/markers/clusters", 400, "Give zoom"),
    ("/v1/datasets/markers/clusters?zoom=40", 400, "zoom runs from 0 to 31"),
    ("/v1/nearest?lat=1&lon=1&count=10001", 400, "count is at most 10000"),
    ("/v1/datasets/markers/clusters?zoom=1&bbox=1,2,3", 400, "bbox takes four numbers"),
    ("/v1/datasets/..%2F..%2Fetc%2Fpasswd/clusters?zoom=1", 404, "No dataset is named"),
    ("/v1/datasets/markers/clusters/99999/children", 404, "No cluster has the id 99999"),
    ("/v1/datasets/markers/clusters/abc/children", 400, "A cluster id is a whole number"),
    ("/tiles/markers/2/9/1.mvt", 400, "off the map"),
    ("/tiles/markers/2/1/1.png", 404, "{z}/{x}/{y}.mvt"),
    ("/tiles/nope.json", 404, "No dataset answers"),
    ("/elsewhere", 404, "Nothing is at /elsewhere"),
    ("/v1/datasets/markers/clusters?zoom=1&radius=60", 400, "takes no parameter 'radius'"),
    ("/v1/datasets?name=markers", 400, "takes no parameter 'name'"),
  ])
  func errorsAreOneSentenceInJSON(path: String, status: Int, mentions: String) async throws {
    let served = try Served()
    let response = try await client.get(served.base + path)
    #expect(response.status == status, "\(path)")
    let error = try json(response)["error"] as? String
    #expect(error?.contains(mentions) == true && error?.hasSuffix(".") == true, "\(path): \(error ?? "")")
  }

  @Test func methodsOtherThanGETAre405AndManyRequestsAtOnceAllAnswer() async throws {
    let served = try Served()
    let post = try served.raw(
      "POST /v1/resolve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    #expect(post.hasPrefix("HTTP/1.1 200"))  // the batch endpoint
    let put = try served.raw(
      "PUT /v1/resolve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    #expect(put.hasPrefix("HTTP/1.1 405") && put.contains("answers GET, HEAD, POST, OPTIONS, not PUT"))
    let postTile = try served.raw(
      "POST /tiles/markers.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    #expect(postTile.hasPrefix("HTTP/1.1 405"))
    let client = self.client
    let base = served.base
    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for i in 0..<300 {
        group.addTask {
          try await client.get(
            base
              + (i % 2 == 0 ? "/tiles/markers/\(i % 2)/0/0.mvt" : "/v1/resolve?lat=\(i % 80)&lon=\(i % 170)")
          ).status
        }
      }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(statuses.count == 300 && statuses.allSatisfy { $0 == 200 }, "\(Set(statuses))")
    let log = served.log()
    #expect(log.contains("PUT /v1/resolve 405") && log.contains("GET /v1/resolve 200"))
    // Every request is a line of its own, whole, batched or not: `2026-11-24T03:05:06Z info newsatlas: GET …`.
    let requests = log.split(separator: "\n").filter { $0.contains(" info newsatlas: GET ") }
    #expect(requests.filter { $0.contains("GET /tiles/markers/") && $0.contains(" 200 ") }.count == 150)
    #expect(requests.filter { $0.contains("GET /v1/resolve 200 ") }.count == 150)  // the path, not the query
    #expect(
      requests.allSatisfy {
        $0.count > 21 && $0.dropFirst(4).hasPrefix("-") && $0.dropFirst(10).hasPrefix("T")
          && $0.dropFirst(19).hasPrefix("Z info newsatlas: ") && $0.contains(" ms")
      }, "\(requests.prefix(3))")
  }

  static func post(_ path: String, _ body: String) -> String {
    "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
  }

  /// The body of a chunked HTTP/1.1 answer.
  static func dechunked(_ response: String) -> String {
    guard let start = response.range(of: "\r\n\r\n") else { return "" }
    var rest = Substring(response[start.upperBound...])
    var body = ""
    while let lineEnd = rest.range(of: "\r\n"), let size = Int(rest[..<lineEnd.lowerBound], radix: 16),
      size > 0
    {
      let chunkStart = lineEnd.upperBound
      let chunkEnd = rest.utf8.index(chunkStart, offsetBy: size)
      body += rest[chunkStart..<chunkEnd]
      rest = rest[rest.utf8.index(chunkEnd, offsetBy: 2)...]  // "\r\n" is one Character: count bytes
    }
    return body
  }

  /// What the socket holds up to and including the first blank line (an answer's head).
  static func head(_ fd: Int32) -> String {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while !bytes.suffix(4).elementsEqual("\r\n\r\n".utf8), read(fd, &byte, 1) == 1 { bytes.append(byte) }
    return String(decoding: bytes, as: UTF8.self)
  }

  typealias Answer = (status: Int, headers: [String: String], body: String)

  /// The answers of one connection's requests, read by their `Content-Length`: status, headers (names in
  /// lower case) and body; a HEAD's answer has no body.
  static func answers(_ bytes: [UInt8], heads: Set<Int>) -> [Answer] {
    var answers: [Answer] = []
    var rest = bytes[...]
    while let end = rest.indices.first(where: { rest[$0...].starts(with: "\r\n\r\n".utf8) }) {
      let lines = String(decoding: rest[..<end], as: UTF8.self).components(separatedBy: "\r\n")
      var headers: [String: String] = [:]
      for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let value = line[line.index(after: colon)...]
        headers[line[..<colon].lowercased()] = value.trimmingCharacters(in: .whitespaces)
      }
      let length = heads.contains(answers.count) ? 0 : Int(headers["content-length"] ?? "0") ?? 0
      let bodyStart = end + 4
      let bodyEnd = min(bodyStart + length, rest.endIndex)
      let status = lines[0].split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
      answers.append((status, headers, String(decoding: rest[bodyStart..<bodyEnd], as: UTF8.self)))
      rest = rest[bodyEnd...]
    }
    return answers
  }

  /// Requests sent at once on one connection (HTTP/1.1 pipelining) are answered in their order, whichever
  /// of them the direct lane answers on the event loop and whichever go through the router, each with the
  /// same kind of head.
  @Test func pipelinedRequestsAreAnsweredInTheirOrder() throws {
    let served = try Served()
    for first in ["/tiles/markers.json", "/v1/resolve?lat=48.85&lon=2.35"] {
      let requests = [
        ("GET", first), ("GET", "/v1/resolve?lat=40.71&lon=-74.01"), ("HEAD", "/v1/resolve?lat=1&lon=2"),
        ("GET", "/healthz"), ("GET", "/v1/resolve?lat=999&lon=2"), ("GET", "/v1/datasets"),
        ("GET", "/v1/nearest?lat=35.68&lon=139.69&count=2"), ("GET", "/v1/resolve?lat=-33.87&lon=151.21"),
      ]
      var text = ""
      for (index, (method, path)) in requests.enumerated() {
        let closing = index == requests.count - 1 ? "Connection: close\r\n" : ""
        text += "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(closing)\r\n"
      }
      let answers = Self.answers(try served.rawBytes(text), heads: [2])
      try #require(answers.count == requests.count, "\(answers.map(\.status)) for \(first)")
      #expect(answers.map(\.status) == [200, 200, 200, 200, 400, 200, 200, 200])
      #expect(answers[0].body.contains(first.hasPrefix("/tiles") ? "\"tilejson\"" : "\"code\":\"fr\""))
      #expect(answers[1].body.contains("\"code\":\"us\""), "\(answers[1].body)")
      #expect(answers[2].body.isEmpty && answers[2].headers["content-length"] != nil)
      #expect(answers[3].body.contains("\"status\":\"ok\""))
      #expect(answers[4].body.hasPrefix("{\"error\":") && answers[4].body.contains("999"))
      #expect(answers[5].body.contains("\"datasets\""))
      #expect(answers[6].body.contains("\"code\":\"jp\""), "\(answers[6].body)")
      #expect(answers[7].body.contains("\"code\":\"au\""), "\(answers[7].body)")
      for answer in answers {
        #expect(answer.headers["server"] == "newsatlas" && answer.headers["date"]?.hasSuffix(" GMT") == true)
        #expect(answer.headers["content-type"] == "application/json")
      }
    }
    // One request that says Connection: close, answered on the event loop: the answer, then the end of the
    // stream (a read that gives 0), not a connection left open (a read that times out).
    let fd = try served.connect()
    defer { close(fd) }
    var wait = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    Served.send(
      fd, Array("GET /v1/resolve?lat=1&lon=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    var got = 0
    repeat {
      got = read(fd, &chunk, chunk.count)
      if got > 0 { received += chunk[0..<got] }
    } while got > 0
    #expect(got == 0, "the connection was left open")
    #expect(Self.answers(received, heads: []).map(\.status) == [200])
  }

  /// `--cors ORIGIN` puts that origin in every answer, the event loop's, the router's and the errors'; without
  /// it there is none.
  @Test func corsNamesTheOriginGivenOnEveryAnswer() async throws {
    let paths = [
      "/v1/resolve?lat=48.85&lon=2.35", "/v1/resolve?lat=999&lon=2", "/healthz", "/tiles/markers.json",
      "/v1/datasets/nowhere/clusters?zoom=1", "/nowhere",
    ]
    for origin in ["https://maps.example.org", nil] {
      let served = try Served(origin.map { ["--cors", $0] } ?? [])
      for path in paths {
        let response = try await client.get(served.base + path)
        #expect(response.header("access-control-allow-origin") == origin, "\(path) \(response.status)")
      }
    }
  }

  @Test func expectContinueIsMetAndLargeBodiesAnswerAsTheCLIDoes() throws {
    let served = try Served()
    var points = SeededSpherePoints(seed: 31)
    let rows =
      "latitude,longitude\n"
      + (0..<120_000).map { _ in
        let point = points.next()!
        return "\(point.latitude),\(point.longitude)\n"
      }.joined()
    #expect(rows.utf8.count > 3 << 20)  // several of the service's 1 MiB blocks, shared between cores
    let fd = try served.connect()
    defer { close(fd) }
    var timeout = timeval(tv_sec: 60, tv_usec: 0)  // a server that never answers fails the test, not hangs it
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    Served.send(
      fd,
      Array(
        ("POST /v1/resolve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(rows.utf8.count)\r\n"
          + "Expect: 100-continue\r\nConnection: close\r\n\r\n").utf8))
    // The interim answer comes before a byte of the body is sent, as curl waits for it.
    let interim = Self.head(fd)
    #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(interim)")
    Served.send(fd, Array(rows.utf8))
    let response = String(decoding: Served.receiveAll(fd), as: UTF8.self)
    #expect(response.hasPrefix("HTTP/1.1 200"), "\(response.prefix(200))")
    let cli = try CLI.run(["resolve", "--input", "-", "--threads", "1"], stdin: rows)
    #expect(Self.dechunked(response) == cli.stdout)
    #expect(cli.stdout.split(separator: "\n").count == 120_001)
  }

  @Test func batchPostsAnswerAsTheCLIDoes() throws {
    let served = try Served()
    let rows =
      "latitude,longitude\n48.85,2.35\nabc,1\n\n36.75,3.06\r\n"
      + (0..<5000).map { "\(Double($0 % 170) - 85),\(Double($0 % 350) - 175)" }.joined(separator: "\n")
    for (path, cli) in [
      ("/v1/resolve", ["resolve", "--input", "-"]),
      ("/v1/resolve?format=jsonl", ["resolve", "--input", "-", "--format", "jsonl"]),
      ("/v1/nearest", ["nearest", "--input", "-"]),
      (
        "/v1/nearest?format=jsonl&count=3&maxKm=2000",
        ["nearest", "--input", "-", "--format", "jsonl", "--count", "3", "--max-km", "2000"]
      ),
    ] {
      let response = try served.raw(Self.post(path, rows))
      #expect(response.hasPrefix("HTTP/1.1 200"), "\(path)")
      #expect(Self.dechunked(response) == (try CLI.run(cli, stdin: rows)).stdout, "\(path)")
    }
    let binary = Self.dechunked(try served.raw(Self.post("/v1/resolve?format=jsonl", "1,2\n\u{0}\n3,4\n")))
    #expect(
      binary.hasSuffix(
        #"{"line":0,"error":"The request body holds a NUL byte on line 2; it is binary, not latitude,longitude text."}"#
          + "\n"))
    #expect(binary.split(separator: "\n").count == 2)
    let badFormat = try served.raw(Self.post("/v1/resolve?format=xml", "1,2\n"))
    #expect(badFormat.hasPrefix("HTTP/1.1 400") && badFormat.contains("format is csv or jsonl"))
  }

  @Test func aBodyOverTheLimitIs413() throws {
    let served = try Served(["--max-body-mb", "1"])
    let big = String(repeating: "1,2\n", count: 300_000)  // 1.2 MB
    let response = try served.raw(Self.post("/v1/resolve", big))
    #expect(
      response.hasPrefix("HTTP/1.1 413") && response.contains("at most 1048576"), "\(response.prefix(200))")
  }

  /// SIGTERM while a batch body is still arriving: the request finishes, then the server exits 0.
  @Test func sigtermLetsAStreamingPostFinish() throws {
    let served = try Served(["--grace", "60"])
    let fd = try served.connect()
    defer { close(fd) }
    let body = Array(String(repeating: "48.85,2.35\n", count: 50_000).utf8)
    Served.send(
      fd,
      Array(
        "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
          .utf8))
    Served.send(fd, Array(body[..<100_000]))
    var first = [UInt8](repeating: 0, count: 15)
    #expect(
      read(fd, &first, first.count) == 15 && String(decoding: first, as: UTF8.self) == "HTTP/1.1 200 OK")
    served.process.terminate()  // SIGTERM, mid-body
    Served.send(fd, Array(body[100_000...]))
    let answer = Self.dechunked("HTTP/1.1 200 OK" + String(decoding: Served.receiveAll(fd), as: UTF8.self))
    #expect(answer.split(separator: "\n").count == 50_001)  // the header and every row
    #expect(answer.hasSuffix("50000,48.85,2.35,fr,France,inside,fr,245.754529,\n"))
    #expect(served.stop() == 0)
  }

  /// With nothing in flight, SIGTERM stops the server at once, not at the end of --grace (issue 26 item 17: it
  /// took the grace period and 1.5 s more): with no connection, and with an idle keep-alive connection, which
  /// the server closes. The 60 s wait is a guard against a server that waits out its 600 s grace, not a measure.
  @Test func sigtermWithNothingInFlightStopsAtOnce() throws {
    for keepAlive in [false, true] {
      let served = try Served(["--grace", "600"])
      var idle: Int32?
      if keepAlive {
        let fd = try served.connect()
        Served.send(fd, Array("GET /v1/resolve?lat=1&lon=2 HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        var answer = [UInt8](repeating: 0, count: 15)
        #expect(read(fd, &answer, answer.count) == 15)
        idle = fd
      }
      defer { idle.map { _ = close($0) } }
      let exited = DispatchSemaphore(value: 0)
      let process = served.process
      DispatchQueue.global().async {
        process.waitUntilExit()
        exited.signal()
      }
      served.process.terminate()
      let stopped = exited.wait(timeout: .now() + 60) == .success
      #expect(stopped, "still running 60 s after SIGTERM with nothing in flight (keep-alive: \(keepAlive))")
      guard stopped else {
        kill(process.processIdentifier, SIGKILL)  // not 600 s more of a failed test
        continue
      }
      #expect(process.terminationStatus == 0)
      if let idle {
        var rest = [UInt8](repeating: 0, count: 4096)
        while read(idle, &rest, rest.count) > 0 {}  // the rest of the answer, then the close
      }
    }
  }

  /// A client that stalls mid-body cannot keep a stopping server alive past --grace; one that hangs up
  /// mid-request leaves the server answering others; an oversized query string is refused.
  @Test func stalledAndVanishingClientsAndHugeQueries() async throws {
    let served = try Served(["--grace", "1"])
    let vanishing = try served.connect()
    Served.send(
      vanishing, Array("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n1,2\n".utf8))
    close(vanishing)
    let huge = try await client.get(
      served.base + "/v1/resolve?lat=1&lon=2&x=" + String(repeating: "a", count: 100_000))
    #expect((400..<500).contains(huge.status))
    #expect(try await client.get(served.base + "/v1/resolve?lat=1&lon=2").status == 200)
    let stalled = try served.connect()
    defer { close(stalled) }
    Served.send(
      stalled, Array("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n1,2\n".utf8))
    var first = [UInt8](repeating: 0, count: 15)
    #expect(read(stalled, &first, first.count) == 15)
    #expect(served.stop() == 0)  // returns once the grace period is over, the stalled request cut off
  }

  /// A port already taken, or a host that is no address here: one sentence in words, never NIO's call and
  /// errno (`bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)`), and EX_UNAVAILABLE (69).
  @Test func aPortInUseIsOneSentence() throws {
    let served = try Served()
    let port = String(served.base.split(separator: ":").last!)
    // Which sentence the two odd hosts get depends on the machine: an address of a documentation range none of
    // its interfaces has (unless the kernel binds what is not its own), and a name its resolver may answer
    // (some resolvers answer every name) — each case expects what this machine must give.
    let foreign = ["10.255.255.254", "198.51.100.254", "203.0.113.254"].first { !Self.isLocalAddress($0) }!
    let nonlocalBind = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_nonlocal_bind", encoding: .utf8))
    var cases = [
      (["serve", "--port", port], "another program listens on that port (address already in use)")
    ]
    if nonlocalBind?.hasPrefix("0") ?? true {
      cases.append((["serve", "--host", foreign, "--port", "0"], "that is not an address of this machine"))
    }
    if Self.resolves("999.1.1.1") {
      print("999.1.1.1 resolves here: its case is not asked")
    } else {
      cases.append(
        (
          ["serve", "--host", "999.1.1.1", "--port", "0"],
          "that is no address, and no name an address is found for"
        ))
    }
    for (arguments, reason) in cases {
      let result = try CLI.run(arguments)
      #expect(result.status == 69, "\(arguments)")
      #expect(
        result.stderrLines.count == 1 && result.stderr.hasPrefix("newsatlas: Cannot serve on "),
        "\(result.stderr)")
      #expect(result.stderr.contains(reason) && !result.stderr.contains("errno"), "\(result.stderr)")
    }
  }

  /// Whether an interface of this machine has the IPv4 address `text`.
  static func isLocalAddress(_ text: String) -> Bool {
    var wanted = in_addr()
    guard inet_pton(AF_INET, text, &wanted) == 1 else { return false }
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0 else { return true }  // unknown: taken as local, so its case is not asked
    defer { freeifaddrs(list) }
    var entry = list
    while let current = entry {
      if let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) {
        let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        if ipv4.s_addr == wanted.s_addr { return true }
      }
      entry = current.pointee.ifa_next
    }
    return false
  }

  /// Whether the system's resolver gives `name` an address.
  static func resolves(_ name: String) -> Bool {
    var found: UnsafeMutablePointer<addrinfo>?
    defer { if found != nil { freeaddrinfo(found) } }
    return getaddrinfo(name, nil, nil, &found) == 0
  }

  @Test func badServeArgumentsAreUsageErrors() throws {
    for (arguments, mentions) in [
      (["serve", "--points", "no-equals"], "NAME=FILE"),
      (["serve", "--points", "a/b=x.csv"], "A dataset name"),
      (["serve", "--port", "70000"], "--port"), (["serve", "--grace", "-1"], "--grace"),
      (["serve", "--threads", "0"], "--threads is 1 to 256"),
      (["serve", "--tile-cache-mb", "9999999"], "--tile-cache-mb is 0 to"),
      (["serve", "--points", "x=/nonexistent.csv"], "Cannot open"),
      (["serve", "--points", "markers=/dev/null"], "Two datasets are named 'markers'"),
      (["serve", "--points", "x=/dev/null"], "holds no points"),
    ] {
      let result = try CLI.run(arguments)
      #expect(result.status == 64 || result.status == 65, "\(arguments)")
      #expect(result.stderr.contains(mentions), "\(arguments): \(result.stderr)")
    }
  }
}
