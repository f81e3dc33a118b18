import AtlasMessages
import CCurl
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// An HTTP response: its status, headers and body.
public struct HTTPResponse: Sendable {
  /// The HTTP status of the last response (after redirects).
  public let status: Int
  public let body: [UInt8]
  /// The last response's header block as received; parsed only when asked.
  let rawHeaders: [UInt8]

  /// A response as received: `rawHeaders` is the header block (`Name: value` lines, CRLF or LF).
  public init(status: Int, rawHeaders: [UInt8], body: [UInt8]) {
    self.status = status
    self.rawHeaders = rawHeaders
    self.body = body
  }

  /// The last response's headers, in order, names as sent.
  public var headers: [(name: String, value: String)] {
    rawHeaders.split(separator: 0x0A).compactMap { line in
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
      let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self)
      let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
      return (name, Substring(value).trimmingCharacters(in: " \t\r"))
    }
  }

  /// The first header with this name (case-insensitive).
  public func header(_ name: String) -> String? {
    let lowered = name.lowercased()
    return headers.first { $0.name.lowercased() == lowered }?.value
  }
}

/// How a transfer failed before there was an HTTP response to report. HTTP statuses are not errors here.
public enum HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
  case invalidURL(String)
  case cannotResolveHost(String)
  case connectionRefused(String)
  case connectionReset(String)
  case timedOut(String, seconds: Double)
  case tls(String, detail: String)
  case responseTooLarge(String, limitBytes: Int)
  case tooManyRedirects(String, limit: Int)
  /// The server redirected to another origin (scheme, host or port): `to` is where, user information removed.
  case redirectRefused(String, to: String)
  /// A request header's name or value holds a CR, LF or NUL (it could add a header); the value is never kept.
  case invalidHeader(String)
  case cancelled(String)
  case transport(String, detail: String)
  /// libcurl could not create the transfer (`curl_easy_init`, nil `detail`) or start it
  /// (`curl_multi_add_handle`, `detail`: libcurl's sentence and code).
  case transferNotStarted(String, detail: String?)
  case shutDown
  /// libcurl could not be opened or initialised, or the client could not start its thread, or libcurl's
  /// transfer loop failed; the sentence says which (and what to install).
  case libraryUnavailable(Sentence)

  /// The sentence in English.
  public var description: String { sentence.description }

  /// The sentence, to be said in the reader's language (libcurl's and TLS's own words quoted as they are).
  public var sentence: Sentence {
    switch self {
    case .invalidURL(let url): Sentence(.httpInvalidURL, printable(String(url.prefix(200))))
    case .cannotResolveHost(let host): Sentence(.httpCannotResolve, host)
    case .connectionRefused(let host): Sentence(.httpRefused, host)
    case .connectionReset(let host): Sentence(.httpReset, host)
    case .timedOut(let host, let seconds): Sentence(.httpTimedOut, host, seconds)
    case .tls(let host, let detail): Sentence(.httpTLS, host, printable(detail))
    case .responseTooLarge(let host, let limit): Sentence(.httpTooLarge, host, limit)
    case .tooManyRedirects(let host, let limit): Sentence(.httpTooManyRedirects, host, limit)
    case .redirectRefused(let host, let target):
      Sentence(.httpRedirectRefused, host, printable(String(target.prefix(200))), host)
    case .invalidHeader(let name): Sentence(.httpInvalidHeader, printable(String(name.prefix(64))))
    case .cancelled(let host): Sentence(.httpCancelled, host)
    case .transport(let host, let detail): Sentence(.httpFailed, host, printable(detail))
    case .transferNotStarted(let host, nil): Sentence(.curlCannotCreateTransfer, host)
    case .transferNotStarted(let host, let detail?):
      Sentence(.curlCannotStartTransfer, host, printable(detail))
    case .shutDown: Sentence(.httpShutDown)
    case .libraryUnavailable(let sentence): sentence
    }
  }
}

/// How an `HTTPClient` behaves; every value has a documented default.
public struct HTTPClientConfiguration: Sendable {
  /// Transfers in flight at once; more wait in line. Default 16.
  public var maxConcurrentTransfers = 16
  /// Time allowed to connect (TCP and TLS). Default 10 s.
  public var connectTimeout: Duration = .seconds(10)
  /// Time allowed for a whole request, redirects included, unless the request sets its own. Default 30 s.
  public var requestTimeout: Duration = .seconds(30)
  /// The largest body accepted; a larger one fails with `responseTooLarge`. Default 16 MiB.
  public var maxResponseBytes = 16 << 20
  /// Redirects followed before `tooManyRedirects`. Default 5.
  public var maxRedirects = 5
  public var userAgent = "NewsAtlas/0.1 (+libcurl)"
  /// A time by which every request must be done, whatever its own timeout; nil (the default) for none. A request
  /// started after it fails at once with `timedOut`.
  public var deadline: ContinuousClock.Instant? = nil

  public init() {}
}

/// An async HTTP client on libcurl's multi interface.
///
/// One thread owns the multi handle and every easy handle (libcurl's threading rule); callers await
/// continuations. Many transfers share one multi handle, so connections are reused and HTTP/2 multiplexes where
/// the server offers it; bodies are decompressed (gzip, deflate); TLS verification is always on. A cancelled
/// task's transfer is removed at the loop's next turn, which the cancellation wakes at once.
///
/// The client lives until `shutdown()` or deinit, which stop the thread and fail whatever is still pending.
/// libcurl is opened, and the loop thread started, by the first request a client is asked for, not by `init`:
/// a run whose answers all come from the cache never loads libcurl and its two dozen libraries. When libcurl
/// cannot be opened, that request and every later one fails with `libraryUnavailable`.
public final class HTTPClient: Sendable {
  public let configuration: HTTPClientConfiguration
  private let state = Mutex<LoopState>(.notStarted)

  /// The loop thread's life: started at the first request, stopped once.
  private enum LoopState {
    case notStarted
    case running(Loop)
    case unavailable(Sentence)
    case stopped
  }

  public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) {
    self.configuration = configuration
  }

  deinit { shutdown() }

  /// Stops the loop thread; pending and running requests fail with `shutDown`, and so does any later one.
  public func shutdown() {
    let loop = state.withLock { state -> Loop? in
      defer { state = .stopped }
      if case .running(let loop) = state { return loop }
      return nil
    }
    loop?.stop()
  }

  /// The running loop, started at the first call (libcurl opened then).
  private func runningLoop() throws(HTTPError) -> Loop {
    let started = state.withLock { state -> Result<Loop, HTTPError> in
      switch state {
      case .running(let loop): return .success(loop)
      case .unavailable(let problem): return .failure(.libraryUnavailable(problem))
      case .stopped: return .failure(.shutDown)
      case .notStarted:
        if let problem = ccurl_load().map({ String(cString: $0) }) {
          let sentence = Curl.loadFailure(problem)
          state = .unavailable(sentence)
          return .failure(.libraryUnavailable(sentence))
        }
        do throws(HTTPError) {
          let loop = try Loop.started(configuration: configuration)
          state = .running(loop)
          return .success(loop)
        } catch {
          state = .unavailable(error.sentence)
          return .failure(.libraryUnavailable(error.sentence))
        }
      }
    }
    return try started.get()
  }

  /// Runs `body` with a client that is shut down when it returns.
  public static func withClient<T>(
    configuration: HTTPClientConfiguration = HTTPClientConfiguration(),
    _ body: (HTTPClient) async throws -> T
  ) async rethrows -> T {
    let client = HTTPClient(configuration: configuration)
    defer { client.shutdown() }
    return try await body(client)
  }

  /// GETs `url` with extra request headers (sent as given; keys belong here, never in the URL).
  ///
  /// Redirects are followed only within the URL's origin (scheme, host and port), up to
  /// `configuration.maxRedirects`: a header such as a key must never reach another host, nor leave https for
  /// http. A redirect anywhere else fails with `redirectRefused`, saying where it pointed.
  ///
  /// - Parameter timeout: the whole request's time limit, redirects included; by default the configuration's.
  /// - Throws: `HTTPError` for anything that kept an HTTP response from arriving whole, and before sending
  ///   anything, `invalidURL` and `invalidHeader` (a CR, LF or NUL in a header's name or value).
  public func get(_ url: String, headers: [(String, String)] = [], timeout: Duration? = nil)
    async throws(HTTPError) -> HTTPResponse
  {
    guard let origin = HTTPURL(url)?.origin else { throw .invalidURL(HTTPURL.redacted(url)) }
    for (name, value) in headers {
      let forbidden: (UInt8) -> Bool = { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
      guard !name.isEmpty, !name.utf8.contains(where: forbidden), !value.utf8.contains(where: forbidden),
        !name.utf8.contains(where: { $0 == UInt8(ascii: ":") || $0 <= 0x20 || $0 >= 0x7F })
      else { throw .invalidHeader(name) }
    }
    let loop = try runningLoop()
    var limit = timeout ?? configuration.requestTimeout
    if let deadline = configuration.deadline {
      let left = ContinuousClock.now.duration(to: deadline)
      guard left > .milliseconds(1) else { throw .timedOut(Transfer.host(of: url), seconds: 0) }
      limit = min(limit, left)
    }
    let transfer = Transfer(
      url: url, origin: origin, headers: headers, timeout: limit, configuration: configuration)
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation {
        (continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) in
        transfer.continuation = continuation
        loop.submit(transfer)
      }
    } onCancel: {
      loop.cancel(transfer)
    }
    return try result.get()
  }
}

/// One request's state, touched by the loop thread only once submitted (the lock guards the handoff).
final class Transfer: LoopItem, @unchecked Sendable {
  /// Never reused (an address can be, once a finished transfer is freed), so a late cancel cannot hit another.
  let id: UInt64
  private static let nextID = Atomic<UInt64>(1)
  /// The URL of the hop under way: the one asked for, then where each same-origin redirect pointed.
  var url: String
  /// `host[:port]` of the URL asked for, for messages.
  let host: String
  /// The URL's `HTTPURL.origin`: the only one a redirect may lead to.
  let origin: String
  let headers: [(String, String)]
  /// The whole request's limit, redirects included.
  let timeout: Duration
  /// When the whole request must be done: the limit counted from its start (not from its wait in line).
  var end: ContinuousClock.Instant?
  let maxBytes: Int
  let maxRedirects: Int
  var redirects = 0
  var continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>?
  var body: [UInt8] = []
  var responseHeaders: [UInt8] = []
  var tooLarge = false
  var easy: UnsafeMutableRawPointer?
  var headerList: UnsafeMutablePointer<curl_slist>?
  let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

  init(
    url: String, origin: String, headers: [(String, String)], timeout: Duration,
    configuration: HTTPClientConfiguration
  ) {
    id = Transfer.nextID.add(1, ordering: .relaxed).oldValue
    self.url = url
    self.origin = origin
    self.headers = headers
    self.timeout = timeout
    self.maxBytes = configuration.maxResponseBytes
    self.maxRedirects = configuration.maxRedirects
    host = Transfer.host(of: url)
    errorBuffer.initialize(to: 0)
  }

  deinit { errorBuffer.deallocate() }

  /// `host[:port]` of a URL, for messages (no scheme, no user information, no path, no query).
  static func host(of url: String) -> String { HTTPURL.hostAndPort(of: url) }

  /// A duration in seconds, for messages.
  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  func finish(_ result: Result<HTTPResponse, HTTPError>) {
    continuation?.resume(returning: result)
    continuation = nil
  }
}

/// The thread that owns the multi handle.
// @unchecked: it holds the multi handle (a C pointer) and the loop thread's own `active` and `idle`; what other
// threads touch is behind a Mutex.
final class Loop: @unchecked Sendable {
  let configuration: HTTPClientConfiguration
  private let shared = Mutex(LoopQueue<Transfer>())
  /// Why the loop stopped on its own (libcurl's loop failed): what later requests fail with.
  private let failure = Mutex<HTTPError?>(nil)
  private let multi: UnsafeMutableRawPointer
  private var thread: pthread_t? = nil
  private var active: [UInt64: Transfer] = [:]  // loop thread only
  /// Finished easy handles, reset and kept for the next transfers (loop thread only).
  private var idle: [UnsafeMutableRawPointer] = []
  private let stopped = Mutex(false)

  /// A loop with its multi handle set up and its thread running.
  ///
  /// - Throws: `HTTPError.libraryUnavailable` when libcurl gives no multi handle, refuses one of its options,
  ///   or the thread cannot be started; nothing is left behind then.
  static func started(configuration: HTTPClientConfiguration) throws(HTTPError) -> Loop {
    guard let multi = ccurl_multi_init() else {
      throw .libraryUnavailable(Sentence(.curlNoTransferLoop))
    }
    let loop = Loop(configuration: configuration, multi: multi)
    for (name, option, value) in [
      (
        "CURLMOPT_MAX_TOTAL_CONNECTIONS", CURLMOPT_MAX_TOTAL_CONNECTIONS,
        max(1, configuration.maxConcurrentTransfers)
      ),
      ("CURLMOPT_PIPELINING", CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX)),
    ] {
      let code = ccurl_multi_setopt_long(multi, option, value)
      guard code == CURLM_OK else {
        throw .libraryUnavailable(Sentence(.curlRefusedOption, name, Curl.sentence(code)))
      }
    }
    let context = Unmanaged.passRetained(loop).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(
      &thread, nil,
      { context in
        let loop = Unmanaged<Loop>.fromOpaque(context!).takeRetainedValue()
        loop.run()
        return nil
      }, context)
    guard created == 0 else {
      Unmanaged<Loop>.fromOpaque(context).release()
      throw .libraryUnavailable(Sentence(.httpNoThread, String(cString: strerror(created))))
    }
    loop.thread = thread
    return loop
  }

  private init(configuration: HTTPClientConfiguration, multi: UnsafeMutableRawPointer) {
    self.configuration = configuration
    self.multi = multi
  }

  /// The multi handle goes last, once no thread can use it (the loop's thread has ended, or never started):
  /// every easy handle is off it and freed by then, so there is nothing a failure here could keep.
  deinit {
    let cleaned = ccurl_multi_cleanup(multi)
    assert(cleaned == CURLM_OK, "curl_multi_cleanup: \(Curl.sentence(cleaned))")
  }

  func submit(_ transfer: Transfer) {
    guard shared.withLock({ $0.submit(transfer) }) else {
      transfer.finish(.failure(failure.withLock { $0 } ?? .shutDown))
      return
    }
    wake()
  }

  func cancel(_ transfer: Transfer) {
    shared.withLock { $0.cancel(transfer.id) }
    wake()
  }

  /// Wakes the loop from its poll. The one call safe from any thread; should it fail, the poll's one-second
  /// timeout wakes the loop instead, so a turn is late, never lost.
  private func wake() {
    let code = ccurl_multi_wakeup(multi)
    assert(code == CURLM_OK, "curl_multi_wakeup: \(Curl.sentence(code))")
  }

  func stop() {
    let first = stopped.withLock { stopped -> Bool in
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    shared.withLock { $0.stop() }
    wake()
    if let thread { pthread_join(thread, nil) }
  }

  /// libcurl's loop failed (`curl_multi_perform` or `curl_multi_poll`): every transfer fails with the
  /// sentence, and so does every later request; the loop stops.
  private func fail(_ call: String, _ code: CURLMcode) {
    let error = HTTPError.libraryUnavailable(Sentence(.curlLoopFailed, call, Curl.sentence(code)))
    failure.withLock { $0 = error }
    shared.withLock { $0.stop() }
    for transfer in active.values {
      remove(transfer)
      transfer.finish(.failure(error))
    }
    active = [:]
    for transfer in shared.withLock({ $0.drain() }) { transfer.finish(.failure(error)) }
  }

  private func run() {
    var running: Int32 = 0
    while true {
      let turn = shared.withLock {
        $0.turn(active: Set(active.keys), limit: configuration.maxConcurrentTransfers)
      }
      if turn.stopping { break }
      for id in turn.cancelledActive {
        guard let transfer = active.removeValue(forKey: id) else { continue }
        remove(transfer)
        transfer.finish(.failure(.cancelled(transfer.host)))
      }
      for transfer in turn.cancelledWaiting { transfer.finish(.failure(.cancelled(transfer.host))) }
      for transfer in turn.admitted { add(transfer) }
      let performed = ccurl_multi_perform(multi, &running)
      guard performed == CURLM_OK else {
        fail("curl_multi_perform", performed)
        break
      }
      var remaining: Int32 = 0
      while let message = ccurl_multi_info_read(multi, &remaining) {
        guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
        var context: UnsafeMutableRawPointer? = nil
        _ = ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
        guard let context else { continue }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let code = ccurl_msg_result(message)
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var location: UnsafeMutablePointer<CChar>? = nil
        var redirect: String? = nil
        if [301, 302, 303, 307, 308].contains(status),
          ccurl_easy_getinfo_string(easy, CURLINFO_REDIRECT_URL, &location) == CURLE_OK, let location
        {
          redirect = String(cString: location)
        }
        active.removeValue(forKey: transfer.id)
        remove(transfer)
        if code == CURLE_OK, let redirect {
          follow(transfer, to: redirect)
        } else {
          transfer.finish(result(code, status: status, transfer))
        }
      }
      // Transfers finished and others are waiting for their places: start them now rather than after a poll.
      if shared.withLock({
        $0.hasWork(activeCount: active.count, limit: configuration.maxConcurrentTransfers)
      }) {
        continue
      }
      let polled = ccurl_multi_poll(multi, nil, 0, 1000, nil)
      guard polled == CURLM_OK else {
        fail("curl_multi_poll", polled)
        break
      }
    }
    // Shutting down: fail everything still here.
    for transfer in active.values {
      remove(transfer)
      transfer.finish(.failure(.shutDown))
    }
    active = [:]
    for easy in idle { ccurl_easy_cleanup(easy) }
    idle = []
    for transfer in shared.withLock({ $0.drain() }) { transfer.finish(.failure(.shutDown)) }
  }

  /// The next hop of a redirect, here on the loop thread (no task needs to run between hops): followed
  /// within the transfer's origin, up to its limit; anywhere else the transfer fails with `redirectRefused`.
  private func follow(_ transfer: Transfer, to location: String) {
    guard HTTPURL(location)?.origin == transfer.origin else {
      transfer.finish(
        .failure(.redirectRefused(Transfer.host(of: transfer.url), to: HTTPURL.redacted(location))))
      return
    }
    guard transfer.redirects < transfer.maxRedirects else {
      transfer.finish(.failure(.tooManyRedirects(transfer.host, limit: transfer.maxRedirects)))
      return
    }
    transfer.redirects += 1
    transfer.url = location
    transfer.body.removeAll()
    transfer.responseHeaders.removeAll()
    transfer.errorBuffer.pointee = 0
    add(transfer)
  }

  /// Creates the transfer's easy handle and adds it to the multi handle; setup failures finish it at once.
  private func add(_ transfer: Transfer) {
    let end = transfer.end ?? ContinuousClock.now.advanced(by: transfer.timeout)
    transfer.end = end
    let left = ContinuousClock.now.duration(to: end)
    guard left > .milliseconds(1) else {
      transfer.finish(.failure(.timedOut(transfer.host, seconds: Transfer.seconds(transfer.timeout))))
      return
    }
    guard let easy = idle.popLast() ?? ccurl_easy_init() else {
      transfer.finish(.failure(.transferNotStarted(transfer.host, detail: nil)))
      return
    }
    transfer.easy = easy
    for (name, value) in transfer.headers {
      transfer.headerList = ccurl_slist_append(transfer.headerList, "\(name): \(value)")
    }
    let context = Unmanaged.passRetained(transfer).toOpaque()
    let milliseconds = { (d: Duration) -> Int in
      Int(d.components.seconds) * 1000 + Int(d.components.attoseconds / 1_000_000_000_000_000)
    }
    do throws(HTTPError) {
      try Curl.check(ccurl_easy_setopt_string(easy, CURLOPT_URL, transfer.url), transfer)
      try Curl.check(ccurl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context), transfer)
      try Curl.check(ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context), transfer)
      try Curl.check(ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context), transfer)
      try Curl.check(ccurl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, Curl.write), transfer)
      try Curl.check(ccurl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, Curl.header), transfer)
      try Curl.check(ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer), transfer)
      try Curl.check(ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1), transfer)
      // libcurl follows no redirect (it would re-send every header to any host): `get` decides, per hop.
      try Curl.check(ccurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0), transfer)
      try Curl.check(ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"), transfer)
      try Curl.check(ccurl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""), transfer)
      try Curl.check(
        ccurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)), transfer)
      try Curl.check(ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1), transfer)
      try Curl.check(ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2), transfer)
      try Curl.check(
        ccurl_easy_setopt_long(
          easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, milliseconds(configuration.connectTimeout))),
        transfer)
      try Curl.check(
        ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, max(1, milliseconds(left))), transfer)
      try Curl.check(ccurl_easy_setopt_string(easy, CURLOPT_USERAGENT, configuration.userAgent), transfer)
      if let list = transfer.headerList {
        try Curl.check(ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list), transfer)
      }
      let added = ccurl_multi_add_handle(multi, easy)
      guard added == CURLM_OK else {
        throw HTTPError.transferNotStarted(transfer.host, detail: Curl.sentence(added))
      }
      active[transfer.id] = transfer
    } catch {
      Unmanaged<Transfer>.fromOpaque(context).release()
      cleanUp(transfer)
      transfer.finish(.failure(error))
    }
  }

  /// Takes a transfer off the multi handle and frees its curl resources (loop thread only).
  private func remove(_ transfer: Transfer) {
    guard let easy = transfer.easy else { return }
    // A handle the multi handle would not let go is not reused: curl_easy_cleanup takes it off and frees it.
    let removed = ccurl_multi_remove_handle(multi, easy) == CURLM_OK
    Unmanaged.passUnretained(transfer).release()  // the retain taken in add(_:)
    cleanUp(transfer, reusable: removed)
  }

  private func cleanUp(_ transfer: Transfer, reusable: Bool = true) {
    if let easy = transfer.easy {
      // Reset (every option back to its default, caches kept) and keep it, up to one per place.
      if reusable && idle.count < configuration.maxConcurrentTransfers {
        ccurl_easy_reset(easy)
        idle.append(easy)
      } else {
        ccurl_easy_cleanup(easy)
      }
    }
    transfer.easy = nil
    if let list = transfer.headerList { ccurl_slist_free_all(list) }
    transfer.headerList = nil
  }

  private func result(_ code: CURLcode, status: Int, _ transfer: Transfer) -> Result<HTTPResponse, HTTPError>
  {
    if code == CURLE_OK {
      return .success(HTTPResponse(status: status, rawHeaders: transfer.responseHeaders, body: transfer.body))
    }
    return .failure(Curl.error(code, transfer, timeout: transfer.timeout))
  }
}

/// The checked gateway from curl's return codes to `HTTPError`, and the C callbacks.
enum Curl {
  /// Why libcurl could not be opened, worded from the catalogue (the shim's `problem` quoted when it says
  /// nothing more).
  static func loadFailure(_ problem: String) -> Sentence {
    var detail: UnsafePointer<CChar>? = nil
    let kind = ccurl_load_failure(&detail)
    let name = detail.map { String(cString: $0) } ?? ""
    switch Int(kind) {
    case Int(CCURL_LOAD_CANNOT_OPEN):
      return Sentence(.curlCannotLoad, String(name.utf8.prefix(200)) ?? name)
    case Int(CCURL_LOAD_LACKS_FUNCTION): return Sentence(.curlLacks, name)
    case Int(CCURL_LOAD_INIT_FAILED): return Sentence(.curlCannotInit)
    default: return Sentence(.curlLoadProblem, printable(String(problem.prefix(200))))
    }
  }

  /// libcurl's sentence for a multi interface code, and the code.
  static func sentence(_ code: CURLMcode) -> String {
    "\(String(cString: ccurl_multi_strerror(code))), CURLMcode \(code.rawValue)"
  }

  static func check(_ code: CURLcode, _ transfer: Transfer) throws(HTTPError) {
    guard code == CURLE_OK else { throw error(code, transfer, timeout: transfer.timeout) }
  }

  static func error(_ code: CURLcode, _ transfer: Transfer, timeout: Duration) -> HTTPError {
    let detail =
      transfer.errorBuffer.pointee != 0
      ? String(cString: transfer.errorBuffer) : String(cString: ccurl_easy_strerror(code))
    let host = transfer.host
    switch code {
    case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT: return .invalidURL(HTTPURL.redacted(transfer.url))
    case CURLE_COULDNT_RESOLVE_HOST: return .cannotResolveHost(host)
    case CURLE_COULDNT_CONNECT: return .connectionRefused(host)
    case CURLE_OPERATION_TIMEDOUT: return .timedOut(host, seconds: Transfer.seconds(timeout))
    case CURLE_WRITE_ERROR where transfer.tooLarge:
      return .responseTooLarge(host, limitBytes: transfer.maxBytes)
    case CURLE_FILESIZE_EXCEEDED: return .responseTooLarge(host, limitBytes: transfer.maxBytes)
    case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
      CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
      return .tls(host, detail: detail)
    case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
      return .connectionReset(host)
    default: return .transport(host, detail: detail)
    }
  }

  /// CURLOPT_WRITEFUNCTION: appends to the body, or aborts (returns 0) past the size limit.
  static let write: ccurl_write_callback = { pointer, size, count, context in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    let bytes = size * count
    if transfer.body.count + bytes > transfer.maxBytes {
      transfer.tooLarge = true
      return 0
    }
    pointer!.withMemoryRebound(to: UInt8.self, capacity: bytes) {
      transfer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: bytes))
    }
    return bytes
  }

  /// CURLOPT_HEADERFUNCTION: keeps the last response's header block (a new status line starts over).
  static let header: ccurl_write_callback = { pointer, size, count, context in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    let bytes = size * count
    pointer!.withMemoryRebound(to: UInt8.self, capacity: bytes) { line in
      if bytes >= 5 && line[0] == UInt8(ascii: "H") && line[1] == UInt8(ascii: "T")
        && line[2] == UInt8(ascii: "T")
        && line[3] == UInt8(ascii: "P") && line[4] == UInt8(ascii: "/")
      {
        transfer.responseHeaders.removeAll(keepingCapacity: true)
      } else {
        transfer.responseHeaders.append(contentsOf: UnsafeBufferPointer(start: line, count: bytes))
      }
    }
    return bytes
  }
}

extension Substring {
  func trimmingCharacters(in set: String) -> String {
    var slice = self[...]
    while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
    while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
    return String(slice)
  }
}
