import AtlasServer
import FuzzDriver
import GeoFormats
import GeoIndex
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded

#if canImport(Glibc)
  import Glibc
#endif

/// One request to `serve`'s router, in process: the request target (path and query) and body as a client
/// could send them. The first byte picks the method and two request headers (`If-None-Match: *`,
/// `Accept-Encoding: gzip`); the bytes up to the first newline are the target, the rest the body.
///
/// Beyond "no crash, hang or leak": the server itself never fails (no 5xx but `/v1/headlines`' documented 503
/// when news is off), every refusal is `{"error":"one sentence."}`, every JSON answer parses, and a 304 only
/// answers a request that asked for one. (A HEAD answer's body is dropped by the HTTP layer, not the router.)
func fuzzServe(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size >= 1 else { return 0 }
  let bytes = UnsafeBufferPointer(start: data + 1, count: size - 1)
  let selector = Int(data[0])
  let methods: [HTTPRequest.Method] = [.get, .get, .head, .post, .options, .delete]
  let method = methods[selector % methods.count]
  let conditional = selector & 0x40 != 0
  let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
  let target = String(decoding: bytes[..<newline], as: UTF8.self)
  let body = newline < bytes.endIndex ? Array(bytes[(newline + 1)...]) : []

  var head = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:8080", path: target)
  if conditional { head.headerFields[.ifNoneMatch] = "*" }
  // Plain answers only, so that JSON can be read back; gzip is the tile tests' concern.
  head.headerFields[.acceptEncoding] = "identity"
  var buffer = ByteBuffer()
  buffer.writeBytes(body)
  let request = Request(head: head, body: RequestBody(buffer: buffer))

  let (status, headers, answer) = Serve.respond(request)

  if status.code >= 500 {
    // The router reads a path by its non-empty components, so `/v1//headlines` is the headlines route too.
    let components = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
    let newsOff = status.code == 503 && components == ["v1", "headlines"]
    check(newsOff, "\(method) \(target): \(status.code) \(String(decoding: answer, as: UTF8.self))")
  }
  if status.code == 304 {
    // Not modified only where the same request, unconditional, succeeds (200, or 204 for an empty tile, which
    // has an ETag too): a bad query is a 400 first.
    check(conditional, "\(method) \(target): 304 unasked")
    var plain = head
    plain.headerFields[.ifNoneMatch] = nil
    let unconditional = Serve.respond(Request(head: plain, body: RequestBody(buffer: ByteBuffer()))).0
    check(unconditional == .ok || unconditional == .noContent, "\(method) \(target): 304, but \(unconditional.code) without If-None-Match")
  }
  let type = headers[.contentType] ?? ""
  if method != .head, type.hasPrefix("application/json") || type.hasPrefix("application/geo+json"),
    status.code != 204, status.code != 304
  {
    let parsed: JSONValue
    do {
      parsed = try JSONParser.parse(answer)
    } catch {
      // A batch POST streams JSON Lines, not one document.
      check(method == .post, "\(method) \(target): \(status.code), JSON that is not: \(error)")
      return 0
    }
    if status.code >= 400 {
      guard case .object(let members) = parsed, members.count == 1,
        case .string(let sentence)? = members.first(where: { $0.key == "error" })?.value
      else { fatalError(printable("\(method) \(target): \(status.code) without {\"error\":…}")) }
      check(
        !sentence.isEmpty && (sentence.hasSuffix(".") || sentence.hasSuffix("?")),
        "\(method) \(target): \(status.code) '\(sentence)' is not a sentence")
    }
  }
  return 0
}

/// A check whose message an optimised build still prints (`precondition`'s is dropped under -O).
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError(printable(message())) }
}

/// The message with its control characters escaped: `fatalError` stops at a NUL, and the request that failed
/// is the part that matters.
func printable(_ message: String) -> String {
  message.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? $0.escaped(asASCII: true) : String($0) }
    .joined()
}

/// The service over the 54 markers and a small dataset with properties, and its router's responder.
enum Serve {
  static let responder: RouterResponder<BasicRequestContext> = {
    let csv =
      "latitude,longitude,name,n\n48.85,2.35,Paris,1\n48.85,2.35,Paris again,2\n-33.87,151.21,Sydney,3\n"
      + "90,0,North Pole,4\n-90,180,South Pole,5\n0,179.999,East,6\n0,-180,West,7\n"
    let file = try! FeatureFile.parse(Array(csv.utf8), name: "places.csv")
    let markers = try! Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: [])
    let places = try! Dataset(name: "places", file: file, options: ClusterOptions(), aggregations: [])
    let service = AtlasService(datasets: [markers, places], corsOrigin: "https://example.org")
    return service.router().buildResponder()
  }()
  static let channel = EmbeddedChannel()
  static let logger = Logger(label: "fuzz-serve") { _ in SwiftLogNoOpLogHandler() }

  /// The router's answer to one request, its body read whole (a fuzz input is small).
  static func respond(_ request: Request) -> (HTTPResponse.Status, HTTPFields, [UInt8]) {
    let done = Completion()
    let context = BasicRequestContext(
      source: ApplicationRequestContextSource(channel: channel, logger: logger))
    Task {
      let response: Response
      do {
        response = try await responder.respond(to: request, context: context)
      } catch let error as HTTPResponseError {
        // Hummingbird's own refusals (a route not found, a method not allowed) before our middleware.
        done.set(error.status, [:], [])
        return
      } catch {
        fatalError(printable("\(request.method) \(request.uri): the router threw \(error)"))
      }
      let collector = Collector()
      try? await response.body.write(collector)
      done.set(response.status, response.headers, collector.box.bytes)
    }
    return done.wait()
  }
}

/// A response body, collected.
struct Collector: ResponseBodyWriter {
  final class Box { var bytes: [UInt8] = [] }
  let box = Box()
  mutating func write(_ buffer: ByteBuffer) async throws { box.bytes += buffer.readableBytesView }
  consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// One answer handed from the task that computed it to the fuzzer's thread.
final class Completion: @unchecked Sendable {
  private var mutex = pthread_mutex_t()
  private var condition = pthread_cond_t()
  private var value: (HTTPResponse.Status, HTTPFields, [UInt8])?
  init() {
    pthread_mutex_init(&mutex, nil)
    pthread_cond_init(&condition, nil)
  }
  func set(_ status: HTTPResponse.Status, _ headers: HTTPFields, _ bytes: [UInt8]) {
    pthread_mutex_lock(&mutex)
    value = (status, headers, bytes)
    pthread_cond_signal(&condition)
    pthread_mutex_unlock(&mutex)
  }
  func wait() -> (HTTPResponse.Status, HTTPFields, [UInt8]) {
    pthread_mutex_lock(&mutex)
    while value == nil { pthread_cond_wait(&condition, &mutex) }
    let result = value!
    pthread_mutex_unlock(&mutex)
    return result
  }
}

@main enum Main {
  static func main() {
    // Built before the first input, so that what the service keeps for its lifetime is not read as a leak.
    _ = Serve.responder
    runFuzzer { data, size in fuzzServe(data, size) }
  }
}
