import AtlasAnswers
import AtlasMessages
import Foundation
import GeoFormats
import GeoIndex
import NewsAtlas
import ServiceLifecycle
import Synchronization

/// A dataset kept in a database table (`serve --postgres`, the `PostGISSource` module behind it): the table's
/// committed changes followed, and the service's writes made in the table, never here.
public protocol TableLink: Sendable {
  /// `schema.table`, as people write it.
  var qualifiedName: String { get }
  /// Follows the changes committed after change `cursor` until the task is cancelled: `apply` hears each read
  /// of them (keys in the order of their last change; answers whether they are served: if not, they are read
  /// again), `events` how the connection goes. A failed connection is made again with back-off and reading
  /// goes on from the last change applied.
  func follow(
    from cursor: Int64, apply: @escaping @Sendable (TableChanges) async -> Bool,
    events: @escaping @Sendable (TableEvent) -> Void) async
  /// Adds features (a JSON array of GeoJSON Features) to the table in one transaction; the number of the
  /// table's last change once committed, which holds them.
  func insert(features: String) async throws(TableWriteError) -> Int64
  /// Removes the rows whose key is `id` in one transaction: the table's last change once committed, nil when
  /// no row has that key.
  func delete(id: String) async throws(TableWriteError) -> Int64?
}

/// Changes read from a table at once.
public struct TableChanges: Sendable {
  /// The number of the last change read.
  public var cursor: Int64
  /// The keys changed, each once, in the order of their last change: their features are removed.
  public var keys: [String]
  /// The Feature texts of those keys' rows as the table holds them now (points only), in the same order.
  public var features: [String]
  /// A GeoJSON file of the whole table as of `cursor`, when it was read whole again (after a TRUNCATE, which
  /// names no key): the dataset is built from it alone.
  public var reload: String?

  public init(cursor: Int64, keys: [String], features: [String], reload: String? = nil) {
    self.cursor = cursor
    self.keys = keys
    self.features = features
    self.reload = reload
  }
}

/// How following a table goes.
public enum TableEvent: Sendable {
  case connected
  /// Every change committed when it last read is served.
  case caughtUp(Int64)
  case disconnected(reason: String)
}

/// Why a write to a table was not made: the features do not fit it (400), or the database failed (503).
public enum TableWriteError: Error, Sendable {
  case refused(Sentence)
  case unavailable(Sentence)
}

/// A table's dataset as `serve` loaded it: the link to its table and the change it was read at. The dataset
/// itself (`Dataset(name:file:…table:change:)`, among the service's datasets) is read from a GeoJSON file by
/// `FeatureFile.load`, whose features take the changes read since.
public struct TableDataset: Sendable {
  public let link: any TableLink
  public let cursor: Int64

  public init(link: any TableLink, cursor: Int64) {
    self.link = link
    self.cursor = cursor
  }
}

/// The datasets read from tables, kept as their tables change: one follower a table, which applies each read of
/// changes (coalesced: all those committed since the last read) through the incremental path HTTP writes take
/// (the features of the changed keys removed, their rows now appended: `Dataset.init(…extending:removed:)`),
/// on a thread of its own, and swaps the dataset in. The features added are read back from a scratch file of
/// the table's (unlinked: nothing of it outlives the server). How far behind each table is goes to `/healthz`
/// and `/metrics`; a write over HTTP is answered once this server serves it (`waitFor`).
final class TableDatasets: Service, Sendable {
  struct Follow {
    var cursor: Int64
    var connected = false
    /// When it last knew it served every change committed (start: the load's snapshot).
    var caughtUpAt = ContinuousClock.now
    /// Whether changes are read but not yet served, or it is not connected: then it is behind since
    /// `caughtUpAt`.
    var behind = true
    var changesApplied = 0
    var disconnections = 0
    var compactions = 0
    var lastError: String?
    /// Writes over HTTP waiting for their change to be served: change, token, answer.
    var waiters: [(Int64, Int, CheckedContinuation<Bool, Never>)] = []
  }

  /// A table's scratch file of added features' text.
  private final class Scratch: Sendable {
    let descriptor: Int32
    let end = Mutex(0)
    init(descriptor: Int32) { self.descriptor = descriptor }
    deinit { close(descriptor) }
  }

  let links: [String: any TableLink]
  private let state: Mutex<[String: Follow]>
  /// Each table's scratch file, replaced by a compaction.
  private let scratch: Mutex<[String: Scratch]>
  /// A scratch file past this many bytes is compacted: the served features written to a new file, read back
  /// by offset, and a new, empty scratch file begun.
  let compactionBytes: Int
  private let store: DatasetStore
  private let options: ClusterOptions
  private let aggregations: [Aggregation]
  private let metrics: Metrics
  private let afterSwap: @Sendable (String, Dataset?) -> Void
  private let log: @Sendable (String) -> Void

  init(
    _ tables: [String: TableDataset], store: DatasetStore, options: ClusterOptions, aggregations: [Aggregation],
    metrics: Metrics, compactionBytes: Int = 256 << 20, log: @escaping @Sendable (String) -> Void,
    afterSwap: @escaping @Sendable (String, Dataset?) -> Void
  ) {
    links = tables.mapValues(\.link)
    state = Mutex(tables.mapValues { Follow(cursor: $0.cursor) })
    var scratch: [String: Scratch] = [:]
    for name in tables.keys {
      if let descriptor = Self.unnamedFile() { scratch[name] = Scratch(descriptor: descriptor) }
    }
    self.scratch = Mutex(scratch)
    self.compactionBytes = compactionBytes
    self.store = store
    self.options = options
    self.aggregations = aggregations
    self.metrics = metrics
    self.log = log
    self.afterSwap = afterSwap
  }

  /// A descriptor of a new file in the temporary folder (0600), open for reading and writing, its name already
  /// removed: nothing of it outlives the server.
  private static func unnamedFile() -> Int32? {
    var template = Array((NSTemporaryDirectory() + "/newsatlas-table-XXXXXX").utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }  // 0600
    guard descriptor >= 0 else { return nil }
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return descriptor
  }

  /// Follows every table until the server shuts down.
  func run() async throws {
    await cancelWhenGracefulShutdown {
      await withTaskGroup(of: Void.self) { group in
        for (name, link) in self.links {
          let cursor = self.state.withLock { $0[name]!.cursor }
          group.addTask {
            await link.follow(
              from: cursor, apply: { await self.apply($0, to: name) }, events: { self.heard($0, name) })
          }
        }
      }
    }
    // Nothing waits past shutdown.
    let waiting = state.withLock { state in
      state.keys.flatMap { name in
        defer { state[name]!.waiters = [] }
        return state[name]!.waiters.map(\.2)
      }
    }
    for waiter in waiting { waiter.resume(returning: false) }
  }

  /// Records `event`; the log hears of a lost connection once (not at each try while it is lost), and of its
  /// return.
  private func heard(_ event: TableEvent, _ name: String) {
    var said: String? = nil
    let waiting: [CheckedContinuation<Bool, Never>] = state.withLock { state in
      switch event {
      case .connected:
        if state[name]!.lastError != nil { said = Message.postgresFollowingAgain(name, in: .english) }
        state[name]!.connected = true
        state[name]!.lastError = nil
      case .caughtUp(let cursor):
        state[name]!.cursor = max(state[name]!.cursor, cursor)
        state[name]!.behind = false
        state[name]!.caughtUpAt = .now
      case .disconnected(let reason):
        if state[name]!.lastError == nil { said = "\(name): \(reason)" }
        if state[name]!.connected { state[name]!.disconnections += 1 }
        state[name]!.connected = false
        state[name]!.behind = true
        state[name]!.lastError = reason
      }
      return Self.released(&state[name]!)
    }
    if let said { log(said) }
    for waiter in waiting { waiter.resume(returning: true) }
  }

  /// The waiters whose change is served, taken out.
  private static func released(_ follow: inout Follow) -> [CheckedContinuation<Bool, Never>] {
    let cursor = follow.cursor
    let done = follow.waiters.filter { $0.0 <= cursor }.map(\.2)
    follow.waiters.removeAll { $0.0 <= cursor }
    return done
  }

  /// Waits until the dataset `name` serves change `change`, at most `limit`: whether it does.
  func waitFor(_ change: Int64, in name: String, limit: Duration) async -> Bool {
    let token = tokens.add(1, ordering: .relaxed).newValue
    let timer = Task {
      try await Task.sleep(for: limit)
      let expired = self.state.withLock { state -> [CheckedContinuation<Bool, Never>] in
        let late = state[name]!.waiters.filter { $0.1 == token }.map(\.2)
        state[name]!.waiters.removeAll { $0.1 == token }
        return late
      }
      for waiter in expired { waiter.resume(returning: false) }
    }
    defer { timer.cancel() }
    return await withCheckedContinuation { answer in
      let served = state.withLock { state -> Bool in
        if state[name]!.cursor >= change { return true }
        state[name]!.waiters.append((change, token, answer))
        return false
      }
      if served { answer.resume(returning: true) }
    }
  }
  private let tokens = Atomic<Int>(0)

  /// Serves `changes` to `name`'s dataset (on a thread of its own: a build takes a core for up to a second).
  private func apply(_ changes: TableChanges, to name: String) async -> Bool {
    state.withLock { $0[name]!.behind = true }
    let served = await withCheckedContinuation { answer in
      let thread = Thread { answer.resume(returning: self.build(changes, name)) }
      thread.stackSize = 4 << 20
      thread.start()
    }
    guard served else { return false }
    let waiting = state.withLock { state in
      state[name]!.cursor = changes.cursor
      state[name]!.changesApplied += changes.keys.count
      return Self.released(&state[name]!)
    }
    for waiter in waiting { waiter.resume(returning: true) }
    return true
  }

  private func build(_ changes: TableChanges, _ name: String) -> Bool {
    let start = ContinuousClock.now
    guard let before = store[name], let scratch = scratch.withLock({ $0[name] }), let link = links[name] else {
      return false
    }
    if let reload = changes.reload { return rebuild(from: reload, changes.cursor, name, link.qualifiedName) }
    guard before.file.isReadByOffset else {
      log("\(name): the dataset of a table is read from a GeoJSON file (FeatureFile.load), not from memory")
      return false
    }
    var added: FeatureFile? = nil
    if !changes.features.isEmpty {
      var text = Array(#"{"type":"FeatureCollection","features":["#.utf8)
      for (k, feature) in changes.features.enumerated() {
        if k > 0 { text.append(UInt8(ascii: ",")) }
        text += feature.utf8
      }
      text += "]}".utf8
      do {
        added = try FeatureFile.parse(
          text, name: link.qualifiedName, propertyNames: aggregations.map(\.property), csvFields: .jsonNumbers)
      } catch {
        log("\(name): \(error.description)")
        return false
      }
    }
    let removed = before.file.indices(withAnyOf: changes.keys)
    let features = before.file.journaledCopy(journal: dup(scratch.descriptor))
    features.remove(removed)
    if let added {
      let written = scratch.end.withLock { end -> Bool in
        var bytes: [UInt8] = []
        var starts: [Int] = []
        for i in 0..<added.count {
          starts.append(end + bytes.count)
          added.withText(of: i) { bytes += $0 }
          bytes.append(0x0A)
        }
        var offset = 0
        while offset < bytes.count {
          let count = bytes[offset...].withUnsafeBytes {
            pwrite(scratch.descriptor, $0.baseAddress, $0.count, off_t(end + offset))
          }
          if count < 0 && errno == EINTR { continue }
          guard count > 0 else {
            log("\(name): \(String(cString: strerror(errno)))")
            return false
          }
          offset += count
        }
        end += bytes.count
        features.append(journaled: added, textStarts: starts)
        return true
      }
      guard written else { return false }
    }
    let dataset: Dataset
    do {
      dataset = try Dataset(
        name: name, file: features, options: options, aggregations: aggregations,
        version: store.nextVersion(name), kept: nil, extending: before, removed: removed,
        followed: (link.qualifiedName, changes.cursor))
    } catch {
      log("\(name): \(error)")
      return false
    }
    store.swap(name, to: dataset)
    afterSwap(name, dataset)
    let elapsed = ContinuousClock.now - start
    metrics.datasetBuilt(
      changes: changes.keys.count,
      seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18,
      extended: dataset.extendedIndex)
    if scratch.end.withLock({ $0 }) > compactionBytes { compact(dataset, link.qualifiedName) }
    return true
  }

  /// The dataset built whole from the table read again (`reload`), served, and a new scratch file begun.
  private func rebuild(from path: String, _ change: Int64, _ name: String, _ table: String) -> Bool {
    let start = ContinuousClock.now
    let dataset: Dataset
    do {
      let file = try AtlasService.features(path: path, aggregations: aggregations, name: table)
      dataset = try Dataset(
        name: name, file: file, options: options, aggregations: aggregations, version: store.nextVersion(name),
        kept: nil, followed: (table, change))
    } catch {
      log("\(name): \(error)")
      return false
    }
    guard let fresh = Self.unnamedFile() else { return false }
    scratch.withLock { $0[name] = Scratch(descriptor: fresh) }
    store.swap(name, to: dataset)
    afterSwap(name, dataset)
    let elapsed = ContinuousClock.now - start
    metrics.datasetBuilt(
      changes: 1, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    return true
  }

  /// The served features written in their order to a new file and read back from it, the same dataset (index,
  /// version, hash) served reading them there, and a new scratch file begun: rows changed again and again
  /// leave their old text in the scratch file, which would otherwise grow as long as the server runs. Nothing
  /// changes for a request; a failure is logged and the scratch file kept.
  private func compact(_ dataset: Dataset, _ table: String) {
    let name = dataset.name
    guard let descriptor = Self.unnamedFile() else {
      log("\(name): \(String(cString: strerror(errno)))")
      return
    }
    defer { close(descriptor) }  // the file read back keeps a descriptor of its own
    let file: FeatureFile
    do {
      file = try FeatureFile.collection(
        of: dataset.file.pieces, propertyNames: dataset.file.propertyNames, writingTo: descriptor,
        name: table)
    } catch {
      log("\(name): \(error)")
      return
    }
    guard let fresh = Self.unnamedFile() else {
      log("\(name): \(String(cString: strerror(errno)))")
      return
    }
    let compacted = Dataset(dataset, readingFrom: file, kept: nil)
    scratch.withLock { $0[name] = Scratch(descriptor: fresh) }
    store.swap(name, to: compacted)
    state.withLock { $0[name]!.compactions += 1 }
  }

  /// Each table's state for `/healthz` and `/metrics`, by dataset name: the change served, whether connected,
  /// and how many seconds behind (0 when it serves every change committed when it last read).
  func report() -> [(name: String, table: String, follow: Follow, lagSeconds: Double)] {
    let now = ContinuousClock.now
    return state.withLock { $0 }.sorted { $0.key < $1.key }.map { name, follow in
      let lag = follow.behind ? now - follow.caughtUpAt : .zero
      return (
        name, links[name]!.qualifiedName, follow,
        Double(lag.components.seconds) + Double(lag.components.attoseconds) * 1e-18
      )
    }
  }
}
