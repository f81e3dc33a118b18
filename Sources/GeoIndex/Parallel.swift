/// Work on many independent items shared between cores, for front ends that answer arrays of queries (the
/// Python package's C interface); the core's own builds use `ForkJoin` directly.
public enum Parallel {
  /// Runs `body` on consecutive pieces of `0..<count` that together cover it once, on up to `threads` threads
  /// (nil: one a processor), and returns when every piece is done; a count under `minimumPerThread` a thread
  /// runs on fewer threads (a helper is not worth waking for a few thousand queries).
  ///
  /// Pieces are equal halves, quarters…: `body` must be safe to run on two pieces at once (each writes only
  /// its own items' results).
  public static func forEachPiece(
    count: Int, threads: Int?, minimumPerThread: Int = 16_384, _ body: (Range<Int>) -> Void
  ) {
    let wanted = Swift.max(
      1, Swift.min(threads ?? ForkJoin.processors, count / Swift.max(1, minimumPerThread)))
    _ = ForkJoin.split(0..<count, forks: ForkJoin.forks(threads: wanted), body) { _, _ in }
  }
}
