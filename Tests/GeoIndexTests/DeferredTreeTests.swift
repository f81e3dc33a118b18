import Dispatch
import Foundation
import SeededPoints
import Synchronization
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
    // Each tree was built once, however many threads asked for it at once.
    for zoom in zooms {
      let counts = index.levels[zoom - index.options.minZoom].tree.counts
      #expect(counts.builds == 1, "zoom \(zoom): built \(counts.builds) times")
    }
  }

  /// Callers that all find no tree (each past the unlocked look) get one tree, built once: the first to hold
  /// the lock builds it only once every caller has missed it, so the others must look again under the lock.
  @Test func callersThatAllMissTheTreeBuildItOnce() {
    final class Arrivals: Sendable { let count = Atomic<Int>(0) }
    let callers = 4
    let arrivals = Arrivals()
    let tree = DeferredTree(nil, forks: 0) { arrivals.count.add(1, ordering: .sequentiallyConsistent) }
    let positions = Self.points.prefix(500).map {
      (x: Projection.x(longitude: $0!.longitude), y: Projection.y(latitude: $0!.latitude))
    }
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<callers {
      // Threads of their own: each must reach the lock while the first builder waits.
      Thread {
        _ = tree.get(nodeSize: 16) {
          while arrivals.count.load(ordering: .sequentiallyConsistent) < callers { sched_yield() }
          return (positions.map(\.x), positions.map(\.y))
        }
        done.signal()
      }.start()
    }
    for _ in 0..<callers { done.wait() }
    #expect(tree.counts == (lockings: callers, builds: 1))
  }

  /// `buildDeferredTrees` stops within a tree, between its nodes, once `proceed` turns false (a server's builder
  /// when a change arrives): the tree in progress is dropped, not finished, and a query builds it whole.
  @Test func buildingDeferredTreesStopsWithinATree() throws {
    final class Asked: Sendable { let count = Atomic<Int>(0) }
    let index = try ClusterIndex(points: Self.points)
    // The small deferred trees (the low zooms') built first, so that the first one left is large enough to be
    // asked between its nodes.
    for level in index.levels where !level.tree.isBuilt && level.count < PlanarKDTree.stopSpan {
      _ = index.tree(of: level)
    }
    let before = index.deferredTreeCount
    let offset = try #require(index.levels.indices.first { !index.levels[$0].tree.isBuilt })
    #expect(index.levels[offset].count >= PlanarKDTree.stopSpan)
    let asked = Asked()
    // Yes before the first zoom, no from then on.
    index.buildDeferredTrees { asked.count.add(1, ordering: .relaxed).newValue == 1 }
    #expect(asked.count.load(ordering: .relaxed) == 2)
    #expect(index.deferredTreeCount == before)
    #expect(index.levels[offset].tree.counts == (lockings: 1, builds: 0))
    let zoom = index.options.minZoom + offset
    let fresh = try ClusterIndex(points: Self.points)
    for k in 0..<4 {
      let (x, y) = ((1 << zoom) / 2 + k % 2, (1 << zoom) / 2 + k / 2)
      #expect(
        index.tile(zoom: zoom, x: x, y: y) == fresh.tile(zoom: zoom, x: x, y: y), "tile \(zoom)/\(x)/\(y)")
    }
    #expect(index.levels[offset].tree.counts == (lockings: 2, builds: 1))
  }

  /// The first deferred level with enough items for its tree to be built on two threads.
  static func largeDeferredLevel(_ index: ClusterIndex<Void>) -> Int? {
    index.levels.indices.first {
      !index.levels[$0].tree.isBuilt && index.levels[$0].count >= PlanarKDTree.parallelThreshold
    }
  }

  @Test(arguments: [1, 2])
  func aDeferredTreeIsBuiltOnTheThreadsTheIndexWasGiven(threads: Int) throws {
    let index = try ClusterIndex(points: Self.points, threads: threads)
    let offset = try #require(Self.largeDeferredLevel(index))
    let (tree, forks) = ForkJoin.countingForks { index.tree(of: index.levels[offset]) }
    #expect(tree.count == index.levels[offset].count)
    // One thread: no fork at all (Python's ClusterIndex(threads=1) must not use a second core at query time);
    // two: the tree's halves are sorted on two (so the count can see a fork).
    if threads == 1 { #expect(forks == 0) } else { #expect(forks > 0) }
  }

  @Test func aBuiltTreeIsReadWithoutTheLock() throws {
    let index = try ClusterIndex(points: Self.points)
    let offset = try #require(Self.largeDeferredLevel(index))
    let level = index.levels[offset]
    let zoom = index.options.minZoom + offset
    _ = index.tile(zoom: zoom, x: 1 << (zoom - 1), y: 1 << (zoom - 1))
    #expect(level.tree.counts == (lockings: 1, builds: 1))
    // Queries once it is built: an atomic load each, not the lock.
    for k in 0..<64 { _ = index.tile(zoom: zoom, x: (1 << (zoom - 1)) + k % 8, y: (1 << (zoom - 1)) + k / 8) }
    #expect(level.tree.counts == (lockings: 1, builds: 1))
  }
}
