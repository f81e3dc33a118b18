import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers a request head that says `Expect: 100-continue` with `100 Continue` at once, so that the client
/// sends its body now instead of after its own timeout: curl waits a second for it before any body over 1 MB,
/// a second of the 2.5–3 s that a 1M-row `POST /v1/resolve` took (RFC 9110, section 10.1.1).
///
/// It sits in each HTTP/1.1 channel after the HTTP codec; the head goes on without the expectation, which it
/// has met.
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundOut = HTTPResponsePart

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard case .head(var head) = unwrapInboundIn(data),
      let expectation = head.headerFields[.expect], expectation.lowercased() == "100-continue"
    else {
      context.fireChannelRead(data)
      return
    }
    head.headerFields[.expect] = nil
    context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
    context.fireChannelRead(wrapInboundOut(.head(head)))
  }
}
