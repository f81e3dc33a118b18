import AtlasMessages
import Foundation
import GeoFormats
import GeoIndex
import Synchronization

/// Datasets of the features that pass a filter (`filter=` on clusters, tiles and TileJSON), each built on first
/// use from its dataset's features with its options and aggregates, and kept up to a byte budget, the least
/// recently used out first (`serve --filter-cache-mb`).
///
/// Keyed by the dataset and the filter's canonical text, so that two spellings of one filter share an index.
/// A filtered dataset larger than the whole budget is built, answered from and not kept.
///
/// What one client can make the server do is bounded. Builds run on threads of their own (`builders` at a
/// time), never on the pool that answers the other requests; at most `queueLimit` more wait their turn, and a
/// request for yet another new filter is a 503 with `Retry-After` (requests for a filter being built wait for
/// that build). A filter's evaluation over a dataset may take `steps(features:)` steps
/// (`FeatureFilter.matches(_:steps:)`), and is refused with a 400 past that: a 16 KiB literal searched in every
/// one of 300k features is not worth minutes of CPU.
final class FilteredDatasets: Sendable {
  struct Key: Hashable {
    let dataset: String
    /// The content hash of the dataset filtered: a dataset written over HTTP gets filtered anew.
    let base: String
    let filter: String
  }

  private struct Kept {
    let dataset: Dataset
    let bytes: Int
    var lastUse: UInt64
  }

  /// A build asked for, running or waiting, and the requests waiting for it.
  private struct Build {
    let base: Dataset
    let filter: FeatureFilter
    var waiters: [CheckedContinuation<Dataset, any Error>]
  }

  private struct State {
    var kept: [Key: Kept] = [:]
    var bytes = 0
    var clock: UInt64 = 0
    var builds = 0
    var hits = 0
    var refused = 0
    var asked: [Key: Build] = [:]
    /// The builds asked for that no thread has started, oldest first.
    var queue: [Key] = []
    var running = 0
    /// How long the last build took, for `Retry-After`.
    var lastSeconds = 1.0
  }

  /// The most bytes kept (an estimate of each index and its features' text); 0 keeps none.
  let budget: Int
  /// How many filtered indexes are built at once, and how many more may wait.
  let builders: Int
  let queueLimit: Int
  private let state = Mutex(State())

  init(
    budget: Int, builders: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2),
    queueLimit: Int = 16
  ) {
    self.budget = max(0, budget)
    self.builders = max(1, builders)
    self.queueLimit = max(0, queueLimit)
  }

  /// The steps a filter's evaluation over a dataset of `features` features may take: 64 Mi, and 256 more
  /// for each feature. A map style's filter takes a few dozen a feature.
  static func steps(features: Int) -> Int { (64 << 20) + 256 * features }

  /// The dataset of `base`'s features that pass `filter`, built off the request pool if it is not kept.
  func dataset(_ base: Dataset, filter: FeatureFilter) async throws -> Dataset {
    let key = Key(dataset: base.name, base: base.contentHash, filter: filter.canonical)
    return try await withCheckedThrowingContinuation { continuation in
      enum Step {
        case found(Dataset)
        case wait
        case start
        case refuse(seconds: Int, waiting: Int)
      }
      let step = state.withLock { state -> Step in
        state.clock += 1
        if var kept = state.kept[key] {
          kept.lastUse = state.clock
          state.kept[key] = kept
          state.hits += 1
          return .found(kept.dataset)
        }
        if state.asked[key] != nil {
          state.asked[key]?.waiters.append(continuation)
          return .wait
        }
        let starts = state.running < builders
        if starts {
          state.running += 1
        } else if state.queue.count < queueLimit {
          state.queue.append(key)
        } else {
          // Retry once the builds ahead have had their turns, at the last build's pace.
          state.refused += 1
          let turns = Double(state.queue.count / builders + 1)
          let seconds = Int(min(3600, max(1, (turns * state.lastSeconds).rounded(.up))))
          return .refuse(seconds: seconds, waiting: state.queue.count)
        }
        state.asked[key] = Build(base: base, filter: filter, waiters: [continuation])
        return starts ? .start : .wait
      }
      switch step {
      case .found(let dataset): continuation.resume(returning: dataset)
      case .wait: break
      case .refuse(let seconds, let waiting):
        let problem = Problem.said(
          { .busy($0, retryAfterSeconds: seconds) }, .serviceFilterQueueFull, waiting, seconds)
        continuation.resume(throwing: problem)
      case .start:
        let thread = Thread { [self] in drain(starting: key) }
        thread.stackSize = 4 << 20
        thread.start()
      }
    }
  }

  /// Builds `key`, then whatever waits in the queue, until it is empty.
  private func drain(starting first: Key) {
    var key = first
    while true {
      guard let build = state.withLock({ $0.asked[key] }) else { return }
      let started = ContinuousClock.now
      let result = Result { try self.build(build.base, build.filter) }
      let elapsed = ContinuousClock.now - started
      let (waiters, next) = state.withLock { state -> ([CheckedContinuation<Dataset, any Error>], Key?) in
        let waiters = state.asked.removeValue(forKey: key)?.waiters ?? []
        state.lastSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        if case .success(let built) = result {
          state.builds += 1
          keep(built, for: key, in: &state)
        }
        guard !state.queue.isEmpty else {
          state.running -= 1
          return (waiters, nil)
        }
        return (waiters, state.queue.removeFirst())
      }
      for waiter in waiters { waiter.resume(with: result) }
      guard let next else { return }
      key = next
    }
  }

  private func build(_ base: Dataset, _ filter: FeatureFilter) throws -> Dataset {
    var options = base.index.options
    options.retainedZooms = nil
    let steps = Self.steps(features: base.file.count)
    let file: FeatureFile
    do {
      file = try base.file.filtered(by: filter, steps: steps)
    } catch {
      throw Problem.said(Problem.badParameter, .serviceFilterTooCostly, steps, base.name, base.file.count)
    }
    return try Dataset(
      name: base.name, file: file, options: options, aggregations: base.aggregations, version: base.version)
  }

  private func keep(_ built: Dataset, for key: Key, in state: inout State) {
    let bytes = built.approximateBytes
    guard budget > 0, bytes <= budget, state.kept[key] == nil else { return }
    state.clock += 1
    state.kept[key] = Kept(dataset: built, bytes: bytes, lastUse: state.clock)
    state.bytes += bytes
    while state.bytes > budget, let oldest = state.kept.min(by: { $0.value.lastUse < $1.value.lastUse }) {
      state.kept[oldest.key] = nil
      state.bytes -= oldest.value.bytes
    }
  }

  /// Lets go of the filtered datasets of `name` but those of the dataset whose content hash is `current` (the
  /// one now served), once it is written over HTTP or removed.
  func forget(_ name: String, keeping current: String?) {
    state.withLock { state in
      for (key, kept) in state.kept where key.dataset == name && key.base != current {
        state.kept[key] = nil
        state.bytes -= kept.bytes
      }
    }
  }

  /// Indexes built, answers from a kept one, how many are kept and their bytes, for `/metrics`.
  var counters: (builds: Int, hits: Int, kept: Int, bytes: Int) {
    state.withLock { ($0.builds, $0.hits, $0.kept.count, $0.bytes) }
  }

  /// Builds running and waiting, and requests refused because the queue was full, for `/metrics`.
  var queueCounters: (running: Int, waiting: Int, refused: Int) {
    state.withLock { ($0.running, $0.queue.count, $0.refused) }
  }
}
