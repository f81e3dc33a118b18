import Dispatch
import SeededPoints
import Testing

@testable import GeoIndex

/// The k-d trees the cluster build leaves to be built on first use (`DeferredTree`): each, once built, is kdbush's
/// tree of its level's items (the oracle's own kd-sort, `ClusterBuildOracleTests.referenceRanks`), and threads
/// that ask for one at once all get that tree.
@Suite struct DeferredTreeTests {
  /// 20,000 uniform points: no neighbour list of the top zooms holds two items, so their trees are not built.
  static let points: [GeoPoint?] = SeededSpherePoints.make(count: 20_000, seed: 91)

  @Test func aTreeBuiltOnFirstUseIsTheLevelsKdbushTree() throws {
    let index = try ClusterIndex(points: Self.points)
    let deferred = index.levels.indices.filter { !index.levels[$0].tree.isBuilt }
    // The case this suite is about must happen: the top zooms' trees are left to their first query.
    #expect(deferred.count >= 4, "deferred levels \(deferred)")
    for offset in deferred {
      let entries = index.entries(levelOffset: offset)
      let expected = ClusterBuildOracleTests.referenceRanks(
        entries.map { ClusterBuildOracleTests.Item(x: $0.x, y: $0.y, id: $0.id, count: $0.count) },
        nodeSize: index.options.nodeSize)
      let ranks = index.tree(of: index.levels[offset]).traversalRanks()
      #expect(ranks.map(Int.init) == expected, "zoom \(index.options.minZoom + offset)")
      #expect(index.levels[offset].tree.isBuilt)
    }
  }

  @Test func threadsAskingAtOnceGetTheSameTiles() throws {
    let expected = try ClusterIndex(points: Self.points)
    let zooms = expected.levels.indices.filter { !expected.levels[$0].tree.isBuilt }.map {
      expected.options.minZoom + $0
    }
    #expect(!zooms.isEmpty)
    // Tiles of every zoom whose tree is deferred, asked on eight threads at once of an index that has built
    // none of them yet, against the same tiles asked one at a time.
    let tiles = zooms.flatMap { z in
      (0..<8).map { (z: z, x: (1 << z) / 2 + $0 % 3, y: (1 << z) / 2 + $0 / 3) }
    }
    let want = tiles.map { expected.tile(zoom: $0.z, x: $0.x, y: $0.y) }
    // Shared with the threads, which only read the index (its deferred trees build under their own lock) and
    // write their own slots.
    nonisolated(unsafe) let index = try ClusterIndex(points: Self.points)
    nonisolated(unsafe) let results = UnsafeMutableBufferPointer<[TileFeature]?>.allocate(
      capacity: 8 * tiles.count)
    results.initialize(repeating: nil)
    defer { results.deallocate() }
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for (k, tile) in tiles.enumerated() {
        results[thread * tiles.count + k] = index.tile(zoom: tile.z, x: tile.x, y: tile.y)
      }
    }
    for thread in 0..<8 {
      #expect(
        Array(results[(thread * tiles.count)..<((thread + 1) * tiles.count)]) == want, "thread \(thread)")
    }
    #expect(want.contains { $0 != nil })
  }
}
