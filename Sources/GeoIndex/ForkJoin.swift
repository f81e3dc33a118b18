import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Runs two independent pieces of one computation at once, the first on a helper thread, and returns when both
/// are done.
///
/// The core builds its trees and indexes with it (the two halves of a k-d node touch disjoint memory). The
/// helpers are one fewer than the processors, started on first use and kept, asleep, for the next call:
/// starting a thread costs 70–80 µs here, which a 10,000-point cluster build, forking about fifty times,
/// cannot afford. A fork that finds no helper free (all busy with the outer forks) runs both pieces here, one
/// after the other, with the same result; so does every fork when threads cannot be started.
enum ForkJoin {
  /// The number of processors online, at least 1.
  static let processors: Int = {
    return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
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

  /// Runs `first` on a helper thread and `second` on this one when `parallel` holds, else `first` then
  /// `second` here; returns when both have finished.
  static func both(if parallel: Bool = true, _ first: () -> Void, _ second: () -> Void) {
    if parallel, let counter = pthread_getspecific(forkCounter) {
      counter.assumingMemoryBound(to: Int.self).pointee += 1
    }
    guard parallel, let helper = Helper.claim() else {
      first()
      second()
      return
    }
    withoutActuallyEscaping(first) { first in
      helper.start(first)
      second()
      helper.wait()
    }
    Helper.release(helper)
  }

  /// Runs `body` and counts the forks asked for on this thread meanwhile (calls of `both` to run in parallel,
  /// whether or not a helper was free), for tests that check that work stays on the threads it was given.
  static func countingForks<Result>(_ body: () throws -> Result) rethrows -> (result: Result, forks: Int) {
    var count = 0
    let result = try withUnsafeMutablePointer(to: &count) { counter in
      pthread_setspecific(forkCounter, counter)
      defer { pthread_setspecific(forkCounter, nil) }
      return try body()
    }
    return (result, count)
  }

  /// The thread's fork count while `countingForks` runs on it, else nil.
  nonisolated(unsafe) private static let forkCounter: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()

  /// A thread that runs one piece at a time.
  ///
  /// Waking a sleeping thread costs 50–90 µs on these virtual machines, so both sides spin a while before
  /// sleeping: a helper keeps looking for its next piece for about half a millisecond after finishing one
  /// (1,500,000 looks, measured here), and a caller looks for its piece to finish as long before blocking. A
  /// cluster build forks again 60–100 µs after the last fork's end (one zoom's clustering between two trees),
  /// which a 70 µs spin missed: its 10,000-point trees took 0.25 instead of 0.3 ms with the longer spin.
  /// The handshake is `state` (idle, handed over, finished); whoever sleeps says so in `sleepers`, under
  /// `lock`, and whoever changes `state` then wakes them (sequentially consistent, so one of the two always
  /// sees the other).
  private final class Helper: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let state = Atomic<Int>(Helper.idle)
    private let sleepers = Atomic<Int>(0)
    /// The piece to run: written before `state` becomes `handedOver`, cleared before it becomes `finished`.
    private var work: (() -> Void)?

    private static let idle = 0
    private static let handedOver = 1
    private static let finished = 2
    /// Looks at `state` before sleeping (about 500 µs here).
    private static let spins = 1_500_000

    /// Guards `free` and `started`.
    nonisolated(unsafe) private static let poolLock: UnsafeMutablePointer<pthread_mutex_t> = {
      let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
      pthread_mutex_init(lock, nil)
      return lock
    }()
    /// The helpers not running a piece; filled on first use.
    nonisolated(unsafe) private static var free: [Helper] = []
    nonisolated(unsafe) private static var started = false

    private init() {
      pthread_mutex_init(lock, nil)
      pthread_cond_init(changed, nil)
    }

    /// A free helper, or nil if every helper is busy or none could be started.
    static func claim() -> Helper? {
      pthread_mutex_lock(poolLock)
      defer { pthread_mutex_unlock(poolLock) }
      if !started {
        started = true
        for _ in 1..<max(1, processors) {
          if let helper = Helper.launch() { free.append(helper) }
        }
      }
      return free.popLast()
    }

    static func release(_ helper: Helper) {
      helper.state.store(idle, ordering: .sequentiallyConsistent)
      pthread_mutex_lock(poolLock)
      free.append(helper)
      pthread_mutex_unlock(poolLock)
    }

    /// Starts a helper's thread, which lives as long as the process.
    private static func launch() -> Helper? {
      let helper = Helper()
      var attributes = pthread_attr_t()
      pthread_attr_init(&attributes)
      defer { pthread_attr_destroy(&attributes) }
      pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
      var thread = pthread_t()
      let context = Unmanaged.passRetained(helper).toOpaque()
      let started = pthread_create(
        &thread, &attributes,
        { context in
          Unmanaged<Helper>.fromOpaque(context!).takeRetainedValue().serve()
        }, context)
      if started != 0 {
        Unmanaged<Helper>.fromOpaque(context).release()
        return nil
      }
      return helper
    }

    /// Waits until `state` is `value`: spinning first, then asleep on `changed`.
    private func waitFor(_ value: Int) {
      for _ in 0..<Self.spins where state.load(ordering: .sequentiallyConsistent) == value { return }
      pthread_mutex_lock(lock)
      sleepers.add(1, ordering: .sequentiallyConsistent)
      while state.load(ordering: .sequentiallyConsistent) != value { pthread_cond_wait(changed, lock) }
      sleepers.subtract(1, ordering: .sequentiallyConsistent)
      pthread_mutex_unlock(lock)
    }

    /// Sets `state`, waking whoever sleeps.
    private func set(_ value: Int) {
      state.store(value, ordering: .sequentiallyConsistent)
      if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
        pthread_mutex_lock(lock)
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(lock)
      }
    }

    /// The helper's thread: run each piece handed over, forever.
    private func serve() -> Never {
      while true {
        waitFor(Self.handedOver)
        do {
          // Let go of the piece before reporting it finished: its caller checks that nothing kept it.
          let piece = work!
          piece()
        }
        work = nil
        set(Self.finished)
      }
    }

    func start(_ piece: @escaping () -> Void) {
      work = piece
      set(Self.handedOver)
    }

    func wait() { waitFor(Self.finished) }
  }
}
