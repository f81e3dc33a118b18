extension Result where Failure == NewsAPIError {
  /// The outcome of `body`, kept as a value: what a task group's child hands back with its index.
  ///
  /// Every child of a task group and every `Task` in this module that keeps a result goes through here, and
  /// builds its tuple from the value this returns. Not a style choice: Swift 6.3.1's optimizer miscompiles
  /// an escaping async closure of the shape `do { return (n, .success(try await f())) } catch { return (n,
  /// .failure(error)) }` (typed `do throws(E)` or not): in `-c release` only, `n` comes back as garbage
  /// (often 0), so answers landed at the wrong index (an index-out-of-range trap in GDELT's and the feeds'
  /// answers, one feed's items overwritten by another's). Binding the result first, then returning the tuple,
  /// compiles correctly. `Tests/Compiler/TaskTupleMiscompile.swift` is the standalone reproducer, compiled
  /// with `-O` by `TaskTupleMiscompileTests`, which says when a toolchain no longer needs this.
  static func awaiting(_ body: () async throws(NewsAPIError) -> Success) async -> Self {
    do throws(NewsAPIError) {
      return .success(try await body())
    } catch {
      return .failure(error)
    }
  }
}
