import HTTPTypes
import Hummingbird

/// A request as the service's handlers read it: the target as sent (`/path?query`, whose query each handler
/// checks with `allow`), the route's path parameters and the header fields. A handler is a function of it
/// that returns a `Reply` (no Hummingbird `Request` inside), called alike by the router and by tests.
struct ParsedRequest: Sendable {
  /// The request target, `/path?query`, as sent.
  var target: String
  /// The route's path parameters (`name`, `id`, `z`, `x`, `file`), as the router matched them.
  var parameters: Parameters
  var headers: HTTPFields
  /// The target's authority (the `Host` header's value), if any.
  var authority: String?

  init(target: String, parameters: Parameters = [:], headers: HTTPFields = [:], authority: String? = nil) {
    self.target = target
    self.parameters = parameters
    self.headers = headers
    self.authority = authority
  }

  /// What the router matched: the request's target, head and path parameters.
  init(_ request: Request, _ context: some RequestContext) {
    self.init(
      target: request.uri.string, parameters: context.parameters, headers: request.headers,
      authority: request.head.authority)
  }

  /// Whether the client accepts a gzipped answer.
  var acceptsGzip: Bool { headers[.acceptEncoding].map(AtlasService.acceptsGzip) ?? false }
}
