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
