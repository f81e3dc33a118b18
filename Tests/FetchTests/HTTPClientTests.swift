import Fetch
import Foundation
import TestSupport
import Testing

/// The libcurl client against a real server on 127.0.0.1: success, every failure kept apart, and cancellation.
@Suite struct HTTPClientTests {
  let server: LocalServer
  let client: HTTPClient

  init() throws {
    server = try LocalServer()
    var configuration = HTTPClientConfiguration()
    configuration.maxResponseBytes = 1 << 20
    configuration.maxRedirects = 3
    configuration.maxConcurrentTransfers = 16
    client = HTTPClient(configuration: configuration)
  }

  @Test func getsABody() async throws {
    let response = try await client.get(server.base + "/ok")
    #expect(response.status == 200)
    #expect(String(decoding: response.body, as: UTF8.self) == "{\"status\":\"ok\"}")
    #expect(response.header("content-type") == "application/json")
  }

  @Test func sendsHeadersNotInTheURL() async throws {
    let response = try await client.get(server.base + "/headers", headers: [("X-Api-Key", "secret-test-key")])
    let echoed = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String]
    #expect(echoed?["x-api-key"] == "secret-test-key")
    #expect(echoed?["accept-encoding"]?.contains("gzip") == true)
  }

  @Test func httpErrorsAreResponsesWithTheirHeaders() async throws {
    let response = try await client.get(server.base + "/status?code=429&retry=7")
    #expect(response.status == 429)
    #expect(response.header("Retry-After") == "7")
  }

  @Test func decompressesGzip() async throws {
    let response = try await client.get(server.base + "/gzip")
    let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
    #expect(body?["compressed"] as? Bool == true)
  }

  @Test func followsRedirectsUpToTheLimit() async throws {
    let response = try await client.get(server.base + "/redirect?n=3")
    #expect(response.status == 200)
    await #expect(throws: HTTPError.tooManyRedirects("127.0.0.1:\(server.port)", limit: 3)) {
      try await client.get(server.base + "/redirect?n=4")
    }
  }

  @Test func redirectsToAnotherHostAreNotFollowed() async throws {
    let twoHosts = try LocalServer(secondHost: true)
    let second = "127.0.0.2:\(twoHosts.secondPort ?? 0)"
    let url = twoHosts.base + "/hop/headers"
    await #expect(
      throws: HTTPError.redirectRefused("127.0.0.1:\(twoHosts.port)", to: "http://\(second)/headers")
    ) {
      try await client.get(url, headers: [("X-Api-Key", "secret-test-key")])
    }
    // The first host saw the key (it is the one it belongs to); the second host saw nothing at all.
    let arrivals = twoHosts.arrivals()
    #expect(arrivals == ["127.0.0.1 /hop/headers 'secret-test-key'"], "\(arrivals)")
    let sentence = HTTPError.redirectRefused("127.0.0.1:\(twoHosts.port)", to: "http://\(second)/headers")
    #expect(sentence.description.contains("http://\(second)/headers") && sentence.description.hasSuffix("."))
    // Within the origin, a redirect is followed and the key goes with it.
    let same = try await client.get(twoHosts.base + "/hop-same/headers", headers: [("X-Api-Key", "k")])
    #expect(same.status == 200 && String(decoding: same.body, as: UTF8.self).contains("\"x-api-key\": \"k\""))
  }

  @Test(arguments: [
    ("X-Api-Key", "abc\r\nX-Injected: 1"), ("X-Api-Key", "abc\nX-Injected: 1"), ("X-Api-Key", "abc\0def"),
    ("X-Injected: 1\r\nX-Api-Key", "abc"), ("", "abc"), ("X Api", "abc"),
  ])
  func headersThatCouldAddHeadersAreRefused(name: String, value: String) async throws {
    await #expect(throws: HTTPError.invalidHeader(name)) {
      try await client.get(server.base + "/headers", headers: [(name, value)])
    }
    #expect(!HTTPError.invalidHeader(name).description.contains("abc"))  // the value is never repeated
    #expect(try server.log().isEmpty)  // nothing was sent
  }

  @Test(arguments: [
    "http://127.0.0.1:1/a b", "http://127.0.0.1:1/a\r\nX-Injected: 1", "http://127.0.0.1:1/\u{1B}[2J",
    "http://",
    "http:///path", "https://user:pw@/x", "http://127.0.0.1:0/", "http://127.0.0.1:65536/", "http://a_b,c/",
  ])
  func urlsThatAreNotHTTPAreRefusedBeforeSending(url: String) async throws {
    await #expect(throws: HTTPError.self) { try await client.get(url) }
    do {
      _ = try await client.get(url)
    } catch {
      guard case .invalidURL = error else {
        Issue.record("\(error)")
        return
      }
      #expect(!error.description.contains("pw"))
      #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 })
    }
  }

  @Test func userInformationNeverAppearsInErrors() async throws {
    let port = LocalServer.closedPort()
    await #expect(throws: HTTPError.connectionRefused("127.0.0.1:\(port)")) {
      try await client.get("http://user:hunter2@127.0.0.1:\(port)/ok")
    }
  }

  /// A client shut down, before its first request (libcurl never opened) or after one, sends nothing more.
  @Test func aShutDownClientSendsNothing() async throws {
    let unused = HTTPClient()
    unused.shutdown()
    await #expect(throws: HTTPError.shutDown) { try await unused.get(server.base + "/ok") }
    _ = try await client.get(server.base + "/ok")
    client.shutdown()
    await #expect(throws: HTTPError.shutDown) { try await client.get(server.base + "/ok") }
    #expect(try server.log().count == 1)
  }

  @Test func refusedConnection() async throws {
    let port = LocalServer.closedPort()
    await #expect(throws: HTTPError.connectionRefused("127.0.0.1:\(port)")) {
      try await client.get("http://127.0.0.1:\(port)/ok")
    }
  }

  @Test func timesOut() async throws {
    await #expect(throws: HTTPError.timedOut("127.0.0.1:\(server.port)", seconds: 0.3)) {
      try await client.get(server.base + "/slow?ms=3000", timeout: .milliseconds(300))
    }
  }

  @Test func refusesTooLargeBodies() async throws {
    await #expect(throws: HTTPError.responseTooLarge("127.0.0.1:\(server.port)", limitBytes: 1 << 20)) {
      try await client.get(server.base + "/big?bytes=\(2 << 20)")
    }
    let fits = try await client.get(server.base + "/big?bytes=\(1 << 19)")
    #expect(fits.body.count == 1 << 19)
  }

  @Test func resetConnection() async throws {
    await #expect(throws: HTTPError.connectionReset("127.0.0.1:\(server.port)")) {
      try await client.get(server.base + "/reset")
    }
  }

  @Test func rejectsOtherSchemes() async throws {
    await #expect(throws: HTTPError.invalidURL("file:///etc/passwd")) {
      try await client.get("file:///etc/passwd")
    }
  }

  /// 40 requests, the first 16 held by the server until all 16 are in flight at once (a barrier, not a delay):
  /// a client that sends fewer at a time (one, or 8) gets 504s, in 20 s, rather than passing.
  @Test func manyConcurrentRequests() async throws {
    let group = UUID().uuidString
    let statuses = try await withThrowingTaskGroup(of: Int.self) { tasks in
      for _ in 0..<40 {
        tasks.addTask { try await client.get(server.base + "/barrier?group=\(group)&n=16").status }
      }
      return try await tasks.reduce(into: []) { $0.append($1) }
    }
    #expect(statuses.count == 40 && statuses.allSatisfy { $0 == 200 }, "\(statuses)")
  }

  @Test func cancellationEndsTheTransfer() async throws {
    // Ten minutes: a starved machine has let a 20-second answer arrive before this test ran again to cancel.
    let task = Task { try await client.get(server.base + "/slow?ms=600000") }
    // Cancel once the request is on its way; the server's counter says when it has arrived. It counts every
    // request, these polls too, so the slow one has arrived when it is above the polls made.
    var polls = 0
    while true {
      let count = try await client.get(server.base + "/count")
      polls += 1
      let requests =
        (try JSONSerialization.jsonObject(with: Data(count.body)) as? [String: Int])?["requests"] ?? 0
      if requests > polls { break }
      await Task.yield()
    }
    task.cancel()
    await #expect(throws: HTTPError.cancelled("127.0.0.1:\(server.port)")) { try await task.value }
  }

  @Test func errorsAreOneSentence() {
    for error in [
      HTTPError.cannotResolveHost("nowhere.invalid"), .connectionRefused("127.0.0.1:9"),
      .timedOut("a", seconds: 1), .tls("a", detail: "certificate expired"),
      .responseTooLarge("a", limitBytes: 5),
    ] {
      #expect(error.description.hasSuffix("."))
      #expect(error.description.filter { $0 == "." }.count >= 1)
    }
  }
}
