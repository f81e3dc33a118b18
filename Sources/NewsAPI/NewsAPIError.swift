import Fetch
import Foundation

/// Why a NewsAPI call gave no answer, each with one sentence a user can act on. The key never appears here.
public enum NewsAPIError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No key was given.
  case missingKey
  /// The request was refused before sending: an impossible combination or value.
  case invalidRequest(String)
  /// The network failed before an HTTP response arrived.
  case transport(HTTPError)
  /// The service answered `{"status":"error"}`: its HTTP status, code (kept even when unknown) and message.
  case service(status: Int, code: String, message: String, retryAfterSeconds: Int?)
  /// The service answered something that is not NewsAPI JSON (a proxy's HTML page, say).
  case unexpectedResponse(status: Int, detail: String)
  /// Offline, and the cache holds no answer to this request.
  case notCached(String)
  /// Sending would go past the plan's budget; `--force` sends anyway.
  case budgetSpent(QuotaUsage)

  /// Whether this is the quota or rate limit, which waiting fixes.
  public var isQuota: Bool {
    if case .service(let status, let code, _, _) = self {
      return status == 429 || code == "rateLimited" || code == "apiKeyExhausted"
    }
    if case .budgetSpent = self { return true }
    return false
  }

  public var description: String {
    switch self {
    case .missingKey:
      return
        "No NewsAPI key: get a free one at https://newsapi.org/register and set it with export NEWSAPI_KEY=your-key."
    case .invalidRequest(let reason):
      return reason
    case .transport(let error):
      return error.description
    case .service(let status, let code, let message, let retryAfter):
      var text: String
      if isQuota {
        text = "NewsAPI refused the request because the key's quota is used up (\(code)): \(message)"
        if !text.hasSuffix(".") { text += "." }
        text +=
          retryAfter.map { " Try again in \($0) seconds." }
          ?? " The free plan allows 100 requests a day, 50 every 12 hours; try again later."
        return text
      }
      if status == 426 {
        text = "NewsAPI says this is beyond the key's plan (\(code)): \(message)"
      } else if code.hasPrefix("apiKey") {
        text = "NewsAPI did not accept the key (\(code)): \(message)"
      } else {
        text = "NewsAPI answered HTTP \(status) (\(code)): \(message)"
      }
      return text.hasSuffix(".") ? text : text + "."
    case .unexpectedResponse(let status, let detail):
      return "NewsAPI answered HTTP \(status) with something that is not its JSON (\(detail))."
    case .notCached(let what):
      return "Offline, and the cache has no answer for \(what); run the command once online first."
    case .budgetSpent(let usage):
      let when =
        usage.nextFreeAt.map { " The next request frees up in \(spokenDuration($0.timeIntervalSinceNow))." }
        ?? ""
      return
        "Sending would go past the plan's budget (\(usage.lastDay) of \(usage.dailyBudget) requests in 24 hours, "
        + "\(usage.lastHalfDay) of \(usage.halfDayBudget) in 12 hours);\(when.isEmpty ? "" : "") add --force to send anyway."
        + when
    }
  }
}
