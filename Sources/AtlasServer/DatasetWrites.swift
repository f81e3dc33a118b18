import AtlasAnswers
import AtlasMessages
import AtlasSettings
import Foundation
import GeoFormats
import GeoIndex
import NewsAtlas
import Synchronization

/// The datasets written over HTTP: each change is kept in `--datasets-dir` before the new index is built beside
/// the one being served and swapped in. A PUT (or the first write to a dataset given at start) writes the whole
/// dataset as `NAME.geojson` (synced and renamed into place) with its version; an add or a removal of features
/// is appended to `NAME.journal` (`DatasetJournal`, synced) and applied to the features in memory, so that a
/// change costs its own bytes on disk, not the dataset's; the journal is compacted into a new base once it is
/// over a quarter of the base. The cluster index is built again from all the features at each change (its ids
/// and order depend on all of them, see Benchmarks/README.md); the nearest tree waits for its first query.
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
  /// Where a failure's detail goes (the paths and the system's reason), which an answer does not carry.
  private let logLine: @Sendable (String) -> Void
  /// A journal over a quarter of its base is compacted once it is over this many bytes too.
  let compactionBytes: Int
  /// Datasets with a builder running, and the changes waiting for it.
  private let lanes = Mutex<[String: Lane]>([:])
  /// Failures a test injects and the gate it holds builders at (none in a server).
  let seams = DatasetWriteSeams()

  init(
    directory: String, options: ClusterOptions, aggregations: [Aggregation], store: DatasetStore,
    metrics: Metrics, compactionBytes: Int = DatasetWrites.smallestCompaction,
    log: @escaping @Sendable (String) -> Void = { _ in },
    afterSwap: @escaping @Sendable (String, Dataset?) -> Void
  ) {
    self.compactionBytes = compactionBytes
    self.logLine = log
    self.directory = directory
    self.options = options
    self.aggregations = aggregations
    self.store = store
    self.metrics = metrics
    self.afterSwap = afterSwap
  }

  /// Logs `line` (and hands it to the seams, for tests).
  private func log(_ line: String) {
    seams.logged(line)
    logLine(line)
  }

  /// The file a dataset is kept in, and the journal of its changes since.
  func path(of name: String) -> String { directory + "/" + name + ".geojson" }
  func journalPath(of name: String) -> String { directory + "/" + name + ".journal" }

  /// Applies `change` to the dataset `name` and answers once it is on disk and served (or refused).
  func apply(_ change: Change, to name: String) async -> Outcome {
    await withCheckedContinuation { answer in
      let starts = lanes.withLock { lanes -> Bool in
        let starts = lanes[name] == nil
        lanes[name, default: Lane()].waiting.append(Waiting(change: change, answer: answer))
        return starts
      }
      guard starts else { return }
      let thread = Thread { [self] in
        Self.nameThisThread("newsatlas-build")
        drain(name)
      }
      thread.stackSize = 4 << 20
      thread.start()
    }
  }

  /// Names the calling thread for the system (top, `/proc/PID/task/*/comm`; 15 bytes at most). Foundation's
  /// `Thread.name` names it only once `start()` has recorded the thread, which a new thread may run ahead of:
  /// the journal tests found a builder unnamed under load now and then.
  private static func nameThisThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }  // no /proc: the thread keeps the process's name
    defer { close(descriptor) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBufferPointer { Glibc.write(descriptor, $0.baseAddress, $0.count) }
  }

  /// Applies what waits for `name`, all of it at a time, until nothing does; a journal grown past a quarter of
  /// its base is compacted into a new base once the changes it holds are answered.
  private func drain(_ name: String) {
    while true {
      seams.waitBeforeBatch()
      let batch = lanes.withLock { lanes -> [Waiting] in
        let batch = lanes[name]?.waiting ?? []
        if batch.isEmpty { lanes[name] = nil } else { lanes[name]?.waiting = [] }
        return batch
      }
      if batch.isEmpty { return }
      let outcomes = apply(batch.map(\.change), to: name)
      for (waiting, outcome) in zip(batch, outcomes) { waiting.answer.resume(returning: outcome) }
      if let dataset = store[name], let kept = dataset.kept,
        kept.journalBytes > max(kept.baseBytes / 4, compactionBytes)
      {
        seams.waitBeforeCompaction()
        compact(dataset)
        seams.compactionEnded()
      }
      // The zooms' trees the build left to their first query are built here, not by a request (one takes
      // 77 ms at 1M items, on the request tasks' pool), unless changes wait: their build replaces this index.
      // One that arrives meanwhile stops the tree in progress between two of its nodes (the tree is dropped),
      // so it waits a node's sort, not a whole tree.
      store[name]?.index.buildDeferredTrees { waitingCount(name) == 0 }
      seams.treesEnded()
    }
  }

  /// How many changes wait for the builder of `name` (for tests lining changes up behind a held builder).
  func waitingCount(_ name: String) -> Int { lanes.withLock { $0[name]?.waiting.count ?? 0 } }

  /// The default of `compactionBytes`.
  static let smallestCompaction = 1 << 20

  /// The changes applied in order to the served dataset, kept on disk once and built once: appended to the
  /// dataset's journal when they add or remove features of a dataset kept here, else written as a whole new
  /// base file (a PUT, a removal, the first write to a dataset given at start).
  private func apply(_ changes: [Change], to name: String) -> [Outcome] {
    let start = ContinuousClock.now
    let before = store[name]
    let outcomes: [Outcome]
    let changed: Int
    // A base whose folder sync failed is written whole again at its next change (its rename may not be on disk,
    // so no journal goes on from it), and so is one whose journal is of an older format (not appended to).
    if let before, let kept = before.kept, kept.baseSynced, kept.journalFormat == DatasetJournal.format,
      changes.allSatisfy(\.isJournaled)
    {
      (outcomes, changed) = journal(changes, to: before)
    } else {
      (outcomes, changed) = rewrite(changes, to: name, from: before)
    }
    guard changed > 0 else { return outcomes }
    let elapsed = ContinuousClock.now - start
    metrics.datasetBuilt(
      changes: changed,
      seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18,
      extended: store[name]?.extendedIndex ?? false)
    return outcomes
  }

  /// Adds and removals of features appended to the journal (one write, one sync), then the dataset built from
  /// the features as they were with the changes applied in memory, and served.
  private func journal(_ changes: [Change], to before: Dataset) -> (outcomes: [Outcome], changed: Int) {
    let name = before.name
    let kept = before.kept!
    let version = store.nextVersion(name)
    let journalPath = journalPath(of: name)
    let first = kept.journalBytes
    // A new journal is written beside and renamed into place, never over the file of that name: one a
    // compaction could not remove may still be read by requests in flight on the dataset before it.
    let fresh: PrivateFile?
    let fd: Int32
    if first == 0 {
      do {
        fresh = try PrivateFile(beside: journalPath, naming: Sentence(.theDatasetNamed, name))
      } catch {
        let problem = failure(name, error.sentence, 0)
        return (changes.map { _ in .refused(problem) }, 0)
      }
      fd = fresh!.fileDescriptor
    } else {
      fresh = nil
      fd = open(journalPath, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
      guard fd >= 0 else {
        // One problem for the batch, with the errno of the failed call (read once, before anything else can
        // change it).
        let problem = failure(name, Sentence(.datasetStepOpening, journalPath), errno)
        return (changes.map { _ in .refused(problem) }, 0)
      }
    }
    defer {
      if let fresh { fresh.close() } else { close(fd) }
    }
    var records: [UInt8] = []
    // The file cut to its whole records (a write refused before may have left bytes after them, which no
    // dataset reads).
    guard ftruncate(fd, off_t(first)) == 0 else {
      let problem = failure(name, Sentence(.datasetStepCuttingBack, journalPath), errno)
      return (changes.map { _ in .refused(problem) }, 0)
    }
    if first == 0 { records = DatasetJournal.header(nonce: kept.nonce, baseVersion: kept.baseVersion) }
    let features = before.file.journaledCopy(journal: dup(fd))
    var outcomes: [Outcome?] = []
    var ahead = 0  // the bytes of `records` already written ahead (each once)
    var identity = kept.identity
    // The served features removed, by their index there (ascending), for `Dataset.init` to change the served
    // index rather than build it whole; the features this batch added are after those left.
    var removedBefore: [Int] = []
    for change in changes {
      switch change {
      case .add(let added):
        let (record, textStarts, hash) = DatasetJournal.addRecord(added, version: version)
        identity = DatasetJournal.chained(identity, hash)
        let at = first + records.count
        records += record
        features.append(journaled: added, textStarts: textStarts.map { $0 + at })
        outcomes.append(nil)
      case .removeFeature(let id):
        // The features this batch added are read through the journal: their records are written ahead (synced
        // with the rest below), so a removal after an add of the same id in one batch finds it, as replay will.
        if records.count > ahead {
          guard writeAhead(Array(records[ahead...]), to: fd, at: first + ahead) else {
            outcomes.append(
              .refused(failure(name, Sentence(.datasetStepWriting, journalPath), errno == 0 ? EIO : errno)))
            continue
          }
          ahead = records.count
        }
        let found = features.indices(withID: id)
        guard !found.isEmpty else {
          outcomes.append(.refused(Self.noFeature(name, id)))
          continue
        }
        // Each one's index among the served features: past each one removed before it.
        let served = before.file.count - removedBefore.count
        let gone = found.filter { $0 < served }.map { current in
          var index = current
          for earlier in removedBefore where earlier <= index { index += 1 }
          return index
        }
        removedBefore = (removedBefore + gone).sorted()
        features.remove(found)
        let (record, hash) = DatasetJournal.removeRecord(id: id, version: version)
        records += record
        identity = DatasetJournal.chained(identity, hash)
        outcomes.append(nil)
      case .replace, .removeDataset:
        preconditionFailure("a PUT or a removal is written whole")
      }
    }
    let changed = outcomes.filter { $0 == nil }.count
    guard changed > 0 else { return (outcomes.map { $0! }, 0) }
    let refusal: Problem?
    if let problem = append(records, to: fd, at: first, path: journalPath, name: name, fresh: fresh) {
      refusal = problem
    } else {
      do {
        let dataset = try Dataset(
          name: name, file: features, options: options, aggregations: aggregations, version: version,
          kept: Dataset.Kept(
            nonce: kept.nonce, identity: identity, baseVersion: kept.baseVersion, baseBytes: kept.baseBytes,
            journalBytes: first + records.count),
          extending: before, removed: removedBefore)
        store.swap(name, to: dataset)
        afterSwap(name, dataset)
        return (outcomes.map { $0 ?? .served(dataset, created: false) }, changed)
      } catch {
        // Not served, so not kept either: the journal is cut back to what it was.
        if ftruncate(fd, off_t(first)) == 0 { _ = syncJournal(fd) }
        refusal = failure(name, Sentence(.datasetStepBuilding), 0, reason: Self.said(error))
      }
    }
    metrics.datasetWritesFailed(changed)
    return (outcomes.map { $0 ?? .refused(refusal!) }, 0)
  }

  /// Writes `records` at `offset` of the journal, unsynced (`append` writes and syncs them again).
  private func writeAhead(_ records: [UInt8], to fd: Int32, at offset: Int) -> Bool {
    var written = 0
    while written < records.count {
      let count = records[written...].withUnsafeBytes {
        pwrite(fd, $0.baseAddress, $0.count, off_t(offset + written))
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      written += count
    }
    return true
  }

  /// Writes `records` at `offset` of the journal and syncs it (a new journal, `fresh`, is synced by its commit,
  /// then renamed into place and the folder synced); on a failure the journal is cut back to `offset` (a new
  /// one not put in place) and the problem returned.
  private func append(
    _ records: [UInt8], to fd: Int32, at offset: Int, path: String, name: String, fresh: PrivateFile?
  ) -> Problem? {
    guard writeAhead(records, to: fd, at: offset) else {
      let code = errno == 0 ? EIO : errno
      _ = ftruncate(fd, off_t(offset))
      return failure(name, Sentence(.datasetStepWriting, path), code)
    }
    if let fresh {
      do {
        // Synced once, by the commit, before its rename: until then the file has no name a restart reads.
        try fresh.commit(
          as: path, naming: Sentence(.theDatasetNamed, name), syncFile: { [self] in syncJournal($0) },
          syncFolder: { [self] _ in syncFolder() })
      } catch {
        // Refused, so not kept: in place, the records are cut away (were the file's name on disk, a restart would
        // serve them); else the temporary file is gone.
        if fresh.isInPlace, ftruncate(fd, off_t(offset)) == 0 { _ = syncJournal(fd) }
        return failure(name, error.sentence, 0)
      }
      return nil
    }
    guard syncJournal(fd) == 0 else {
      let code = errno
      // Refused, so not kept: the cut is synced too (else a crash could bring the refused records back whole).
      if ftruncate(fd, off_t(offset)) == 0 { _ = syncJournal(fd) }
      return failure(name, Sentence(.datasetStepSyncing, path), code)
    }
    return nil
  }

  /// The changes applied to the features as pieces, the result written as a new base file (and any journal
  /// removed), built and served. The base gets a new random nonce whatever the change: one a crash undoes (its
  /// folder not synced) may have been served, and the history that goes on after the restart must not repeat
  /// its version under its identity (a journal of format 1 is rewritten at its next change, at each start).
  private func rewrite(_ changes: [Change], to name: String, from before: Dataset?) -> (
    outcomes: [Outcome], changed: Int
  ) {
    var pieces: [FeatureFile.Piece]? = before?.file.pieces
    // Each change's outcome: nil when it is served in the dataset this batch builds, true when it created it.
    var outcomes: [Outcome?] = []
    var created: [Bool] = []
    var changed = false
    // A dataset given at start (not kept here) beside a kept base or journal of its name: the kept dataset could
    // not be served (one read is served in place of the given one; a journal beside a base served is replayed,
    // or removed at start), so an add or a removal would write over that base and drop its journal: they are
    // refused until a PUT or a DELETE replaces it.
    var heldBack =
      before.map { !$0.isKeptHere } == true
      && (access(path(of: name), F_OK) == 0 || access(journalPath(of: name), F_OK) == 0)
    for change in changes {
      created.append(false)
      if heldBack, change.isJournaled {
        outcomes.append(.refused(Self.keptNotServed(name)))
        continue
      }
      switch change {
      case .replace(let file):
        heldBack = false
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
        let query = FeatureFile.IDQuery(id)
        let remaining = kept.filter { !$0.file.hasID(query, at: $0.index) }
        guard remaining.count < kept.count else {
          outcomes.append(.refused(Self.noFeature(name, id)))
          continue
        }
        pieces = remaining
        outcomes.append(nil)
        changed = true
      case .removeDataset:
        heldBack = false
        guard pieces != nil else {
          outcomes.append(.refused(Self.noDataset(name)))
          continue
        }
        pieces = nil
        outcomes.append(.removed)
        changed = true
      }
    }
    guard changed else { return (outcomes.map { $0 ?? .refused(Self.noDataset(name)) }, 0) }
    let served: Dataset?
    let unsynced: Problem?
    do {
      (served, unsynced) = try write(
        pieces, as: name, nonce: UInt64.random(in: 3 ... .max), version: store.nextVersion(name))
    } catch {
      metrics.datasetWritesFailed(changes.count)
      return (outcomes.map { _ in .refused(error) }, 0)
    }
    // In place on disk (synced or not): served, so that what is served is what a restart serves.
    store.swap(name, to: served)
    afterSwap(name, served)
    if let unsynced {  // answered as a 500 (whose detail the log gets) that says the change is served
      metrics.datasetWritesFailed(changes.count)
      return (
        outcomes.map { outcome in
          if case .refused = outcome { return outcome! }
          return .refused(unsynced)
        }, changes.count
      )
    }
    let outcomesServed = zip(outcomes, created).map { outcome, created in
      outcome ?? served.map { .served($0, created: created) } ?? .removed
    }
    return (outcomesServed, changes.count)
  }

  /// Keeps `pieces` as the dataset's base file (its journal removed) and builds its dataset; nil pieces remove
  /// the files. Once the base is renamed into place (or removed) the change is the dataset, whatever fails
  /// after: it is returned with the problem that its folder could not be synced (`unsynced`).
  ///
  /// - Throws: the problem, when nothing on disk changed.
  private func write(_ pieces: [FeatureFile.Piece]?, as name: String, nonce: UInt64, version: Int)
    throws(Problem)
    -> (dataset: Dataset?, unsynced: Problem?)
  {
    let path = path(of: name)
    guard let pieces else {
      // The base first, its removal synced before the journal goes: a crash then leaves a journal without a base
      // (removed at start), never a base without the answered changes its journal holds (two unlinks synced
      // once may reach the disk in either order).
      guard unlink(path) == 0 || errno == ENOENT else {
        throw failure(name, Sentence(.datasetStepRemoving, path), errno)
      }
      if let failed = syncFolder() {
        return (nil, unsyncedFailure(name, Sentence(.datasetStepSyncingFolderAt, directory), failed.code))
      }
      // The removal is on disk from here: a journal left (or brought back by a crash) names no base, and is
      // removed at start, so a failure to remove it is logged, not answered.
      switch removeJournal(of: name) {
      case 0: _ = syncFolder()
      case ENOENT: break
      case let code:
        log(
          Message.datasetRemovedJournalLeft(name, journalPath(of: name), String(cString: strerror(code))))
      }
      return (nil, nil)
    }
    let file: PrivateFile
    do {
      file = try PrivateFile(beside: path, naming: Sentence(.theDatasetNamed, name))
    } catch {
      throw failure(name, error.sentence, 0)
    }
    defer { file.close() }
    let (features, baseBytes) = try written(pieces, to: file, name: name, nonce: nonce, version: version)
    let dataset: Dataset
    do {
      // Built before the file is put in place: a change that cannot be served is not kept either, so a restart
      // serves what was served before it.
      dataset = try Dataset(
        name: name, file: features, options: options, aggregations: aggregations, version: version,
        kept: Dataset.Kept(
          nonce: nonce, identity: nonce, baseVersion: version, baseBytes: baseBytes, journalBytes: 0))
    } catch {
      throw failure(name, Sentence(.datasetStepBuilding), 0, reason: Self.said(error))
    }
    guard let unsynced = try commit(file, as: name) else { return (dataset, nil) }
    var kept = dataset.kept!
    kept.baseSynced = false
    return (Dataset(dataset, readingFrom: features, kept: kept), unsynced)
  }

  /// `pieces` written to `file` as a kept base (its version and nonce before the features), read back, and the
  /// file's size.
  private func written(
    _ pieces: [FeatureFile.Piece], to file: PrivateFile, name: String, nonce: UInt64, version: Int
  ) throws(Problem) -> (FeatureFile, Int) {
    do {
      let features = try FeatureFile.collection(
        of: pieces, propertyNames: aggregations.map(\.property),
        members: DatasetJournal.baseMembers(nonce: nonce, version: version), writingTo: file.fileDescriptor,
        name: name)
      return (features, Int(lseek(file.fileDescriptor, 0, SEEK_END)))
    } catch {
      throw failure(name, error.sentence, 0)
    }
  }

  /// Puts the written base in place (synced, renamed, the folder synced) and removes the journal, whose changes
  /// the base holds (one left by a crash names the base before and is dropped at start). When the base is in
  /// place but its folder's sync failed, the journal stays (it names the base before, so a restart drops it,
  /// unless a crash brings that base back too) and the problem is returned: the base's next change writes a
  /// whole base again.
  ///
  /// - Throws: the problem, when the base is not in place (the one before is).
  private func commit(_ file: PrivateFile, as name: String) throws(Problem) -> Problem? {
    do {
      try file.commit(
        as: path(of: name), naming: Sentence(.theDatasetNamed, name), syncFolder: { [self] _ in syncFolder() }
      )
    } catch {
      guard file.isInPlace else { throw failure(name, error.sentence, 0) }
      return unsyncedFailure(name, error.sentence, 0)
    }
    if removeJournal(of: name) == 0 { _ = syncFolder() }
    return nil
  }

  /// Removes the journal of `name` (`unlink`): 0 when it was removed, else the error number (`ENOENT` when there
  /// was none; an injected failure leaves it).
  private func removeJournal(of name: String) -> Int32 {
    if let code = seams.journalRemovalFault() { return code }
    return unlink(journalPath(of: name)) == 0 ? 0 : errno
  }

  /// Writes the served dataset's features as a new base at its version, named by the served identity (same
  /// content hash, same answers), and serves
  /// them from it; the journal goes. A failure leaves the journal as it was and is logged.
  private func compact(_ dataset: Dataset) {
    guard let kept = dataset.kept else { return }
    let name = dataset.name
    do throws(Problem) {
      let file: PrivateFile
      do {
        file = try PrivateFile(beside: path(of: name), naming: Sentence(.theDatasetNamed, name))
      } catch {
        throw failure(name, error.sentence, 0)
      }
      defer { file.close() }
      let (features, baseBytes) = try written(
        dataset.file.pieces, to: file, name: name, nonce: kept.identity, version: dataset.version)
      let unsynced = try commit(file, as: name)
      // In place, synced or not: served from the new base, so that no change is appended to a journal that
      // names the base before (a restart would drop it as stale); unsynced, the next change writes a base.
      let compacted = Dataset(
        dataset, readingFrom: features,
        kept: Dataset.Kept(
          nonce: kept.identity, identity: kept.identity, baseVersion: dataset.version, baseBytes: baseBytes,
          journalBytes: 0,
          baseSynced: unsynced == nil))
      store.swap(name, to: compacted)
      afterSwap(name, compacted)
      metrics.datasetCompacted(failed: unsynced != nil)
      if let unsynced { log(unsynced.detail) }
    } catch {
      metrics.datasetCompacted(failed: true)
      log(error.detail)
    }
  }

  /// The refusal of a write that could not be kept: a sentence that names no path (the detail, logged, does).
  /// The detail (`Self.detail`) is worded in the interface language the server started with, as its other log
  /// lines are; the answer's sentence in the request's.
  private func failure(_ name: String, _ step: Sentence, _ code: Int32, reason: String? = nil) -> Problem {
    let detail = Self.detail(name, step, code, reason: reason, unsynced: false)
    return .said({ .notKept($0, detail: detail) }, .serviceDatasetNotKept, name)
  }

  /// The problem of a change in place on disk whose folder could not be synced: it is served (what is served is
  /// what a restart serves), but a crash may undo it, which the answer says.
  private func unsyncedFailure(_ name: String, _ step: Sentence, _ code: Int32) -> Problem {
    let detail = Self.detail(name, step, code, reason: nil, unsynced: true)
    return .said({ .notKept($0, detail: detail) }, .serviceChangeUnsynced, name)
  }

  /// A failure's log line, one sentence: `step` failed, with the system's reason (`code`, when not 0) or
  /// `reason` in brackets; else `step` is the failure's own sentence (a file that could not be written), said
  /// after a colon with a small first letter.
  static func detail(
    _ name: String, _ step: Sentence, _ code: Int32, reason: String?, unsynced: Bool,
    in language: InterfaceLanguage = .current
  ) -> String {
    guard let reason = reason ?? (code == 0 ? nil : String(cString: strerror(code))) else {
      let said = step.lowercased.text(in: language)
      return unsynced
        ? Message.datasetUnsynced(name, said, in: language) : Message.datasetNotKept(name, said, in: language)
    }
    let said = step.text(in: language)
    return unsynced
      ? Message.datasetStepUnsynced(name, said, reason, in: language)
      : Message.datasetStepNotKept(name, said, reason, in: language)
  }

  /// An error's sentence in the interface language, when it has one (a dataset's build refuses with a
  /// `FormatError`, or a `ClusterError` for more points than an index holds), else its description.
  static func said(_ error: any Error) -> String {
    (error as? FormatError)?.text(in: .current) ?? (error as? ClusterError)?.text(in: .current)
      ?? String(describing: error)
  }

  /// Syncs a journal (`fsync`): 0, or -1 with `errno` set (an injected failure syncs nothing).
  private func syncJournal(_ fd: Int32) -> Int32 {
    if let code = seams.journalSyncFault() {
      errno = code
      return -1
    }
    return fsync(fd)
  }

  /// Syncs the datasets folder (so that a file created, renamed or removed in it stays so): nil, or what failed.
  private func syncFolder() -> PrivateFile.FolderSyncFailure? {
    if let code = seams.folderSyncFault() {
      return PrivateFile.FolderSyncFailure(step: Sentence(.datasetStepSyncingFolder), code: code)
    }
    return PrivateFile.syncFolder(directory)
  }

  static func noFeature(_ name: String, _ id: String) -> Problem {
    .said(Problem.notFound, .serviceNoFeatureWithId, name, id.prefix(64))
  }

  static func keptNotServed(_ name: String) -> Problem {
    .said(Problem.conflict, .serviceKeptNotServed, name.prefix(64))
  }

  static func noDataset(_ name: String) -> Problem {
    .said(Problem.notFound, .serviceNoDatasetToWrite, name.prefix(64))
  }
  /// The datasets kept in `directory` (`NAME.geojson` and its journal, `NAME.journal`), to serve at start, at
  /// the version they were kept at; temporary files a crash left are removed, and so are journals without a
  /// base or naming another base; a file that cannot be read is left alone and named in `warn`. `readFault`
  /// fails journal reads in tests (`DatasetJournal.replay`).
  static func load(
    directory: String, options: ClusterOptions, aggregations: [Aggregation], warn: (String) -> Void,
    readFault: (@Sendable (Range<Int>) -> Int32?)? = nil
  ) -> [Dataset] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
    var datasets: [Dataset] = []
    for file in names.sorted() {
      let path = directory + "/" + file
      if PrivateFile.isTemporary(file) {
        // A base being written when the server stopped, never renamed into place, so never answered.
        if unlink(path) == 0 { warn(Message.keptTemporaryRemoved(path)) }
        continue
      }
      if file.hasSuffix(".journal"), !names.contains(String(file.dropLast(8)) + ".geojson") {
        // Its base was removed (DELETE /v1/datasets/NAME) before it was: kept aside, never deleted.
        switch setAside(path, as: "orphaned") {
        case .success(let aside): warn(Message.keptJournalOrphaned(path, aside))
        case .failure(let code): warn(Message.keptNotMovedAside(path.dropLast(8) + ".geojson", path, code.sentence))
        }
        continue
      }
      guard file.hasSuffix(".geojson") else { continue }
      let name = String(file.dropLast(8))
      guard VectorLayer.isValidName(name), name != "markers" else { continue }
      // Only a regular file is read: a FIFO would hang the start, a link could point anywhere.
      var kind = stat()
      guard lstat(path, &kind) == 0, kind.st_mode & S_IFMT == S_IFREG else {
        warn(Message.keptNotRegular(path, DatasetsFolder.kind(kind.st_mode)))
        continue
      }
      do {
        let base = try FeatureFile.load(path: path, propertyNames: aggregations.map(\.property), name: name)
        // A base kept before versions were (or any file without their members: one in another format) is
        // served at version 1 and not journaled: its first change writes a whole base with a version and a nonce
        // of its own. (Its fingerprint, an inode and a time, is no name for a journal: a copy of the folder
        // would make every journal stale.)
        let facts = DatasetJournal.baseFacts(path)
        var features = base
        var version = facts?.version ?? 1
        var journalBytes = 0
        var journalFormat = DatasetJournal.format
        var identity = facts?.nonce ?? 0
        let journalPath = directory + "/" + name + ".journal"
        let journal = open(journalPath, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        var journalKind = stat()
        if journal < 0 ? errno != ENOENT : fstat(journal, &journalKind) != 0 || journalKind.st_mode & S_IFMT != S_IFREG {
          // A link, a folder, a FIFO: the changes answered since the base cannot be read, so neither is served.
          if journal >= 0 { close(journal) } else { _ = lstat(journalPath, &journalKind) }
          warn(Message.keptJournalNotRegular(path, journalPath, DatasetsFolder.kind(journalKind.st_mode)))
          continue
        }
        if journal >= 0 {
          let replay =
            facts.map {
              DatasetJournal.replay(
                journal, over: base, nonce: $0.nonce, baseVersion: $0.version, name: name,
                readFault: readFault
              ) { fd, tail, version in
                switch copyAside(tail, of: fd, from: journalPath) {
                case .success(let aside):
                  warn(Message.keptJournalTailCut(journalPath, tail.lowerBound, tail.count, version, aside))
                case .failure(let code):
                  warn(
                    Message.keptJournalTailNotKept(
                      journalPath, tail.lowerBound, tail.count, version, code.sentence))
                }
              }
            } ?? .stale
          switch replay {
          case .replayed(let replayed):
            (features, version, journalBytes) = (replayed.file, replayed.version, replayed.journalBytes)
            (journalFormat, identity) = (replayed.format, replayed.identity)
          case .stale:
            // Another base's journal, or one a base without its version member cannot be matched to: its
            // changes cannot go on this base, and are kept aside, never deleted.
            if facts == nil { close(journal) }
            // An empty one holds nothing (a first write refused and cut back): it goes without a word.
            if journalKind.st_size == 0, unlink(journalPath) == 0 { break }
            switch setAside(journalPath, as: "stale") {
            case .success(let aside):
              warn(
                facts == nil
                  ? Message.keptJournalUnmatched(journalPath, path, aside)
                  : Message.keptJournalStale(journalPath, path, aside))
            case .failure(let code):
              warn(Message.keptNotMovedAside(path, journalPath, code.sentence))
              continue
            }
          case .damaged(let offset):
            warn(Message.keptJournalDamaged(path, journalPath, offset))
            continue
          case .foreign:
            warn(Message.keptJournalForeign(path, journalPath))
            continue
          case .unreadable(let offset, let code):
            warn(Message.keptJournalUnreadable(path, journalPath, offset, String(cString: strerror(code))))
            continue
          }
        }
        var info = stat()
        let baseBytes = stat(path, &info) == 0 ? Int(info.st_size) : 0
        var options = options
        options.retainedZooms = nil
        let dataset = try Dataset(
          name: name, file: features, options: options, aggregations: aggregations, version: version,
          kept: facts.map {
            Dataset.Kept(
              nonce: $0.nonce, identity: identity, baseVersion: $0.version, baseBytes: baseBytes,
              journalBytes: journalBytes,
              journalFormat: journalFormat)
          }, keptHere: true)
        dataset.index.buildDeferredTrees()  // before serving: no request waits for a tree
        datasets.append(dataset)
      } catch {
        warn(Message.keptCannotServe(path, Self.said(error)))
      }
    }
    return datasets
  }
}

extension DatasetWrites {
  /// An error number, for a log line.
  struct SystemCode: Error {
    let code: Int32
    var sentence: String { String(cString: strerror(code)) }
  }

  /// The name a file is kept aside under at start: `PATH.KIND-20261129T014200Z` (`-2`, `-3`… after it when
  /// that is taken), beside it, in UTC.
  private static func asideName(_ path: String, _ kind: String, attempt: Int) -> String {
    var now = time(nil)
    var parts = tm()
    gmtime_r(&now, &parts)
    let stamp = String(
      format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour,
      parts.tm_min, parts.tm_sec)
    return "\(path).\(kind)-\(stamp)" + (attempt > 1 ? "-\(attempt)" : "")
  }

  /// Moves `path` aside (`PATH.KIND-TIMESTAMP`, never over another file), and syncs the folder: the name kept.
  static func setAside(_ path: String, as kind: String) -> Result<String, SystemCode> {
    for attempt in 1...100 {
      let aside = asideName(path, kind, attempt: attempt)
      // link, then unlink: a rename would replace a file of that name.
      if link(path, aside) == 0 {
        guard unlink(path) == 0 else { return .failure(SystemCode(code: errno)) }
        _ = PrivateFile.syncFolder((path as NSString).deletingLastPathComponent)
        return .success(aside)
      }
      guard errno == EEXIST else { return .failure(SystemCode(code: errno)) }
    }
    return .failure(SystemCode(code: EEXIST))
  }

  /// Copies `bytes` of the journal open at `fd` to a file of their own beside it
  /// (`JOURNAL.damaged-TIMESTAMP`, readable by its owner alone), synced: the name kept.
  static func copyAside(_ bytes: Range<Int>, of fd: Int32, from journalPath: String) -> Result<String, SystemCode> {
    for attempt in 1...100 {
      let aside = asideName(journalPath, "damaged", attempt: attempt)
      let out = open(aside, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
      guard out >= 0 else {
        if errno == EEXIST { continue }
        return .failure(SystemCode(code: errno))
      }
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      var at = bytes.lowerBound
      var failure: Int32 = 0
      while at < bytes.upperBound, failure == 0 {
        let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, min($0.count, bytes.upperBound - at), off_t(at)) }
        if got < 0 && errno == EINTR { continue }
        guard got > 0 else {
          failure = got < 0 ? errno : EIO
          break
        }
        var written = 0
        while written < got {
          let wrote = buffer.withUnsafeBytes { Glibc.write(out, $0.baseAddress! + written, got - written) }
          if wrote < 0 && errno == EINTR { continue }
          guard wrote > 0 else {
            failure = wrote < 0 ? errno : EIO
            break
          }
          written += wrote
        }
        at += got
      }
      if failure == 0, fsync(out) != 0 { failure = errno }
      close(out)
      guard failure == 0 else {
        unlink(aside)
        return .failure(SystemCode(code: failure))
      }
      _ = PrivateFile.syncFolder((journalPath as NSString).deletingLastPathComponent)
      return .success(aside)
    }
    return .failure(SystemCode(code: EEXIST))
  }
}

extension Problem {
  /// What the log gets: a problem's detail, or its sentence.
  fileprivate var detail: String {
    if case .notKept(_, let detail) = unworded { return detail }
    return message
  }
}

extension DatasetWrites.Change {
  /// Whether the change goes to the journal (an add or a removal of features) rather than a new base.
  var isJournaled: Bool {
    switch self {
    case .add, .removeFeature: return true
    case .replace, .removeDataset: return false
    }
  }
}

/// What tests inject into `DatasetWrites` (a server injects nothing): folder syncs that fail, as a disk may
/// after a rename, journal syncs that fail (all counted), removals of a journal that fail (after a new base or
/// a dataset's removal), the lines the writer logs, and gates that hold each builder before its next batch
/// or its next compaction, so that a test can line changes up behind it (`DatasetWrites.waitingCount`) or look
/// at the disk before a compaction.
final class DatasetWriteSeams: @unchecked Sendable {  // every member is guarded by `condition`
  private let condition = NSCondition()
  private var failingFolderSyncs = 0
  private var failingJournalSyncs = 0
  private var failingJournalRemovals = 0
  private var journalSyncsAsked = 0
  private var batchesHeld = false
  private var compactionsHeld = false
  private var compactionsEnded = 0
  private var treesEndedCount = 0
  private var buildersHeldCount = 0
  private var loggedLines: [String] = []

  /// The lines the writer logged itself (a failure answered carries its own detail to the log).
  var lines: [String] { condition.withLock { loggedLines } }

  func logged(_ line: String) { condition.withLock { loggedLines.append(line) } }

  /// The next `count` folder syncs fail (EIO), each after the step before it (a rename) was done.
  func failFolderSyncs(_ count: Int) { condition.withLock { failingFolderSyncs = count } }

  /// How many injected folder-sync failures are still to come.
  var folderSyncFaultsLeft: Int { condition.withLock { failingFolderSyncs } }

  /// The next `count` journal syncs fail (EIO) without syncing.
  func failJournalSyncs(_ count: Int) { condition.withLock { failingJournalSyncs = count } }

  /// The next `count` removals of a journal (after a new base is in place, or a dataset's removal) fail (EIO)
  /// and leave it.
  func failJournalRemovals(_ count: Int) { condition.withLock { failingJournalRemovals = count } }

  /// The error number of an injected journal-removal failure, or nil (remove it for real).
  func journalRemovalFault() -> Int32? {
    condition.withLock {
      guard failingJournalRemovals > 0 else { return nil }
      failingJournalRemovals -= 1
      return EIO
    }
  }

  /// Journal syncs asked for so far (failed or not).
  var journalSyncs: Int { condition.withLock { journalSyncsAsked } }

  /// Counts a journal sync; the error number of an injected failure, or nil (sync for real).
  func journalSyncFault() -> Int32? {
    condition.withLock {
      journalSyncsAsked += 1
      guard failingJournalSyncs > 0 else { return nil }
      failingJournalSyncs -= 1
      return EIO
    }
  }

  /// The error number of an injected folder-sync failure, or nil (sync for real).
  func folderSyncFault() -> Int32? {
    condition.withLock {
      guard failingFolderSyncs > 0 else { return nil }
      failingFolderSyncs -= 1
      return EIO
    }
  }

  /// Holds every builder before its next batch (`batches`) or compaction (`compactions`), until `release()`.
  func hold(batches: Bool = false, compactions: Bool = false) {
    condition.withLock { setHeld(batches, compactions) }
  }

  func release() { hold() }

  private func setHeld(_ batches: Bool, _ compactions: Bool) {
    batchesHeld = batches
    compactionsHeld = compactions
    condition.broadcast()
  }

  /// Compactions ended (done or failed).
  var compactions: Int { condition.withLock { compactionsEnded } }

  func compactionEnded() { condition.withLock { compactionsEnded += 1 } }

  /// Batches after which the builder built the served index's deferred trees (or stopped for more changes).
  var treesBuilt: Int { condition.withLock { treesEndedCount } }

  func treesEnded() { condition.withLock { treesEndedCount += 1 } }

  /// Builders waiting before a batch (`hold(batches:)`): each has named its thread and started its drain.
  var buildersHeld: Int { condition.withLock { buildersHeldCount } }

  func waitBeforeBatch() {
    condition.lock()
    if batchesHeld {
      buildersHeldCount += 1
      while batchesHeld { condition.wait() }
      buildersHeldCount -= 1
    }
    condition.unlock()
  }

  func waitBeforeCompaction() {
    condition.lock()
    while compactionsHeld { condition.wait() }
    condition.unlock()
  }
}
