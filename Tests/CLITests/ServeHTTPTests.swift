import Fetch
import Foundation
import TestSupport
import Testing

/// HTTP semantics of `serve` (issue 26): preconditions after the request's own checks, content coding,
/// repeated parameters and CORS preflights, against the running server.
@Suite struct ServeHTTPTests {
  let client = HTTPClient()

  /// One raw request on its own connection, and the whole answer as text (the connection is closed after it).
  func raw(_ served: Served, _ request: String) throws -> String {
    let fd = try served.connect()
    defer { close(fd) }
    Served.send(fd, Array(request.utf8))
    return String(decoding: Served.receiveAll(fd), as: UTF8.self)
  }

  @Test func aBadRequestIsA400BeforeAnyNotModified() async throws {
    let served = try Served()
    let anything = [("If-None-Match", "*")]
    for (path, status) in [
      ("/v1/datasets/markers/clusters?zoom=abc", 400), ("/v1/datasets/markers/clusters", 400),
      ("/v1/datasets/markers/clusters?zoom=1&bbox=1,2", 400),
      ("/v1/datasets/markers/clusters/99999/leaves", 404),
      ("/v1/datasets/markers/clusters/99999/children", 404),
      ("/tiles/markers/40/0/0.mvt", 400), ("/v1/datasets/markers/clusters?zoom=1", 304),
      ("/v1/datasets/markers/clusters/120/leaves", 304),
    ] {
      let answer = try await client.get(served.base + path, headers: anything)
      #expect(answer.status == status, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
    }
  }

  @Test func gzipIsSentOnlyWhereItIsAccepted() async throws {
    let served = try Served()
    for (accept, gzip) in [
      ("gzip;q=0", false), ("GZIP", true), ("gzip; q=0.5", true), ("identity", false), ("*;q=0", false),
      ("br, Gzip;Q=1", true),
    ] {
      // libcurl would decode (and so hide) gzip: raw requests show the header as sent.
      let answer = try raw(
        served,
        "GET /tiles/markers/0/0/0.mvt HTTP/1.1\r\nHost: x\r\nAccept-Encoding: \(accept)\r\nConnection: close\r\n\r\n"
      )
      #expect(answer.lowercased().contains("content-encoding: gzip") == gzip, "\(accept)")
    }
  }

  @Test func aRepeatedParameterIsRefusedNamingIt() async throws {
    let served = try Served()
    for path in [
      "/v1/nearest?lat=48.85&lon=2.35&lat=0", "/v1/resolve?lat=1&lon=2&lon=3",
      "/v1/datasets/markers/clusters?zoom=1&zoom=2",
    ] {
      let answer = try await client.get(served.base + path)
      let body = String(decoding: answer.body, as: UTF8.self)
      #expect(answer.status == 400 && body.contains("is given more than once"), "\(path): \(body)")
    }
    // The same through the router (HEAD is not answered on the event loop).
    let head = try raw(
      served, "HEAD /v1/nearest?lat=1&lon=2&lat=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    #expect(head.hasPrefix("HTTP/1.1 400"), "\(head)")
  }

  @Test func corsPreflightsAreAnswered() throws {
    let served = try Served(["--cors", "https://maps.example.org"])
    let preflight = try raw(
      served,
      "OPTIONS /v1/resolve HTTP/1.1\r\nHost: x\r\nOrigin: https://maps.example.org\r\n"
        + "Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n"
        + "Connection: close\r\n\r\n")
    #expect(preflight.hasPrefix("HTTP/1.1 204"), "\(preflight)")
    for header in [
      "Access-Control-Allow-Origin: https://maps.example.org",
      "Access-Control-Allow-Methods: GET, HEAD, POST",
      "Access-Control-Allow-Headers: Content-Type", "Access-Control-Max-Age: 86400",
    ] {
      #expect(preflight.contains(header), "\(header) in \(preflight)")
    }
    let plain = try Served()
    let options = try raw(plain, "OPTIONS /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    #expect(options.hasPrefix("HTTP/1.1 204") && options.contains("Allow: GET, HEAD, OPTIONS"), "\(options)")
    #expect(!options.contains("Access-Control"))
  }
}

extension ServeHTTPTests {
  /// A streamed batch POST is logged once its answer is all written, with the whole time it took: a client
  /// that reads the 10 MB answer only after half a second is logged at half a second or more (the log said the
  /// time to the first byte before).
  @Test func aStreamedPostIsLoggedWhole() throws {
    let served = try Served()
    let body = String(repeating: "48.85,2.35\n", count: 200_000)
    let fd = try served.connect()
    Served.send(
      fd,
      Array(
        ("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
          + body).utf8))
    var first = [UInt8](repeating: 0, count: 4096)
    #expect(read(fd, &first, first.count) > 0)
    usleep(500_000)  // the client's own pace (not a wait for the server): it reads the rest later
    let rest = Served.receiveAll(fd)
    close(fd)
    #expect(rest.count > 9_000_000)
    let line = try #require(served.log().split(separator: "\n").first { $0.contains("POST /v1/resolve 200") })
    let words = line.split(separator: " ")
    let milliseconds = try #require(words.firstIndex(of: "ms").flatMap { Double(words[$0 - 1]) })
    #expect(milliseconds >= 500, "\(line)")
  }
}

extension ServeHTTPTests {
  /// A JSON body to a batch POST is a 415 naming what the endpoint reads, not a 200 with one failed row.
  @Test func aJSONBodyToABatchIsRefused() throws {
    let served = try Served()
    let body = #"{"lat":1,"lon":2}"#
    for type in ["application/json", "Application/JSON; charset=utf-8", "application/geo+json"] {
      let answer = try raw(
        served,
        "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\n"
          + "Connection: close\r\n\r\n\(body)")
      #expect(answer.hasPrefix("HTTP/1.1 415") && answer.contains("latitude,longitude lines"), "\(answer)")
    }
    let csv = try raw(
      served,
      "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\nContent-Length: 11\r\n"
        + "Connection: close\r\n\r\n48.85,2.35\n")
    #expect(csv.hasPrefix("HTTP/1.1 200") && csv.contains("fr,France"), "\(csv)")
  }
}

/// HTTP/1's rules on versions, connections and Host (issue 26, item 9; RFC 9112, sections 3.2, 9.3, 9.6).
extension ServeHTTPTests {
  /// Reads until the server closes the connection, or until `guardSeconds` pass with nothing read (then
  /// `closed` is false): a guard against a server that keeps the connection open, not a measure of time.
  func receiveUntilClosed(_ fd: Int32, guardSeconds: Int = 20) -> (text: String, closed: Bool) {
    var limit = timeval(tv_sec: guardSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let got = read(fd, &chunk, chunk.count)
      if got == 0 { return (String(decoding: bytes, as: UTF8.self), true) }
      if got < 0 { return (String(decoding: bytes, as: UTF8.self), false) }
      bytes += chunk[0..<got]
    }
  }

  /// Reads one answer with a Content-Length, leaving the connection as it is.
  func receiveOne(_ fd: Int32) throws -> String {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while bytes.suffix(4) != [13, 10, 13, 10] {
      guard read(fd, &byte, 1) == 1 else { throw CocoaError(.fileReadUnknown) }
      bytes.append(byte)
    }
    let head = String(decoding: bytes, as: UTF8.self).lowercased()
    let length = try #require(
      head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }.flatMap {
        Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces))
      })
    var body = [UInt8](repeating: 0, count: length)
    var got = 0
    while got < length {
      let n = body[got...].withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
      guard n > 0 else { throw CocoaError(.fileReadUnknown) }
      got += n
    }
    return String(decoding: bytes + body, as: UTF8.self)
  }

  @Test func anHTTP10RequestIsAnsweredInHTTP10AndItsConnectionClosed() throws {
    let served = try Served()
    // A streamed answer (no Content-Length): an HTTP/1.0 client cannot read chunks, so its end is the close.
    let body = String(repeating: "48.85,2.35\n", count: 1_000)
    let fd = try served.connect()
    defer { close(fd) }
    Served.send(
      fd, Array("POST /v1/resolve HTTP/1.0\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
    let (answer, closed) = receiveUntilClosed(fd)
    #expect(closed, "the connection stayed open after an HTTP/1.0 answer")
    #expect(answer.hasPrefix("HTTP/1.0 200"), "\(answer.prefix(300))")
    #expect(!answer.lowercased().contains("transfer-encoding"), "\(answer.prefix(300))")
    let rows = answer.split(separator: "\r\n\r\n", maxSplits: 1).last?.split(separator: "\n") ?? []
    #expect(rows.count == 1_001 && rows.last?.contains("fr,France") == true, "\(rows.suffix(2))")
  }

  @Test func anHTTP10KeepAliveConnectionIsKeptAndAnsweredAgain() throws {
    let served = try Served()
    let fd = try served.connect()
    defer { close(fd) }
    let ask = "GET /v1/resolve?lat=48.85&lon=2.35 HTTP/1.0\r\n"
    Served.send(fd, Array((ask + "Connection: Keep-Alive\r\n\r\n").utf8))
    let first = try receiveOne(fd)
    #expect(
      first.hasPrefix("HTTP/1.0 200") && first.lowercased().contains("connection: keep-alive"), "\(first)")
    Served.send(fd, Array((ask + "\r\n").utf8))
    let (second, closed) = receiveUntilClosed(fd)
    #expect(second.hasPrefix("HTTP/1.0 200") && second.contains("\"fr\"") && closed, "\(second)")
  }

  @Test func anHTTP11RequestWithoutOneHostIsA400AndClosed() throws {
    let served = try Served()
    for (hosts, sentence) in [("", "names its Host"), ("Host: a\r\nHost: b\r\n", "has 2 Host header fields")]
    {
      let fd = try served.connect()
      defer { close(fd) }
      Served.send(fd, Array("GET /v1/resolve?lat=48.85&lon=2.35 HTTP/1.1\r\n\(hosts)\r\n".utf8))
      let (answer, closed) = receiveUntilClosed(fd)
      #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains(sentence) && closed, "\(answer)")
    }
    // Behind an answered request on the same connection, the refusal waits for that answer.
    let fd = try served.connect()
    defer { close(fd) }
    Served.send(
      fd,
      Array(
        ("GET /v1/resolve?lat=48.85&lon=2.35 HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /v1/resolve?lat=1&lon=2 HTTP/1.1\r\n\r\n").utf8))
    let (answers, closed) = receiveUntilClosed(fd)
    #expect(answers.hasPrefix("HTTP/1.1 200") && answers.contains("\"fr\"") && closed, "\(answers)")
    #expect(
      answers.components(separatedBy: "HTTP/1.1 200 ").count == 2
        && answers.components(separatedBy: "HTTP/1.1 400 ").count == 2, "\(answers)")
  }

  @Test func connectionCloseInAnyCaseClosesAfterItsAnswer() throws {
    let served = try Served()
    let fd = try served.connect()
    defer { close(fd) }
    Served.send(
      fd,
      Array(
        ("GET /v1/resolve?lat=48.85&lon=2.35 HTTP/1.1\r\nHost: x\r\nConnection: TE, Close\r\n\r\n"
          + "GET /v1/resolve?lat=1&lon=2 HTTP/1.1\r\nHost: x\r\n\r\n").utf8))
    let (answers, closed) = receiveUntilClosed(fd)
    #expect(closed && answers.components(separatedBy: "HTTP/1.1 200").count == 2, "\(answers)")
    #expect(answers.lowercased().contains("connection: close"), "\(answers)")
  }

  @Test func tileJSONForAnHTTP10RequestWithoutHostNamesTheAddressAndPort() throws {
    let served = try Served()
    let answer = try raw(served, "GET /tiles/markers.json HTTP/1.0\r\n\r\n")
    let port = try #require(served.base.split(separator: ":").last)
    #expect(answer.contains("\"http://127.0.0.1:\(port)/tiles/markers/{z}/{x}/{y}.mvt\""), "\(answer)")
  }
}
