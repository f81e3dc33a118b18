/// What a client of an HTTP API needs of HTTP: one GET with headers, within a time limit.
///
/// `HTTPClient` (libcurl) is the transport for real; tests give a fake that answers in process and logs what it
/// was asked, so a client built on this protocol (NewsAPI, and the news providers after it) is tested without a
/// network.
public protocol HTTPTransport: Sendable {
  /// The time limit of a request that sets none.
  var defaultTimeout: Duration { get }

  /// GETs `url` with extra request headers; an HTTP status is an answer, not an error.
  ///
  /// - Throws: `HTTPError` for anything that kept an HTTP response from arriving whole.
  func get(_ url: String, headers: [(String, String)], timeout: Duration?) async throws(HTTPError)
    -> HTTPResponse
}

extension HTTPClient: HTTPTransport {
  /// `configuration.requestTimeout`.
  public var defaultTimeout: Duration { configuration.requestTimeout }
}
