import Synchronization

/// A zoom level's k-d tree, built when it is first needed: by the cluster build when the zoom below must put
/// neighbours in its order, otherwise by the first query at that zoom.
///
/// Most zooms of a large index merge almost nothing (at 1M uniform points, zooms 16–13 merge a few hundred of a
/// million items, and not one neighbour list there holds two items), so nothing in the build reads their trees;
/// a served dataset that changes is built again at every change, and maps ask for a few zooms. The tree is the
/// same whoever builds it (kdbush's, from the level's items in order), so deferring it changes no answer.
/// Callers that ask at once wait for one build; once it is built, a query reads it with one atomic load (no
/// lock), and it is built on as many threads as its index was given (`ClusterIndex.init`'s `threads:`).
final class DeferredTree: Sendable {
  private final class Built: Sendable {
    let tree: PlanarKDTree
    init(_ tree: PlanarKDTree) { self.tree = tree }
  }

  private let built = AtomicLazyReference<Built>()
  /// Held while the tree is built, so that it is built once.
  private let building = Mutex<Void>(())
  /// How many levels of forks a large tree's build may use (`ForkJoin.forks(threads:)`).
  private let forks: Int
  /// How many times the build lock was taken, and the tree built (for tests: once each at most).
  private let lockings = Atomic<Int>(0)
  private let builds = Atomic<Int>(0)
  /// Called by a caller that found no tree, before it takes the lock (tests line callers up there).
  private let missed: (@Sendable () -> Void)?

  /// A tree already built, or (nil) one to build on first use with up to `forks` levels of forks.
  init(_ tree: PlanarKDTree?, forks: Int, missed: (@Sendable () -> Void)? = nil) {
    self.forks = forks
    self.missed = missed
    if let tree { _ = built.storeIfNil(Built(tree)) }
  }

  /// Whether the tree has been built.
  var isBuilt: Bool { built.load() != nil }

  /// Keeps `tree` if no tree is kept yet (the same level's tree, built elsewhere).
  func offer(_ tree: PlanarKDTree) {
    _ = built.storeIfNil(Built(tree))
  }

  /// The tree, built from the level's item positions (`positions()`, in the level's order) the first time.
  ///
  /// - Complexity: O(1) once built; the first call O(n log n), on every core the index may use for a large
  ///   level.
  func get(nodeSize: Int, positions: () -> (xs: [Double], ys: [Double])) -> PlanarKDTree {
    get(nodeSize: nodeSize, positions: positions, while: { true })!
  }

  /// The tree, or nil if it was not built yet and `proceed()` turned false while this call built it (asked
  /// between nodes, `PlanarKDTree.init(xs:ys:nodeSize:forks:while:)`): then nothing is kept, and a later call
  /// builds it whole. A caller waiting for the lock meanwhile builds it itself.
  func get(
    nodeSize: Int, positions: () -> (xs: [Double], ys: [Double]), while proceed: () -> Bool
  ) -> PlanarKDTree? {
    if let built = built.load() { return built.tree }
    missed?()
    return building.withLock { _ -> PlanarKDTree? in
      lockings.add(1, ordering: .relaxed)
      if let built = built.load() { return built.tree }  // built while this caller waited
      let (xs, ys) = positions()
      guard
        let tree = PlanarKDTree(
          xs: xs, ys: ys, nodeSize: nodeSize, forks: xs.count >= PlanarKDTree.parallelThreshold ? forks : 0,
          while: proceed)
      else { return nil }
      builds.add(1, ordering: .relaxed)
      return built.storeIfNil(Built(tree)).tree
    }
  }

  /// How many times the build lock was taken and the tree built, for tests.
  var counts: (lockings: Int, builds: Int) {
    (lockings.load(ordering: .relaxed), builds.load(ordering: .relaxed))
  }
}
