import AtlasMessages
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
  /// Work the server has no room for now (filtered indexes waiting to be built): ask again in so many seconds.
  case busy(String, retryAfterSeconds: Int)
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
  /// The server failed to keep what it was given on its disk: the sentence answered, and the detail (paths,
  /// the system's reason) that only the log gets.
  case notKept(String, detail: String)
  /// A problem (its status, its English) worded in the language its request asks for.
  indirect case worded(Problem, Wording)
  /// A problem whose answer also lists what the request may have meant: `"candidates"`, each an object the
  /// closure writes (the countries a name could be), beside `"error"`.
  indirect case withCandidates(Problem, count: Int, write: @Sendable (inout JSONWriter, Int) -> Void)

  /// `problem`'s status, with the catalogue's `message` as its sentence in every language.
  static func said(
    _ problem: (String) -> Problem, _ message: Message, _ arguments: any CustomStringConvertible...
  )
    -> Problem
  {
    let texts = arguments.map(\.description)
    return .worded(problem(message.text(texts, in: .english)), Wording { message.text(texts, in: $0) })
  }

  /// `problem`'s status, with `sentence` as its sentence in every language.
  static func sentence(_ problem: (String) -> Problem, _ sentence: Sentence) -> Problem {
    .worded(problem(sentence.text(in: .english)), Wording { sentence.text(in: $0) })
  }

  /// The problem under its wording.
  var unworded: Problem {
    if case .worded(let problem, _) = self { return problem.unworded }
    if case .withCandidates(let problem, _, _) = self { return problem.unworded }
    return self
  }

  /// The sentence in `language` (the English of a problem that has no other wording yet).
  func message(in language: InterfaceLanguage) -> String {
    switch self {
    case .worded(_, let wording): return wording.text(language)
    case .withCandidates(let problem, _, _): return problem.message(in: language)
    case .unknownDataset(let name): return Message.serviceUnknownDataset(name.prefix(64), in: language)
    default: return message
    }
  }

  var status: HTTPResponse.Status {
    switch self {
    case .badParameter: return .badRequest
    case .tooLarge: return .contentTooLarge
    case .notFound, .unknownDataset: return .notFound
    case .unavailable, .busy: return .serviceUnavailable
    case .tooManyRequests: return .tooManyRequests
    case .tooManyFeatures: return .unprocessableContent
    case .unsupportedMediaType: return .unsupportedMediaType
    case .unauthorized: return .unauthorized
    case .forbidden: return .forbidden
    case .conflict: return .conflict
    case .failed, .notKept: return .internalServerError
    case .worded(let problem, _), .withCandidates(let problem, _, _): return problem.status
    }
  }

  var message: String {
    switch self {
    case .badParameter(let text), .notFound(let text), .tooLarge(let text), .unavailable(let text),
      .tooManyRequests(let text, _), .tooManyFeatures(let text), .unsupportedMediaType(let text),
      .unauthorized(let text), .forbidden(let text), .conflict(let text), .failed(let text),
      .notKept(let text, _), .busy(let text, _):
      return text
    case .unknownDataset(let name):
      return Message.serviceUnknownDataset(name.prefix(64), in: .english)
    case .worded(let problem, _), .withCandidates(let problem, _, _):
      return problem.message
    }
  }
}

/// A sentence as a function of the language it is said in.
struct Wording: Sendable {
  let text: @Sendable (InterfaceLanguage) -> String
}

extension Answering {
  /// The error answer for a failure, its sentence in `language` (`InterfaceLanguage.requested`), with
  /// `Vary: Accept-Language`: a cache in front must not answer a French reader with an English sentence.
  func failure(_ error: any Error, path: String, language: InterfaceLanguage = .english) -> Reply {
    var reply = sentence(error, path: path, language: language)
    reply.headers[.vary] = "Accept-Language"
    return reply
  }

  private func sentence(_ error: any Error, path: String, language: InterfaceLanguage) -> Reply {
    switch error {
    case let problem as Problem:
      var reply = Self.problem(problem.status, problem.message(in: language))
      if case .withCandidates(_, let count, let write) = problem {
        var writer = JSONWriter()
        writer.object {
          $0.string("error", problem.message(in: language))
          $0.array("candidates", Array(0..<count)) { json, n in write(&json, n) }
        }
        reply = Reply(json: writer.bytes + [0x0A], status: problem.status)
      }
      if case .unavailable = problem.unworded { reply.headers[.retryAfter] = "3600" }
      if case .tooManyRequests(_, let seconds?) = problem.unworded {
        reply.headers[.retryAfter] = String(seconds)
      }
      if case .busy(_, let seconds) = problem.unworded { reply.headers[.retryAfter] = String(seconds) }
      if case .unauthorized = problem.unworded {
        reply.headers[.wwwAuthenticate] = #"Bearer realm="newsatlas""#
      }
      return reply
    case let error as HTTPError:
      let message =
        error.status == .notFound
        ? Message.serviceNothingAt(path.prefix(200), in: language)
        : (error.body ?? Message.serviceRequestFailed(error.status.code, in: language))
      return Self.problem(error.status, message)
    default:
      return Self.problem(
        .internalServerError, Message.serviceFailed(String(describing: error), in: language))
    }
  }

  static func problem(_ status: HTTPResponse.Status, _ message: String) -> Reply {
    var writer = JSONWriter()
    writer.object { $0.string("error", message) }
    return Reply(json: writer.bytes + [0x0A], status: status)
  }
}
