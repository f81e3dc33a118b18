import AtlasMessages
import Fetch
import Foundation

/// Why a news provider's call (NewsAPI's, GDELT's, a feed's) gave no answer, each with one sentence a user can
/// act on. The key never appears here.
public enum NewsAPIError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No key was given.
  case missingKey
  /// The request was refused before sending: an impossible combination or value.
  case invalidRequest(Sentence)
  /// A NewsAPI source id the sources list does not hold (as typed), and the nearest ids it does (three at
  /// most): refused before sending, as `invalidRequest` is. Each front end says where to find an id
  /// (`unknownSourceSentence(_:nearest:service:)`): the command line's `sources`, the service's route.
  case unknownSource(id: String, nearest: [String])
  /// The network failed before an HTTP response arrived.
  case transport(HTTPError)
  /// The service answered `{"status":"error"}`: its HTTP status, code (kept even when unknown) and message.
  case service(status: Int, code: String, message: String, retryAfterSeconds: Int?)
  /// The service answered something that is not NewsAPI JSON (a proxy's HTML page, say).
  case unexpectedResponse(status: Int, answer: ServiceAnswer)
  /// Offline, and the cache holds no answer to this request.
  case notCached(Sentence)
  /// Sending would go past the plan's budget; `--force` sends anyway.
  case budgetSpent(QuotaUsage)
  /// A headlines plan needs more requests than the budget has left; `--force` sends anyway.
  case planOverBudget(requests: Int, usage: QuotaUsage)
  /// The cache, which counts every request against the budget, could not count this one (another process
  /// holds it locked, a full disk): nothing was sent.
  case cacheUnavailable(String, reason: String)
  /// A feed's server answered with a status other than 2xx (`reason` nil), or a 2xx whose body is not a feed
  /// NewsAtlas reads (`reason`: the parser's sentence). `url` has no user information.
  case feed(url: String, status: Int, reason: Sentence?)
  /// GDELT did not answer with its JSON: its HTTP status and what it answered instead (it answers a bad query,
  /// or a client that asks too often, with a 200 and a line of plain text).
  case gdelt(status: Int, answer: ServiceAnswer)
  /// GDELT's next turn is `seconds` away, further than the call waits (`limit` seconds): nothing was sent.
  case gdeltTurnTooFar(seconds: Int, limit: Int)

  /// Whether GDELT's status, or the kind of line it answered, says the client asks too often.
  var isGDELTRateLimit: Bool {
    guard case .gdelt(let status, let answer) = self else { return false }
    if case .tooFast = answer { return true }
    return status == 429
  }

  /// The service refused the key itself (`apiKeyInvalid`, `apiKeyDisabled`, `apiKeyMissing`): a new key
  /// helps, waiting does not.
  public var isKeyRejected: Bool {
    if case .service(_, let code, _, _) = self {
      return ["apiKeyInvalid", "apiKeyDisabled", "apiKeyMissing"].contains(code)
    }
    return false
  }

  /// The failure's family, for scripts to branch on: `transport` (no HTTP answer), `http` (an answer that is
  /// not NewsAPI's), `service` (NewsAPI's own error), `quota` (its rate limit or our budget), `auth` (no key, or
  /// a rejected one), `decoding` (a 200 that is not its JSON), `offline` (not in the cache), `request` (refused
  /// before sending).
  public var kind: String {
    switch self {
    case .missingKey: return "auth"
    case .invalidRequest, .unknownSource: return "request"
    case .transport: return "transport"
    case .service: return isQuota ? "quota" : isKeyRejected ? "auth" : "service"
    case .unexpectedResponse(let status, _): return status == 200 ? "decoding" : "http"
    case .notCached: return "offline"
    case .budgetSpent, .planOverBudget, .cacheUnavailable, .gdeltTurnTooFar: return "quota"
    case .feed(_, let status, _): return (200..<300).contains(status) ? "decoding" : "http"
    case .gdelt(let status, let answer):
      if isGDELTRateLimit { return "quota" }
      guard status == 200 else { return "http" }
      switch answer {
      case .said, .tooFast: return "service"
      case .empty, .begins: return "decoding"
      }
    }
  }

  /// The HTTP status the service answered with, where there was an answer.
  public var httpStatus: Int? {
    switch self {
    case .service(let status, _, _, _), .unexpectedResponse(let status, _), .feed(_, let status, _),
      .gdelt(let status, _):
      return status
    default: return nil
    }
  }

  /// NewsAPI's error code (`rateLimited`, `apiKeyInvalid`, ...), where the service gave one.
  public var serviceCode: String? {
    if case .service(_, let code, _, _) = self { return code }
    return nil
  }

  /// Whether the request was refused before sending (`kind` `request`): an impossible value or combination,
  /// or a source id the sources list does not hold.
  public var isInvalidRequest: Bool { kind == "request" }

  /// Whether this is the quota or rate limit, which waiting fixes.
  public var isQuota: Bool {
    if case .service(let status, let code, _, _) = self {
      return status == 429 || code == "rateLimited" || code == "apiKeyExhausted"
    }
    if case .budgetSpent = self { return true }
    if case .planOverBudget = self { return true }
    if case .cacheUnavailable = self { return true }
    if case .gdeltTurnTooFar = self { return true }
    return isGDELTRateLimit
  }

  /// Whole seconds until trying again may succeed, where that is known: the service's `Retry-After`, or when
  /// our budget frees up (for an HTTP client's `Retry-After`).
  public var retryAfterSeconds: Int? {
    switch self {
    case .service(_, _, _, let retryAfter): return retryAfter
    case .budgetSpent(let usage), .planOverBudget(_, let usage):
      return usage.nextFreeAt.map { max(1, Int($0.timeIntervalSinceNow.rounded(.up))) }
    case .cacheUnavailable: return 5
    case .gdeltTurnTooFar(let seconds, _): return max(1, seconds)
    default: return nil
    }
  }

  /// Whether our own budget (not the service) refused: a command line can then offer `--force` and
  /// `--dry-run`, an HTTP client only waiting.
  public var isOwnBudget: Bool {
    switch self {
    case .budgetSpent, .planOverBudget: return true
    default: return false
    }
  }

  /// The sentence in English, with any control character from the service's code or message made printable.
  public var description: String { description(in: .english) }

  /// The sentence in `language`, with any control character from the service's code or message made printable.
  public func description(in language: InterfaceLanguage) -> String { printable(sentence(language)) }

  private func sentence(_ language: InterfaceLanguage) -> String {
    func closed(_ text: String) -> String { text.hasSuffix(".") ? text : text + "." }
    switch self {
    case .missingKey:
      return Message.missingKey(in: language)
    case .invalidRequest(let reason):
      return reason.text(in: language)
    case .unknownSource(let id, let nearest):
      return Self.unknownSourceSentence(id, nearest: nearest).text(in: language)
    case .transport(let error):
      return error.sentence.text(in: language)
    case .service(let status, let code, let message, let retryAfter):
      if isQuota {
        return closed(Message.quotaUsedUp(code, message, in: language))
          + (retryAfter.map { Message.tryAgainIn($0, in: language) } ?? Message.freePlanAllows(in: language))
      }
      if status == 426 { return closed(Message.beyondPlan(code, message, in: language)) }
      if code.hasPrefix("apiKey") { return closed(Message.keyNotAccepted(code, message, in: language)) }
      return closed(Message.serviceAnswered(status, code, message, in: language))
    case .unexpectedResponse(let status, let answer):
      return Message.notItsJSON(status, answer.text(in: language), in: language)
    case .notCached(let what):
      return Message.notCached(what.text(in: language), in: language)
    case .budgetSpent(let usage):
      return Message.budgetSpent(
        usage.lastDay, usage.dailyBudget, usage.lastHalfDay, usage.halfDayBudget, in: language)
        + Self.whenFree(usage, language)
    case .planOverBudget(let requests, let usage):
      let left = max(0, min(usage.dailyBudget - usage.lastDay, usage.halfDayBudget - usage.lastHalfDay))
      let needed =
        requests == 1 ? Message.planOneRequest(in: language) : Message.planRequests(requests, in: language)
      return Message.planOverBudget(
        needed, left, usage.lastDay, usage.dailyBudget, usage.lastHalfDay, usage.halfDayBudget, in: language)
        + Self.whenFree(usage, language)
    case .cacheUnavailable(let path, let reason):
      return Message.cacheCouldNotCount(path, reason, in: language)
    case .feed(let url, let status, let reason):
      guard let reason else { return Message.feedAnswered(url, status, in: language) }
      return Message.feedUnreadable(url, reason.lowercased.text(in: language), in: language)
    case .gdelt(let status, let answer):
      switch answer {
      case .empty, .begins:
        return Message.gdeltNotItsJSON(status, answer.text(in: language), in: language)
      case .said(let line), .tooFast(let line):
        return closed(
          status == 200
            ? Message.gdeltRefused(line, in: language) : Message.gdeltAnswered(status, line, in: language))
      }
    case .gdeltTurnTooFar(let seconds, let limit):
      return Message.gdeltTurnTooFar(max(1, seconds), limit, in: language)
    }
  }

  /// The refusal of a source id the sources list does not hold, naming the nearest ids it does and where to
  /// find one: `newsatlas sources NAME` on the command line, or with `service` the service's `/v1/sources`
  /// (an HTTP client has no command line).
  public static func unknownSourceSentence(_ id: String, nearest: [String], service: Bool = false) -> Sentence
  {
    let shown = printable(id)
    guard !nearest.isEmpty else {
      return Sentence(service ? .serviceUnknownSourceNoneNear : .unknownSourceNoneNear, shown)
    }
    return Sentence(service ? .serviceUnknownSource : .unknownSource, shown, nearest.joined(separator: ", "))
  }

  private static func whenFree(_ usage: QuotaUsage, _ language: InterfaceLanguage) -> String {
    usage.nextFreeAt.map {
      Message.nextFreeIn(spokenDuration($0.timeIntervalSinceNow, in: language), in: language)
    } ?? ""
  }
}

/// What a service answered instead of its JSON: its own words, or what NewsAtlas says of the body (in the
/// reader's language, from the catalogue). The kind, not the words, says whether it asks the client to wait.
public enum ServiceAnswer: Equatable, Hashable, Sendable {
  /// No body at all.
  case empty
  /// A body that is not the service's JSON: what it begins with (at most 60 bytes, one line), quoted.
  case begins(String)
  /// The service's own line of plain text (GDELT's answer to a bad query), quoted as it said it.
  case said(String)
  /// The service's own line asking the client to wait between requests (GDELT's "Please limit requests to one
  /// every 5 seconds"): its rate limit.
  case tooFast(String)

  /// The answer as a clause of a sentence in `language`: the catalogue's words around the service's own.
  public func text(in language: InterfaceLanguage) -> String {
    switch self {
    case .empty: Message.answerEmpty(in: language)
    case .begins(let start): Message.answerBegins(start, in: language)
    case .said(let line), .tooFast(let line): line
    }
  }
}
