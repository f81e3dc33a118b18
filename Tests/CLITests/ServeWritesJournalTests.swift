import Fetch
import Foundation
import GeoFormats
import GeoIndex
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import AtlasServer

/// Datasets written over HTTP whose adds and removals go to a journal (issue 30): after any sequence of writes
/// the answers equal a fresh build over the same features in the same order, a restart serves the same answers
/// at the same version, and a record cut short by a crash is dropped whole.
@Suite struct ServeWritesJournalTests {
  typealias Base = ServeWritesTests

  /// One feature's text: ids of three kinds (a string, a number, none), some features without a Point.
  static func feature(_ serial: Int, _ random: inout SplitMix64) -> String {
    let id: String
    switch serial % 7 {
    case 0: id = #""id":\#(serial % 50),"#  // numbers, some repeated
    case 1: id = ""
    default: id = #""id":"f\#(serial % 90)","#  // strings, some repeated
    }
    let geometry =
      serial % 11 == 3
      ? "null"
      : #"{"type":"Point","coordinates":[\#(Double.random(in: -179...179, using: &random)),"#
        + #"\#(Double.random(in: -80...80, using: &random))]}"#
    return
      #"{"type":"Feature",\#(id)"properties":{"s":\#(serial),"category":"\#("ab".randomElement(using: &random)!)"},"#
      + #""geometry":\#(geometry)}"#
  }

  static func collection(_ features: [String]) -> String {
    #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
  }

  /// The id a feature's text carries, as the DELETE route takes it (nil without one).
  static func id(of feature: String) -> String? {
    if let match = feature.firstMatch(of: /"id":"([^"]+)"/) { return String(match.1) }
    if let match = feature.firstMatch(of: /"id":([0-9]+)/) { return String(match.1) }
    return nil
  }

  /// The answers compared: clusters at every zoom (the leaves of zoom 17), tiles at zooms 0 to 3, filtered
  /// clusters, and the nearest points to a place.
  static let paths: [String] = {
    var paths = (0...17).map { "/v1/datasets/live/clusters?zoom=\($0)" }
    for (z, x, y) in [(0, 0, 0), (1, 0, 0), (1, 1, 1), (2, 1, 2), (3, 4, 3), (3, 2, 2)] {
      paths.append("/tiles/live/\(z)/\(x)/\(y).mvt")
      paths.append("/tiles/live/\(z)/\(x)/\(y).geojson")
    }
    let filter = queryEscaped(#"["==",["get","category"],"a"]"#)
    paths.append("/v1/datasets/live/clusters?zoom=2&filter=\(filter)")
    paths.append("/v1/nearest?dataset=live&lat=10&lon=20&count=5")
    return paths
  }()

  /// The answers of a service that builds `features` fresh (no writes, no journal).
  static func freshAnswers(_ features: [String]) async throws -> [String] {
    let file = try FeatureFile.parse(Array(collection(features).utf8), name: "live")
    let fresh = try Dataset(name: "live", file: file, options: ClusterOptions(), aggregations: [])
    let markers = try Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: [])
    return try await answers(AtlasService(datasets: [markers, fresh]))
  }

  /// `newsatlas_dataset_builds_extended_total` as the service reports it.
  static func extendedBuilds(_ client: some TestClientProtocol) async throws -> Int {
    let metrics = try await Base.send(client, .get, "/metrics", headers: []).body
    return metrics.firstMatch(of: /\nnewsatlas_dataset_builds_extended_total ([0-9]+)\n/).map { Int($0.1)! }
      ?? -1
  }

  static func answers(_ service: AtlasService) async throws -> [String] {
    try await Application(router: service.router()).test(.router) { client in
      var bodies: [String] = []
      for path in paths {
        let answer = try await client.execute(uri: path, method: .get)
        bodies.append("\(answer.status.code) \(path) " + String(buffer: answer.body))
      }
      return bodies
    }
  }

  /// Random adds (one to five features), removals by id (of features there, and of ids none has) and now and
  /// then a PUT, with a journal compacted every few kilobytes: after each step the service's answers equal a
  /// fresh build's over the features the test kept in the same order (ids, order, coordinates bit for bit), and
  /// a restart over the folder serves the same answers, entry and version.
  /// What the random writes have made so far (the test client's closure is `@Sendable`; one task uses it).
  final class Sequence: @unchecked Sendable {
    var random: SplitMix64
    var serial = 0
    var features: [String] = []
    init(seed: UInt64) { random = SplitMix64(state: seed) }

    func next() -> String {
      serial += 1
      return ServeWritesJournalTests.feature(serial, &random)
    }
    func roll(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
  }

  @Test(arguments: [UInt64(30), 31, 32])
  func randomWritesAnswerAsAFreshBuild(seed: UInt64) async throws {
    let state = Sequence(seed: seed)
    let scratch = try ScratchDirectory()
    let markers = try Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: [])
    let service = AtlasService(
      datasets: [markers], writeToken: Base.token, datasetsDirectory: scratch.path,
      journalCompactionBytes: 1024)
    state.features = (0..<60).map { _ in state.next() }
    let (expected, entry) = try await Application(router: service.router()).test(.router) { client in
      #expect(
        try await Base.send(client, .put, "/v1/datasets/live", Self.collection(state.features)).status == 201)
      var removals = 0
      var reduced = 0  // removals that changed the served index (`ClusterIndex.removing`) instead of a build
      for step in 0..<36 {
        let roll = state.roll(0..<20)
        if roll < 9 {
          let added = (0..<state.roll(1..<6)).map { _ in state.next() }
          let answer = try await Base.send(
            client, .post, "/v1/datasets/live/features", Self.collection(added))
          #expect(answer.status == 200, "step \(step): \(answer.body)")
          state.features += added
        } else if roll < 18 {
          let ids = state.features.compactMap(Self.id(of:))
          let id = roll == 17 || ids.isEmpty ? "none-has-it" : ids[state.roll(0..<ids.count)]
          let extendedBefore = try await Self.extendedBuilds(client)
          let answer = try await Base.send(client, .delete, "/v1/datasets/live/features/\(id)")
          let matching = state.features.filter { Self.id(of: $0) == id }
          #expect(
            answer.status == (matching.isEmpty ? 404 : 200), "step \(step): DELETE \(id): \(answer.body)")
          state.features.removeAll { Self.id(of: $0) == id }
          if !matching.isEmpty {
            removals += 1
            if try await Self.extendedBuilds(client) > extendedBefore { reduced += 1 }
          }
        } else {
          state.features = (0..<state.roll(20..<60)).map { _ in state.next() }
          let answer = try await Base.send(client, .put, "/v1/datasets/live", Self.collection(state.features))
          #expect(answer.status == 200)
        }
        if step % 6 == 5 {
          let served = try await Self.answers(service)
          let fresh = try await Self.freshAnswers(state.features)
          for (s, f) in zip(served, fresh) { #expect(s == f, "seed \(seed) step \(step)") }
        }
      }
      #expect(
        reduced * 2 >= removals && reduced > 0, "seed \(seed): \(reduced) of \(removals) removals reduced")
      let entry = try await Base.send(client, .get, "/v1/datasets/live")
      #expect(entry.json["featureCount"] as? Int == state.features.count)
      // Journals were compacted (into bases the restart below reads), none failed.
      let metrics = try await Base.send(client, .get, "/metrics", headers: []).body
      // Adds extended the served index (`ClusterIndex.appending`), and the answers above were a fresh build's
      // all the same.
      let extended = metrics.firstMatch(of: /\nnewsatlas_dataset_builds_extended_total ([0-9]+)\n/).map {
        Int($0.1)!
      }
      #expect((extended ?? 0) >= 3, "seed \(seed): \(extended ?? 0) extended builds")
      let compactions = metrics.firstMatch(of: /\nnewsatlas_dataset_compactions_total ([0-9]+)\n/).map {
        Int($0.1)!
      }
      #expect((compactions ?? 0) >= 1, "seed \(seed): \(compactions ?? 0) compactions")
      #expect(metrics.contains("\nnewsatlas_dataset_compactions_failed_total 0\n"))
      return (try await Self.answers(service), entry.body)
    }
    let fresh = try await Self.freshAnswers(state.features)
    #expect(expected == fresh)
    let journals = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter {
      $0.hasSuffix(".journal")
    }
    #expect(journals.count <= 1)
    // A restart: the base and the journal give the same answers, at the same version and content hash.
    let restarted = try Base.service(scratch.path)
    let restartedAnswers = try await Self.answers(restarted)
    #expect(restartedAnswers == expected)
    let again = try await Application(router: restarted.router()).test(.router) { client in
      try await Base.send(client, .get, "/v1/datasets/live").body
    }
    func facts(_ entry: String) -> String { entry.replacing(/"buildMilliseconds":[0-9.]+/, with: "") }
    #expect(facts(again) == facts(entry))
  }

  /// A journal whose last record was cut short (a crash while it was written, before its answer): the restart
  /// serves the changes before it, cuts the file back to them, and the next write goes on from there; a journal
  /// that names another base (a PUT's new base in place, the old journal not yet removed) is dropped.
  @Test func aRecordCutShortIsDroppedWhole() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 7)
    let base = (1...40).map { Self.feature($0, &random) }
    let added = (41...43).map { Self.feature($0, &random) }
    let journal = scratch.path + "/live.journal"
    let service = try Base.service(scratch.path)
    let sizes = try await Application(router: service.router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base)).status == 201)
      var sizes: [Int] = []
      for feature in added {
        let answer = try await Base.send(
          client, .post, "/v1/datasets/live/features", Self.collection([feature]))
        #expect(answer.status == 200 && answer.json["version"] as? Int == 1 + sizes.count + 1)
        sizes.append(try FileManager.default.attributesOfItem(atPath: journal)[.size] as! Int)
      }
      return sizes
    }
    // The last record cut in the middle.
    let whole = try Data(contentsOf: URL(fileURLWithPath: journal))
    let cut = sizes[1] + (sizes[2] - sizes[1]) / 2
    try whole.prefix(cut).write(to: URL(fileURLWithPath: journal))
    let restarted = try Base.service(scratch.path, expecting: ["cut away and kept in"])
    let served1 = try await Self.answers(restarted)
    let fresh1 = try await Self.freshAnswers(base + added.prefix(2))
    #expect(served1 == fresh1)
    #expect(try FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int == sizes[1])
    // The bytes cut away are kept aside, never deleted.
    #expect(try Self.takeAside(scratch.path, "damaged") == [whole[sizes[1]..<cut]])
    try await Application(router: restarted.router()).test(.router) { client in
      let entry = try await Base.send(client, .get, "/v1/datasets/live")
      #expect(entry.json["version"] as? Int == 3 && entry.json["featureCount"] as? Int == 42)
      let answer = try await Base.send(
        client, .post, "/v1/datasets/live/features", Self.collection([added[2]]))
      #expect(answer.status == 200 && answer.json["version"] as? Int == 4)
    }
    let third = try Base.service(scratch.path)
    let served2 = try await Self.answers(third)
    let fresh2 = try await Self.freshAnswers(base + added)
    #expect(served2 == fresh2)
    // A journal of another base is not replayed over this one.
    let stale = try Data(contentsOf: URL(fileURLWithPath: journal))
    let replaced = try Base.service(scratch.path)
    try await Application(router: replaced.router()).test(.router) { client async throws in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base)).status == 200)
    }
    #expect(!FileManager.default.fileExists(atPath: journal))
    try stale.write(to: URL(fileURLWithPath: journal))
    let served3 = try await Self.answers(try Base.service(scratch.path, expecting: ["does not go on from"]))
    let fresh3 = try await Self.freshAnswers(base)
    #expect(served3 == fresh3)
    #expect(!FileManager.default.fileExists(atPath: journal))
    #expect(try Self.takeAside(scratch.path, "stale") == [stale])
  }

  /// Damage a crash can leave (its batch's records torn: one damaged, one whole after it at the same version)
  /// is cut away; damage with a whole record of a later change after it (answered after the damaged one was
  /// synced) is not a crash's: the dataset is not served, the start says where and what to do, and the file is
  /// left as it was. Damage in the last record alone is a tail.
  @Test func damageInTheMiddleIsNotServedATornTailIsCut() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 29)
    let base = (1...30).map { Self.feature($0, &random) }
    let added = (31...33).map { Self.feature($0, &random) }
    let journal = scratch.path + "/live.journal"
    let sizes = try await Application(router: try Base.service(scratch.path).router()).test(.router) {
      client async throws in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base)).status == 201)
      var sizes: [Int] = []
      for feature in added {
        #expect(
          try await Base.send(client, .post, "/v1/datasets/live/features", Self.collection([feature])).status
            == 200)
        sizes.append(try FileManager.default.attributesOfItem(atPath: journal)[.size] as! Int)
      }
      return sizes
    }
    let whole = try Data(contentsOf: URL(fileURLWithPath: journal))
    func start(_ bytes: Data) throws -> (AtlasService, [String]) {
      try bytes.write(to: URL(fileURLWithPath: journal))
      let warnings = Warnings()
      let markers = try Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: [])
      let kept = AtlasService.keptDatasets(
        directory: scratch.path, options: ClusterOptions(), aggregations: [], warn: { warnings.add($0) })
      return (
        AtlasService(datasets: [markers] + kept, writeToken: Base.token, datasetsDirectory: scratch.path),
        warnings.all
      )
    }
    // A byte of the second record (version 3) damaged, the third (version 4) whole after it.
    var middle = whole
    middle[sizes[0] + 40] ^= 0x01
    let (unserved, warnings) = try start(middle)
    #expect(unserved.datasets["live"] == nil)
    #expect(
      warnings.count == 1 && warnings[0].contains("damaged at byte \(sizes[0])")
        && warnings[0].contains("truncate -s \(sizes[0]) "), "\(warnings)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == middle)
    // The same byte of the last record: a tail, cut.
    var last = whole
    last[sizes[1] + 40] ^= 0x01
    let (cut, said) = try start(last)
    #expect(said.count == 1 && said[0].contains("cut away and kept in"), "\(said)")
    #expect(said.first?.contains("from byte \(sizes[1]) on") == true && said.first?.contains("version 3") == true)
    #expect(try await Self.answers(cut) == (try await Self.freshAnswers(base + added.prefix(2))))
    #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == whole.prefix(sizes[1]))
    #expect(try Self.takeAside(scratch.path, "damaged") == [last.suffix(from: sizes[1])])
    // A torn batch at version 4: a record cut short, then a whole one of the same version.
    let torn =
      whole.prefix(sizes[1]) + whole[sizes[1]..<(sizes[1] + 30)] + Data("\n".utf8)
      + whole.suffix(from: sizes[1])
    let (tail, told) = try start(torn)
    #expect(told.count == 1 && told[0].contains("cut away and kept in"), "\(told)")
    #expect(try await Self.answers(tail) == (try await Self.freshAnswers(base + added.prefix(2))))
    #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == whole.prefix(sizes[1]))
    #expect(try Self.takeAside(scratch.path, "damaged") == [torn.suffix(from: sizes[1])])
  }

  /// A start over the kept datasets of `directory` with `journal` written as `live`'s journal: the service and
  /// the warnings it gave.
  static func start(_ directory: String, journal: Data) throws -> (AtlasService, [String]) {
    try journal.write(to: URL(fileURLWithPath: directory + "/live.journal"))
    let warnings = Warnings()
    let markers = try Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: [])
    let kept = AtlasService.keptDatasets(
      directory: directory, options: ClusterOptions(), aggregations: [], warn: { warnings.add($0) })
    return (
      AtlasService(datasets: [markers] + kept, writeToken: Base.token, datasetsDirectory: directory),
      warnings.all
    )
  }

  /// The files a start kept aside in `directory` (`live.journal.KIND-TIMESTAMP`), oldest first, read and
  /// removed.
  static func takeAside(_ directory: String, _ kind: String) throws -> [Data] {
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.hasPrefix("live.journal.\(kind)-") }.sorted()
    return try names.map { name in
      let path = directory + "/" + name
      let attributes = try FileManager.default.attributesOfItem(atPath: path)
      // Bytes copied aside are the owner's alone; a file moved aside keeps its own mode.
      if kind == "damaged" {
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o077 == 0 } == true, "\(name)")
      }
      defer { try? FileManager.default.removeItem(atPath: path) }
      return try Data(contentsOf: URL(fileURLWithPath: path))
    }
  }

  /// Damage in batches of several records (a batch's records share one version; it is written whole, then
  /// synced once, then answered). A: v2 [r2], v3 [r3a, r3b], v4 [r4], a bit of r3a flipped: the whole r3b (v3)
  /// right after it must not hide r4 (v4), so it is damage in the middle, not served. B: v2 [r2a, r2b], v3 [r3],
  /// a bit of r2b flipped: r2a is applied, r2b's header says version 2 and r3 (v3) follows: not served. C: v2
  /// [r2], v3 [r3a, r3b, r3c], r3b torn by a crash (zeros in its payload, or in its header) with r3c whole: a
  /// tail, cut at r3b, served with r2 and r3a. D: r3a's header unreadable with r3b (v3) after it, after v2: it
  /// may be the last record of the answered v2, so not a tail.
  @Test func damagedBatchesOfSeveralRecords() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 37)
    let base = (1...20).map { Self.feature($0, &random) }
    let added = (21...26).map { Self.feature($0, &random) }
    try await Application(router: try Base.service(scratch.path).router()).test(.router) {
      client async throws in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base)).status == 201)
    }
    let facts = try #require(DatasetJournal.baseFacts(scratch.path + "/live.geojson"))
    let head = Data(DatasetJournal.header(nonce: facts.nonce, baseVersion: facts.version))
    func record(_ k: Int, _ version: Int) throws -> Data {
      let file = try FeatureFile.parse(Array(Self.collection([added[k]]).utf8), name: "live")
      return Data(DatasetJournal.addRecord(file, version: version).bytes)
    }
    let journal = scratch.path + "/live.journal"
    func expectNotServed(_ records: [Data], damaging index: Int, at byte: Int, _ scenario: String) throws {
      var bytes = head + records.reduce(Data(), +)
      let offset = head.count + records.prefix(index).map(\.count).reduce(0, +)
      bytes[offset + byte] ^= 0x01
      let (service, warnings) = try Self.start(scratch.path, journal: bytes)
      #expect(service.datasets["live"] == nil, "\(scenario)")
      #expect(
        warnings.count == 1 && warnings[0].contains("damaged at byte \(offset)"), "\(scenario): \(warnings)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == bytes, "\(scenario)")
    }
    let payloadByte = 60  // past the header line (about 27 bytes), inside the feature's text
    try expectNotServed(
      [try record(0, 2), try record(1, 3), try record(2, 3), try record(3, 4)], damaging: 1, at: payloadByte,
      "A")
    try expectNotServed(
      [try record(0, 2), try record(1, 2), try record(2, 3)], damaging: 1, at: payloadByte, "B")
    try expectNotServed([try record(0, 2), try record(1, 3), try record(2, 3)], damaging: 1, at: 0, "D")
    // C: a torn batch, its payload or its header zeroed in part.
    let batch = [try record(0, 2), try record(1, 3), try record(2, 3), try record(3, 3)]
    let kept = head + batch[0] + batch[1]
    for torn in [payloadByte..<(payloadByte + 20), 0..<20] {
      var r3b = batch[2]
      r3b.replaceSubrange(torn, with: Data(count: torn.count))
      let (service, warnings) = try Self.start(scratch.path, journal: kept + r3b + batch[3])
      #expect(warnings.count == 1 && warnings[0].contains("cut away and kept in"), "C \(torn): \(warnings)")
      #expect(try await Self.answers(service) == (try await Self.freshAnswers(base + added.prefix(2))))
      #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == kept, "C \(torn)")
      #expect(try Self.takeAside(scratch.path, "damaged") == [r3b + batch[3]], "C \(torn)")
    }
  }

  /// A journal that cannot be read (an I/O error, injected at a record's byte) is not damage: replay says so and
  /// cuts nothing, so a disk that reads again later serves every answered change.
  @Test func aReadErrorIsNotDamage() throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 41)
    let base = (1...10).map { Self.feature($0, &random) }
    let added = try FeatureFile.parse(Array(Self.collection([Self.feature(11, &random)]).utf8), name: "live")
    let nonce: UInt64 = 0x1234
    let basePath = scratch.path + "/live.geojson"
    try Data(Self.collection(base).utf8).write(to: URL(fileURLWithPath: basePath))
    let file = try FeatureFile.load(path: basePath, propertyNames: [], name: "live")
    let head = DatasetJournal.header(nonce: nonce, baseVersion: 1)
    let first = DatasetJournal.addRecord(added, version: 2).bytes
    let bytes = Data(head + first + DatasetJournal.addRecord(added, version: 3).bytes)
    let journal = scratch.path + "/live.journal"
    try bytes.write(to: URL(fileURLWithPath: journal))
    let failing = head.count + first.count + 40
    for faultAt in [failing, 3] {
      let fd = open(journal, O_RDWR | O_CLOEXEC)
      try #require(fd >= 0)
      let replay = DatasetJournal.replay(
        fd, over: file, nonce: nonce, baseVersion: 1, name: "live",
        readFault: { $0.contains(faultAt) ? EIO : nil })
      guard case .unreadable(let offset, let code) = replay else {
        Issue.record("\(faultAt): \(replay)")
        continue
      }
      #expect(offset <= faultAt && code == EIO)
      #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == bytes)
    }
  }

  /// A record whose checksum is whole but whose version could not have been written (past any a server
  /// reaches: the next write would trap adding one) is damaged where no crash's tail can be: not served. One whose
  /// payload is in another layout than the writer's (its texts would be served from the wrong offsets) is
  /// damaged too: as the last record, a tail, dropped, and the dataset served without it.
  @Test func aCraftedRecordIsDroppedNotTrusted() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 11)
    let base = (1...30).map { Self.feature($0, &random) }
    let added = Self.feature(31, &random)
    let journal = scratch.path + "/live.journal"
    try await Application(router: try Base.service(scratch.path).router()).test(.router) {
      client async throws in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base)).status == 201)
      #expect(
        try await Base.send(client, .post, "/v1/datasets/live/features", Self.collection([added])).status
          == 200)
    }
    let written = try Data(contentsOf: URL(fileURLWithPath: journal))
    let recordStart = try #require(written.range(of: Data("\n\u{1E}add 2 ".utf8))).lowerBound + 1
    let header = written.prefix(upTo: recordStart)
    let record = written.suffix(from: recordStart)
    let written2 = try #require(record.firstIndex(of: 0x0A)) + 1
    /// A record as the writer makes one (its whole checksum right), with any version and payload.
    func crafted(_ version: Int, _ payload: Data) -> Data {
      let fields = "add \(version) \(payload.count) "
      let hash = DatasetJournal.hash(payload, after: DatasetJournal.hash(Array(fields.utf8)))
      return Data([DatasetJournal.recordStart]) + Data((fields + DatasetJournal.hex(hash) + "\n").utf8)
        + payload + Data("\n".utf8)
    }
    let huge = crafted(Int.max, record[written2..<(record.endIndex - 1)])
    let payload =
      Data(#"{"type":"FeatureCollection","features":[ "#.utf8) + Data(added.utf8) + Data("]}".utf8)
    let spaced = crafted(2, payload)
    let fresh = try await Self.freshAnswers(base)
    // A version no crash's tail has (neither the last one's nor the next): not served, the file left.
    let (unserved, warnings) = try Self.start(scratch.path, journal: header + huge)
    #expect(unserved.datasets["live"] == nil)
    #expect(warnings.count == 1 && warnings[0].contains("damaged at byte \(header.count)"), "\(warnings)")
    for crafted in [spaced] {
      try (header + crafted).write(to: URL(fileURLWithPath: journal))
      let restarted = try Base.service(scratch.path, expecting: ["cut away and kept in"])
      #expect(try await Self.answers(restarted) == fresh)
      #expect(try Self.takeAside(scratch.path, "damaged") == [crafted])
      try await Application(router: restarted.router()).test(.router) { client async throws in
        let answer = try await Base.send(
          client, .post, "/v1/datasets/live/features", Self.collection([added]))
        #expect(answer.status == 200 && answer.json["version"] as? Int == 2)
      }
    }
  }

  /// What a start finds and does not serve is said in the log and kept: a base being written when the server
  /// stopped (`.NAME.tmp-*`, never answered) is removed with a line; a journal without its base, and one that a
  /// base without its `"newsatlas"` member (hand-edited, or a version past the largest) cannot be matched to,
  /// are moved aside with a line, never deleted.
  @Test func whatAStartDropsItSaysAndKeeps() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 53)
    let base = (1...20).map { Self.feature($0, &random) }
    let extra = Self.feature(21, &random)
    try await Application(router: try Base.service(scratch.path).router()).test(.router) {
      client async throws in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base)).status == 201)
      #expect(
        try await Base.send(client, .post, "/v1/datasets/live/features", Self.collection([extra])).status == 200)
    }
    let journalPath = scratch.path + "/live.journal"
    let journal = try Data(contentsOf: URL(fileURLWithPath: journalPath))
    let kept = try String(contentsOfFile: scratch.path + "/live.geojson", encoding: .utf8)
    // A temporary base, and a journal whose base is gone.
    try Data("{\"type\":".utf8).write(to: URL(fileURLWithPath: scratch.path + "/.live.geojson.tmp-1234"))
    try journal.write(to: URL(fileURLWithPath: scratch.path + "/gone.journal"))
    // The base without its member: written as a plain collection of the same features.
    let plain = kept.replacing(/"newsatlas":\{[^}]*\},/, with: "")
    try plain.write(toFile: scratch.path + "/live.geojson", atomically: false, encoding: .utf8)
    let (service, said) = try Self.start(scratch.path, journal: journal)
    #expect(said.count == 3, "\(said)")
    #expect(said.contains { $0.contains("Removed '\(scratch.path)/.live.geojson.tmp-1234'") }, "\(said)")
    #expect(said.contains { $0.contains("'\(scratch.path)/gone.journal' has no base beside it") }, "\(said)")
    #expect(said.contains { $0.contains("has no \"newsatlas\" version member") }, "\(said)")
    #expect(service.datasets["live"]?.version == 1 && service.datasets["live"]?.file.count == 20)
    let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
    #expect(!names.contains(".live.geojson.tmp-1234") && !names.contains("gone.journal"))
    let orphan = try #require(names.first { $0.hasPrefix("gone.journal.orphaned-") })
    #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/" + orphan)) == journal)
    #expect(try Self.takeAside(scratch.path, "stale") == [journal])
  }

  /// Versions are integers: a base at version 2^53 + 1 (hand-edited) is served at it, answers the next write
  /// with 2^53 + 2, exactly, and keeps that write through a restart (read back as a double, its record was
  /// out of range and silently dropped).
  @Test func versionsPast2To53AreExact() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 59)
    let base = (1...10).map { Self.feature($0, &random) }
    let extra = Self.feature(11, &random)
    let collection = Self.collection(base)
    let big = 9_007_199_254_740_993
    try collection.replacing(
      #"{"type":"FeatureCollection","#,
      with: #"{"type":"FeatureCollection","newsatlas":{"version":\#(big),"nonce":"0123456789abcdef"},"#,
      maxReplacements: 1
    ).write(toFile: scratch.path + "/live.geojson", atomically: false, encoding: .utf8)
    try await Application(router: try Base.service(scratch.path).router()).test(.router) {
      client async throws in
      let entry = try await Base.send(client, .get, "/v1/datasets/live")
      #expect(entry.body.contains(#""version":\#(big),"#), "\(entry.body)")
      let answer = try await Base.send(client, .post, "/v1/datasets/live/features", Self.collection([extra]))
      #expect(answer.status == 200 && answer.body.contains(#""version":\#(big + 1),"#), "\(answer.body)")
    }
    let restarted = try Base.service(scratch.path)
    #expect(restarted.datasets["live"]?.version == big + 1)
    #expect(try await Self.answers(restarted) == (try await Self.freshAnswers(base + [extra])))
  }

  /// A base without a version and a nonce (kept before they were, or a file in another format) is not journaled:
  /// its first change writes a whole base that has them, so no journal is ever named by a file's inode and time
  /// (a copy of the folder made every such journal stale, and its writes were dropped at the next start).
  @Test func aBaseWithoutVersionIsRewrittenNotJournaled() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 13)
    let base = (1...20).map { Self.feature($0, &random) }
    let added = Self.feature(21, &random)
    try Self.collection(base).write(
      toFile: scratch.path + "/live.geojson", atomically: false, encoding: .utf8)
    try await Application(router: try Base.service(scratch.path).router()).test(.router) {
      client async throws in
      let answer = try await Base.send(client, .post, "/v1/datasets/live/features", Self.collection([added]))
      #expect(answer.status == 200 && answer.json["version"] as? Int == 2, "\(answer.body)")
    }
    #expect(!FileManager.default.fileExists(atPath: scratch.path + "/live.journal"))
    let kept = try String(contentsOfFile: scratch.path + "/live.geojson", encoding: .utf8)
    #expect(kept.hasPrefix(#"{"type":"FeatureCollection","newsatlas":{"version":2,"#), "\(kept.prefix(80))")
    #expect(
      try await Self.answers(try Base.service(scratch.path)) == (try await Self.freshAnswers(base + [added])))
  }

  /// Tiles and clusters of a dataset that writes may change are revalidated (`no-cache`, with the ETag) so that
  /// a cache in front serves a change at once; the markers, and every dataset of a server whose writes are off
  /// (no token, or no datasets folder), keep five minutes.
  @Test func writableDatasetsAreRevalidated() async throws {
    let scratch = try ScratchDirectory()
    let service = try Base.service(scratch.path)
    try await Application(router: service.router()).test(.router) { client in
      #expect(
        try await Base.send(client, .put, "/v1/datasets/live", Base.collection(10, version: 1)).status == 201)
      for path in ["/tiles/live/0/0/0.mvt", "/v1/datasets/live/clusters?zoom=3"] {
        let answer = try await Base.send(client, .get, path)
        #expect(
          answer.headers[.cacheControl] == "public, no-cache" && answer.headers[.eTag] != nil, "\(path)")
      }
      let markers = try await Base.send(client, .get, "/tiles/markers/0/0/0.mvt")
      #expect(markers.headers[.cacheControl] == "public, max-age=300")
    }
    // The same kept dataset on a server whose writes are off (no token): it cannot change while served.
    let off = try Base.service(scratch.path, token: nil)
    try await Application(router: off.router()).test(.router) { client in
      let answer = try await Base.send(client, .get, "/tiles/live/0/0/0.mvt")
      #expect(answer.status == 200 && answer.headers[.cacheControl] == "public, max-age=300")
    }
    let file = try FeatureFile.parse(Array(Base.collection(10, version: 1).utf8), name: "live")
    let still = AtlasService(datasets: [
      try Dataset(name: "live", file: file, options: ClusterOptions(), aggregations: [])
    ])
    try await Application(router: still.router()).test(.router) { client in
      let answer = try await Base.send(client, .get, "/tiles/live/0/0/0.mvt")
      #expect(answer.headers[.cacheControl] == "public, max-age=300")
    }
  }

  /// A write that cannot be kept (the datasets folder is a file; the journal's place a folder) is a 500 whose
  /// sentence names no path on the server; the served dataset stays as it was.
  @Test func aWriteThatCannotBeKeptNamesNoPath() async throws {
    let scratch = try ScratchDirectory()
    let folder = scratch.path + "/datasets"
    let service = try Base.service(folder)
    try await Application(router: service.router()).test(.router) { client in
      #expect(
        try await Base.send(client, .put, "/v1/datasets/live", Base.collection(10, version: 1)).status == 201)
      try FileManager.default.createDirectory(
        atPath: folder + "/live.journal", withIntermediateDirectories: false)
      let add = try await Base.send(
        client, .post, "/v1/datasets/live/features", Base.collection(1, version: 2))
      #expect(
        add.status == 500 && !add.body.contains(scratch.path) && add.body.contains("log"), "\(add.body)")
      let entry = try await Base.send(client, .get, "/v1/datasets/live")
      #expect(entry.json["featureCount"] as? Int == 10 && entry.json["version"] as? Int == 1)
      try FileManager.default.removeItem(atPath: folder)
      #expect(FileManager.default.createFile(atPath: folder, contents: Data()))
      let put = try await Base.send(client, .put, "/v1/datasets/live", Base.collection(3, version: 3))
      #expect(put.status == 500 && !put.body.contains(scratch.path), "\(put.body)")
    }
  }

  /// An add and a removal of the same id lined up behind a held builder are applied in one batch (one version):
  /// the removal finds the feature the batch added (its record written ahead), both are answered 200, and the
  /// served answers and a restart's equal a fresh build without it. While held, the builder thread is named.
  @Test func anAddAndARemovalOfOneIdCoalesce() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 17)
    let base = (1...25).map { Self.feature($0, &random) }
    let added =
      #"{"type":"Feature","id":"coalesced","properties":{"s":0,"category":"a"},"#
      + #""geometry":{"type":"Point","coordinates":[12.5,41.9]}}"#
    let service = try Base.service(scratch.path)
    let writes = try #require(service.writes)
    defer { writes.seams.release() }
    try await Application(router: service.router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base)).status == 201)
      writes.seams.hold(batches: true)
      async let add = Base.send(client, .post, "/v1/datasets/live/features", Self.collection([added]))
      while writes.waitingCount("live") < 1 { try await Task.sleep(for: .milliseconds(1)) }
      async let remove = Base.send(client, .delete, "/v1/datasets/live/features/coalesced")
      while writes.waitingCount("live") < 2 { try await Task.sleep(for: .milliseconds(1)) }
      // The builder names its thread before its first batch, where the hold stops it.
      while writes.seams.buildersHeld < 1 { try await Task.sleep(for: .milliseconds(1)) }
      let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").map {
        (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)) ?? ""
      }
      #expect(names.contains("newsatlas-build\n"), "\(Set(names).sorted())")
      writes.seams.release()
      let (addAnswer, removeAnswer) = try await (add, remove)
      #expect(addAnswer.status == 200 && addAnswer.json["version"] as? Int == 2, "\(addAnswer.body)")
      #expect(removeAnswer.status == 200 && removeAnswer.json["version"] as? Int == 2, "\(removeAnswer.body)")
    }
    let fresh = try await Self.freshAnswers(base)
    #expect(try await Self.answers(service) == fresh)
    #expect(try await Self.answers(try Base.service(scratch.path)) == fresh)
  }

  /// Removals of served features (not in their order), an add, and a removal of features the batch added, all
  /// lined up behind a held builder, are applied in one batch: the served index is changed in place
  /// (`ClusterIndex.removing` with each feature's index among those served, then `appending`), and the answers
  /// equal a fresh build's over what is left.
  @Test func removalsAndAddsInOneBatchChangeTheIndexInPlace() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 23)
    func feature(_ id: String) -> String {
      #"{"type":"Feature","id":"\#(id)","properties":{"s":1,"category":"a"},"geometry":{"type":"Point","#
        + #""coordinates":[\#(Double.random(in: -179...179, using: &random)),"#
        + #"\#(Double.random(in: -80...80, using: &random))]}}"#
    }
    let base = (0..<25).map { feature("k\($0)") }
    let added = [feature("new"), feature("gone"), feature("gone")]
    let service = try Base.service(scratch.path)
    let writes = try #require(service.writes)
    defer { writes.seams.release() }
    try await Application(router: service.router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base)).status == 201)
      let before = try await Self.extendedBuilds(client)
      writes.seams.hold(batches: true)
      async let first = Base.send(client, .delete, "/v1/datasets/live/features/k20")
      while writes.waitingCount("live") < 1 { try await Task.sleep(for: .milliseconds(1)) }
      async let second = Base.send(client, .delete, "/v1/datasets/live/features/k3")
      while writes.waitingCount("live") < 2 { try await Task.sleep(for: .milliseconds(1)) }
      async let add = Base.send(client, .post, "/v1/datasets/live/features", Self.collection(added))
      while writes.waitingCount("live") < 3 { try await Task.sleep(for: .milliseconds(1)) }
      async let third = Base.send(client, .delete, "/v1/datasets/live/features/gone")
      while writes.waitingCount("live") < 4 { try await Task.sleep(for: .milliseconds(1)) }
      async let fourth = Base.send(client, .delete, "/v1/datasets/live/features/k11")
      while writes.waitingCount("live") < 5 { try await Task.sleep(for: .milliseconds(1)) }
      writes.seams.release()
      let answers = try await [first, second, add, third, fourth]
      for answer in answers {
        #expect(answer.status == 200 && answer.json["version"] as? Int == 2, "\(answer.body)")
      }
      #expect(try await Self.extendedBuilds(client) == before + 1)
    }
    let left = base.filter { !["k20", "k3", "k11"].contains(Self.id(of: $0) ?? "") } + [added[0]]
    let fresh = try await Self.freshAnswers(left)
    #expect(try await Self.answers(service) == fresh)
    #expect(try await Self.answers(try Base.service(scratch.path)) == fresh)
  }

  /// A journal whose header names another nonce at an earlier base version (a compaction's base in place, whose
  /// nonce is the identity its records chained, the journal before it not yet removed) is stale even when its
  /// records' versions would go on from the base: dropped, not replayed. (The base's own nonce at an earlier
  /// version is damage: ServeWritesHistoryTests.aJournalWhoseBaseVersionRottedIsNotDropped.)
  @Test func aJournalOfAnotherBaseVersionIsStale() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 19)
    let base = (1...20).map { Self.feature($0, &random) }
    let extra = Self.feature(21, &random)
    try await Application(router: try Base.service(scratch.path).router()).test(.router) {
      client async throws in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base)).status == 201)
    }
    let facts = try #require(DatasetJournal.baseFacts(scratch.path + "/live.geojson"))
    #expect(facts.version == 1)
    let file = try FeatureFile.parse(Array(Self.collection([extra]).utf8), name: "extra")
    let journal =
      DatasetJournal.header(nonce: DatasetJournal.chained(facts.nonce, 1), baseVersion: 0)
      + DatasetJournal.addRecord(file, version: 2).bytes
    try Data(journal).write(to: URL(fileURLWithPath: scratch.path + "/live.journal"))
    let restarted = try Base.service(scratch.path, expecting: ["does not go on from"])
    #expect(try await Self.answers(restarted) == (try await Self.freshAnswers(base)))
    #expect(!FileManager.default.fileExists(atPath: scratch.path + "/live.journal"))
    #expect(try Self.takeAside(scratch.path, "stale") == [Data(journal)])
  }

  /// A journal whose first line is not this base's but does not name a base before it (bit rot in it with
  /// records whole after it, another format, a later base of the same identity, another identity at this
  /// version) is not stale: the dataset is not served, the file is left, one warning. A first line torn by a
  /// crash with nothing whole after it (nothing answered) is dropped, and the base served.
  @Test func aJournalHeaderNotThisBasesIsLeftNotDropped() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 43)
    let base = (1...20).map { Self.feature($0, &random) }
    let extra = Self.feature(21, &random)
    try await Application(router: try Base.service(scratch.path).router()).test(.router) {
      client async throws in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base)).status == 201)
    }
    let facts = try #require(DatasetJournal.baseFacts(scratch.path + "/live.geojson"))
    let record = DatasetJournal.addRecord(
      try FeatureFile.parse(Array(Self.collection([extra]).utf8), name: "extra"), version: facts.version + 1
    ).bytes
    let header = DatasetJournal.header(nonce: facts.nonce, baseVersion: facts.version)
    var rotted = header
    rotted[2] ^= 0x01
    let journal = scratch.path + "/live.journal"
    let cases: [(String, [UInt8])] = [
      ("rot", rotted),
      (
        "format",
        Array(
          String(decoding: header, as: UTF8.self).replacing(
            "journal \(DatasetJournal.format) ", with: "journal \(DatasetJournal.format + 1) "
          ).utf8)
      ),
      ("later", DatasetJournal.header(nonce: facts.nonce, baseVersion: facts.version + 1)),
      ("identity", DatasetJournal.header(nonce: facts.nonce ^ 1, baseVersion: facts.version)),
    ]
    for (scenario, first) in cases {
      let bytes = Data(first + record)
      let (service, warnings) = try Self.start(scratch.path, journal: bytes)
      #expect(service.datasets["live"] == nil, "\(scenario)")
      #expect(warnings.count == 1 && warnings[0].contains("first line"), "\(scenario): \(warnings)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == bytes, "\(scenario)")
    }
    let torn = Data(count: header.count + record.count / 2) + Data("\n".utf8)
    let (served, said) = try Self.start(scratch.path, journal: torn)
    #expect(said.count == 1 && said[0].contains("does not go on from the base"), "\(said)")
    #expect(try await Self.answers(served) == (try await Self.freshAnswers(base)))
    #expect(!FileManager.default.fileExists(atPath: journal))
    #expect(try Self.takeAside(scratch.path, "stale") == [torn])
  }

  /// A dataset given at start (`--points`) whose name a kept dataset holds that could not be served (its
  /// journal damaged): an add or a removal is refused with a 409 and the kept files stay byte for byte (the
  /// first write wrote a new base over the kept one and removed its journal); a PUT replaces it.
  @Test func aKeptDatasetNotServedIsNotOverwrittenByAWrite() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 47)
    let base = (1...20).map { Self.feature($0, &random) }
    let added = (21...23).map { Self.feature($0, &random) }
    try await Application(router: try Base.service(scratch.path).router()).test(.router) {
      client async throws in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base)).status == 201)
      for feature in added.prefix(2) {
        #expect(
          try await Base.send(client, .post, "/v1/datasets/live/features", Self.collection([feature])).status
            == 200)
      }
    }
    let journal = scratch.path + "/live.journal"
    let basePath = scratch.path + "/live.geojson"
    var damaged = try Data(contentsOf: URL(fileURLWithPath: journal))
    let second = try #require(damaged.range(of: Data("\n\u{1E}add 2 ".utf8))).upperBound + 30
    damaged[second] ^= 0x01
    let (kept, warnings) = try Self.start(scratch.path, journal: damaged)
    let journalBytes = damaged
    #expect(kept.datasets["live"] == nil && warnings.count == 1, "\(warnings)")
    let keptBase = try Data(contentsOf: URL(fileURLWithPath: basePath))
    let given = scratch.path + "/given.json"
    try Data(Self.collection(base).utf8).write(to: URL(fileURLWithPath: given))
    let markers = try Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: [])
    let points = try Dataset(
      name: "live", file: try FeatureFile.load(path: given, propertyNames: [], name: "live"),
      options: ClusterOptions(), aggregations: [])
    let service = AtlasService(
      datasets: [markers, points], writeToken: Base.token, datasetsDirectory: scratch.path)
    try await Application(router: service.router()).test(.router) { client in
      let post = try await Base.send(client, .post, "/v1/datasets/live/features", Self.collection([added[2]]))
      #expect(post.status == 409 && post.body.contains("PUT the dataset"), "\(post.body)")
      let remove = try await Base.send(client, .delete, "/v1/datasets/live/features/f2")
      #expect(remove.status == 409, "\(remove.body)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: basePath)) == keptBase)
      #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == journalBytes)
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base)).status == 200)
      let after = try await Base.send(
        client, .post, "/v1/datasets/live/features", Self.collection([added[2]]))
      #expect(after.status == 200, "\(after.body)")
    }
    #expect(
      try await Self.answers(try Base.service(scratch.path))
        == (try await Self.freshAnswers(base + [added[2]])))
  }

  /// Writers adding and removing features at once while readers read: every read is a 200 whose features are
  /// exactly those of one version (each version's features are known from the writes' answers: adds and
  /// removals of one version commute here), one body per ETag, and after a restart every acknowledged write is
  /// served (the answers equal the last ones served).
  @Test func concurrentWritersAndReadersSeeWholeVersions() async throws {
    let scratch = try ScratchDirectory()
    var random = SplitMix64(state: 23)
    let base = (0..<100).map { i in
      #"{"type":"Feature","id":"b\#(i)","properties":{"s":\#(i)},"geometry":{"type":"Point","coordinates":"#
        + #"[\#(Double.random(in: -170...170, using: &random)),\#(Double.random(in: -70...70, using: &random))]}}"#
    }
    let service = AtlasService(
      datasets: [try Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: [])],
      writeToken: Base.token, datasetsDirectory: scratch.path, journalCompactionBytes: 4096)
    /// What one write did: its version and the ids it added or removed.
    struct Done: Sendable {
      let version: Int
      let etag: String
      let added: [String]
      let removed: [String]
    }
    let writers = 4
    let steps = 12
    let (done, reads, last) = try await Application(router: service.router()).test(.router) { client in
      let put = try await Base.send(client, .put, "/v1/datasets/live", Self.collection(base))
      #expect(put.status == 201)
      let first = Done(
        version: 1, etag: put.headers[.eTag] ?? "", added: (0..<100).map { "b\($0)" }, removed: [])
      let finished = ManagedAtomicCounter()
      return try await withThrowingTaskGroup(of: ([Done], [(String, String)]).self) { group in
        for w in 0..<writers {
          group.addTask {
            var done: [Done] = []
            for k in 0..<steps {
              if k % 3 == 2 {
                // Removes this writer's feature of two steps before (acknowledged, so in an earlier version).
                let id = "w\(w)-\(k - 2)"
                let answer = try await Base.send(client, .delete, "/v1/datasets/live/features/\(id)")
                #expect(answer.status == 200, "\(answer.body)")
                done.append(
                  Done(
                    version: answer.json["version"] as? Int ?? 0, etag: answer.headers[.eTag] ?? "",
                    added: [],
                    removed: [id]))
              } else {
                let id = "w\(w)-\(k)"
                let feature =
                  #"{"type":"Feature","id":"\#(id)","properties":{"s":\#(k)},"geometry":{"type":"Point","#
                  + #""coordinates":[\#(Double(w * 40 - 80) + Double(k) * 0.5),\#(Double(k) - 30.5)]}}"#
                let answer = try await Base.send(
                  client, .post, "/v1/datasets/live/features", Self.collection([feature]))
                #expect(answer.status == 200, "\(answer.body)")
                done.append(
                  Done(
                    version: answer.json["version"] as? Int ?? 0, etag: answer.headers[.eTag] ?? "",
                    added: [id], removed: []))
              }
            }
            finished.increment()
            return (done, [])
          }
        }
        for _ in 0..<3 {
          group.addTask {
            var reads: [(String, String)] = []
            var last = false
            while !last {
              last = finished.value == writers
              let answer = try await Base.send(
                client, .get, "/v1/datasets/live/clusters?zoom=17", headers: [])
              #expect(answer.status == 200, "\(answer.body.prefix(200))")
              reads.append((answer.headers[.eTag] ?? "", answer.body))
            }
            return ([], reads)
          }
        }
        var done = [first]
        var reads: [(String, String)] = []
        for try await (d, r) in group {
          done += d
          reads += r
        }
        let last = try await Base.send(client, .get, "/v1/datasets/live/clusters?zoom=17", headers: [])
        return (done, reads, last)
      }
    }
    // The ids of each version: every add at or before it, without every removal at or before it.
    let versions = Set(done.map(\.version)).sorted()
    var idsAt: [Int: Set<String>] = [:]
    var versionOf: [String: Int] = [:]
    for version in versions {
      let upTo = done.filter { $0.version <= version }
      idsAt[version] = Set(upTo.flatMap(\.added)).subtracting(upTo.flatMap(\.removed))
    }
    for write in done { versionOf[write.etag] = write.version }
    func ids(_ body: String) -> Set<String> {
      Set(body.matches(of: /"id":"([bw][0-9-]+)"/).map { String($0.1) })
    }
    var bodies: [String: String] = [:]
    for (etag, body) in reads {
      #expect(bodies[etag, default: body] == body, "two bodies under \(etag)")
      bodies[etag] = body
      let version = try #require(versionOf[etag], "a read of a version no write answered: \(etag)")
      #expect(ids(body) == idsAt[version], "a read at version \(version) is not that version's features")
    }
    let final = try #require(idsAt[versions.last ?? 0])
    #expect(ids(last.body) == final && final.count == 100 + writers * steps * 2 / 3 - writers * (steps / 3))
    #expect(reads.count > 3, "the readers read \(reads.count) times")
    let restarted = try await Application(router: try Base.service(scratch.path).router()).test(.router) {
      client in try await Base.send(client, .get, "/v1/datasets/live/clusters?zoom=17", headers: []).body
    }
    #expect(restarted == last.body)
  }
}

/// Warnings a start gave (its `warn` is called on one thread; read after).
final class Warnings: @unchecked Sendable {
  private let lock = NSLock()
  private var list: [String] = []
  func add(_ warning: String) { lock.withLock { list.append(warning) } }
  var all: [String] { lock.withLock { list } }
}
