import AtlasMessages
import NIOCore
import NIOHTTP1

/// What HTTP/1.x asks of a server about versions, connections and `Host` that the HTTP types below it cannot
/// see, since they carry no version: an HTTP/1.0 request is answered as HTTP/1.0 (its body framed by the
/// connection's close, never chunked, which an HTTP/1.0 client cannot read) and its connection closed after
/// the answer unless it asked for `keep-alive`; a request saying `Connection: close` (in any case, among
/// other tokens) has its connection closed after its answer; an HTTP/1.1 request with no `Host`, or any request
/// with more than one, is answered 400 and its connection closed (RFC 9112, sections 3.2, 9.3 and 9.6).
///
/// It sits between NIO's HTTP/1 codec and the conversion to HTTP types (`ConnectionTimeoutHandler` puts it
/// there), and keeps, for requests answered in order on one connection (pipelined), what each asked for.
/// A request after one that closes the connection is dropped unread, as the connection will not answer it.
final class HTTP1Rules: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias InboundOut = HTTPServerRequestPart
  typealias OutboundIn = HTTPServerResponsePart
  typealias OutboundOut = HTTPServerResponsePart

  /// What one request passed on asked of its answer.
  private struct Asked {
    var version: HTTPVersion
    /// Whether the connection is to close after the answer.
    var close: Bool
  }

  /// Requests passed on whose answer has not ended, oldest first.
  private var asked: [Asked] = []
  /// The reason for a 400 to write once the answers before it have ended, with the version to write it in.
  private var refusal: (version: HTTPVersion, sentence: String)?
  /// Whether the parts of the request being read are dropped (a refused request, or any after a closing one).
  private var dropping = false
  /// Whether a request that closes the connection has been passed on: nothing after it is.
  private var closing = false

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let part = unwrapInboundIn(data)
    guard case .head(var head) = part else {
      if !dropping { context.fireChannelRead(data) }
      if case .end = part { dropping = false }
      return
    }
    guard !closing, refusal == nil else {
      dropping = true
      return
    }
    let hosts = head.headers["host"].count
    if hosts > 1 || (hosts == 0 && !Self.older(head.version)) {
      dropping = true
      let language = InterfaceLanguage.requested(
        query: Query(target: head.uri).get("lang"), acceptLanguage: head.headers["accept-language"].first)
      refusal = (
        Self.older(head.version) ? head.version : .http1_1,
        hosts > 1
          ? Message.serviceHostTwice(hosts, in: language) : Message.serviceHostMissing(in: language)
      )
      if asked.isEmpty { refuse(context: context) }
      return
    }
    let tokens = Self.tokens(head.headers["connection"])
    let close = tokens.contains("close") || (Self.older(head.version) && !tokens.contains("keep-alive"))
    if Self.older(head.version), hosts == 0, let address = context.channel.localAddress,
      let port = address.port, let ip = address.ipAddress
    {
      // An HTTP/1.0 client may leave Host out; the URLs the service builds (TileJSON's) then name the
      // address and port it connected to.
      head.headers.add(name: "host", value: address.protocol == .inet6 ? "[\(ip)]:\(port)" : "\(ip):\(port)")
    }
    asked.append(Asked(version: head.version, close: close))
    if close { closing = true }
    context.fireChannelRead(wrapInboundOut(.head(head)))
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    guard !asked.isEmpty else {
      context.write(data, promise: promise)
      return
    }
    switch unwrapOutboundIn(data) {
    case .head(var head):
      let interim = head.status.code < 200
      if Self.older(asked[0].version) {
        // An HTTP/1.0 client reads no interim answer (RFC 9110, section 15.2).
        if interim {
          promise?.succeed(())
          return
        }
        head.version = asked[0].version
        if !asked[0].close && !head.headers.contains(name: "content-length") {
          asked[0].close = true  // its end is the connection's close
          closing = true
        }
      }
      if !interim {
        if Self.tokens(head.headers["connection"]).contains("close") {
          asked[0].close = true
          closing = true
        }
        head.headers.remove(name: "connection")
        if asked[0].close {
          head.headers.add(name: "Connection", value: "close")
        } else if Self.older(asked[0].version) {
          head.headers.add(name: "Connection", value: "keep-alive")
        }
      }
      context.write(wrapOutboundOut(.head(head)), promise: promise)
    case .body:
      context.write(data, promise: promise)
    case .end:
      let done = asked.removeFirst()
      if done.close {
        let written = promise ?? context.eventLoop.makePromise()
        context.writeAndFlush(data, promise: written)
        written.futureResult.whenComplete { _ in context.close(promise: nil) }
      } else {
        context.write(data, promise: promise)
        if asked.isEmpty, refusal != nil { refuse(context: context) }
      }
    }
  }

  /// Writes the 400 waiting in `refusal` and closes the connection after it.
  private func refuse(context: ChannelHandlerContext) {
    guard let refusal else { return }
    // The service's error answer, written where every other one is; its fields as HTTP/1 headers.
    let reply = Answering.problem(.badRequest, refusal.sentence)
    var headers = HTTPHeaders(reply.headers.map { ($0.name.rawName, $0.value) })
    headers.add(name: "Content-Length", value: String(reply.body.readableBytes))
    headers.add(name: "Connection", value: "close")
    context.write(
      wrapOutboundOut(
        .head(HTTPResponseHead(version: refusal.version, status: .badRequest, headers: headers))),
      promise: nil)
    context.write(wrapOutboundOut(.body(.byteBuffer(reply.body))), promise: nil)
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
  }

  /// Whether a request or answer is older than HTTP/1.1 (one whose connection closes unless kept alive).
  private static func older(_ version: HTTPVersion) -> Bool {
    version.major < 1 || (version.major == 1 && version.minor < 1)
  }

  /// A Connection header's tokens, lowercased (they are case-insensitive; RFC 9110, section 7.6.1).
  private static func tokens(_ values: [String]) -> [String] {
    // A token holds no white space, so all of it around the commas can go.
    values.flatMap { $0.split(separator: ",") }.map {
      String($0.filter { $0 != " " && $0 != "\t" }).lowercased()
    }
  }
}
