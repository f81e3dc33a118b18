import Foundation
import Synchronization

/// What `reserveRequest` decided.
public enum RequestReservation: Sendable, Equatable {
  /// Counted: the request may be sent.
  case reserved
  /// A window's limit is reached: nothing was counted, and nothing may be sent.
  case overBudget
  /// The store could not count it (locked by another process past the busy timeout, a full disk): nothing
  /// may be sent, since nothing would count it.
  case failed(String)
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
  /// Counts one request about to be sent, in one step with the check that each rolling window (`seconds`,
  /// `limit`) has room for it. No windows: counted whatever the use.
  func reserveRequest(at date: Date, windows: [(seconds: Double, limit: Int)]) -> RequestReservation
  /// Requests counted since `date`, oldest first.
  func requests(since date: Date) -> [Date]
}

extension ResponseStore {
  /// Keeps a body dated now.
  public func store(_ key: String, kind: String, body: [UInt8]) {
    store(key, kind: kind, body: body, at: Date())
  }

  /// Counts one request about to be sent now.
  public func reserveRequest(windows: [(seconds: Double, limit: Int)]) -> RequestReservation {
    reserveRequest(at: Date(), windows: windows)
  }
}

/// A `ResponseStore` in the process's memory: nothing outlives it, and nothing is shared with other processes.
public final class InMemoryResponseStore: ResponseStore {
  private struct State {
    var responses: [String: (body: [UInt8], storedAt: Date, kind: String)] = [:]
    var sent: [Date] = []
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

  public func reserveRequest(at date: Date, windows: [(seconds: Double, limit: Int)]) -> RequestReservation {
    state.withLock { state in
      for window in windows {
        let since = date.timeIntervalSince1970 - window.seconds
        if state.sent.count(where: { $0.timeIntervalSince1970 > since }) >= window.limit {
          return .overBudget
        }
      }
      state.sent.append(date)
      return .reserved
    }
  }

  public func requests(since date: Date) -> [Date] {
    state.withLock { $0.sent.filter { $0 > date }.sorted() }
  }

  /// The keys stored, of one kind or of all.
  public func keys(kind: String? = nil) -> [String] {
    state.withLock { state in
      state.responses.filter { kind == nil || $0.value.kind == kind }.map(\.key).sorted()
    }
  }
}
