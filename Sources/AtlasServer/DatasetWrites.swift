import AtlasAnswers
import AtlasMessages
import AtlasSettings
import Foundation
import GeoFormats
import GeoIndex
import Synchronization

/// The datasets written over HTTP: each change is kept in `--datasets-dir` (as `NAME.geojson`, synced and renamed
/// into place) before the new index is built beside the one being served and swapped in.
///
/// One builder per dataset: a change that arrives while its dataset is being written and built waits, with any
/// others that arrive meanwhile, and they are applied together, in the order they came, in one write and one
/// build (coalesced, not queued one by one). Each change's request is answered when the build that holds it is
/// served. Builders run on threads of their own, not on the tasks' cooperative pool.
final class DatasetWrites: Sendable {
  /// One change asked for.
  enum Change {
    case replace(FeatureFile)
    case add(FeatureFile)
    case removeFeature(id: String)
    case removeDataset
  }

  /// What became of a change: the dataset it is served in (and whether the change created it), or why not.
  enum Outcome {
    case served(Dataset, created: Bool)
    case removed
    case refused(Problem)
  }

  private struct Waiting: @unchecked Sendable {  // FeatureFile is not Sendable; it is handed over, not shared
    let change: Change
    let answer: CheckedContinuation<Outcome, Never>
  }
  private struct Lane {
    var waiting: [Waiting] = []
  }

  let directory: String
  let options: ClusterOptions
  let aggregations: [Aggregation]
  private let store: DatasetStore
  private let metrics: Metrics
  private let afterSwap: @Sendable (String, Dataset?) -> Void
  /// Datasets with a builder running, and the changes waiting for it.
  private let lanes = Mutex<[String: Lane]>([:])

  init(
    directory: String, options: ClusterOptions, aggregations: [Aggregation], store: DatasetStore,
    metrics: Metrics, afterSwap: @escaping @Sendable (String, Dataset?) -> Void
  ) {
    self.directory = directory
    self.options = options
    self.aggregations = aggregations
    self.store = store
    self.metrics = metrics
    self.afterSwap = afterSwap
  }

  /// The file a dataset is kept in.
  func path(of name: String) -> String { directory + "/" + name + ".geojson" }

  /// Applies `change` to the dataset `name` and answers once it is on disk and served (or refused).
  func apply(_ change: Change, to name: String) async -> Outcome {
    await withCheckedContinuation { answer in
      let starts = lanes.withLock { lanes -> Bool in
        let starts = lanes[name] == nil
        lanes[name, default: Lane()].waiting.append(Waiting(change: change, answer: answer))
        return starts
      }
      guard starts else { return }
      let thread = Thread { [self] in drain(name) }
      thread.name = "newsatlas-build"
      thread.stackSize = 4 << 20
      thread.start()
    }
  }

  /// Applies what waits for `name`, all of it at a time, until nothing does.
  private func drain(_ name: String) {
    while true {
      let batch = lanes.withLock { lanes -> [Waiting] in
        let batch = lanes[name]?.waiting ?? []
        if batch.isEmpty { lanes[name] = nil } else { lanes[name]?.waiting = [] }
        return batch
      }
      if batch.isEmpty { return }
      let outcomes = apply(batch.map(\.change), to: name)
      for (waiting, outcome) in zip(batch, outcomes) { waiting.answer.resume(returning: outcome) }
    }
  }

  /// The changes applied in order to the served dataset, written once and built once.
  private func apply(_ changes: [Change], to name: String) -> [Outcome] {
    let start = ContinuousClock.now
    let before = store[name]
    var pieces: [FeatureFile.Piece]? = before?.file.pieces
    // Each change's outcome: nil when it is served in the dataset this batch builds, true when it created it.
    var outcomes: [Outcome?] = []
    var created: [Bool] = []
    var changed = false
    for change in changes {
      created.append(false)
      switch change {
      case .replace(let file):
        created[created.count - 1] = pieces == nil
        outcomes.append(nil)
        pieces = file.pieces
        changed = true
      case .add(let file):
        guard pieces != nil else {
          outcomes.append(.refused(Self.noDataset(name)))
          continue
        }
        pieces! += file.pieces
        outcomes.append(nil)
        changed = true
      case .removeFeature(let id):
        guard let kept = pieces else {
          outcomes.append(.refused(Self.noDataset(name)))
          continue
        }
        let remaining = kept.filter { !$0.file.hasID(id, at: $0.index) }
        guard remaining.count < kept.count else {
          outcomes.append(
            .refused(
              .notFound(
                "No feature of '\(name)' has the id '\(id.prefix(64))'; a feature's id is its GeoJSON id member."
              )))
          continue
        }
        pieces = remaining
        outcomes.append(nil)
        changed = true
      case .removeDataset:
        guard pieces != nil else {
          outcomes.append(.refused(Self.noDataset(name)))
          continue
        }
        pieces = nil
        outcomes.append(.removed)
        changed = true
      }
    }
    guard changed else { return outcomes.map { $0 ?? .refused(Self.noDataset(name)) } }
    let served: Dataset?
    do {
      served = try write(pieces, as: name)
    } catch {
      metrics.datasetWritesFailed(changes.count)
      return outcomes.map { _ in .refused(error) }
    }
    store.swap(name, to: served)
    afterSwap(name, served)
    let elapsed = ContinuousClock.now - start
    metrics.datasetBuilt(
      changes: changes.count,
      seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    return zip(outcomes, created).map { outcome, created in
      outcome ?? served.map { .served($0, created: created) } ?? .removed
    }
  }

  /// Keeps `pieces` as the dataset's file and builds its dataset; nil pieces remove the file.
  private func write(_ pieces: [FeatureFile.Piece]?, as name: String) throws(Problem) -> Dataset? {
    let path = path(of: name)
    guard let pieces else {
      guard unlink(path) == 0 || errno == ENOENT else {
        throw .failed("Cannot remove the dataset's file: \(String(cString: strerror(errno))).")
      }
      let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      if folder >= 0 {
        _ = fsync(folder)
        close(folder)
      }
      return nil
    }
    do {
      let file = try PrivateFile(beside: path, naming: "the dataset '\(name)'")
      // Built before the file is put in place: a change that cannot be served is not kept either, so a
      // restart serves what was served before it.
      defer { file.close() }
      let features = try FeatureFile.collection(
        of: pieces, propertyNames: aggregations.map(\.property), writingTo: file.fileDescriptor, name: name)
      var options = options
      options.retainedZooms = nil
      let dataset = try Dataset(
        name: name, file: features, options: options, aggregations: aggregations,
        version: store.nextVersion(name))
      try file.commit(as: path, naming: "the dataset '\(name)'")
      return dataset
    } catch let error as SettingsError {
      throw .failed(error.description)
    } catch let error as FormatError {
      throw .failed(error.description)
    } catch {
      throw .failed("Cannot build the dataset '\(name)': \(error).")
    }
  }

  static func noDataset(_ name: String) -> Problem {
    .said(Problem.notFound, .serviceNoDatasetToWrite, name.prefix(64))
  }

  /// The datasets kept in `directory` (`NAME.geojson`), to serve at start; temporary files a crash left are
  /// removed, and a file that cannot be read is left alone and named in `warn`.
  static func load(
    directory: String, options: ClusterOptions, aggregations: [Aggregation], warn: (String) -> Void
  ) -> [Dataset] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
    var datasets: [Dataset] = []
    for file in names.sorted() {
      let path = directory + "/" + file
      if PrivateFile.isTemporary(file) {
        unlink(path)
        continue
      }
      guard file.hasSuffix(".geojson") else { continue }
      let name = String(file.dropLast(8))
      guard VectorLayer.isValidName(name), name != "markers" else { continue }
      do {
        let features = try FeatureFile.load(path: path, propertyNames: aggregations.map(\.property))
        var options = options
        options.retainedZooms = nil
        datasets.append(try Dataset(name: name, file: features, options: options, aggregations: aggregations))
      } catch {
        warn("The kept dataset '\(path)' cannot be served (\(error)); remove it or PUT the dataset again.")
      }
    }
    return datasets
  }
}
