import Foundation
import Store
import TestSupport
import Testing

/// GDELT's pacing in the request log: each request reserves a turn no sooner than the spacing after the
/// service's last one, in the store's one transaction, so processes sharing the SQLite cache take turns.
@Suite struct PacingTests {
  func turns(_ stores: [any ResponseStore], at date: Date, count: Int) -> [Double] {
    (0..<count).map { n in
      guard
        case .reserved(let at) = stores[n % stores.count].reserveRequest(
          service: "gdelt", at: date, windows: [], spacing: 5)
      else { return -1 }
      return at.timeIntervalSince(date)
    }
  }

  @Test func turnsInMemoryAreSpaced() {
    let store = InMemoryResponseStore()
    let now = Date()
    #expect(turns([store], at: now, count: 4) == [0, 5, 10, 15])
    // NewsAPI's requests are not GDELT's: neither paced by them nor counted with them.
    guard case .reserved = store.reserveRequest(windows: [(86400, 1)]) else {
      Issue.record("a NewsAPI request was not counted")
      return
    }
    #expect(store.requests(service: "gdelt", since: .distantPast).count == 4)
    #expect(store.requests(since: .distantPast).count == 1)
  }

  /// A turn further away than the caller waits is refused with its time, and not counted: the next caller's
  /// turn is no later for it. Both stores.
  @Test func aTurnPastTheWaitIsRefusedUncounted() throws {
    try Scratch.withDirectory { directory in
      let stores: [any ResponseStore] = [
        InMemoryResponseStore(),
        try CacheDatabase(opening: directory.appendingPathComponent("cache.sqlite").path) { _ in },
      ]
      for store in stores {
        let now = Date()
        let limit = now.addingTimeInterval(7)
        let answers = (0..<4).map { _ in
          store.reserveRequest(service: "gdelt", at: now, windows: [], spacing: 5, notAfter: limit)
        }
        let seconds = answers.map { answer -> Double in
          switch answer {
          case .reserved(let at): return (at.timeIntervalSince(now) * 1000).rounded() / 1000
          case .tooLate(let at): return -(at.timeIntervalSince(now) * 1000).rounded() / 1000
          default: return .nan
          }
        }
        // Turns at 0 and 5; the third (10) and the fourth (10 again: the third was not counted) are too late.
        #expect(seconds == [0, 5, -10, -10], "\(store.path)")
        #expect(store.requests(service: "gdelt", since: .distantPast).count == 2, "\(store.path)")
      }
    }
  }

  @Test func twoConnectionsToOneCacheFileTakeTurns() throws {
    try Scratch.withDirectory { directory in
      let path = directory.appendingPathComponent("cache.sqlite").path
      let first = try CacheDatabase(opening: path) { _ in }
      let second = try CacheDatabase(opening: path) { _ in }
      let now = Date()
      // Alternating between the two, as two processes would: one timeline of turns.
      let spaced = turns([first, second], at: now, count: 4)
      #expect(spaced.map { ($0 * 1000).rounded() / 1000 } == [0, 5, 10, 15])
      #expect(second.requests(service: "gdelt", since: .distantPast).count == 4)
      #expect(first.requests(since: .distantPast).isEmpty)  // NewsAPI's budget is untouched
      // A budget window counts its own service only.
      #expect(first.reserveRequest(windows: [(86400, 1)]) != .overBudget)
      #expect(second.reserveRequest(windows: [(86400, 1)]) == .overBudget)
    }
  }
}
