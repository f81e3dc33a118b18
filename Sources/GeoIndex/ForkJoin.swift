#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs two independent pieces of one computation at once, on a thread of its own for the first, and returns
/// when both are done.
///
/// The core builds its trees and indexes with it (the two halves of a k-d node touch disjoint memory); it
/// owns no pool and keeps no thread past the call. If no thread can be started, both run here, one after the
/// other, with the same result.
enum ForkJoin {
  /// The number of processors online, at least 1.
  static let processors: Int = {
    #if canImport(Glibc) || canImport(Musl)
      return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    #else
      return 1
    #endif
  }()

  /// How many levels of forks put `threads` threads to work (nil: one a processor): 0 for one thread, 1 for
  /// two or three, 2 for four to seven.
  static func forks(threads: Int?) -> Int {
    var forks = 0
    while 2 << forks <= max(1, threads ?? processors) { forks += 1 }
    return forks
  }

  /// Runs `body` on `2^forks` consecutive pieces of `range`, on as many threads, and merges their results
  /// in the order of the pieces; nil for an empty range.
  static func split<Result>(
    _ range: Range<Int>, forks: Int, _ body: (Range<Int>) -> Result,
    merge: (Result, Result) -> Result
  ) -> Result? {
    if range.isEmpty { return nil }
    if forks == 0 || range.count < 2 { return body(range) }
    let middle = (range.lowerBound + range.upperBound) / 2
    var first: Result?
    var second: Result?
    both(
      { first = split(range.lowerBound..<middle, forks: forks - 1, body, merge: merge) },
      { second = split(middle..<range.upperBound, forks: forks - 1, body, merge: merge) })
    return merge(first!, second!)
  }

  /// Runs `first` on a new thread and `second` on this one; returns when both have finished.
  static func both(_ first: () -> Void, _ second: () -> Void) {
    withoutActuallyEscaping(first) { first in
      let work = Unmanaged.passRetained(Work(first))
      #if canImport(Glibc) || canImport(Musl)
        var thread = pthread_t()
        let started = pthread_create(
          &thread, nil,
          { context in
            Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
            return nil
          }, work.toOpaque())
        if started == 0 {
          second()
          pthread_join(thread, nil)
          return
        }
      #endif
      work.release()
      first()
      second()
    }
  }

  /// The first piece's closure, boxed to cross into the new thread.
  private final class Work {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
  }
}
