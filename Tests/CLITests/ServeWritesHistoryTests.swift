import AtlasAnswers
import Foundation
import GeoFormats
import GeoIndex
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import AtlasServer

/// What a kept dataset's history must keep whatever happens to its files (issue 30, the reviewers' items of the
/// sixth session): a record's version is covered by its checksum, a journal of the format before is replayed.
@Suite struct ServeWritesHistoryTests {
  typealias Base = ServeWritesTests
  typealias Journal = ServeWritesJournalTests

  /// A kept dataset `live` of `count` features (seeded) PUT into `directory`, then `added` POSTed one at a time:
  /// the base's features, the added ones, the journal's size after each POST and each POST's ETag.
  static func written(_ directory: String, seed: UInt64, count: Int, adding: Int) async throws -> (
    base: [String], added: [String], sizes: [Int], etags: [String]
  ) {
    var random = SplitMix64(state: seed)
    let base = (1...count).map { Journal.feature($0, &random) }
    let added = (0..<adding).map { Journal.feature(count + 1 + $0, &random) }
    let sizes = try await Application(router: try Base.service(directory).router()).test(.router) {
      client async throws in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(base)).status == 201)
      var sizes: [Int] = []
      var etags: [String] = []
      for feature in added {
        let answer = try await Base.send(
          client, .post, "/v1/datasets/live/features", Journal.collection([feature]))
        #expect(answer.status == 200)
        etags.append(answer.headers[.eTag] ?? "")
        sizes.append(
          try FileManager.default.attributesOfItem(atPath: directory + "/live.journal")[.size] as! Int)
      }
      return (sizes, etags)
    }
    return (base, added, sizes.0, sizes.1)
  }

  /// A digit of a record's version flipped (3 to 2, one bit): the checksum covers the header too, so the record
  /// is damaged (here the last one: a tail, cut), not applied as part of version 2, which was answered and
  /// served without it (its features under version 2's ETag would be another content under the same ETag).
  @Test func aRecordsVersionIsCoveredByItsChecksum() async throws {
    let scratch = try ScratchDirectory()
    let (base, added, sizes, _) = try await Self.written(scratch.path, seed: 53, count: 20, adding: 2)
    let journal = scratch.path + "/live.journal"
    var bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
    let header = sizes[0]
    #expect(bytes[header] == DatasetJournal.recordStart && bytes[header + 5] == UInt8(ascii: "3"))
    bytes[header + 5] ^= 0x01  // "add 3 " becomes "add 2 "
    let (service, warnings) = try Journal.start(scratch.path, journal: bytes)
    #expect(warnings.count == 1 && warnings[0].contains("cut away and kept in"), "\(warnings)")
    #expect(service.datasets["live"]?.version == 2)
    #expect(try await Journal.answers(service) == (try await Journal.freshAnswers(base + added.prefix(1))))
    #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == bytes.prefix(sizes[0]))
  }

  /// A journal of format 1 (the format before: no record separator, payload-only checksums, a removal's id as it
  /// is) is replayed as it was; the dataset's next change writes a whole base (no record of another format is
  /// appended to it), and a restart serves the same.
  @Test func aJournalOfTheFormatBeforeIsReplayed() async throws {
    let scratch = try ScratchDirectory()
    let (base, added, _, _) = try await Self.written(scratch.path, seed: 59, count: 20, adding: 2)
    let facts = try #require(DatasetJournal.baseFacts(scratch.path + "/live.geojson"))
    func parsed(_ feature: String) throws -> FeatureFile {
      try FeatureFile.parse(Array(Journal.collection([feature]).utf8), name: "live")
    }
    let removed = try #require(base.compactMap(Journal.id(of:)).first { $0.hasPrefix("f") })
    let old =
      DatasetJournal.header(nonce: facts.nonce, baseVersion: facts.version, format: 1)
      + DatasetJournal.addRecord(try parsed(added[0]), version: facts.version + 1, format: 1).bytes
      + DatasetJournal.removeRecord(id: removed, version: facts.version + 2, format: 1).bytes
    #expect(!old.contains(DatasetJournal.recordStart))
    let (service, warnings) = try Journal.start(scratch.path, journal: Data(old))
    #expect(warnings.isEmpty, "\(warnings)")
    var features = base + added.prefix(1)
    features.removeAll { Journal.id(of: $0) == removed }
    #expect(service.datasets["live"]?.version == facts.version + 2)
    #expect(try await Journal.answers(service) == (try await Journal.freshAnswers(features)))
    try await Application(router: service.router()).test(.router) { client async throws in
      let answer = try await Base.send(
        client, .post, "/v1/datasets/live/features", Journal.collection([added[1]]))
      #expect(answer.status == 200 && answer.json["version"] as? Int == facts.version + 3, "\(answer.body)")
    }
    #expect(!FileManager.default.fileExists(atPath: scratch.path + "/live.journal"))
    #expect(DatasetJournal.baseFacts(scratch.path + "/live.geojson")?.version == facts.version + 3)
    let restarted = try Base.service(scratch.path)
    #expect(try await Journal.answers(restarted) == (try await Journal.freshAnswers(features + [added[1]])))
  }

  /// A journal cut back by hand (`truncate -s`, as a damage warning suggests) after version 3 was answered: the
  /// restart serves version 2 under the ETag it had, and the next change (version 3 again, another content) has
  /// another ETag than the version 3 answered before, as each record is chained into the content hash.
  @Test func aJournalCutBackRepeatsNoETag() async throws {
    let scratch = try ScratchDirectory()
    let (_, added, sizes, etags) = try await Self.written(scratch.path, seed: 61, count: 20, adding: 3)
    let journal = scratch.path + "/live.journal"
    let bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
    try bytes.prefix(sizes[0]).write(to: URL(fileURLWithPath: journal))
    let restarted = try Base.service(scratch.path)
    #expect("W/" + (restarted.datasets["live"]?.entityTag ?? "") == etags[0])
    try await Application(router: restarted.router()).test(.router) { client async throws in
      let answer = try await Base.send(
        client, .post, "/v1/datasets/live/features", Journal.collection([added[2]]))
      #expect(answer.status == 200 && answer.json["version"] as? Int == 3)
      #expect(answer.headers[.eTag] != nil && answer.headers[.eTag] != etags[1])
    }
  }

  /// A change written as a whole base whose folder sync failed (a journal of format 1 is rewritten at its next
  /// change), served and answered 500, then undone by a crash (the base and journal before it back on disk): the
  /// restart's next change, at the same version with another content, has another ETag, as a whole base gets a
  /// new nonce (it kept the dataset's).
  @Test func aRewriteACrashUndidRepeatsNoETag() async throws {
    let scratch = try ScratchDirectory()
    let (_, added, _, _) = try await Self.written(scratch.path, seed: 67, count: 20, adding: 3)
    let basePath = scratch.path + "/live.geojson"
    let facts = try #require(DatasetJournal.baseFacts(basePath))
    let parsed = try FeatureFile.parse(Array(Journal.collection([added[0]]).utf8), name: "live")
    let old = Data(
      DatasetJournal.header(nonce: facts.nonce, baseVersion: facts.version, format: 1)
        + DatasetJournal.addRecord(parsed, version: facts.version + 1, format: 1).bytes)
    let baseBytes = try Data(contentsOf: URL(fileURLWithPath: basePath))
    let (service, warnings) = try Journal.start(scratch.path, journal: old)
    #expect(warnings.isEmpty && service.datasets["live"]?.version == facts.version + 1)
    let undone = try await Application(router: service.router()).test(.router) { client async throws in
      service.writes?.seams.failFolderSyncs(1)
      let answer = try await Base.send(
        client, .post, "/v1/datasets/live/features", Journal.collection([added[1]]))
      #expect(answer.status == 500)
      return service.datasets["live"]
    }
    #expect(undone?.version == facts.version + 2)
    try baseBytes.write(to: URL(fileURLWithPath: basePath))
    let (restarted, none) = try Journal.start(scratch.path, journal: old)
    #expect(none.isEmpty)
    try await Application(router: restarted.router()).test(.router) { client async throws in
      let answer = try await Base.send(
        client, .post, "/v1/datasets/live/features", Journal.collection([added[2]]))
      #expect(answer.status == 200 && answer.json["version"] as? Int == facts.version + 2)
      #expect(answer.headers[.eTag] != nil && answer.headers[.eTag] != "W/" + (undone?.entityTag ?? ""))
    }
  }

  /// A compaction whose removal of the journal fails: the next POST makes a new journal beside it and renames it
  /// into place, so a request still reading the dataset from before the compaction (its features' text in the
  /// old journal) reads the same bytes (the POST cut that file to nothing and wrote over it), and the answers,
  /// then a restart's, are a fresh build's.
  @Test func aJournalLeftByACompactionIsNotCutUnderItsReaders() async throws {
    typealias Fault = ServeWritesFaultTests
    let scratch = try ScratchDirectory()
    let base = Fault.features(1...40, seed: 71)
    let one = Fault.features(41...41, seed: 72)
    let many = Fault.features(42...71, seed: 73)
    let later = Fault.features(72...73, seed: 74)
    let service = try Fault.service(scratch.path, compaction: 1024)
    let writes = try #require(service.writes)
    defer { writes.seams.release() }
    try await Application(router: service.router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(base)).status == 201)
      #expect(
        try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection(one)).status
          == 200)
      writes.seams.hold(compactions: true)
      #expect(
        try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection(many)).status
          == 200)
      // Held before its compaction: the dataset a request would hold now reads the journal.
      let inFlight = try #require(service.datasets["live"])
      let texts = (0..<inFlight.file.count).map { inFlight.file.text(of: $0) }
      writes.seams.failJournalRemovals(1)
      writes.seams.release()
      while writes.seams.compactions < 1 { try await Task.sleep(for: .milliseconds(1)) }  // after the answer
      #expect(FileManager.default.fileExists(atPath: scratch.path + "/live.journal"))
      let post = try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection(later))
      #expect(post.status == 200 && post.json["version"] as? Int == 4, "\(post.body)")
      let changed = (0..<inFlight.file.count).filter { inFlight.file.text(of: $0) != texts[$0] }
      #expect(changed.isEmpty, "\(changed.count) texts read otherwise, the first at \(changed.first ?? -1)")
    }
    let served = try await Journal.answers(service)
    #expect(served == (try await Journal.freshAnswers(base + one + many + later)))
    #expect(try await Journal.answers(try Fault.service(scratch.path)) == served)
  }

  /// A dataset written as CSV (PUT, then a POST of CSV rows through the journal), served with an aggregate of a
  /// numeric column: a restart serves it exactly as before (the features' properties with their types, the
  /// clusters' sums, the entry with its content hash). A field that is a JSON number is kept as one; any other
  /// (a leading zero, a space, a word) as a string, not summed.
  @Test func aCSVDatasetIsServedAsBeforeAfterARestart() async throws {
    let scratch = try ScratchDirectory()
    let aggregations = [Aggregation(property: "seats", operation: .sum)]
    func service() throws -> AtlasService {
      let markers = try Dataset(
        name: "markers", file: nil, options: ClusterOptions(), aggregations: aggregations)
      let kept = AtlasService.keptDatasets(
        directory: scratch.path, options: ClusterOptions(), aggregations: aggregations,
        warn: { Issue.record("\($0)") })
      return AtlasService(
        datasets: [markers] + kept, writeToken: Base.token, datasetsDirectory: scratch.path,
        aggregations: aggregations)
    }
    let paths = [
      "/v1/datasets/live", "/v1/datasets/live/clusters?zoom=0", "/v1/datasets/live/clusters?zoom=17",
      "/tiles/live/0/0/0.geojson", "/tiles/live/0/0/0.mvt",
    ]
    func answers(_ service: AtlasService) async throws -> [String] {
      try await Application(router: service.router()).test(.router) { client in
        var bodies: [String] = []
        for path in paths {
          let body = try await Base.send(client, .get, path).body
          bodies.append(path + " " + body.replacing(/"buildMilliseconds":[0-9.]+/, with: ""))
        }
        return bodies
      }
    }
    let written = try service()
    try await Application(router: written.router()).test(.router) { client async throws in
      let put = "name,lat,lon,seats,code\na,48.85,2.35,10,007\nb,48.86,2.36,4.5,12\nc,48.87,2.37, 3,x\n"
      #expect(try await Base.send(client, .put, "/v1/datasets/live", put).status == 201)
      let post = "name,lat,lon,seats,code\nd,48.88,2.38,-2e1,1e3\n"
      #expect(try await Base.send(client, .post, "/v1/datasets/live/features", post).status == 200)
    }
    let before = try await answers(written)
    #expect(before[1].contains(#""seats":-5.5"#), "\(before[1])")  // 10 + 4.5 - 20; " 3" is a string
    #expect(
      before[2].contains(#""seats":4.5,"code":12"#) && before[2].contains(#""code":"007""#), "\(before[2])")
    let after = try await answers(try service())
    for (a, b) in zip(before, after) { #expect(a == b) }
  }

  /// A journal whose first line names this base's nonce at a lower base version (a digit rotted: 1 to 0) is
  /// damaged, not stale: a stale journal of format 2 names another base's nonce (a PUT's is random, a
  /// compaction's the identity its records chained), so it is left as it is and the dataset not served (one
  /// warning), where it was removed with the answered changes it holds.
  @Test func aJournalWhoseBaseVersionRottedIsNotDropped() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 59)
    let base = (1...10).map { Journal.feature($0, &random) }
    let added = (11...12).map { Journal.feature($0, &random) }
    try await Application(router: try Base.service(scratch.path).router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(base)).status == 201)
      for feature in added {
        let post = try await Base.send(
          client, .post, "/v1/datasets/live/features", Journal.collection([feature]))
        #expect(post.status == 200)
      }
    }
    let path = scratch.path + "/live.journal"
    var journal = try Data(contentsOf: URL(fileURLWithPath: path))
    let lineEnd = try #require(journal.firstIndex(of: 0x0A))
    #expect(journal[lineEnd - 1] == UInt8(ascii: "1"))
    journal[lineEnd - 1] = UInt8(ascii: "0")
    let (kept, warnings) = try Journal.start(scratch.path, journal: journal)
    #expect(kept.datasets["live"] == nil && warnings.count == 1, "\(warnings)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == journal)
  }

  /// The content hash (so the ETag) names each aggregate's operation, not only its property: a restart with
  /// `seats` maximised instead of summed serves other cluster values under another ETag, so a client revalidating
  /// the one before gets them (a 200), not a 304 for its stale sums.
  @Test func anAggregatesOperationIsInTheETag() async throws {
    let scratch = try ScratchDirectory()
    func service(_ operation: Aggregation.Operation) throws -> AtlasService {
      let aggregations = [Aggregation(property: "seats", operation: operation)]
      let markers = try Dataset(
        name: "markers", file: nil, options: ClusterOptions(), aggregations: aggregations)
      let kept = AtlasService.keptDatasets(
        directory: scratch.path, options: ClusterOptions(), aggregations: aggregations,
        warn: { Issue.record("\($0)") })
      return AtlasService(
        datasets: [markers] + kept, writeToken: Base.token, datasetsDirectory: scratch.path,
        aggregations: aggregations)
    }
    let path = "/v1/datasets/live/clusters?zoom=0"
    let (tag, summed) = try await Application(router: try service(.sum).router()).test(.router) { client in
      let put = "name,lat,lon,seats\na,48.85,2.35,10\nb,48.86,2.36,4\n"
      #expect(try await Base.send(client, .put, "/v1/datasets/live", put).status == 201)
      let answer = try await Base.send(client, .get, path)
      return (try #require(answer.headers[.eTag]), answer.body)
    }
    try await Application(router: try service(.max).router()).test(.router) { client in
      let answer = try await Base.send(client, .get, path, headers: [("If-None-Match", tag)])
      #expect(answer.status == 200 && answer.headers[.eTag] != tag, "\(answer.status) \(tag)")
      #expect(answer.body != summed, "\(answer.body)")
    }
  }

  /// The bytes a replay read (counted by its read seam).
  final class ReadCount: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0
    func add(_ count: Int) { lock.withLock { total += count } }
    var bytes: Int { lock.withLock { total } }
  }

  /// Replays `journal` (written as `live`'s) over the kept base in `directory`, counting the bytes it reads.
  static func replay(_ directory: String, _ journal: Data) throws -> (DatasetJournal.Replay, read: Int) {
    let basePath = directory + "/live.geojson"
    let facts = try #require(DatasetJournal.baseFacts(basePath))
    let base = try FeatureFile.load(path: basePath, propertyNames: [], name: "live")
    let path = directory + "/live.journal"
    try journal.write(to: URL(fileURLWithPath: path))
    let fd = open(path, O_RDWR | O_CLOEXEC)
    try #require(fd >= 0)
    let read = ReadCount()
    let replay = DatasetJournal.replay(
      fd, over: base, nonce: facts.nonce, baseVersion: facts.version, name: "live",
      readFault: { range in
        read.add(range.count)
        return nil
      })
    return (replay, read.bytes)
  }

  /// The scan for whole records after damage reads each byte a bounded number of times, however the journal was
  /// crafted: 4,000 record headers after a torn record, each claiming a payload up to the end of the file (a
  /// whole record cannot hold the next one's first byte, so none is hashed past it). The torn record is a tail,
  /// cut. A journal of format 1 keeps its tail rule only where no whole record can follow: a record cut short
  /// at its end is cut, damage with a whole record after it is left (its scan would be quadratic).
  @Test func theScanAfterDamageIsLinear() async throws {
    let scratch = try ScratchDirectory()
    let (_, _, sizes, _) = try await Self.written(scratch.path, seed: 79, count: 10, adding: 1)
    let whole = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/live.journal")).prefix(sizes[0])
    let torn = Data("\u{1E}add 3 99999999 0000000000000000\n{".utf8)
    let lineBytes = 33
    let lines = 4_000
    let size = whole.count + torn.count + lines * lineBytes
    var crafted = whole + torn
    for k in 0..<lines {
      let start = whole.count + torn.count + k * lineBytes + lineBytes
      let claim = String(size - start - 1)
      crafted += Data(
        ("\u{1E}add 3 " + String(repeating: "0", count: 8 - claim.count) + claim + " "
          + String(repeating: "0", count: 16)
          + "\n").utf8)
    }
    #expect(crafted.count == size)
    let (replay, read) = try Self.replay(scratch.path, crafted)
    guard case .replayed(let replayed) = replay else {
      Issue.record("\(replay)")
      return
    }
    #expect(replayed.version == 2 && replayed.journalBytes == whole.count)
    #expect(read < 4 * size, "\(read) bytes read for a journal of \(size)")
    // Format 1.
    let facts = try #require(DatasetJournal.baseFacts(scratch.path + "/live.geojson"))
    var random = SplitMix64(state: 83)
    func record(_ serial: Int, _ version: Int) throws -> Data {
      let file = try FeatureFile.parse(
        Array(ServeWritesJournalTests.collection([Journal.feature(serial, &random)]).utf8), name: "live")
      return Data(DatasetJournal.addRecord(file, version: version, format: 1).bytes)
    }
    let head = Data(DatasetJournal.header(nonce: facts.nonce, baseVersion: facts.version, format: 1))
    let (r2, r3a, r3b) = (try record(20, 2), try record(21, 3), try record(22, 3))
    let (cut, _) = try Self.replay(scratch.path, head + r2 + r3a.prefix(r3a.count - 9))
    guard case .replayed(let kept) = cut else {
      Issue.record("\(cut)")
      return
    }
    #expect(kept.version == 2 && kept.journalBytes == head.count + r2.count)
    var damaged = r3a
    damaged[40] ^= 0x01
    let (left, _) = try Self.replay(scratch.path, head + r2 + damaged + r3b)
    guard case .damaged(let offset) = left else {
      Issue.record("\(left)")
      return
    }
    #expect(offset == head.count + r2.count)
  }

  /// A journal that cannot be read at start (an I/O error at a record's byte, injected): the dataset is not
  /// served, the file is left as it is, and the one warning says where the read failed, the system's reason and
  /// what to do (not that the journal is damaged).
  @Test func aJournalThatCannotBeReadIsNamedInOneWarning() async throws {
    let scratch = try ScratchDirectory()
    let (_, _, sizes, _) = try await Self.written(scratch.path, seed: 89, count: 10, adding: 2)
    let journal = scratch.path + "/live.journal"
    let bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
    let failing = sizes[0] + 40
    let warnings = Warnings()
    let kept = DatasetWrites.load(
      directory: scratch.path, options: ClusterOptions(), aggregations: [], warn: { warnings.add($0) },
      readFault: { $0.contains(failing) ? EIO : nil })
    #expect(kept.isEmpty)
    let all = warnings.all
    #expect(all.count == 1, "\(all)")
    let warning = all.first ?? ""
    let said = String(cString: strerror(EIO))
    #expect(warning.contains("reading its journal"), "\(warning)")
    #expect(warning.contains(" failed at byte \(sizes[0]) (\(said))"), "\(warning)")
    #expect(warning.contains("start again once the disk reads") && !warning.contains("damaged"), "\(warning)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == bytes)
  }

  /// A kept base that cannot be read (no journal beside it) and a dataset of the same name given at start
  /// (`--points`): an add or a removal is refused with a 409 and the kept base stays byte for byte (the first
  /// write wrote a new base over it); a PUT replaces it, and a POST after it is kept.
  @Test func aKeptBaseNotReadIsNotOverwrittenByAWrite() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 97)
    let base = (1...20).map { Journal.feature($0, &random) }
    let added = Journal.feature(21, &random)
    let basePath = scratch.path + "/live.geojson"
    let keptBase = Data(#"{"type":"FeatureCollection","newsatlas":{"version":3,"features":[{"#.utf8)
    try keptBase.write(to: URL(fileURLWithPath: basePath))
    let warnings = Warnings()
    let kept = DatasetWrites.load(
      directory: scratch.path, options: ClusterOptions(), aggregations: [], warn: { warnings.add($0) })
    #expect(kept.isEmpty && warnings.all.count == 1, "\(warnings.all)")
    let given = scratch.path + "/given.json"
    try Data(Journal.collection(base).utf8).write(to: URL(fileURLWithPath: given))
    let markers = try Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: [])
    let points = try Dataset(
      name: "live", file: try FeatureFile.load(path: given, propertyNames: [], name: "live"),
      options: ClusterOptions(), aggregations: [])
    let service = AtlasService(
      datasets: [markers, points], writeToken: Base.token, datasetsDirectory: scratch.path)
    try await Application(router: service.router()).test(.router) { client in
      let post = try await Base.send(client, .post, "/v1/datasets/live/features", Journal.collection([added]))
      #expect(post.status == 409 && post.body.contains("PUT the dataset"), "\(post.body)")
      let remove = try await Base.send(client, .delete, "/v1/datasets/live/features/f2")
      #expect(remove.status == 409, "\(remove.body)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: basePath)) == keptBase)
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(base)).status == 200)
      let after = try await Base.send(
        client, .post, "/v1/datasets/live/features", Journal.collection([added]))
      #expect(after.status == 200, "\(after.body)")
    }
    #expect(
      try await Journal.answers(try Base.service(scratch.path))
        == (try await Journal.freshAnswers(base + [added])))
  }
}
