import Fetch
import Synchronization

/// An `HTTPTransport` that answers in process: `answer` makes each response from the URL and the headers, and
/// every request is logged. A client on the transport protocol is tested with it without a socket.
public final class FakeTransport: HTTPTransport {
  public typealias Answer =
    @Sendable (_ url: String, _ headers: [(String, String)]) throws(HTTPError) -> HTTPResponse

  public let defaultTimeout: Duration = .seconds(30)
  private let answer: Answer
  private let log = Mutex<[String]>([])
  private let timeoutLog = Mutex<[Duration?]>([])

  public init(answer: @escaping Answer) { self.answer = answer }

  /// The URLs asked for, in the order the requests arrived.
  public var requests: [String] { log.withLock { $0 } }

  /// The timeout each request was given, in the same order.
  public var timeouts: [Duration?] { timeoutLog.withLock { $0 } }

  public func get(_ url: String, headers: [(String, String)], timeout: Duration?) async throws(HTTPError)
    -> HTTPResponse
  {
    log.withLock { $0.append(url) }
    timeoutLog.withLock { $0.append(timeout) }
    return try answer(url, headers)
  }
}
