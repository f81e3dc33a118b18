import NIOCore
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Synchronization

/// How long `serve` waits on a client before it closes the connection, in seconds.
public struct ConnectionLimits: Sendable, Equatable {
  /// A connection with no request under way (before its first, between two) is closed after this.
  public var idleSeconds: Int
  /// A request's head (request line and headers) must arrive within this, from its first byte.
  public var headerSeconds: Int
  /// A request body must keep coming: at most this between two of its reads.
  public var bodySeconds: Int
  /// An answer must keep going: a client that takes none of it for this long (the socket's buffer full) is
  /// dropped.
  public var sendSeconds: Int
  /// Connections open at once; one more is closed as soon as it is accepted. Kept under the process's limit
  /// of open files: a server out of descriptors (`EMFILE`) has NIO retry its `accept` in a busy loop (its
  /// read stays pending when `accept` fails), a core spent on nothing while every client waits.
  public var maxConnections: Int

  public init(
    idleSeconds: Int = 60, headerSeconds: Int = 10, bodySeconds: Int = 30, sendSeconds: Int = 60,
    maxConnections: Int = 1_000
  ) {
    self.maxConnections = maxConnections
    self.idleSeconds = idleSeconds
    self.headerSeconds = headerSeconds
    self.bodySeconds = bodySeconds
    self.sendSeconds = sendSeconds
  }
}

/// Closes a connection whose client is idle, sends a request's head or body too slowly, or stops taking its
/// answer (`ConnectionLimits`): without it, a client that opens connections and sends nothing, or half a
/// head, holds a file descriptor for ever, and 300 such sockets under `ulimit -n 256` stopped the server.
///
/// It sits in each HTTP/1.1 channel after the HTTP codec and sees request parts; the bytes before a head is
/// whole reach it from `ByteWatcher`, which it puts first in the channel. The timer is lazy: reads and writes
/// only note the time, and the one timer of the connection, when it fires, works out the deadline from the
/// state then and sleeps again until it (so a request costs no timer of its own).
final class ConnectionTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let limits: ConnectionLimits
  private let open: OpenConnections
  private var counted = false
  /// Requests whose head came and whose answer has not been written to the end.
  private var inProgress = 0
  /// Whether a request's body is being read (its head came, its end not yet).
  private var reading = false
  /// When the state that sets the deadline began: the last answer's end or the connection's start (idle),
  /// the first byte of a head (header), the last read of a body (body), the moment the socket filled (send).
  private var idleSince = NIODeadline.now()
  private var headSince: NIODeadline?
  private var lastBodyRead = NIODeadline.now()
  private var unwritableSince: NIODeadline?
  private var timer: Scheduled<Void>?
  private var armedAt: NIODeadline?

  init(_ limits: ConnectionLimits, open: OpenConnections) {
    self.limits = limits
    self.open = open
  }

  func handlerAdded(context: ChannelHandlerContext) {
    let watcher = ByteWatcher { [weak self] in self?.bytesArrived(context: context) }
    try? context.pipeline.syncOperations.addHandler(watcher, position: .first)
    // HTTP/1's rules on versions, connections and Host need the version, which the HTTP types lose.
    if let codec = try? context.pipeline.syncOperations.handler(type: HTTP1ToHTTPServerCodec.self) {
      try? context.pipeline.syncOperations.addHandler(HTTP1Rules(), position: .before(codec))
    }
    if context.channel.isActive { admit(context: context) }
  }

  func channelActive(context: ChannelHandlerContext) {
    context.fireChannelActive()
    admit(context: context)
  }

  /// Counts the connection, or closes it when `maxConnections` are open; arms its timer.
  private func admit(context: ChannelHandlerContext) {
    guard !counted else { return }
    counted = open.enter(limit: limits.maxConnections)
    guard counted else {
      context.close(promise: nil)
      return
    }
    idleSince = .now()
    rearm(context: context)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    timer?.cancel()
    timer = nil
    leave()
  }

  func channelInactive(context: ChannelHandlerContext) {
    timer?.cancel()
    timer = nil
    leave()
    context.fireChannelInactive()
  }

  private func leave() {
    if counted { open.leave() }
    counted = false
  }

  /// Raw bytes came: the first of a head starts its clock.
  private func bytesArrived(context: ChannelHandlerContext) {
    guard !reading, headSince == nil else { return }
    headSince = .now()
    rearm(context: context)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head:
      inProgress += 1
      reading = true
      headSince = nil
      lastBodyRead = .now()
    case .body:
      lastBodyRead = .now()
    case .end:
      reading = false
    }
    if reading { rearm(context: context) }  // the body's clock may end before the one armed
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    if case .end = unwrapOutboundIn(data), inProgress > 0 {
      inProgress -= 1
      if inProgress == 0 {
        idleSince = .now()
        // Bytes of a next head that came while this answer was written start their clock now.
        if headSince != nil { headSince = idleSince }
        rearm(context: context)
      }
    }
    context.write(data, promise: promise)
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    unwritableSince = context.channel.isWritable ? nil : .now()
    if unwritableSince != nil { rearm(context: context) }
    context.fireChannelWritabilityChanged()
  }

  /// When the connection is to be closed as things stand, or nil while nothing bounds it (an answer being
  /// worked out, the socket taking it).
  private func deadline() -> NIODeadline? {
    var earliest: NIODeadline?
    func consider(_ deadline: NIODeadline) { earliest = earliest.map { min($0, deadline) } ?? deadline }
    if let unwritableSince { consider(unwritableSince + .seconds(Int64(limits.sendSeconds))) }
    if reading {
      consider(lastBodyRead + .seconds(Int64(limits.bodySeconds)))
    } else if let headSince, inProgress == 0 {
      consider(headSince + .seconds(Int64(limits.headerSeconds)))
    } else if inProgress == 0 {
      consider(idleSince + .seconds(Int64(limits.idleSeconds)))
    }
    return earliest
  }

  /// Makes sure the timer fires no later than the deadline as things stand.
  private func rearm(context: ChannelHandlerContext) {
    guard let deadline = deadline() else { return }
    if let armedAt, armedAt <= deadline { return }
    timer?.cancel()
    armedAt = deadline
    timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in
      self?.fired(context: context)
    }
  }

  private func fired(context: ChannelHandlerContext) {
    timer = nil
    armedAt = nil
    guard context.channel.isActive else { return }
    guard let deadline = deadline() else { return }  // rearmed when the state next changes
    if deadline <= .now() {
      context.close(promise: nil)
    } else {
      rearm(context: context)
    }
  }
}

/// Tells `ConnectionTimeoutHandler` that bytes came, before the HTTP codec has a whole head of them.
final class ByteWatcher: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  private let arrived: () -> Void

  init(_ arrived: @escaping () -> Void) {
    self.arrived = arrived
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    arrived()
    context.fireChannelRead(data)
  }
}

/// How many connections are open, across the event loops.
final class OpenConnections: Sendable {
  private let count = Atomic<Int>(0)

  /// Counts one more connection, or nothing and false when `limit` are open.
  func enter(limit: Int) -> Bool {
    if count.wrappingAdd(1, ordering: .relaxed).newValue <= limit { return true }
    count.wrappingSubtract(1, ordering: .relaxed)
    return false
  }

  func leave() { count.wrappingSubtract(1, ordering: .relaxed) }
}
