import Dispatch
import Synchronization
import Testing

@testable import GeoIndex

/// The helper threads behind every parallel build: each piece runs exactly once and its result is seen by the
/// caller, however the forks nest and however many callers fork at once.
@Suite struct ForkJoinTests {
  /// The sum of `values[range]`, split `forks` levels deep, each piece splitting again inside.
  static func nestedSum(_ values: [Int], forks: Int) -> Int {
    ForkJoin.split(0..<values.count, forks: forks) { outer in
      ForkJoin.split(outer, forks: forks) { inner in
        values[inner].reduce(0, &+)
      } merge: {
        $0 &+ $1
      } ?? 0
    } merge: {
      $0 &+ $1
    } ?? 0
  }

  @Test func nestedForksGiveTheSerialResult() {
    let values = (0..<10_000).map { $0 &* 2_654_435_761 % 1_000_003 }
    let expected = values.reduce(0, &+)
    for round in 0..<500 {
      #expect(Self.nestedSum(values, forks: 1 + round % 3) == expected, "round \(round)")
    }
  }

  @Test func concurrentCallersShareTheHelpers() {
    let values = (0..<5_000).map { $0 % 977 }
    let expected = values.reduce(0, &+)
    let wrong = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<200 where Self.nestedSum(values, forks: 2) != expected { wrong.add(1, ordering: .relaxed) }
    }
    #expect(wrong.load(ordering: .relaxed) == 0)
  }
}
