import GeoFormats
import GeoIndex
import Synchronization

/// Datasets of the features that pass a filter (`filter=` on clusters, tiles and TileJSON), each built on first
/// use from its dataset's features with its options and aggregates, and kept up to a byte budget, the least
/// recently used out first (`serve --filter-cache-mb`).
///
/// Keyed by the dataset and the filter's canonical text, so that two spellings of one filter share an index. A
/// filtered dataset larger than the whole budget is built, answered from and not kept. Two requests that ask for
/// the same new filter at once may both build it; one is kept.
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

  private struct State {
    var kept: [Key: Kept] = [:]
    var bytes = 0
    var clock: UInt64 = 0
    var builds = 0
    var hits = 0
  }

  /// The most bytes kept (an estimate of each index and its features' text); 0 keeps none.
  let budget: Int
  private let state = Mutex(State())

  init(budget: Int) { self.budget = max(0, budget) }

  /// The dataset of `base`'s features that pass `filter`.
  func dataset(_ base: Dataset, filter: FeatureFilter) throws(ClusterError) -> Dataset {
    let key = Key(dataset: base.name, base: base.contentHash, filter: filter.canonical)
    let found = state.withLock { state -> Dataset? in
      state.clock += 1
      guard var kept = state.kept[key] else { return nil }
      kept.lastUse = state.clock
      state.kept[key] = kept
      state.hits += 1
      return kept.dataset
    }
    if let found { return found }
    var options = base.index.options
    options.retainedZooms = nil
    let built = try Dataset(
      name: base.name, file: base.file.filtered(by: filter), options: options,
      aggregations: base.aggregations,
      version: base.version)
    let bytes = built.approximateBytes
    state.withLock { state in
      state.builds += 1
      guard budget > 0, bytes <= budget, state.kept[key] == nil else { return }
      state.clock += 1
      state.kept[key] = Kept(dataset: built, bytes: bytes, lastUse: state.clock)
      state.bytes += bytes
      while state.bytes > budget, let oldest = state.kept.min(by: { $0.value.lastUse < $1.value.lastUse }) {
        state.kept[oldest.key] = nil
        state.bytes -= oldest.value.bytes
      }
    }
    return built
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
}
