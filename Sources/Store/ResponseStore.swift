import Foundation
import Synchronization

/// What `reserveRequest` decided.
public enum RequestReservation: Sendable, Equatable {
  /// Counted: the request may be sent at `sendAt` (now, or later when the service's requests are paced).
  case reserved(sendAt: Date)
  /// A window's limit is reached: nothing was counted, and nothing may be sent.
  case overBudget
  /// The store could not count it (locked by another process past the busy timeout, a full disk): nothing
  /// may be sent, since nothing would count it.
  case failed(String)
  /// The turn would be at `sendAt`, later than the caller waits: nothing was counted.
  case tooLate(sendAt: Date)
}

/// Where a client keeps the answers it received and counts the requests it sends.
///
/// `CacheDatabase` (one SQLite file, shared by processes) is the store for real; `InMemoryResponseStore` keeps
/// them in the process (tests, and a host that wants no file).
public protocol ResponseStore: AnyObject, Sendable {
  /// Where the store is, for sentences: a file's path.
  var path: String { get }
  /// A stored body and when it was stored.
  func lookup(_ key: String) -> (body: [UInt8], storedAt: Date)?
  /// Keeps a body under `key` (replacing any), dated `date`; `kind` says what it is (`headlines`, `route`).
  func store(_ key: String, kind: String, body: [UInt8], at date: Date)
  /// Counts one request to `service` (`newsapi`, `gdelt`) about to be sent, in one step with the check that
  /// each rolling window (`seconds`, `limit`) has room for it, and gives its time to send: `date`, or with a
  /// `spacing` (seconds) no sooner than `spacing` after the service's last counted request, so that processes
  /// sharing the store take turns. No windows: counted whatever the use. A turn later than `notAfter` is
  /// `tooLate`, and not counted.
  func reserveRequest(
    service: String, at date: Date, windows: [(seconds: Double, limit: Int)], spacing: Double, notAfter: Date?
  ) -> RequestReservation
  /// Requests to `service` counted since `date` (send times, some maybe still ahead), oldest first.
  func requests(service: String, since date: Date) -> [Date]
}

extension ResponseStore {
  /// Counts one request, however late its turn.
  public func reserveRequest(
    service: String, at date: Date, windows: [(seconds: Double, limit: Int)], spacing: Double
  ) -> RequestReservation {
    reserveRequest(service: service, at: date, windows: windows, spacing: spacing, notAfter: nil)
  }

  /// Keeps a body dated now.
  public func store(_ key: String, kind: String, body: [UInt8]) {
    store(key, kind: kind, body: body, at: Date())
  }

  /// Counts one NewsAPI request about to be sent now.
  public func reserveRequest(windows: [(seconds: Double, limit: Int)]) -> RequestReservation {
    reserveRequest(service: "newsapi", at: Date(), windows: windows, spacing: 0)
  }

  /// Counts one NewsAPI request about to be sent at `date`.
  public func reserveRequest(at date: Date, windows: [(seconds: Double, limit: Int)]) -> RequestReservation {
    reserveRequest(service: "newsapi", at: date, windows: windows, spacing: 0)
  }

  /// NewsAPI requests counted since `date`, oldest first.
  public func requests(since date: Date) -> [Date] { requests(service: "newsapi", since: date) }
}

/// A `ResponseStore` in the process's memory: nothing outlives it, and nothing is shared with other processes.
public final class InMemoryResponseStore: ResponseStore {
  private struct State {
    var responses: [String: (body: [UInt8], storedAt: Date, kind: String)] = [:]
    var sent: [(service: String, at: Date)] = []
  }
  private let state = Mutex(State())

  public let path = "memory"

  public init() {}

  public func lookup(_ key: String) -> (body: [UInt8], storedAt: Date)? {
    state.withLock { $0.responses[key].map { ($0.body, $0.storedAt) } }
  }

  public func store(_ key: String, kind: String, body: [UInt8], at date: Date) {
    state.withLock { $0.responses[key] = (body, date, kind) }
  }

  public func reserveRequest(
    service: String, at date: Date, windows: [(seconds: Double, limit: Int)], spacing: Double, notAfter: Date?
  ) -> RequestReservation {
    state.withLock { state in
      let own = state.sent.filter { $0.service == service }.map(\.at)
      for window in windows {
        let since = date.timeIntervalSince1970 - window.seconds
        if own.count(where: { $0.timeIntervalSince1970 > since }) >= window.limit {
          return .overBudget
        }
      }
      var slot = date
      if spacing > 0, let last = own.max() { slot = max(date, last.addingTimeInterval(spacing)) }
      if let notAfter, slot > notAfter { return .tooLate(sendAt: slot) }
      state.sent.append((service, slot))
      return .reserved(sendAt: slot)
    }
  }

  public func requests(service: String, since date: Date) -> [Date] {
    state.withLock { $0.sent.filter { $0.service == service && $0.at > date }.map(\.at).sorted() }
  }

  /// The keys stored, of one kind or of all.
  public func keys(kind: String? = nil) -> [String] {
    state.withLock { state in
      state.responses.filter { kind == nil || $0.value.kind == kind }.map(\.key).sorted()
    }
  }
}
