import Synchronization

/// A zoom level's k-d tree, built when it is first needed: by the cluster build when the zoom below must put
/// neighbours in its order, otherwise by the first query at that zoom.
///
/// Most zooms of a large index merge almost nothing (at 1M uniform points, zooms 16–13 merge a few hundred of a
/// million items, and not one neighbour list there holds two items), so nothing in the build reads their trees;
/// a served dataset that changes is built again at every change, and maps ask for a few zooms. The tree is the
/// same whoever builds it (kdbush's, from the level's items in order), so deferring it changes no answer.
/// Callers that ask at once wait for one build.
final class DeferredTree: Sendable {
  private let tree: Mutex<PlanarKDTree?>

  /// A tree already built, or (nil) one to build on first use.
  init(_ tree: PlanarKDTree?) {
    self.tree = Mutex(tree)
  }

  /// Whether the tree has been built.
  var isBuilt: Bool { tree.withLock { $0 != nil } }

  /// Keeps `built` if no tree is kept yet (the same level's tree, built elsewhere).
  func offer(_ built: PlanarKDTree) {
    tree.withLock { tree in
      if tree == nil { tree = built }
    }
  }

  /// The tree, built from the level's item positions (`positions()`, in the level's order) the first time.
  ///
  /// - Complexity: O(1) once built; the first call O(n log n), on every core for a large level.
  func get(nodeSize: Int, positions: () -> (xs: [Double], ys: [Double])) -> PlanarKDTree {
    tree.withLock { tree in
      if let tree { return tree }
      let (xs, ys) = positions()
      let forks = xs.count >= PlanarKDTree.parallelThreshold ? ForkJoin.forks(threads: nil) : 0
      let built = PlanarKDTree(xs: xs, ys: ys, nodeSize: nodeSize, forks: forks)
      tree = built
      return built
    }
  }
}
