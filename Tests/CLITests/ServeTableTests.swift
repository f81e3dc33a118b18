import Foundation
import GeoFormats
import GeoIndex
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import TestSupport
import Testing

@testable import AtlasMessages
@testable import AtlasServer

/// Datasets followed from a table (issue 45), against an in-process table behind `TableLink` that keeps rows and
/// a change log as `PostGISLink`'s trigger does (Tests/PostGIS/replicas_test.py runs the real one): after any
/// sequence of commits (inserts, moves, deletions, key changes), the dataset a follower keeps equals a fresh load
/// of the table — the rows in their canonical order, never-changed rows by key, then each key by its last
/// change — with the same content hash, the scratch file of changed rows compacted on the way; writes over HTTP
/// are answered once served.
@Suite struct ServeTableTests {
  typealias Base = ServeWritesTests

  /// A table of points keyed by integers, with a change log; `follow` reads it as `PostGISLink.follow` reads
  /// the database (keys by last change, their rows now).
  final class FakeTable: TableLink, @unchecked Sendable {
    let qualifiedName = "public.places"
    private struct State {
      var rows: [Int: String] = [:]  // key → the Feature text without its id
      var log: [(seq: Int64, key: Int)] = []
      var nextKey = 1
      var wake: AsyncStream<Void>.Continuation?
      var refusal: TableWriteError?
      var held = false
    }
    private let state = Mutex(State())

    /// The Feature text of a row as the follower reads it.
    static func feature(_ key: Int, _ row: String) -> String {
      #"{"type":"Feature","id":\#(key),"# + row.dropFirst()
    }

    /// Adds rows without a change (the table before serve installed its trigger).
    func seed(_ rows: [String]) {
      state.withLock { state in
        for row in rows {
          state.rows[state.nextKey] = row
          state.nextKey += 1
        }
      }
    }

    /// Commits a transaction of changes: `(key, row or nil)` each (nil deletes).
    @discardableResult
    func commit(_ changes: [(key: Int, row: String?)]) -> Int64 {
      let (seq, wake) = state.withLock { state -> (Int64, AsyncStream<Void>.Continuation?) in
        for (key, row) in changes {
          state.rows[key] = row
          state.log.append(((state.log.last?.seq ?? 0) + 1, key))
          state.nextKey = max(state.nextKey, key + 1)
        }
        return (state.log.last?.seq ?? 0, state.wake)
      }
      wake?.yield()
      return seq
    }

    func newKey() -> Int { state.withLock { $0.nextKey } }
    var keys: [Int] { state.withLock { $0.rows.keys.sorted() } }
    var lastChange: Int64 { state.withLock { $0.log.last?.seq ?? 0 } }
    func refuse(_ error: TableWriteError?) { state.withLock { $0.refusal = error } }

    /// Holds the follower from reading the log (`true`) until released, so that commits made meanwhile are
    /// read together.
    func hold(_ held: Bool) {
      let wake = state.withLock { state in
        state.held = held
        return state.wake
      }
      if !held { wake?.yield() }
    }

    /// The rows as a fresh load reads them: keys never changed by key, then each key by its last change.
    func canonical() -> [String] {
      state.withLock { state in
        var last: [Int: Int64] = [:]
        for (seq, key) in state.log { last[key] = seq }
        return state.rows.keys.sorted { (last[$0] ?? 0, $0) < (last[$1] ?? 0, $1) }.map {
          Self.feature($0, state.rows[$0]!)
        }
      }
    }

    func follow(
      from cursor: Int64, apply: @escaping @Sendable (TableChanges) async -> Bool,
      events: @escaping @Sendable (TableEvent) -> Void
    ) async {
      let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
      state.withLock { $0.wake = wake }
      events(.connected)
      var cursor = cursor
      wake.yield()
      for await _ in wakes {
        let changes = state.withLock { state -> TableChanges? in
          if state.held { return nil }
          var order: [Int: Int64] = [:]  // each key's last change
          var last = cursor
          for (seq, key) in state.log where seq > cursor {
            order[key] = seq
            last = seq
          }
          let keys = order.keys.sorted { order[$0]! < order[$1]! }
          return TableChanges(
            cursor: last, keys: keys.map(String.init),
            features: keys.compactMap { key in state.rows[key].map { Self.feature(key, $0) } })
        }
        guard let changes else { continue }
        if !changes.keys.isEmpty {
          guard await apply(changes) else { continue }
          cursor = changes.cursor
        }
        events(.caughtUp(cursor))
      }
    }

    func insert(features: String) async throws(TableWriteError) -> Int64 {
      if let refusal = state.withLock({ $0.refusal }) { throw refusal }
      let parsed = try! JSONSerialization.jsonObject(with: Data(features.utf8)) as! [[String: Any]]
      var changes: [(key: Int, row: String?)] = []
      var key = newKey()
      for var feature in parsed {
        let id = (feature.removeValue(forKey: "id") as? Int) ?? key
        key = max(key, id) + 1
        let row = try! JSONSerialization.data(withJSONObject: feature, options: [.sortedKeys])
        changes.append((id, String(decoding: row, as: UTF8.self)))
      }
      return commit(changes)
    }

    func delete(id: String) async throws(TableWriteError) -> Int64? {
      if let refusal = state.withLock({ $0.refusal }) { throw refusal }
      guard let key = Int(id), keys.contains(key) else { return nil }
      return commit([(key, nil)])
    }
  }

  /// The random numbers of a test (the test client's closure is `@Sendable`; one task uses them).
  final class Dice: @unchecked Sendable {
    var random: SplitMix64
    init(seed: UInt64) { random = SplitMix64(state: seed) }
  }

  static func row(_ random: inout SplitMix64, _ serial: Int) -> String {
    #"{"type":"Feature","properties":{"s":\#(serial)},"geometry":{"type":"Point","coordinates":["#
      + "\(Double.random(in: -179...179, using: &random)),\(Double.random(in: -80...80, using: &random))]}}"
  }

  static let paths: [String] =
    (0...17).map { "/v1/datasets/places/clusters?zoom=\($0)" }
    + [(0, 0, 0), (1, 1, 0), (2, 2, 1), (3, 4, 3)].map { "/tiles/places/\($0.0)/\($0.1)/\($0.2).mvt" }

  static func answers(_ client: some TestClientProtocol) async throws -> [String] {
    var bodies: [String] = []
    for path in paths {
      let answer = try await client.execute(uri: path, method: .get)
      bodies.append("\(answer.status.code) \(path) " + String(buffer: answer.body))
    }
    return bodies
  }

  /// The dataset a fresh load of `table` serves, read from a file as `serve` reads a table's rows.
  static func fresh(_ table: FakeTable) throws -> Dataset {
    let text = #"{"type":"FeatureCollection","features":["# + table.canonical().joined(separator: ",") + "]}"
    let scratch = try ScratchDirectory()
    let path = scratch.path + "/places.geojson"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return try Dataset(
      name: "places", file: try FeatureFile.load(path: path, name: "places"), options: ClusterOptions(),
      aggregations: [], table: table.qualifiedName, change: table.lastChange)
  }

  static func entry(_ client: some TestClientProtocol) async throws -> [String: Any] {
    let body = try await Base.send(client, .get, "/v1/datasets").body
    let all = try JSONSerialization.jsonObject(with: Data(body.utf8)) as! [String: Any]
    return (all["datasets"] as! [[String: Any]]).first { $0["name"] as? String == "places" }!
  }

  /// Waits until the service serves the table's last change (its /healthz says so).
  static func caughtUp(_ client: some TestClientProtocol, _ table: FakeTable) async throws {
    while true {
      let health = try await Base.send(client, .get, "/healthz").body
      if health.contains(#""change":\#(table.lastChange),"lagSeconds":0.000"#) { return }
      await Task.yield()
    }
  }

  /// Commits are read one by one (`together` false) or, one step in three, with the next step's (true). Seed
  /// 99 removes, in one commit, two rows that clustered only with each other (`ClusterIndex.removing` kept
  /// their cluster until they were counted as reaching each other).
  @Test(arguments: [UInt64(45), 46, 47, 99], [false, true])
  func commitsAreServedAsAFreshLoad(seed: UInt64, together: Bool) async throws {
    let dice = Dice(seed: seed)
    let table = FakeTable()
    table.seed((0..<300).map { Self.row(&dice.random, $0) })
    let service = AtlasService(
      datasets: [try Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: []),
        try Self.fresh(table)],
      tables: ["places": TableDataset(link: table, cursor: table.lastChange)], tableCompactionBytes: 4096)
    let following = Task { try await service.followers!.run() }
    defer { following.cancel() }
    try await Application(router: service.router()).test(.router) { client in
      var serial = 1000
      for step in 0..<25 {
        var changes: [(key: Int, row: String?)] = []
        for _ in 0..<Int.random(in: 1...6, using: &dice.random) {
          let keys = table.keys
          serial += 1
          switch Int.random(in: 0..<4, using: &dice.random) {
          case 0: changes.append((table.newKey() + changes.count, Self.row(&dice.random, serial)))  // an insert
          case 1: changes.append((keys.randomElement(using: &dice.random)!, Self.row(&dice.random, serial)))  // a move
          case 2: changes.append((keys.randomElement(using: &dice.random)!, nil))  // a deletion
          default:  // a key changed: the old one deleted, the new one inserted
            let old = keys.randomElement(using: &dice.random)!
            changes.append((old, nil))
            changes.append((old + 100_000, Self.row(&dice.random, serial)))
          }
        }
        if together && step % 3 == 0 {
          table.hold(true)
          table.commit(changes)
          continue
        }
        table.commit(changes)
        table.hold(false)
        try await Self.caughtUp(client, table)
        let expected = try await Application(
          router: AtlasService(
            datasets: [
              try Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: []),
              try Self.fresh(table),
            ]
          ).router()
        ).test(.router) { try await Self.answers($0) }
        #expect(try await Self.answers(client) == expected, "step \(step)")
        #expect(
          try await Self.entry(client)["contentHash"] as? String == (try Self.fresh(table).contentHash),
          "step \(step): the content hash of a fresh load at this change")
      }
      // The scratch file of changed rows (4 kB here) was compacted on the way, unseen by any answer.
      let metrics = try await Base.send(client, .get, "/metrics").body
      let compactions = metrics.firstMatch(of: /newsatlas_table_compactions_total\{dataset="places"\} ([0-9]+)/)
      #expect((compactions.flatMap { Int($0.1) } ?? 0) > 0, "\(compactions.map { String($0.0) } ?? "none")")
    }
  }

  /// A write over HTTP goes to the table and is answered once the follower serves it; what the table refuses
  /// is 400, an unreachable database 503, an id no row has 404; `/healthz` and `/metrics` say how it follows.
  @Test func writesGoToTheTable() async throws {
    var random = SplitMix64(state: 9)
    let table = FakeTable()
    table.seed((0..<50).map { Self.row(&random, $0) })
    let scratch = try ScratchDirectory()
    let service = AtlasService(
      datasets: [try Dataset(name: "markers", file: nil, options: ClusterOptions(), aggregations: []),
        try Self.fresh(table)],
      writeToken: Base.token, datasetsDirectory: scratch.path,
      tables: ["places": TableDataset(link: table, cursor: table.lastChange)])
    let following = Task { try await service.followers!.run() }
    defer { following.cancel() }
    try await Application(router: service.router()).test(.router) { client in
      let added = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":777,"properties":{},"#
        + #""geometry":{"type":"Point","coordinates":[2.35,48.85]}}]}"#
      var answer = try await Base.send(client, .post, "/v1/datasets/places/features", added)
      #expect(answer.status == 200 && answer.body.contains(#""pointCount":51"#), "\(answer.body)")
      #expect(table.keys.contains(777))
      answer = try await Base.send(client, .delete, "/v1/datasets/places/features/777")
      #expect(answer.status == 200 && answer.body.contains(#""pointCount":50"#), "\(answer.body)")
      answer = try await Base.send(client, .delete, "/v1/datasets/places/features/777")
      #expect(answer.status == 404, "\(answer.body)")
      answer = try await Base.send(client, .put, "/v1/datasets/places", added)
      #expect(answer.status == 409 && answer.body.contains("public.places"), "\(answer.body)")

      table.refuse(.refused(Sentence(.postgresNotAColumn, "public.places", "colour")))
      answer = try await Base.send(client, .post, "/v1/datasets/places/features", added)
      #expect(answer.status == 400 && answer.body.contains("no column colour"), "\(answer.body)")
      table.refuse(.unavailable(Sentence(.postgresConnectionLost)))
      answer = try await Base.send(client, .delete, "/v1/datasets/places/features/3")
      #expect(answer.status == 503 && answer.body.contains("connection to PostgreSQL was lost"), "\(answer.body)")
      answer = try await Base.send(
        client, .delete, "/v1/datasets/places/features/3", headers: Base.bearer + [("Accept-Language", "fr")])
      #expect(answer.body.contains("La connexion à PostgreSQL a été perdue."), "\(answer.body)")

      try await Self.caughtUp(client, table)
      let health = try await Base.send(client, .get, "/healthz?maxLag=1")
      #expect(
        health.status == 200
          && health.body.contains(#""places":{"table":"public.places","connected":true,"change":2,"#),
        "\(health.body)")
      #expect(try await Base.send(client, .get, "/healthz?maxLag=-1").status == 400)
      let metrics = try await Base.send(client, .get, "/metrics").body
      #expect(metrics.contains("newsatlas_table_change{dataset=\"places\"} 2\n"))
      #expect(metrics.contains("newsatlas_table_changes_applied_total{dataset=\"places\"} 2\n"))
    }
  }
}
