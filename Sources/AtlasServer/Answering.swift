import AtlasMessages
import HTTPTypes
import Hummingbird
import Logging

/// Turns every failure into `{"error":"one sentence"}` with its status, answers GET and HEAD (and POST on the
/// batch paths; 405 otherwise), adds the CORS header, counts the request for `/metrics` and logs one line per
/// request: method, path, status, milliseconds. The router's middleware (`Errors`) answers through it, and so
/// does `DirectLaneHandler`.
struct Answering: Sendable {
  let corsOrigin: String?
  let metrics: Metrics

  /// `route` is the pattern `/metrics` counts the request under (`nil`: no route matched).
  func answer(
    _ request: Request, logger: Logger, route: () -> String?, _ next: () async throws -> Response
  ) async -> Response {
    let start = ContinuousClock.now
    let path = request.uri.path
    var response: Response
    let language = {
      InterfaceLanguage.requested(
        query: Query(target: request.uri.string).get("lang"), acceptLanguage: request.headers[.acceptLanguage]
      )
    }
    if let refusal = refusal(request.method, path: path, language: language) {
      response = refusal.response
    } else {
      do {
        response = try await next()
      } catch {
        if case .notKept(_, let detail) = (error as? Problem)?.unworded { logger.error("\(detail)") }
        response = failure(error, path: path, language: language()).response
      }
      if request.method == .head {  // GET's headers, no body (RFC 9110, 9.3.2), a refusal's too
        // The length GET would send, and nothing written (a HEAD client reads no body).
        response.body = ResponseBody(contentLength: response.body.contentLength) { writer in
          try await writer.finish(nil)
        }
      }
    }
    if request.method == .post, response.status == .ok {
      // A batch POST's answer streams after this returns: its log line and duration wait for the last byte
      // (they said 1.51 ms, the time to the first one, for a 57 ms request).
      if let corsOrigin { response.headers[.accessControlAllowOrigin] = corsOrigin }
      let original = response.body
      let (method, status, route) = (request.method, response.status, route())
      response.body = ResponseBody(contentLength: original.contentLength) { writer in
        defer { record(method, path, status, since: start, route: route, logger) }
        try await original.write(writer)
      }
      return response
    }
    finish(&response.headers, request.method, path, response.status, since: start, route: route(), logger)
    return response
  }

  /// `answer` for a GET of the exact-path route `path`, answered at once in memory, as `DirectLaneHandler`
  /// asks (every route answers GET: there is nothing to refuse).
  func answer(
    get path: String, logger: Logger, language: @autoclosure () -> InterfaceLanguage = .english,
    _ next: () throws -> Reply
  ) -> Reply {
    let start = ContinuousClock.now
    var reply: Reply
    do { reply = try next() } catch { reply = failure(error, path: path, language: language()) }
    finish(&reply.headers, .get, path, reply.status, since: start, route: path, logger)
    return reply
  }

  /// 405 for a method that `path` does not answer, the answer to `OPTIONS` (with `--cors`, a CORS preflight's:
  /// the methods, the request headers a page may send, and how long a browser may keep the answer), or nil.
  private func refusal(
    _ method: HTTPRequest.Method, path: String, language: () -> InterfaceLanguage
  ) -> Reply? {
    let methods = Self.methods(path: path)
    guard method == .options || !methods.contains(method) else { return nil }
    let allowed = (methods.map(\.rawValue) + ["OPTIONS"]).joined(separator: ", ")
    if method == .options {
      var reply = Reply(json: [], status: .noContent)
      reply.headers = [.allow: allowed]
      if corsOrigin != nil {
        reply.headers[.accessControlAllowMethods] = allowed
        reply.headers[.accessControlAllowHeaders] =
          "Content-Type, If-None-Match, Accept-Encoding, Authorization"
        reply.headers[.accessControlMaxAge] = "86400"
        reply.headers[.vary] = "Origin"
      }
      return reply
    }
    var reply = Self.problem(
      .methodNotAllowed, Message.serviceMethodNotAllowed(path.prefix(200), allowed, method, in: language()))
    reply.headers[.allow] = allowed
    reply.headers[.vary] = "Accept-Language"
    return reply
  }

  /// The methods `path` answers, OPTIONS aside: POST on the batch paths, PUT and DELETE on a dataset, POST on
  /// its features, DELETE on one of them; GET and HEAD everywhere else.
  static func methods(path: String) -> [HTTPRequest.Method] {
    if path == "/v1/nearest" || path == "/v1/resolve" { return [.get, .head, .post] }
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    if parts.count >= 4, parts[1] == "v1", parts[2] == "datasets" {
      switch (parts.count, parts.count > 4 ? parts[4] : "") {
      case (4, _): return [.get, .head, .put, .delete]
      case (5, "features"): return [.post]
      case (6, "features"): return [.delete]
      default: break
      }
    }
    return [.get, .head]
  }

  /// Adds the CORS header, counts the request and logs its line.
  private func finish(
    _ headers: inout HTTPFields, _ method: HTTPRequest.Method, _ path: String, _ status: HTTPResponse.Status,
    since start: ContinuousClock.Instant, route: String?, _ logger: Logger
  ) {
    if let corsOrigin { headers[.accessControlAllowOrigin] = corsOrigin }
    record(method, path, status, since: start, route: route, logger)
  }

  /// Counts the request and logs its line, `start` to now.
  private func record(
    _ method: HTTPRequest.Method, _ path: String, _ status: HTTPResponse.Status,
    since start: ContinuousClock.Instant, route: String?, _ logger: Logger
  ) {
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.attoseconds) * 1e-18 + Double(elapsed.components.seconds)
    metrics.record(
      route: route ?? "unmatched", method: method.rawValue, status: status.code, seconds: seconds)
    let hundredths = Int(min(seconds * 1e5, 1e15).rounded())  // of a millisecond
    let milliseconds = "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    logger.info("\(method) \(path.prefix(200)) \(status.code) \(milliseconds) ms")
  }
}

/// `Answering` as the router's middleware, for every route the router resolves.
struct Errors<Context: RequestContext>: RouterMiddleware {
  let answering: Answering

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
    async throws -> Response
  {
    await answering.answer(
      request, logger: context.logger,
      route: { context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } }
    ) { try await next(request, context) }
  }
}
