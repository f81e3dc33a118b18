import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension AtlasService {
  /// 304 with no body when `If-None-Match` names the dataset's tag (or `*`), compared weakly (RFC 9110,
  /// 13.1.2): the tag is the same for the gzipped and the plain bytes, so it is a weak one; nil otherwise.
  func notModified(_ request: ParsedRequest, _ dataset: Dataset) -> Reply? {
    guard let header = request.headers[.ifNoneMatch] else { return nil }
    let opaque = dataset.entityTag
    let matches = header.split(separator: ",").contains { item in
      let tag = item.trimmingCharacters(in: .whitespaces)
      return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == opaque
    }
    guard matches else { return nil }
    return validated(Reply(status: .notModified), dataset)
  }

  /// The answer with the dataset's validator and the caching policy.
  func validated(_ reply: Reply, _ dataset: Dataset) -> Reply {
    var reply = reply
    reply.headers[.eTag] = "W/" + dataset.entityTag
    reply.headers[.cacheControl] = cacheControl(dataset)
    reply.headers[.vary] = "Accept-Encoding"
    return reply
  }

  /// Whether an Accept-Encoding value names gzip (or `*`) with a quality above 0 (RFC 9110, 12.5.3).
  static func acceptsGzip(_ header: String) -> Bool {
    header.split(separator: ",").contains { item in
      let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else {
        return false
      }
      let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
      return quality > 0
    }
  }

  /// JSON gzipped when the client accepts gzip and the body is worth it (over 256 bytes).
  func compressed(json bytes: [UInt8], for request: ParsedRequest) -> Reply {
    let (body, gzipped) = Self.body(bytes, gzip: request.acceptsGzip)
    var reply = Reply(json: body)
    reply.headers[.vary] = "Accept-Encoding"
    if gzipped { reply.headers[.contentEncoding] = "gzip" }
    return reply
  }

  /// The body for `bytes`: gzipped when the client accepts gzip and the bytes are worth it.
  static func body(_ bytes: [UInt8], gzip: Bool) -> (body: ByteBuffer, gzipped: Bool) {
    var buffer = ByteBuffer(bytes: bytes)
    guard gzip, worthGzipping(byteCount: bytes.count), let gzipped = try? buffer.compress(with: .gzip())
    else {
      return (buffer, false)
    }
    return (gzipped, true)
  }

  /// Over 256 bytes: below that, gzip's 18 bytes of framing and a deflate block save little or nothing.
  static func worthGzipping(byteCount: Int) -> Bool { byteCount > 256 }
}
