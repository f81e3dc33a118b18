import AtlasMessages
import AtlasSettings
import Foundation
import GeoFormats
import GeoIndex
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import AtlasServer

/// Dataset writes whose disk fails part way (issue 30): a folder sync that fails after a rename is injected
/// in-process (`DatasetWriteSeams`), and what is served must be what a restart serves, no acknowledged write
/// lost, no refused one served after a restart.
@Suite struct ServeWritesFaultTests {
  typealias Base = ServeWritesTests
  typealias Journal = ServeWritesJournalTests

  /// A service over `directory` (its kept datasets loaded) compacting journals over `compaction` bytes.
  static func service(_ directory: String, compaction: Int = 1 << 20, expecting expected: [String] = [])
    throws -> AtlasService
  {
    let markers = try Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: [])
    let kept = AtlasService.keptDatasets(
      directory: directory, options: ClusterOptions(), aggregations: [], warn: { line in
        // A start's informational lines (a tail kept aside, a journal moved aside) only where a test expects them.
        if !expected.contains(where: { line.contains($0) }) { Issue.record("\(line)") }
      })
    return AtlasService(
      datasets: [markers] + kept, writeToken: Base.token, datasetsDirectory: directory,
      journalCompactionBytes: compaction)
  }

  static func features(_ range: ClosedRange<Int>, seed: UInt64) -> [String] {
    var random = SplitMix64(state: seed)
    return range.map { Journal.feature($0, &random) }
  }

  /// `GET /v1/datasets/live` without its build time (which differs between two builds of the same features).
  static func entry(_ service: AtlasService) async throws -> String {
    try await Application(router: service.router()).test(.router) { client in
      try await Base.send(client, .get, "/v1/datasets/live").body
    }.replacing(/"buildMilliseconds":[0-9.]+/, with: "")
  }

  /// A PUT whose base is renamed into place but whose folder sync fails: the answer is a 500 that says the
  /// change is served, the new features are served (as a restart serves them), the journal of the base before
  /// is not appended to, and a POST after it is kept through a restart.
  @Test func aPutWhoseFolderSyncFailsServesWhatIsOnDisk() async throws {
    let scratch = try ScratchDirectory()
    let first = Self.features(1...30, seed: 1)
    let added = Self.features(31...31, seed: 2)
    let second = Self.features(40...52, seed: 3)
    let later = Self.features(60...61, seed: 4)
    let service = try Self.service(scratch.path)
    let writes = try #require(service.writes)
    try await Application(router: service.router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(first)).status == 201)
      #expect(
        try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection(added)).status
          == 200)
      writes.seams.failFolderSyncs(1)
      let put = try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(second))
      #expect(writes.seams.folderSyncFaultsLeft == 0)
      #expect(
        put.status == 500 && put.body.contains("is served") && !put.body.contains(scratch.path), "\(put.body)"
      )
      let entry = try await Base.send(client, .get, "/v1/datasets/live")
      #expect(entry.json["featureCount"] as? Int == second.count && entry.json["version"] as? Int == 3)
      let post = try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection(later))
      #expect(post.status == 200 && post.json["version"] as? Int == 4, "\(post.body)")
    }
    let served = try await Journal.answers(service)
    #expect(served == (try await Journal.freshAnswers(second + later)))
    let restarted = try Self.service(scratch.path)
    #expect(try await Journal.answers(restarted) == served)
    #expect(try await Self.entry(restarted) == (try await Self.entry(service)))
  }

  /// A DELETE of a dataset removes its journal only once the base's removal is synced in the folder (else a crash
  /// could keep the journal's removal and undo the base's, and a restart would serve the base without the
  /// answered changes its journal holds): when that sync fails, the answer is a 500 that says the change is
  /// served, the dataset is gone, and its journal is left (a restart removes it, having no base).
  @Test func aDeletedDatasetsJournalGoesOnlyAfterItsBase() async throws {
    let scratch = try ScratchDirectory()
    let base = Self.features(1...20, seed: 31)
    let added = Self.features(21...22, seed: 32)
    let service = try Self.service(scratch.path)
    let writes = try #require(service.writes)
    let journal = scratch.path + "/live.journal"
    try await Application(router: service.router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(base)).status == 201)
      #expect(
        try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection(added)).status
          == 200)
      #expect(FileManager.default.fileExists(atPath: journal))
      writes.seams.failFolderSyncs(1)
      let delete = try await Base.send(client, .delete, "/v1/datasets/live")
      #expect(writes.seams.folderSyncFaultsLeft == 0)
      #expect(delete.status == 500 && delete.body.contains("is served"), "\(delete.body)")
      #expect(try await Base.send(client, .get, "/v1/datasets/live").status == 404)
      #expect(!FileManager.default.fileExists(atPath: scratch.path + "/live.geojson"))
      #expect(FileManager.default.fileExists(atPath: journal))
    }
    #expect(try Self.service(scratch.path, expecting: ["has no base beside it"]).datasets["live"] == nil)
    #expect(!FileManager.default.fileExists(atPath: journal))
  }

  /// A DELETE of a dataset whose journal cannot be removed once the base's removal is synced: the removal is on
  /// disk (a journal without a base is removed at start), so it is answered 204, not a 500 saying that a crash may
  /// undo it; the journal is left, one log line says so, and a restart serves no such dataset and removes it.
  @Test func aRemovalWhoseJournalStaysIsAnswered() async throws {
    let scratch = try ScratchDirectory()
    let base = Self.features(1...20, seed: 41)
    let added = Self.features(21...21, seed: 42)
    let service = try Self.service(scratch.path)
    let writes = try #require(service.writes)
    let journal = scratch.path + "/live.journal"
    try await Application(router: service.router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(base)).status == 201)
      #expect(
        try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection(added)).status
          == 200)
      writes.seams.failJournalRemovals(1)
      let delete = try await Base.send(client, .delete, "/v1/datasets/live")
      #expect(delete.status == 204, "\(delete.status) \(delete.body)")
      #expect(try await Base.send(client, .get, "/v1/datasets/live").status == 404)
    }
    #expect(!FileManager.default.fileExists(atPath: scratch.path + "/live.geojson"))
    #expect(FileManager.default.fileExists(atPath: journal))
    #expect(
      writes.seams.lines == [
        "The dataset 'live' is removed, but its journal '\(journal)' could not be removed (Input/output error); "
          + "it names no base now, so the next start moves it aside."
      ], "\(writes.seams.lines)")
    #expect(try Self.service(scratch.path, expecting: ["has no base beside it"]).datasets["live"] == nil)
    #expect(!FileManager.default.fileExists(atPath: journal))
  }

  /// A new journal is synced once (by its commit, before it is renamed into place), an existing one once a
  /// batch; when that one sync fails, the POST is refused, no journal and no temporary file is left, and a
  /// restart serves the dataset without it.
  @Test func aNewJournalIsSyncedOnce() async throws {
    let scratch = try ScratchDirectory()
    let base = Self.features(1...20, seed: 51)
    let added = Self.features(21...23, seed: 52)
    let service = try Self.service(scratch.path)
    let writes = try #require(service.writes)
    try await Application(router: service.router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(base)).status == 201)
      for (i, feature) in added[0...1].enumerated() {
        let syncs = writes.seams.journalSyncs
        let post = try await Base.send(
          client, .post, "/v1/datasets/live/features", Journal.collection([feature]))
        #expect(post.status == 200, "\(post.body)")
        #expect(
          writes.seams.journalSyncs - syncs == 1, "POST \(i + 1): \(writes.seams.journalSyncs - syncs) syncs")
      }
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(base)).status == 200)
      writes.seams.failJournalSyncs(1)
      let refused = try await Base.send(
        client, .post, "/v1/datasets/live/features", Journal.collection([added[2]]))
      #expect(refused.status == 500 && refused.body.contains("not served"), "\(refused.body)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["live.geojson"])
    let fresh = try await Journal.freshAnswers(base)
    #expect(try await Journal.answers(service) == fresh)
    #expect(try await Journal.answers(try Self.service(scratch.path)) == fresh)
  }

  /// A failure's log line is one sentence in either language: a file's own refusal goes after a colon with a
  /// small first letter (it read "…after a crash: Cannot write…", a sentence inside a sentence), a step that
  /// failed is followed by its reason in brackets.
  @Test func aFailuresLogLineIsOneSentence() throws {
    let written = SettingsError.cannotWrite(
      .writeFailed, Sentence(.theDatasetNamed, "live"), "/d/live.geojson", Sentence(.writeStepSyncFolder),
      "Input/output error"
    ).sentence
    #expect(
      DatasetWrites.detail("live", written, 0, reason: nil, unsynced: true, in: .english)
        == "The dataset 'live' is changed on disk but may not stay so after a crash: cannot write the dataset "
        + "'live' '/d/live.geojson': syncing its folder failed (Input/output error).")
    #expect(
      DatasetWrites.detail("live", written, 0, reason: nil, unsynced: false, in: .french)
        == "Impossible de garder le jeu de données 'live' : impossible d'écrire le jeu de données 'live' "
        + "'/d/live.geojson' : la synchronisation de son dossier a échoué (Input/output error).")
    #expect(
      DatasetWrites.detail(
        "live", Sentence(.datasetStepBuilding), 0, reason: "An index holds at most 67,108,863 points.",
        unsynced: false, in: .english)
        == "Cannot keep the dataset 'live': building it failed (An index holds at most 67,108,863 points.).")
    #expect(
      DatasetWrites.detail(
        "live", Sentence(.datasetStepRemoving, "/d/live.geojson"), EIO, reason: nil, unsynced: true,
        in: .french)
        == "Le jeu de données 'live' est modifié sur le disque mais peut ne pas le rester après un plantage : la "
        + "suppression de /d/live.geojson a échoué (Input/output error).")
  }

  /// A POST whose journal sync fails is refused (500, no path), the journal is cut back to the records before
  /// it and that cut is synced too (else a crash could bring the refused record back whole, and a restart would
  /// serve it); a restart serves the dataset without it, and the next POST is kept.
  @Test func aJournalSyncThatFailsIsCutBackAndSynced() async throws {
    let scratch = try ScratchDirectory()
    let base = Self.features(1...20, seed: 21)
    let added = Self.features(21...23, seed: 22)
    let journal = scratch.path + "/live.journal"
    let service = try Self.service(scratch.path)
    let writes = try #require(service.writes)
    try await Application(router: service.router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(base)).status == 201)
      #expect(
        try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection([added[0]]))
          .status
          == 200)
      let before = try Data(contentsOf: URL(fileURLWithPath: journal))
      let syncs = writes.seams.journalSyncs
      writes.seams.failJournalSyncs(1)
      let refused = try await Base.send(
        client, .post, "/v1/datasets/live/features", Journal.collection([added[1]]))
      #expect(refused.status == 500 && !refused.body.contains(scratch.path), "\(refused.body)")
      // The failed sync, then the sync of the cut.
      #expect(writes.seams.journalSyncs - syncs == 2)
      #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == before)
      let kept = try await Base.send(
        client, .post, "/v1/datasets/live/features", Journal.collection([added[2]]))
      #expect(kept.status == 200, "\(kept.body)")
    }
    let served = try await Journal.answers(service)
    #expect(served == (try await Journal.freshAnswers(base + [added[0], added[2]])))
    #expect(try await Journal.answers(try Self.service(scratch.path)) == served)
  }

  /// A compaction whose new base is renamed into place but whose folder sync fails: served from the new base
  /// from then on, so a POST after it is not appended to the journal of the base before (a restart dropped
  /// that journal as stale, and with it the acknowledged POST). The disk is looked at with the next compaction
  /// held (one would put every feature in a new base again, hiding the loss).
  @Test func aCompactionWhoseFolderSyncFailsLosesNoWrite() async throws {
    let scratch = try ScratchDirectory()
    let base = Self.features(1...40, seed: 5)
    let one = Self.features(41...41, seed: 6)
    let many = Self.features(42...71, seed: 7)
    let later = Self.features(72...73, seed: 8)
    let service = try Self.service(scratch.path, compaction: 1024)
    let writes = try #require(service.writes)
    defer { writes.seams.release() }
    try await Application(router: service.router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(base)).status == 201)
      // The journal made (its creation syncs the folder), then a POST that takes it over a quarter of the base:
      // the compaction after its answer is the next folder sync.
      #expect(
        try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection(one)).status
          == 200)
      writes.seams.failFolderSyncs(1)
      #expect(
        try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection(many)).status
          == 200)
      while writes.seams.compactions < 1 { try await Task.sleep(for: .milliseconds(1)) }  // it runs after the answer
      #expect(writes.seams.folderSyncFaultsLeft == 0)
      writes.seams.hold(compactions: true)
      let post = try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection(later))
      #expect(post.status == 200 && post.json["version"] as? Int == 4, "\(post.body)")
      let metrics = try await Base.send(client, .get, "/metrics", headers: [])
      #expect(
        metrics.body.contains("newsatlas_dataset_compactions_total 1\n")
          && metrics.body.contains("newsatlas_dataset_compactions_failed_total 1\n"))
    }
    let all = base + one + many + later
    let served = try await Journal.answers(service)
    #expect(served == (try await Journal.freshAnswers(all)))
    let restarted = try Self.service(scratch.path)
    #expect(try await Journal.answers(restarted) == served)
    #expect(try await Self.entry(restarted) == (try await Self.entry(service)))
  }

  /// A new journal whose folder sync fails: the POST is refused and its record cut away (a restart does not
  /// serve it); a DELETE of the dataset whose folder sync fails: the dataset is no longer served (its files are
  /// gone), and the 500 says so.
  @Test func aRefusedFirstRecordIsCutAndARemovalIsFollowed() async throws {
    let scratch = try ScratchDirectory()
    let base = Self.features(1...20, seed: 9)
    let added = Self.features(21...22, seed: 10)
    let service = try Self.service(scratch.path)
    let writes = try #require(service.writes)
    try await Application(router: service.router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(base)).status == 201)
      writes.seams.failFolderSyncs(1)
      let post = try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection(added))
      #expect(post.status == 500 && post.body.contains("not served"), "\(post.body)")
      #expect(writes.seams.folderSyncFaultsLeft == 0)
    }
    let journal = scratch.path + "/live.journal"
    #expect((try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) ?? 0 == 0)
    let fresh = try await Journal.freshAnswers(base)
    #expect(try await Journal.answers(service) == fresh)
    #expect(try await Journal.answers(try Self.service(scratch.path)) == fresh)
    try await Application(router: service.router()).test(.router) { client in
      writes.seams.failFolderSyncs(1)
      let delete = try await Base.send(client, .delete, "/v1/datasets/live")
      #expect(delete.status == 500 && delete.body.contains("is served"), "\(delete.body)")
      #expect(try await Base.send(client, .get, "/v1/datasets/live").status == 404)
    }
    #expect(try Self.service(scratch.path).datasets["live"] == nil)
  }
}
