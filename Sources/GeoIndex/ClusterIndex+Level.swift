extension ClusterIndex {
  /// One finished zoom's items, in supercluster's data-array order, compact: an item is its input point's
  /// index or its cluster's place in the level's cluster table, plus its parent, and the level's k-d tree.
  ///
  /// Lone points are most items at most zooms (10 of the 10.4 million items of 1M uniform points), and their
  /// position, id and count follow from the input index, so only clusters keep theirs: 20 bytes an item
  /// with the tree, against 44 at full width.
  @usableFromInline
  struct Level {
    /// Per item: an input index, or `clusterTag | k` for the level's k-th cluster.
    var items: [UInt32] = []
    /// The id of the cluster that took the item at the next lower zoom, or -1.
    var parents = Parents([])
    /// The level's k-d tree, built by the cluster build or at the first query (`ClusterIndex.tree(of:)`).
    var tree: DeferredTree
    /// The clusters' centres (supercluster's double-precision Mercator), ids, point counts and indices into
    /// `aggregates` (empty when the index aggregates nothing).
    var clusterXs: [Double] = []
    var clusterYs: [Double] = []
    var clusterIds: [Int] = []
    var clusterCounts: [Int32] = []
    var clusterAggregates: [Int32] = []
    /// Set when `retainedZooms` let the level go.
    var dropped = false
    /// Whether the zoom put a neighbour list in the order of the level above's k-d tree (`Draft.ordered`):
    /// `appending` and `removing` then cluster it again rather than copy it, since a point added or removed
    /// anywhere can change that tree's order.
    var ordered = false

    static var clusterTag: UInt32 { 1 << 31 }

    /// A level that `retainedZooms` let go.
    init(dropped: Void) {
      tree = DeferredTree(PlanarKDTree(xs: [], ys: [], nodeSize: 1), forks: 0)
      self.dropped = true
    }

    /// The finished draft, compacted; its tree, if the build left it, to be built with up to `treeForks`
    /// levels of forks.
    init(_ draft: Draft, treeForks: Int) {
      tree = DeferredTree(draft.tree, forks: treeForks)
      parents = Parents(draft.parents)
      ordered = draft.ordered
      let count = draft.xs.count
      let clusterCount = draft.counts.reduce(0) { $0 + ($1 > 1 ? 1 : 0) }
      // Written through buffers: a level of a million items is compacted at most zooms of a large build.
      var items: [UInt32] = []
      let clusterItems = [Int](unsafeUninitializedCapacity: clusterCount) {
        clusterItems, clustersInitialized in
        items = [UInt32](unsafeUninitializedCapacity: count) { items, initialized in
          draft.counts.withUnsafeBufferPointer { counts in
            draft.ids.withUnsafeBufferPointer { ids in
              var k = 0
              for i in 0..<count {
                if counts[i] > 1 {
                  clusterItems[k] = i
                  items[i] = Self.clusterTag | UInt32(truncatingIfNeeded: k)
                  k += 1
                } else {
                  items[i] = UInt32(truncatingIfNeeded: ids[i])  // a lone point: its input index
                }
              }
            }
          }
          initialized = count
        }
        clustersInitialized = clusterCount
      }
      self.items = items
      clusterXs = clusterItems.map { draft.xs[$0] }
      clusterYs = clusterItems.map { draft.ys[$0] }
      clusterIds = clusterItems.map { draft.ids[$0] }
      clusterCounts = clusterItems.map { draft.counts[$0] }
      if draft.aggregated { clusterAggregates = clusterItems.map { draft.aggregateIndices[$0] } }
    }

    /// The same items, clusters and tree (shared, not copied) with other parents: the level of a zoom at
    /// which nothing merged.
    func withParents(_ parents: [Int32]) -> Level {
      var level = self
      level.parents = Parents(parents)
      level.ordered = false  // nothing merged, so no order mattered
      return level
    }

    /// The number of items.
    var count: Int { items.count }

    /// The item's place in the cluster table, or nil for a lone point.
    @inline(__always)
    func cluster(_ i: Int) -> Int? {
      let item = items[i]
      return item & Self.clusterTag != 0 ? Int(item & ~Self.clusterTag) : nil
    }
  }

  /// Each item's parent in a level (the id, truncated to 32 bits as supercluster's are, of the cluster that
  /// took it at the next lower zoom, or -1): dense where many items have one, else only those that do, in
  /// order. At the top zooms of 1M uniform points a few thousand of a million items merge, so their parents
  /// take kilobytes instead of 4 MB a zoom (36 MB in all).
  struct Parents {
    /// Every item's parent, or empty when the level keeps only the items that have one.
    var dense: [Int32] = []
    /// The items that have a parent, ascending, and their parents.
    var indices: [UInt32] = []
    var ids: [Int32] = []

    init(_ all: [Int32]) {
      let withParent = all.reduce(0) { $0 + ($1 == -1 ? 0 : 1) }
      guard withParent < all.count / 4 else {
        dense = all
        return
      }
      indices.reserveCapacity(withParent)
      ids.reserveCapacity(withParent)
      for (i, parent) in all.enumerated() where parent != -1 {
        indices.append(UInt32(i))
        ids.append(parent)
      }
    }

    /// Every parent id moved by `shift` (cluster ids count the input points: `ClusterIndex.appending`), for a
    /// level of `count` items, those beyond the old ones without a parent.
    func shifted(by shift: Int32, count: Int) -> Parents {
      var moved = self
      if !dense.isEmpty {
        moved.dense = dense.map { $0 == -1 ? -1 : $0 &+ shift }
        moved.dense.append(contentsOf: repeatElement(-1, count: count - dense.count))
      } else {
        moved.ids = ids.map { $0 &+ shift }
      }
      return moved
    }

    /// The bytes its arrays hold.
    var bytes: Int { dense.count * 4 + indices.count * 4 + ids.count * 4 }

    /// The parent of item `i`.
    ///
    /// - Complexity: O(1) dense, O(log k) for the k items with a parent otherwise.
    subscript(i: Int) -> Int32 {
      if !dense.isEmpty { return dense[i] }
      var low = 0
      var high = indices.count
      while low < high {
        let middle = (low + high) >> 1
        if Int(indices[middle]) < i { low = middle + 1 } else { high = middle }
      }
      return low < indices.count && Int(indices[low]) == i ? ids[low] : -1
    }
  }

  /// Builds every zoom's k-d tree that the build left to its first query (`DeferredTree`), a zoom at a time
  /// while `proceed()` holds: a server calls it on its own thread after it swaps an index in, so that no
  /// request waits for a tree. `proceed` is asked before each zoom and between the nodes of a large tree (from
  /// either thread of the build): once it is false the tree in progress is dropped (`deferredTreeCount` is as
  /// if it had not been started) and the call returns within a node's sort, so a change that arrives meanwhile
  /// does not wait for a whole tree. Answers are the same whether it is called or not.
  ///
  /// - Complexity: O(n log n) for each such zoom of n items.
  @_specialize(where Aggregate == [Double])  // see `ClusterIndex`
  public func buildDeferredTrees(while proceed: () -> Bool = { true }) {
    for level in levels where !level.dropped && !level.tree.isBuilt {
      guard proceed(), tree(of: level, while: proceed) != nil else { return }
    }
  }

  /// About how many bytes the index keeps besides its input points (the caller's) and its clusters' aggregates
  /// (`aggregates`, of the caller's type): each point's projected position (8) and clearance (4, none when it
  /// aggregates: `appending(_:threads:)` reads it), and each zoom's level once,
  /// however many zooms share it (those where nothing merged): 4 an item, its parents (4 an item, or 8 an item
  /// that has one when few do), 28 a cluster (32 with an aggregate) and 12 an item for its k-d tree, built or not
  /// (a tree left to its first query, `DeferredTree`, is what that query adds).
  ///
  /// - Complexity: O(z) for z zooms.
  public var keptBytes: Int {
    var bytes = (pointXs.count + pointYs.count + pointClearances.count) * MemoryLayout<Float>.stride
    var trees = Set<ObjectIdentifier>()
    for level in levels where !level.dropped {
      bytes += level.parents.bytes
      // A level shared with the zoom below (nothing merged) shares its items, clusters and tree too.
      guard trees.insert(ObjectIdentifier(level.tree)).inserted else { continue }
      bytes += level.count * (4 + 12) + level.clusterXs.count * (level.clusterAggregates.isEmpty ? 28 : 32)
    }
    return bytes
  }

  /// How many zooms' k-d trees are left to their first query (`buildDeferredTrees(while:)` builds them).
  public var deferredTreeCount: Int { levels.count { !$0.dropped && !$0.tree.isBuilt } }

  /// The level's k-d tree, built now from the level's items if neither the build nor a query has built it.
  func tree(of level: Level) -> PlanarKDTree {
    tree(of: level, while: { true })!
  }

  /// The level's k-d tree, or nil if `proceed()` turned false while it was being built (`DeferredTree`).
  func tree(of level: Level, while proceed: () -> Bool) -> PlanarKDTree? {
    level.tree.get(
      nodeSize: options.nodeSize,
      positions: {
        var xs = [Double](repeating: 0, count: level.count)
        var ys = [Double](repeating: 0, count: level.count)
        for i in 0..<level.count { (xs[i], ys[i]) = mercator(level, i) }
        return (xs, ys)
      }, while: proceed)
  }

  /// The item's position in supercluster's Mercator units (a lone point's as the index rounds it).
  @inline(__always)
  func mercator(_ level: Level, _ i: Int) -> (x: Double, y: Double) {
    if let k = level.cluster(i) { return (level.clusterXs[k], level.clusterYs[k]) }
    let index = Int(level.items[i])
    return (Double(pointXs[index]), Double(pointYs[index]))
  }

  /// What the item is: supercluster's id, point count, centre and aggregate, in the index's terms.
  func item(_ level: Level, _ i: Int) -> ClusterItem {
    guard let k = level.cluster(i) else { return .point(index: Int(level.items[i])) }
    return .cluster(cluster(level, k))
  }

  /// The level's k-th cluster.
  func cluster(_ level: Level, _ k: Int) -> Cluster {
    let aggregateIndex = level.clusterAggregates.isEmpty ? -1 : Int(level.clusterAggregates[k])
    return Cluster(
      id: level.clusterIds[k], pointCount: Int(level.clusterCounts[k]), mercatorX: level.clusterXs[k],
      mercatorY: level.clusterYs[k], aggregateIndex: aggregateIndex >= 0 ? aggregateIndex : nil)
  }

  /// Every field of every item of the level at `offset` (zoom `minZoom + offset`), at full width, for
  /// checking the index against a reference.
  func entries(levelOffset offset: Int) -> [(x: Double, y: Double, id: Int, count: Int, parent: Int)] {
    let level = levels[offset]
    return (0..<level.count).map { i in
      let (x, y) = mercator(level, i)
      switch item(level, i) {
      case .point(let index): return (x, y, index, 1, Int(level.parents[i]))
      case .cluster(let cluster): return (x, y, cluster.id, cluster.pointCount, Int(level.parents[i]))
      }
    }
  }
}
