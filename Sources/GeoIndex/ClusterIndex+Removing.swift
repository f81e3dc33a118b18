extension ClusterIndex {
  /// The index of these points without those at `removed` (input indices, ascending, each once): the same
  /// index as `ClusterIndex(points:options:)` builds over the points left (the same levels, ids, parents,
  /// order and trees), without clustering again the zooms where the removed points were too far from
  /// everything to change anything. Nil when it would not save a whole build, which the caller then makes:
  /// an index built with `map` and `reduce`, more than `appendedLimit` removed points or none left, retained
  /// zooms, a removed point within reach of another at `maxZoom`, or `maxZoom`'s clusters depending on its
  /// tree's order (`Level.ordered`). The mirror of `appending(_:threads:)`.
  ///
  /// A point far from every other at a zoom was a lone item there, no one's neighbour, and had none: without
  /// it, the zoom's walk leaves every other item as it was. So from `maxZoom` down to the first zoom where a
  /// removed point may have been within reach of another item, each level is the old one without the removed
  /// points: later input indices move down by the number of removed points before them, and so do the
  /// positions in supercluster's ids (a cluster's id is its seed's position in the level above, its zoom, and
  /// the number of input features). A removed point farther than twice the radius at z (with room for
  /// rounding) from every other input point (its clearance, kept from the build) was out of reach at z, as in
  /// `appending`; the zooms below that bound are then checked against the items of the level each clusters,
  /// down to the first one a removed point reached (another removed point counts: two removed points that
  /// clustered only with each other leave their cluster), and that zoom and those below it are updated where
  /// the removed points were (`locallyUpdated`: the walk again for the items near where they were and those
  /// they had taken, the rest read back from the old level), as is a zoom above whose clustering depended on
  /// its k-d tree's order (`Level.ordered`). With `minPoints` above 2 those zooms are clustered as a whole
  /// build does.
  ///
  /// The clearances of the points left are kept as they were: a point whose nearest was removed keeps the
  /// lower clearance, which makes the zooms clustered search it where a whole build might not, with the
  /// same answers.
  ///
  /// - Complexity: O(n) for each level (copied without the removed points, a check against each for a few
  ///   removed points, the old walk read back), and the walk again near the removed points from the first
  ///   zoom they reached (at a million uniform points and one removed point, zoom 5 to 10).
  @_specialize(where Aggregate == [Double])  // see `ClusterIndex`
  public func removing(_ removed: [Int], threads: Int? = nil) throws(ClusterError) -> ClusterIndex? {
    let n = points.count
    precondition(
      zip(removed, removed.dropFirst()).allSatisfy { $0 < $1 } && removed.allSatisfy { (0..<n).contains($0) },
      "removed input indices are ascending, distinct and in the index")
    guard !aggregating, !removed.isEmpty, removed.count <= Self.appendedLimit, removed.count < n,
      options.retainedZooms == nil, !levels.contains(where: \.dropped)
    else { return nil }
    let removedItems = removed.filter { self.points[$0] != nil }
    // The first zoom a removed point may have reached: from its clearance (its distance to every other point,
    // at least), then, for a few, the items of each level below.
    var first: Int? = nil
    if let nearest = removedItems.map({ Double(self.pointClearances[$0]) }).min() {
      for zoom in stride(from: options.maxZoom, through: options.minZoom, by: -1)
      where nearest <= 2 * Self.radius(zoom: zoom, options: options) + Self.appendedSlack {
        first = zoom
        break
      }
    }
    if let bound = first, removedItems.count <= Self.checkedLimit {
      var zoom = bound
      while zoom >= options.minZoom {
        let reach = Self.radius(zoom: zoom, options: options) + Self.appendedSlack
        if reaches(removedItems, self.levels[zoom + 1 - options.minZoom], reach, self.pointXs, self.pointYs) {
          break
        }
        zoom -= 1
      }
      first = zoom >= options.minZoom ? zoom : nil
    }
    if !removedItems.isEmpty { first = reclustered(from: first) }
    if first == options.maxZoom { return nil }

    let left = n - removed.count
    var kept = [Bool](repeating: true, count: n)
    for i in removed { kept[i] = false }
    var points: [GeoPoint?] = []
    var pointXs: [Float] = []
    var pointYs: [Float] = []
    var pointClearances: [Float] = []
    points.reserveCapacity(left)
    pointXs.reserveCapacity(left)
    pointYs.reserveCapacity(left)
    pointClearances.reserveCapacity(left)
    for i in 0..<n where kept[i] {
      points.append(self.points[i])
      pointXs.append(self.pointXs[i])
      pointYs.append(self.pointYs[i])
      pointClearances.append(self.pointClearances[i])
    }
    // Each level from `maxZoom + 1` down to the first zoom reached + 1 without the removed points, and where
    // they were in it (what the ids of the clusters seeded in it lose), from the top: a level's clusters were
    // seeded in the levels above it.
    let treeForks = ForkJoin.forks(threads: threads)
    let lowest = first.map { $0 + 1 } ?? options.minZoom
    let removedIndices = removed.map { UInt32(truncatingIfNeeded: $0) }
    var removal = RemovedPoints(
      indices: removedIndices, positions: [[Int]](repeating: [], count: levels.count), featureCount: n,
      minZoom: options.minZoom)
    var copies: [ObjectIdentifier: (level: Level, positions: [Int])] = [:]
    var above: [Level] = []
    var lowestLevel: Level? = nil
    for zoom in stride(from: options.maxZoom + 1, through: lowest, by: -1) {
      let offset = zoom - options.minZoom
      let old = self.levels[offset]
      let copy: (level: Level, positions: [Int])
      if let shared = copies[ObjectIdentifier(old.tree)] {
        copy = shared
      } else {
        copy = old.removing(removal, treeForks: treeForks)
        copies[ObjectIdentifier(old.tree)] = copy
      }
      removal.positions[offset] = copy.positions
      var level = copy.level
      if zoom == lowest && first != nil {
        lowestLevel = level
        break
      }
      level.parents = old.parents.removing(copy.positions) { removal.id(of: $0) }
      above.append(level)
    }
    guard let first, let old = lowestLevel else {
      return ClusterIndex(
        options: options, points: points, levels: above.reversed(), pointXs: pointXs, pointYs: pointYs,
        pointClearances: pointClearances)
    }
    // The level the first reached zoom clusters, at full width, as a whole build would have it, with the
    // clearances a whole build carries to it (`members(_:within:xs:ys:forks:)`): a lone point's own (as
    // kept), none for a cluster.
    var level = Draft()
    let count = old.count
    level.xs.reserveCapacity(count)
    level.ys.reserveCapacity(count)
    level.ids.reserveCapacity(count)
    level.counts.reserveCapacity(count)
    var clearances = [Double](repeating: -.infinity, count: count)
    for i in 0..<count {
      if let k = old.cluster(i) {
        level.append(
          x: old.clusterXs[k], y: old.clusterYs[k], id: old.clusterIds[k], count: old.clusterCounts[k],
          aggregateIndex: -1)
      } else {
        let item = Int(old.items[i])
        level.append(
          x: Double(pointXs[item]), y: Double(pointYs[item]), id: item, count: 1, aggregateIndex: -1)
        clearances[i] = Double(pointClearances[item])
      }
    }
    level.parents = [Int32](repeating: -1, count: count)
    let forks = count >= NeighborLists.parallelThreshold ? ForkJoin.forks(threads: threads) : 0
    if options.minPoints == 2 {
      // Updated where the removed points were (`locallyUpdated`, as `appending` does): each item's place in
      // the old level, the removed ones missing.
      let gone = removal.positions[first + 1 - options.minZoom]
      var origin: [Int32] = []
      origin.reserveCapacity(count)
      var next = 0
      for j in 0..<self.levels[first + 1 - options.minZoom].count {
        if next < gone.count && gone[next] == j {
          next += 1
          continue
        }
        origin.append(Int32(truncatingIfNeeded: j))
      }
      precondition(origin.count == count, "the level without the removed points")
      let levels = locallyUpdated(
        from: first, level: level, origin: origin, changed: [], above: above, featureCount: left,
        pointClearances: pointClearances, forks: forks, treeForks: treeForks)
      return ClusterIndex(
        options: options, points: points, levels: levels, pointXs: pointXs, pointYs: pointYs,
        pointClearances: pointClearances)
    }
    // Whether the old level shared its storage with the one above (nothing merged at `first + 1`).
    let sameItems =
      first + 1 < options.maxZoom + 1
      && ObjectIdentifier(self.levels[first + 1 - options.minZoom].tree)
        == ObjectIdentifier(self.levels[first + 2 - options.minZoom].tree)
    var aggregates: [Aggregate] = []
    let levels = Self.zooms(
      from: first, level: level, clearances: clearances, above: above, sameItems: sameItems, options: options,
      featureCount: left, forks: forks, treeForks: treeForks, aggregation: nil, aggregates: &aggregates)
    return ClusterIndex(
      options: options, points: points, levels: levels, pointXs: pointXs, pointYs: pointYs,
      pointClearances: pointClearances)
  }

  /// Whether `sorted` (ascending) holds `value`.
  static func contains(_ sorted: [Int], _ value: Int) -> Bool {
    var low = 0
    var high = sorted.count
    while low < high {
      let middle = (low + high) >> 1
      if sorted[middle] < value { low = middle + 1 } else { high = middle }
    }
    return low < sorted.count && sorted[low] == value
  }
}

/// The input points `ClusterIndex.removing` takes out, and where they were in each level copied so far: what
/// the index, ids and parents of the rest become.
struct RemovedPoints {
  /// Input indices, ascending.
  let indices: [UInt32]
  /// Per level (`zoom - minZoom`), the removed points' positions in it, ascending.
  var positions: [[Int]]
  /// The input's feature count before the removal.
  let featureCount: Int
  let minZoom: Int

  /// How many of `sorted` (ascending) are below `value`.
  @inline(__always)
  static func below<T: Comparable>(_ sorted: [T], _ value: T) -> Int {
    var low = 0
    var high = sorted.count
    while low < high {
      let middle = (low + high) >> 1
      if sorted[middle] < value { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// A remaining point's new input index.
  @inline(__always)
  func index(of item: UInt32) -> UInt32 { item - UInt32(truncatingIfNeeded: Self.below(indices, item)) }

  /// Whether the input point is removed.
  @inline(__always)
  func isRemoved(_ item: UInt32) -> Bool {
    let k = Self.below(indices, item)
    return k < indices.count && indices[k] == item
  }

  /// A remaining cluster's new id: its seed's position moved down by the removed points before it in the
  /// level it was seeded in (`(position << 5) + zoom + 1 + featureCount`, supercluster's), and the feature
  /// count by the number removed.
  func id(of id: Int) -> Int {
    let value = id - featureCount
    let zoomAbove = value & 31  // the zoom it formed at, plus one: the level its seed was in
    let position = value >> 5
    let moved = position - Self.below(positions[zoomAbove - minZoom], position)
    return (moved << 5) + zoomAbove + featureCount - indices.count
  }

  /// A parent's new id (as a parent is kept: truncated to 32 bits), or -1 for none.
  func id(of parent: Int32) -> Int32 {
    parent == -1 ? -1 : Int32(truncatingIfNeeded: id(of: Int(UInt32(bitPattern: parent))))
  }
}

extension ClusterIndex.Level {
  /// This level without the removed points (lone items in it, as they are in every level `ClusterIndex.
  /// removing` copies), the rest renumbered, cluster ids moved (their seeds' levels above being known to
  /// `removed`), the parents left to the caller, a tree to build on first use; and where the removed points
  /// were.
  func removing(_ removed: RemovedPoints, treeForks: Int) -> (level: Self, positions: [Int]) {
    var level = self
    var positions: [Int] = []
    level.items = []
    level.items.reserveCapacity(count - removed.indices.count)
    let single = removed.indices.count == 1 ? removed.indices[0] : nil
    for (i, item) in items.enumerated() {
      guard item & Self.clusterTag == 0 else {
        level.items.append(item)
        continue
      }
      if let single {
        if item == single {
          positions.append(i)
        } else {
          level.items.append(item > single ? item - 1 : item)
        }
      } else if removed.isRemoved(item) {
        positions.append(i)
      } else {
        level.items.append(removed.index(of: item))
      }
    }
    level.clusterIds = clusterIds.map { removed.id(of: $0) }
    level.tree = DeferredTree(nil, forks: treeForks)
    return (level, positions)
  }
}

extension ClusterIndex.Parents {
  /// These parents without the items at `positions` (ascending), each other parent's id mapped by `id`.
  func removing(_ positions: [Int], id: (Int32) -> Int32) -> Self {
    var moved = self
    if !dense.isEmpty {
      moved.dense = []
      moved.dense.reserveCapacity(dense.count - positions.count)
      var next = 0
      for (i, parent) in dense.enumerated() {
        if next < positions.count && positions[next] == i {
          next += 1
          continue
        }
        moved.dense.append(id(parent))
      }
    } else {
      moved.indices = []
      moved.ids = []
      for (index, parent) in zip(indices, ids) {
        let i = Int(index)
        let before = RemovedPoints.below(positions, i)
        if before < positions.count && positions[before] == i { continue }
        moved.indices.append(index - UInt32(before))
        moved.ids.append(id(parent))
      }
    }
    return moved
  }
}
