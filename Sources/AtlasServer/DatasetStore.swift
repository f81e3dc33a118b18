import Synchronization

/// The datasets being served, by name: each a reference to a whole, built `Dataset`, swapped for the next one
/// in one step under a lock. A request takes its dataset once and answers from it to the end, so it never sees
/// a half-built index or a mix of two versions, and a swap never waits for requests in flight (the old dataset
/// lives until the last of them lets it go).
final class DatasetStore: Sendable {
  private struct State {
    var byName: [String: Dataset] = [:]
    /// Names in the order they were given or first written (`markers` first).
    var order: [String] = []
    /// The last version each name was served at, kept when a dataset is removed so that versions never repeat.
    var versions: [String: Int] = [:]
  }
  private let state: Mutex<State>

  init(_ datasets: [Dataset]) {
    var state = State()
    for dataset in datasets where state.byName[dataset.name] == nil {
      state.byName[dataset.name] = dataset
      state.order.append(dataset.name)
      state.versions[dataset.name] = dataset.version
    }
    self.state = Mutex(state)
  }

  subscript(name: String) -> Dataset? { state.withLock { $0.byName[name] } }

  /// Every dataset, in order.
  var all: [Dataset] { state.withLock { state in state.order.compactMap { state.byName[$0] } } }

  var byName: [String: Dataset] { state.withLock { $0.byName } }

  /// The version the next dataset of `name` gets.
  func nextVersion(_ name: String) -> Int { state.withLock { ($0.versions[name] ?? 0) + 1 } }

  /// Serves `dataset` in place of the one of its name (or removes that name, with nil).
  func swap(_ name: String, to dataset: Dataset?) {
    state.withLock { state in
      if let dataset {
        if state.byName.updateValue(dataset, forKey: name) == nil { state.order.append(name) }
        state.versions[name] = max(state.versions[name] ?? 0, dataset.version)
      } else if state.byName.removeValue(forKey: name) != nil {
        state.order.removeAll { $0 == name }
      }
    }
  }
}
