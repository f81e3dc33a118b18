import GeoFormats
import HTTPTypes
import Hummingbird
import NIOCore

/// A JSON response.
func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
  Reply(json: bytes, status: status).response
}

/// Made once: a dictionary literal of fields is built again at every response otherwise.
private let jsonHeaders: HTTPFields = [.contentType: "application/json"]

/// An answer whole in memory: what every handler but the streamed and the news ones returns, and every error.
/// `DirectLaneHandler` writes it as it is; the router sends it as a `Response` (which adds its
/// `Content-Length`, 0 for an empty body, as for a `Response` made without one).
struct Reply: Sendable {
  var status: HTTPResponse.Status
  var headers: HTTPFields
  var body: ByteBuffer

  init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: ByteBuffer = ByteBuffer()) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  init(json bytes: [UInt8], status: HTTPResponse.Status = .ok) {
    self.init(status: status, headers: jsonHeaders, body: ByteBuffer(bytes: bytes))
  }

  init(json body: ByteBuffer, status: HTTPResponse.Status = .ok) {
    self.init(status: status, headers: jsonHeaders, body: body)
  }

  /// A text answer of `type` (`text/html; charset=utf-8`).
  init(text: String, type: String) {
    self.init(status: .ok, headers: [.contentType: type], body: ByteBuffer(string: text))
  }

  var response: Response { Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body)) }
}

/// Numbers as JSON text.
enum Format {
  static func number(_ value: Double) -> String {
    var writer = JSONWriter()
    writer.number(value)
    return String(decoding: writer.bytes, as: UTF8.self)
  }
}
