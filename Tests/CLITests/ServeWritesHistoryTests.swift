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
  /// the base's features, the added ones, and the journal's size after each POST.
  static func written(_ directory: String, seed: UInt64, count: Int, adding: Int) async throws -> (
    base: [String], added: [String], sizes: [Int]
  ) {
    var random = SplitMix64(state: seed)
    let base = (1...count).map { Journal.feature($0, &random) }
    let added = (0..<adding).map { Journal.feature(count + 1 + $0, &random) }
    let sizes = try await Application(router: try Base.service(directory).router()).test(.router) {
      client async throws in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(base)).status == 201)
      var sizes: [Int] = []
      for feature in added {
        let answer = try await Base.send(
          client, .post, "/v1/datasets/live/features", Journal.collection([feature]))
        #expect(answer.status == 200)
        sizes.append(
          try FileManager.default.attributesOfItem(atPath: directory + "/live.journal")[.size] as! Int)
      }
      return sizes
    }
    return (base, added, sizes)
  }

  /// A digit of a record's version flipped (3 to 2, one bit): the checksum covers the header too, so the record
  /// is damaged (here the last one: a tail, cut), not applied as part of version 2, which was answered and
  /// served without it (its features under version 2's ETag would be another content under the same ETag).
  @Test func aRecordsVersionIsCoveredByItsChecksum() async throws {
    let scratch = try ScratchDirectory()
    let (base, added, sizes) = try await Self.written(scratch.path, seed: 53, count: 20, adding: 2)
    let journal = scratch.path + "/live.journal"
    var bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
    let header = sizes[0]
    #expect(bytes[header] == DatasetJournal.recordStart && bytes[header + 5] == UInt8(ascii: "3"))
    bytes[header + 5] ^= 0x01  // "add 3 " becomes "add 2 "
    let (service, warnings) = try Journal.start(scratch.path, journal: bytes)
    #expect(warnings.isEmpty, "\(warnings)")
    #expect(service.datasets["live"]?.version == 2)
    #expect(try await Journal.answers(service) == (try await Journal.freshAnswers(base + added.prefix(1))))
    #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == bytes.prefix(sizes[0]))
  }

  /// A journal of format 1 (the format before: no record separator, payload-only checksums, a removal's id as it
  /// is) is replayed as it was; the dataset's next change writes a whole base (no record of another format is
  /// appended to it), and a restart serves the same.
  @Test func aJournalOfTheFormatBeforeIsReplayed() async throws {
    let scratch = try ScratchDirectory()
    let (base, added, _) = try await Self.written(scratch.path, seed: 59, count: 20, adding: 2)
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
}
