import GeoFormats
import HTTPTypes
import Hummingbird

/// A request the service refuses, with its status and one sentence.
enum Problem: Error {
  case badParameter(String)
  case notFound(String)
  case unknownDataset(String)
  case tooLarge(String)
  /// Something the server cannot do as started (news without a key).
  case unavailable(String)
  /// The NewsAPI budget (or its rate limit) cannot cover the request now; when it may, in seconds, if known.
  case tooManyRequests(String, retryAfterSeconds: Int?)
  /// An answer over the server's `--max-features`.
  case tooManyFeatures(String)
  /// A body in a format the endpoint does not read.
  case unsupportedMediaType(String)
  /// A write without the write token, or with another (401, with `WWW-Authenticate`).
  case unauthorized(String)
  /// A write to a server whose writes are off (403).
  case forbidden(String)
  /// A write the dataset cannot take (the built-in markers).
  case conflict(String)
  /// The server failed to keep or build what it was given.
  case failed(String)

  var status: HTTPResponse.Status {
    switch self {
    case .badParameter: return .badRequest
    case .tooLarge: return .contentTooLarge
    case .notFound, .unknownDataset: return .notFound
    case .unavailable: return .serviceUnavailable
    case .tooManyRequests: return .tooManyRequests
    case .tooManyFeatures: return .unprocessableContent
    case .unsupportedMediaType: return .unsupportedMediaType
    case .unauthorized: return .unauthorized
    case .forbidden: return .forbidden
    case .conflict: return .conflict
    case .failed: return .internalServerError
    }
  }

  var message: String {
    switch self {
    case .badParameter(let text), .notFound(let text), .tooLarge(let text), .unavailable(let text),
      .tooManyRequests(let text, _), .tooManyFeatures(let text), .unsupportedMediaType(let text),
      .unauthorized(let text), .forbidden(let text), .conflict(let text), .failed(let text):
      return text
    case .unknownDataset(let name):
      return "No dataset is named '\(name.prefix(64))'; /v1/datasets lists them."
    }
  }
}

extension Answering {
  /// The error answer for a failure.
  func failure(_ error: any Error, path: String) -> Reply {
    switch error {
    case let problem as Problem:
      var reply = Self.problem(problem.status, problem.message)
      if case .unavailable = problem { reply.headers[.retryAfter] = "3600" }
      if case .tooManyRequests(_, let seconds?) = problem { reply.headers[.retryAfter] = String(seconds) }
      if case .unauthorized = problem { reply.headers[.wwwAuthenticate] = #"Bearer realm="newsatlas""# }
      return reply
    case let error as HTTPError:
      let message =
        error.status == .notFound
        ? "Nothing is at \(path.prefix(200)); the README lists the endpoints."
        : (error.body ?? "The request failed (\(error.status.code)).")
      return Self.problem(error.status, message)
    default:
      return Self.problem(.internalServerError, "The server failed to answer: \(error).")
    }
  }

  static func problem(_ status: HTTPResponse.Status, _ message: String) -> Reply {
    var writer = JSONWriter()
    writer.object { $0.string("error", message) }
    return Reply(json: writer.bytes + [0x0A], status: status)
  }
}
