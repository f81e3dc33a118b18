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

/// Datasets written over HTTP (issue 30 item 1): the write token, names, bodies, what is kept on disk, swaps
/// that readers never see half done, coalesced builds, a crash in the middle of a PUT.
@Suite struct ServeWritesTests {
  static let token = "0123456789abcdef-write-token"
  static let bearer = [("Authorization", "Bearer \(token)")]

  /// A FeatureCollection of `count` points one degree apart, each with `"v": version` and an id.
  static func collection(
    _ count: Int, version: Int, idPrefix: String = "p", category: (Int) -> String = { _ in "a" }
  )
    -> String
  {
    let features = (0..<count).map { i in
      #"{"type":"Feature","id":"\#(idPrefix)\#(i)","properties":{"v":\#(version),"category":"\#(category(i))"},"#
        + #""geometry":{"type":"Point","coordinates":[\#(-170 + Double(i % 300)),\#(-60 + Double(i / 300))]}}"#
    }
    return #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
  }

  /// A service that keeps its datasets in `directory`, with the test's token (or none).
  static func service(
    _ directory: String, token: String? = ServeWritesTests.token, expecting expected: [String] = []
  ) throws -> AtlasService {
    let markers = try Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: [])
    let kept = AtlasService.keptDatasets(
      directory: directory, options: ClusterOptions(), aggregations: [], warn: { line in
        // A start's informational lines (a tail kept aside, a journal moved aside) only where a test expects them.
        if !expected.contains(where: { line.contains($0) }) { Issue.record("\(line)") }
      })
    return AtlasService(datasets: [markers] + kept, writeToken: token, datasetsDirectory: directory)
  }

  struct Answer {
    let status: Int
    let body: String
    let headers: HTTPFields
    var json: [String: Any] {
      (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:]
    }
  }

  static func send(
    _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ body: String = "",
    headers: [(String, String)] = bearer
  ) async throws -> Answer {
    var fields = HTTPFields()
    for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
    let answer = try await client.execute(
      uri: uri, method: method, headers: fields, body: body.isEmpty ? nil : ByteBuffer(string: body))
    return Answer(status: Int(answer.status.code), body: String(buffer: answer.body), headers: answer.headers)
  }

  /// Without a token the write routes are off (403 and how to turn them on); without the header, with another
  /// scheme, another token, a prefix of it or a longer one, 401 with WWW-Authenticate; the token is in no
  /// answer, and nothing was written.
  @Test func writesNeedTheToken() async throws {
    let scratch = try ScratchDirectory()
    let off = try Self.service(scratch.path, token: nil)
    try await Application(router: off.router()).test(.router) { client in
      for (method, uri) in [
        (HTTPRequest.Method.put, "/v1/datasets/live"), (.post, "/v1/datasets/live/features"),
        (.delete, "/v1/datasets/live/features/1"), (.delete, "/v1/datasets/live"),
      ] {
        let answer = try await Self.send(client, method, uri, Self.collection(2, version: 1))
        #expect(answer.status == 403, "\(method) \(uri)")
        #expect(answer.body.contains("--write-token-file") && answer.body.contains("NEWSATLAS_WRITE_TOKEN"))
        #expect(!answer.body.contains(Self.token))
      }
    }
    let on = try Self.service(scratch.path)
    try await Application(router: on.router()).test(.router) { client in
      for headers in [
        [], [("Authorization", "Basic \(Self.token)")],
        [("Authorization", "Bearer wrong-token-of-some-length")],
        [("Authorization", "Bearer \(Self.token.dropLast())")], [("Authorization", "Bearer \(Self.token)x")],
        [("Authorization", "Bearer ")], [("Authorization", "Bearer\(Self.token)")],
      ] {
        let answer = try await Self.send(
          client, .put, "/v1/datasets/live", Self.collection(2, version: 1), headers: headers)
        #expect(answer.status == 401, "\(headers)")
        #expect(answer.headers[.wwwAuthenticate] == #"Bearer realm="newsatlas""#)
        #expect(!answer.body.contains(Self.token) && answer.body.hasSuffix(".\"}\n"), "\(answer.body)")
      }
      #expect(try await Self.send(client, .get, "/v1/datasets/live").status == 404)
      let lower = try await Self.send(
        client, .put, "/v1/datasets/live", Self.collection(2, version: 1),
        headers: [("Authorization", "bearer \(Self.token)")])
      #expect(lower.status == 201)
      let metrics = try await Self.send(client, .get, "/metrics")
      #expect(!metrics.body.contains(Self.token))
    }
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["live.geojson"])
  }

  /// Names that are not a dataset's (a path, dots, a NUL, too long) are one 400 sentence, and no file is made
  /// outside the folder (or in it); the built-in markers are 409.
  @Test(arguments: [
    "..", "..%2F..%2Fescaped", "%2E%2E", "a.b", "a%00b", "a%2Fb", String(repeating: "n", count: 65),
    "caf%C3%A9",
  ])
  func namesThatAreNotOneAre400(name: String) async throws {
    let parent = try ScratchDirectory()
    let directory = parent.path + "/datasets"
    let service = try Self.service(directory)
    try await Application(router: service.router()).test(.router) { client in
      let answer = try await Self.send(client, .put, "/v1/datasets/\(name)", Self.collection(2, version: 1))
      if answer.status != 404 {  // a '/' the router reads as one (a route that is not there) is also refused
        #expect(answer.status == 400, "\(name): \(answer.body)")
        #expect(answer.body.contains("A dataset name is letters, digits, '-' and '_'"), "\(answer.body)")
      }
      let markers = try await Self.send(client, .put, "/v1/datasets/markers", Self.collection(2, version: 1))
      #expect(markers.status == 409)
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path).allSatisfy { $0 == "datasets" })
    #expect((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] == [])
  }

  /// A body that is not a FeatureCollection (nor CSV) is a 400 with the reader's sentence, the dataset served
  /// before is still served, unchanged, and nothing is left in the folder but its file.
  @Test func aBodyThatIsNotAFeatureCollectionIsRefused() async throws {
    let scratch = try ScratchDirectory()
    let service = try Self.service(scratch.path)
    try await Application(router: service.router()).test(.router) { client in
      let first = try await Self.send(client, .put, "/v1/datasets/live", Self.collection(5, version: 1))
      #expect(first.status == 201)
      for (body, type, mentions) in [
        ("[1,2]", "application/json", "FeatureCollection"),
        (#"{"type":"Feature","properties":{},"geometry":null}"#, "application/geo+json", "FeatureCollection"),
        (#"{"type":"FeatureCollection"}"#, "application/json", "it needs"),
        (
          #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point"}}]}"#,
          "application/json", "coordinates"
        ),
        (#"{"type":"FeatureCollection","features":[1,"#, "application/json", "not an object"),
        ("latitude,longitude\n91,0\n", "text/csv", "latitude"),
        ("hello\n", "text/plain", "latitude and longitude"),
        ("a,b\n1,2\n", "application/json", "FeatureCollection"),
      ] {
        let answer = try await Self.send(
          client, .put, "/v1/datasets/live", body, headers: Self.bearer + [("Content-Type", type)])
        #expect(answer.status == 400, "\(body): \(answer.body)")
        #expect(answer.body.contains(mentions) && answer.body.hasSuffix(".\"}\n"), "\(body): \(answer.body)")
        let added = try await Self.send(
          client, .post, "/v1/datasets/live/features", body, headers: Self.bearer + [("Content-Type", type)])
        #expect(added.status == 400, "\(body): \(added.body)")
      }
      let now = try await Self.send(client, .get, "/v1/datasets/live")
      #expect(now.json["version"] as? Int == 1 && now.json["featureCount"] as? Int == 5)
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["live.geojson"])
  }

  /// PUT creates (201) and replaces (200), POST adds, DELETE removes a feature by id and then the dataset; each
  /// change is a new version, validator and tile, on disk before its answer: a new service over the folder
  /// serves the same, at the same version; the filtered cache follows the dataset (a filter asked before a change answers after it
  /// from the new features).
  @Test func changesAreServedAndKept() async throws {
    let scratch = try ScratchDirectory()
    let service = try Self.service(scratch.path)
    let filter = queryEscaped(#"["==",["get","category"],"b"]"#)
    let lastEntry = try await Application(router: service.router()).test(.router) { client in
      let created = try await Self.send(
        client, .put, "/v1/datasets/live", Self.collection(10, version: 1) { $0 < 3 ? "b" : "a" })
      #expect(created.status == 201 && created.json["version"] as? Int == 1)
      #expect(created.headers[.location] == "/v1/datasets/live")
      let tile1 = try await Self.send(client, .get, "/tiles/live/0/0/0.geojson")
      let filtered1 = try await Self.send(client, .get, "/v1/datasets/live/clusters?zoom=16&filter=\(filter)")
      #expect(filtered1.body.components(separatedBy: "\"Feature\"").count - 1 == 3)

      let replaced = try await Self.send(
        client, .put, "/v1/datasets/live", Self.collection(8, version: 2) { $0 < 5 ? "b" : "a" })
      #expect(replaced.status == 200 && replaced.json["version"] as? Int == 2)
      #expect(replaced.headers[.eTag] != created.headers[.eTag])
      let tile2 = try await Self.send(client, .get, "/tiles/live/0/0/0.geojson")
      #expect(tile2.body != tile1.body && tile2.headers[.eTag] == replaced.headers[.eTag])
      let filtered2 = try await Self.send(client, .get, "/v1/datasets/live/clusters?zoom=16&filter=\(filter)")
      #expect(filtered2.body.components(separatedBy: "\"Feature\"").count - 1 == 5, "\(filtered2.body)")
      #expect(!filtered2.body.contains(#""v":1"#))
      // The first version's filtered index was let go when the second was served.
      #expect(
        try await Self.send(client, .get, "/metrics").body.contains("newsatlas_filter_cache_indexes 1\n"))

      let added = try await Self.send(
        client, .post, "/v1/datasets/live/features", Self.collection(2, version: 3, idPrefix: "q"))
      #expect(
        added.status == 200 && added.json["featureCount"] as? Int == 10 && added.json["version"] as? Int == 3)
      let removed = try await Self.send(client, .delete, "/v1/datasets/live/features/p3")
      #expect(removed.status == 200 && removed.json["featureCount"] as? Int == 9)
      let again = try await Self.send(client, .delete, "/v1/datasets/live/features/p3")
      #expect(again.status == 404 && again.body.contains("'p3'"))
      let leaves = try await Self.send(client, .get, "/v1/datasets/live/clusters?zoom=17")
      #expect(leaves.body.contains(#""id":"q1""#) && !leaves.body.contains(#""id":"p3""#))
      let listed = try await Self.send(client, .get, "/v1/datasets")
      #expect(listed.body.contains(#""name":"live","version":4"#))
      let metrics = try await Self.send(client, .get, "/metrics").body
      #expect(metrics.contains("newsatlas_dataset_writes_total 4"))
      #expect(metrics.contains("newsatlas_dataset_build_seconds_count 4"))
      return try await Self.send(client, .get, "/v1/datasets/live").body
    }
    // A restart: the folder alone gives the same features, at the same version and content hash.
    let restarted = try Self.service(scratch.path)
    try await Application(router: restarted.router()).test(.router) { client in
      let entry = try await Self.send(client, .get, "/v1/datasets/live")
      #expect(
        entry.json["featureCount"] as? Int == 9
          && entry.body.replacing(/"buildMilliseconds":[0-9.]+/, with: "")
            == lastEntry.replacing(/"buildMilliseconds":[0-9.]+/, with: "")
      )
      let gone = try await Self.send(client, .delete, "/v1/datasets/live")
      #expect(gone.status == 204)
      #expect(try await Self.send(client, .get, "/v1/datasets/live").status == 404)
      #expect(
        try await Self.send(client, .post, "/v1/datasets/live/features", Self.collection(1, version: 1))
          .status == 404)
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == [])
  }

  /// Many adds at once, each one feature: none is lost (every id is served at the end), and they were applied
  /// in fewer builds than writes when they arrived during a build (coalesced, each write still answered after
  /// the build that holds it).
  @Test func concurrentAddsAreCoalescedAndNoneIsLost() async throws {
    let scratch = try ScratchDirectory()
    let service = try Self.service(scratch.path)
    try await Application(router: service.router()).test(.router) { client in
      #expect(
        try await Self.send(client, .put, "/v1/datasets/live", Self.collection(20_000, version: 0)).status
          == 201)
      let count = 40
      let versions = try await withThrowingTaskGroup(of: Int.self) { group in
        for i in 0..<count {
          group.addTask {
            let answer = try await Self.send(
              client, .post, "/v1/datasets/live/features",
              Self.collection(1, version: 1, idPrefix: "add\(i)-"))
            #expect(answer.status == 200, "\(answer.body)")
            return answer.json["version"] as? Int ?? 0
          }
        }
        return try await group.reduce(into: [Int]()) { $0.append($1) }
      }
      let entry = try await Self.send(client, .get, "/v1/datasets/live")
      #expect(entry.json["featureCount"] as? Int == 20_000 + count)
      let builds = (entry.json["version"] as? Int ?? 0) - 1
      #expect(builds < count, "\(count) adds took \(builds) builds")
      #expect(versions.allSatisfy { $0 >= 2 && $0 <= builds + 1 })
      let all = try await Self.send(client, .get, "/v1/datasets/live/clusters?zoom=17&bbox=-171,-61,180,-50")
      for i in 0..<count { #expect(all.body.contains(#""id":"add\#(i)-0""#), "add\(i)") }
    }
  }

  /// A write's refusals are whole sentences in the request's language: a parameter to a write (which takes
  /// none) says so (it read "…; it takes ."), and a body that cannot be read is named in the answer's language
  /// (it was 'the body' in French answers too).
  @Test func aWritesRefusalsAreSentencesInTheRequestsLanguage() async throws {
    let scratch = try ScratchDirectory()
    try await Application(router: try Self.service(scratch.path).router()).test(.router) { client in
      let query = try await Self.send(client, .put, "/v1/datasets/live?x=1", Self.collection(3, version: 1))
      #expect(
        query.status == 400
          && query.body.hasPrefix(#"{"error":"This endpoint takes no parameter 'x'; it takes none."}"#),
        "\(query.body)")
      let french = try await Self.send(
        client, .put, "/v1/datasets/live?x=1&lang=fr", Self.collection(3, version: 1))
      #expect(french.body.contains("il n'en prend aucun."), "\(french.body)")
      let csv = "lat,lon\n91,0\n"
      let english = try await Self.send(client, .put, "/v1/datasets/live", csv)
      #expect(
        english.status == 400 && english.body.contains("Line 2 of 'the request body'"), "\(english.body)")
      let inFrench = try await Self.send(client, .put, "/v1/datasets/live?lang=fr", csv)
      #expect(
        inFrench.status == 400 && inFrench.body.contains("Ligne 2 de 'le corps de la requête'"),
        "\(inFrench.body)")
    }
  }
}

/// The same through `newsatlas serve` itself: readers beside writers, a SIGKILL in the middle of a PUT, the
/// token file's permissions.
@Suite struct ServeWritesProcessTests {
  static let token = ServeWritesTests.token

  static func put(_ served: Served, _ path: String, _ body: String, method: String = "PUT") throws -> String {
    try served.raw(
      "\(method) \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n"
        + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
  }

  /// Readers asking while a writer replaces the dataset 12 times: every answer is a 200 from one version whole
  /// (version k has 19 + k points, each with "v": k; a half-built index or a mix would show), each version has
  /// one validator, and the readers saw the first version and the last.
  @Test func readersNeverSeeAnErrorOrAMixOfVersions() async throws {
    let data = try ScratchDirectory()
    let served = try Served(
      ["--no-news", "--datasets-dir", data.path], environment: ["NEWSATLAS_WRITE_TOKEN": Self.token])
    defer { _ = served.stop() }
    #expect(
      try Self.put(served, "/v1/datasets/live", ServeWritesTests.collection(20, version: 1)).hasPrefix(
        "HTTP/1.1 201"))
    let writes = 12
    let writerDone = ManagedAtomicFlag()
    let readersStarted = ManagedAtomicCounter()
    let writer = Thread {
      while readersStarted.value < 4 { usleep(1000) }  // every reader has answered once
      for k in 2...(writes + 1) {
        let answer =
          (try? Self.put(served, "/v1/datasets/live", ServeWritesTests.collection(19 + k, version: k))) ?? ""
        if !answer.hasPrefix("HTTP/1.1 200") { Issue.record("PUT \(k): \(answer.prefix(300))") }
      }
      writerDone.set()
    }
    writer.start()
    let client = HTTPClient()
    let seen = try await withThrowingTaskGroup(of: [Int: Set<String>].self) { group in
      for reader in 0..<4 {
        group.addTask {
          var tags: [Int: Set<String>] = [:]
          var last = false
          var first = true
          while !last {
            last = writerDone.isSet  // one more read after the writer is done: the last version
            let path = "/v1/datasets/live/clusters?zoom=\(reader % 2 == 0 ? 16 : 12)"
            let answer = try await client.get(served.base + path)
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self).prefix(200))")
            let text = String(decoding: answer.body, as: UTF8.self)
            let versions = text.matches(of: /"v":([0-9]+)/).map { Int($0.1)! }
            let k = versions.first ?? -1
            #expect(versions.allSatisfy { $0 == k }, "a mix of versions: \(Set(versions))")
            #expect(versions.count == 19 + k, "version \(k) answered \(versions.count) points")
            tags[k, default: []].insert(answer.header("etag") ?? "")
            if first {
              first = false
              readersStarted.increment()
            }
          }
          return tags
        }
      }
      return try await group.reduce(into: [Int: Set<String>]()) { all, tags in
        all.merge(tags) { $0.union($1) }
      }
    }
    #expect(seen.keys.contains(1) && seen.keys.contains(writes + 1), "\(seen.keys.sorted())")
    #expect(seen.values.allSatisfy { $0.count == 1 }, "\(seen)")
    client.shutdown()
  }

  /// SIGKILL while a PUT's body is arriving (its temporary file half written): after a restart the dataset
  /// written before is served whole, and the temporary file is gone.
  @Test func aSigkillDuringAPutLeavesThePreviousDatasetWhole() async throws {
    let data = try ScratchDirectory()
    let environment = ["NEWSATLAS_WRITE_TOKEN": Self.token]
    let before: (entry: String, clusters: [UInt8])
    let client = HTTPClient()
    defer { client.shutdown() }
    do {
      let served = try Served(["--no-news", "--datasets-dir", data.path], environment: environment)
      defer { _ = served.stop() }
      #expect(
        try Self.put(served, "/v1/datasets/live", ServeWritesTests.collection(500, version: 1)).hasPrefix(
          "HTTP/1.1 201"))
      before = (
        String(decoding: try await client.get(served.base + "/v1/datasets/live").body, as: UTF8.self),
        try await client.get(served.base + "/v1/datasets/live/clusters?zoom=3").body
      )
      let body = Array(ServeWritesTests.collection(20_000, version: 2).utf8)
      let fd = try served.connect()
      defer { close(fd) }
      Served.send(
        fd,
        Array(
          ("PUT /v1/datasets/live HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.token)\r\n"
            + "Content-Length: \(body.count)\r\n\r\n").utf8))
      Served.send(fd, Array(body[..<(body.count / 2)]))
      // Wait (on the file, not the clock) until the upload is being written, then kill the server.
      let guardUntil = ContinuousClock.now + .seconds(60)
      var upload: String? = nil
      while upload == nil && ContinuousClock.now < guardUntil {
        upload = try FileManager.default.contentsOfDirectory(atPath: data.path).first {
          $0.contains(".tmp-")
            && ((try? FileManager.default.attributesOfItem(atPath: data.path + "/" + $0)[.size] as? Int) ?? 0)
              > 0
        }
        if upload == nil { usleep(2000) }
      }
      #expect(upload != nil, "the upload never reached the folder")
      kill(served.process.processIdentifier, SIGKILL)
      served.process.waitUntilExit()
      #expect(served.process.terminationReason == .uncaughtSignal)
    }
    let restarted = try Served(["--no-news", "--datasets-dir", data.path])
    defer { _ = restarted.stop() }
    let entry = String(
      decoding: try await client.get(restarted.base + "/v1/datasets/live").body, as: UTF8.self)
    let clusters = try await client.get(restarted.base + "/v1/datasets/live/clusters?zoom=3").body
    func facts(_ entry: String) -> String { entry.replacing(/"buildMilliseconds":[0-9.]+/, with: "") }
    #expect(facts(entry) == facts(before.entry))
    #expect(entry.contains(#""featureCount":500"#))
    #expect(clusters == before.clusters)
    // The upload's temporary file is gone; the lock a writing server holds on the folder stays (DatasetsFolder).
    #expect(try FileManager.default.contentsOfDirectory(atPath: data.path).sorted() == [".serve.lock", "live.geojson"])
  }

  /// A CSV file given with `--points` is typed as a written CSV body is (a field that is a JSON number as written
  /// is a number, any other a string, left out of a sum): its first write keeps it as GeoJSON, and a restart after
  /// that write serves the same properties, sums and ETags as before the restart.
  @Test func aGivenCSVIsServedAsBeforeAfterAWriteAndARestart() async throws {
    let data = try ScratchDirectory()
    let given = try ScratchFile(
      named: "live.csv",
      contents: "name,lat,lon,seats,code\na,48.85,2.35,10,007\nb,48.86,2.36,4.5,12\nc,48.87,2.37, 3,x\n")
    defer { given.remove() }
    let arguments = [
      "--no-news", "--points", "live=\(given.path)", "--sum", "seats", "--datasets-dir", data.path,
    ]
    let environment = ["NEWSATLAS_WRITE_TOKEN": Self.token]
    let paths = [
      "/v1/datasets/live/clusters?zoom=0", "/v1/datasets/live/clusters?zoom=17", "/tiles/live/0/0/0.geojson",
      "/tiles/live/0/0/0.mvt",
    ]
    let client = HTTPClient()
    defer { client.shutdown() }
    func answers(_ served: Served) async throws -> [String] {
      var answers: [String] = []
      for path in paths {
        let answer = try await client.get(served.base + path)
        let body =
          path.hasSuffix(".mvt")
          ? Data(answer.body).base64EncodedString() : String(decoding: answer.body, as: UTF8.self)
        answers.append("\(path) \(answer.status) \(answer.header("etag") ?? "") \(body)")
      }
      return answers
    }
    let before: [String]
    do {
      let served = try Served(arguments, environment: environment)
      defer { _ = served.stop() }
      let given = try await client.get(served.base + paths[0])
      #expect(String(decoding: given.body, as: UTF8.self).contains(#""seats":14.5"#))  // " 3" is a string
      let post = "name,lat,lon,seats,code\nd,48.88,2.38,-2e1,1e3\n"
      let answer = try served.raw(
        "POST /v1/datasets/live/features HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.token)\r\n"
          + "Content-Type: text/csv\r\nContent-Length: \(post.utf8.count)\r\nConnection: close\r\n\r\n\(post)"
      )
      #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
      before = try await answers(served)
      let clusters = String(decoding: try await client.get(served.base + paths[1]).body, as: UTF8.self)
      #expect(
        clusters.contains(#""seats":10,"code":"007""#) && clusters.contains(#""code":1e3"#), "\(clusters)")
    }
    #expect(before[0].contains(#""seats":-5.5"#), "\(before[0])")  // 10 + 4.5 - 20
    let restarted = try Served(arguments, environment: environment)
    defer { _ = restarted.stop() }
    let after = try await answers(restarted)
    for (a, b) in zip(before, after) { #expect(a == b) }
  }

  /// The token and the datasets folder are checked before a table is read: a missing token file is its
  /// sentence (64), not the unreachable database's (69), and a folder another server holds is said before a
  /// connection is tried.
  @Test func cheapRefusalsComeBeforeTheDatabase() throws {
    let scratch = try ScratchDirectory()
    let table = ["serve", "--port", "0", "--no-news", "--postgres", "postgres://u:hunter22@127.0.0.1:1/x",
      "--table", "places"]
    let missing = try CLI.run(table + ["--write-token-file", scratch.path + "/nowhere"])
    #expect(missing.status == 64 && missing.stderrLines.count == 1, "\(missing.stderr)")
    #expect(missing.stderr.contains("Cannot read the write token file") && !missing.stderr.contains("PostgreSQL"))
    let folder = scratch.path + "/file"
    try Data("x".utf8).write(to: URL(fileURLWithPath: folder))
    let notFolder = try CLI.run(table + ["--datasets-dir", folder])
    #expect(notFolder.status == 64 && !notFolder.stderr.contains("PostgreSQL"), "\(notFolder.stderr)")
  }

  /// A token file others can read is refused (78) without its text in the message; a short token too (64);
  /// a file only its owner reads turns writes on.
  @Test func theTokenFileMustBeTheOwnersAlone() throws {
    let scratch = try ScratchDirectory()
    let file = scratch.path + "/token"
    try Data((Self.token + "\n").utf8).write(to: URL(fileURLWithPath: file))
    chmod(file, 0o644)
    let data = scratch.path + "/data"
    // An address no machine has: were the file taken, serve would stop there (69), not serve on.
    let nowhere = ["serve", "--host", "256.0.0.1", "--port", "0", "--no-news", "--datasets-dir", data]
    let open = try CLI.run(nowhere + ["--write-token-file", file])
    #expect(open.status == 78 && open.stderr.contains("chmod 600") && !open.stderr.contains(Self.token))
    let short = try CLI.run(nowhere, environment: ["NEWSATLAS_WRITE_TOKEN": "short"])
    #expect(short.status == 64 && short.stderr.contains("16 to 1024") && !short.stderr.contains("short'"))
    chmod(file, 0o600)
    let served = try Served(["--no-news", "--write-token-file", file, "--datasets-dir", data])
    defer { _ = served.stop() }
    #expect(
      try Self.put(served, "/v1/datasets/live", ServeWritesTests.collection(3, version: 1)).hasPrefix(
        "HTTP/1.1 201"))
    var status = stat()
    #expect(stat(data + "/live.geojson", &status) == 0 && status.st_mode & 0o077 == 0)
    #expect(!served.log().contains(Self.token))
  }
}

/// A flag and a counter shared by a test's threads and tasks.
final class ManagedAtomicFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var flag = false
  var isSet: Bool { lock.withLock { flag } }
  func set() { lock.withLock { flag = true } }
}

final class ManagedAtomicCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  var value: Int { lock.withLock { count } }
  func increment() { lock.withLock { count += 1 } }
}
