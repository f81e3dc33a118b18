import AtlasMessages
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTPTypes

/// What `DirectLaneHandler` shares between connections: the service's direct routes, its `Answering`, the
/// logger and the `Server` header Hummingbird is given.
struct DirectLane: Sendable {
  /// A route of an exact path that answers a request target (`/v1/resolve?lat=…`) from memory; `isSmall`
  /// says whether a target's answer is small enough to build on the event loop (a `GET /v1/nearest` with a
  /// large `count` is not: while it is built, no other connection of that loop is read).
  typealias Route = (
    path: String, answer: @Sendable (String) throws -> Reply, isSmall: @Sendable (String) -> Bool
  )

  let routes: [Route]
  let answering: Answering
  let logger: Logger
  let serverName: String
  let date = HTTPDate()

  /// The route whose path is the target's path byte for byte (the bytes before any `?`) when its answer is
  /// small, or nil: any other spelling of a path (percent-encoded, absolute-form), and any large answer, is the
  /// router's, which answers it off the event loop.
  func route(_ target: String) -> Route? {
    let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
    return routes.first { $0.path == path && $0.isSmall(target) }
  }
}

/// Answers a GET of one of the service's direct routes (`/healthz`, `/v1/nearest`, `/v1/resolve`) on the
/// connection's event loop as soon as the request is read, through the routes' own handlers and the same
/// `Answering` as the router; every other request goes on to Hummingbird, which hands each request to a task
/// and its answer back through two async sequences. Under 64 connections a `GET /v1/resolve` cost the server
/// 41 µs of CPU time through Hummingbird's responder, 28 µs here (Benchmarks/README.md).
///
/// It sits in each HTTP/1.1 channel after the HTTP codec. Answers leave in the order their requests came
/// (HTTP/1.1 pipelining): while a request passed on is unanswered, every request is passed on. So is every
/// request once the server is shutting down (Hummingbird's connection handler, next in the channel, closes
/// the connection after the answers it knows of), and every request while the client does not read what
/// it was sent (Hummingbird then waits for it).
final class DirectLaneHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let lane: DirectLane
  /// Requests passed on whose answers have not been written to the end.
  private var passedOn = 0
  /// The request being answered here, between its head and its end.
  private var taken: (head: HTTPRequest, route: DirectLane.Route)?
  private var quiescing = false
  /// Whether answers were written since the last flush, and whether a flush is on its way.
  private var unflushed = false
  private var flushScheduled = false
  private var removed = false

  init(_ lane: DirectLane) {
    self.lane = lane
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      if passedOn == 0, !quiescing, head.method == .get, context.channel.isWritable,
        let route = head.path.flatMap(lane.route)
      {
        taken = (head, route)
        return
      }
      passedOn += 1
    case .body:
      if taken != nil { return }  // a GET's body, which the routes do not read
    case .end:
      if let (head, route) = taken {
        taken = nil
        answer(head, route, context: context)
        return
      }
    }
    context.fireChannelRead(data)
  }

  /// Flushes what was written once the event loop has read every connection that was ready, not after each:
  /// under load one wakeup of the loop then answers many connections, and the client's side wakes once for
  /// many answers. Flushed at the end of each read, a `GET /v1/resolve` under 64 connections cost the server
  /// 43–47 µs of CPU time instead of 28, its threads switched out 0.5 times per request instead of 0.34.
  func channelReadComplete(context: ChannelHandlerContext) {
    if unflushed && !flushScheduled {
      flushScheduled = true
      context.eventLoop.assumeIsolated().execute {
        self.flushScheduled = false
        guard self.unflushed && !self.removed else { return }
        self.unflushed = false
        context.flush()
      }
    }
    context.fireChannelReadComplete()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    removed = true
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    if case .end = unwrapOutboundIn(data), passedOn > 0 { passedOn -= 1 }
    context.write(data, promise: promise)
  }

  /// When the server begins to stop, the answers written are flushed first: Hummingbird's handler, next in
  /// the channel, closes an idle connection at once, and a close drops what was not flushed.
  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is ChannelShouldQuiesceEvent {
      quiescing = true
      if unflushed {
        unflushed = false
        context.flush()
      }
    }
    context.fireUserInboundEventTriggered(event)
  }

  /// Writes the route's answer with the headers Hummingbird would give it (`Content-Length`, `Date`,
  /// `Server`), and closes the connection after it when the request says `Connection: close`.
  private func answer(_ head: HTTPRequest, _ route: DirectLane.Route, context: ChannelHandlerContext) {
    var logger = lane.logger
    logger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())  // as Hummingbird's requests
    let reply = lane.answering.answer(
      get: route.path, logger: logger,
      language: InterfaceLanguage.requested(
        query: Query(target: head.path ?? "").get("lang"), acceptLanguage: head.headerFields[.acceptLanguage])
    ) { try route.answer(head.path ?? "") }
    var fields = reply.headers
    fields[.contentLength] = String(reply.body.readableBytes)
    fields[.date] = lane.date.text()
    fields[.server] = lane.serverName
    context.write(
      wrapOutboundOut(.head(HTTPResponse(status: reply.status, headerFields: fields))), promise: nil)
    context.write(wrapOutboundOut(.body(reply.body)), promise: nil)
    let closing = head.headerFields[.connection].map {
      $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }
    }
    if closing == true {
      context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
      context.close(promise: nil)
    } else {
      context.write(wrapOutboundOut(.end(nil)), promise: nil)
      unflushed = true
    }
  }
}
