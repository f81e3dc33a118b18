extension ClusterIndex {
  /// The index of these points followed by `added`: the same index as `ClusterIndex(points: points + added,
  /// options: options)` builds (the same levels, ids, parents, order and trees), without clustering again the
  /// zooms where the added points are too far from everything to change anything. Nil when it would not save a
  /// whole build, which the caller then makes: an index built with `map` and `reduce` (their closures are not
  /// kept), more than `appendedLimit` added points, an empty input, retained zooms, an added point within
  /// reach of another at `maxZoom`, or `maxZoom`'s clusters depending on its tree's order (`Level.ordered`).
  ///
  /// An added point far from every other at a zoom is no one's neighbour there and has none: the zoom's walk
  /// leaves every item as it was and copies the new one to the end of the level, and each cluster's id moves by
  /// the number of points added (supercluster counts the input in its ids). So from `maxZoom` down to the first
  /// zoom where an added point may be within reach of another item, each level is the old one with the added
  /// points after it (a new k-d tree, left to its first query, `DeferredTree`); that zoom and those below it are
  /// updated where the added points reach (`locallyUpdated`: the walk again for the items near the change only,
  /// the rest of it read back from the old level), and so is a zoom above whose clustering put neighbours in its
  /// k-d tree's order (`Level.ordered`: an added item can change the order kdbush gives the others, so its
  /// clusters whose sums round are summed again in the new order). With `minPoints` above 2 those zooms are
  /// clustered as a whole build does. An item of the level of zoom z + 1 lies within the sum of the radii of the
  /// zooms above z (less than the radius at z) of an input point, since a cluster's centre is within the radius
  /// of its seed; so an added point farther than twice the radius at z (with room for rounding) from every input
  /// point and every other added point is out of reach at z.
  ///
  /// The zooms below that bound are then checked against the items of the level each clusters, for a few
  /// added points, down to the first one within reach. The zooms clustered search only the items a whole
  /// build would: each input point's clearance (its distance to the nearest other, kept from the build) is
  /// lowered to its distance from the added points, and read as a whole build reads it.
  ///
  /// - Complexity: O(n) for each added point (its distance to the input, then to the items of the levels
  ///   checked), the levels copied, and the walk again near the added points from the first zoom they reach (at
  ///   a million uniform points and one added point, zoom 5 to 10).
  @_specialize(where Aggregate == [Double])  // see `ClusterIndex`
  public func appending(_ added: [GeoPoint?], threads: Int? = nil) throws(ClusterError) -> ClusterIndex? {
    let n = points.count
    let m = added.count
    // Checking each added point against the whole input costs O(n) apiece: a large batch is built whole.
    guard !aggregating, m <= Self.appendedLimit, n > 0, options.retainedZooms == nil,
      !levels.contains(where: \.dropped)
    else { return nil }
    let all = points + added
    guard all.count < 1 << 26 else { throw .tooManyPoints(count: all.count, limit: (1 << 26) - 1) }
    var pointXs = self.pointXs
    var pointYs = self.pointYs
    var addedItems: [Int] = []
    for (j, point) in added.enumerated() {
      pointXs.append(point.map { Float(Projection.x(longitude: $0.longitude)) } ?? 0)
      pointYs.append(point.map { Float(Projection.y(latitude: $0.latitude)) } ?? 0)
      if point != nil { addedItems.append(n + j) }
    }
    // The nearest distance from an added point to any other point, input or added (squared, as stored; a slot
    // without a point counts as one at (0, 0), which can only make the added points reach sooner). On the way,
    // each point's clearance comes down to its distance from the added ones, and theirs is found.
    var pointClearances = self.pointClearances
    pointClearances.append(contentsOf: repeatElement(0, count: m))
    var nearest = Double.infinity
    let slack = NeighborLists.clearanceSlack
    pointXs.withUnsafeBufferPointer { xs in
      pointYs.withUnsafeBufferPointer { ys in
        pointClearances.withUnsafeMutableBufferPointer { clearances in
          for item in addedItems {
            let x = Double(xs[item])
            let y = Double(ys[item])
            var closest = Double.infinity
            for i in 0..<n {
              let dx = Double(xs[i]) - x
              let dy = Double(ys[i]) - y
              let distance2 = dx * dx + dy * dy
              closest = min(closest, distance2)
              let reach = Double(clearances[i]) + slack
              if reach > 0 && distance2 < reach * reach {
                clearances[i] = Self.roundedDown(distance2.squareRoot() - slack)
              }
            }
            for other in addedItems where other != item {
              let dx = Double(xs[other]) - x
              let dy = Double(ys[other]) - y
              closest = min(closest, dx * dx + dy * dy)
            }
            clearances[item] = Self.roundedDown(closest.squareRoot() - slack)
            nearest = min(nearest, closest)
          }
        }
      }
    }
    let distance = nearest.squareRoot()
    // The first zoom an added point may reach: its level and those below are clustered again.
    var first: Int? = nil
    for zoom in stride(from: options.maxZoom, through: options.minZoom, by: -1)
    where distance <= 2 * Self.radius(zoom: zoom, options: options) + Self.appendedSlack {
      first = zoom
      break
    }
    // For a few added points, the zooms from there down are checked against the level each clusters (its
    // items where they are, not just near an input point), until one is within reach.
    if let bound = first, addedItems.count <= Self.checkedLimit {
      var pairs = Double.infinity
      for (a, item) in addedItems.enumerated() {
        for other in addedItems[(a + 1)...] {
          let dx = Double(pointXs[other]) - Double(pointXs[item])
          let dy = Double(pointYs[other]) - Double(pointYs[item])
          pairs = min(pairs, dx * dx + dy * dy)
        }
      }
      var zoom = bound
      while zoom >= options.minZoom {
        let reach = Self.radius(zoom: zoom, options: options) + Self.appendedSlack
        if pairs <= reach * reach
          || reaches(addedItems, levels[zoom + 1 - options.minZoom], reach, pointXs, pointYs)
        {
          break
        }
        zoom -= 1
      }
      first = zoom >= options.minZoom ? zoom : nil
    }
    if !addedItems.isEmpty { first = reclustered(from: first) }
    if first == options.maxZoom { return nil }
    let shift = Int32(truncatingIfNeeded: m)
    let treeForks = ForkJoin.forks(threads: threads)
    // The levels of the zooms the added points do not reach, from `maxZoom + 1` down, each the old one with
    // them at its end; levels that shared their storage (nothing merged between them) share it again.
    let lowest = first.map { $0 + 2 } ?? options.minZoom
    var above: [Level] = []
    var copies: [ObjectIdentifier: Level] = [:]
    for zoom in stride(from: options.maxZoom + 1, through: lowest, by: -1) {
      let old = levels[zoom - options.minZoom]
      let copy: Level
      if let shared = copies[ObjectIdentifier(old.tree)] {
        copy = shared
      } else {
        copy = old.appending(addedItems, shift: shift, treeForks: treeForks)
        copies[ObjectIdentifier(old.tree)] = copy
      }
      var level = copy
      level.parents = old.parents.shifted(by: shift, count: old.count + addedItems.count)
      above.append(level)
    }
    guard let first else {
      return ClusterIndex(
        options: options, points: all, levels: above.reversed(), pointXs: pointXs, pointYs: pointYs,
        pointClearances: pointClearances)
    }
    // The level the first reached zoom clusters, at full width, as a whole build would have it.
    let old = levels[first + 1 - options.minZoom]
    var level = Draft()
    let count = old.count + addedItems.count
    level.xs.reserveCapacity(count)
    level.ys.reserveCapacity(count)
    level.ids.reserveCapacity(count)
    level.counts.reserveCapacity(count)
    for i in 0..<old.count {
      if let k = old.cluster(i) {
        level.append(
          x: old.clusterXs[k], y: old.clusterYs[k], id: old.clusterIds[k] + m, count: old.clusterCounts[k],
          aggregateIndex: -1)
      } else {
        let item = Int(old.items[i])
        level.append(
          x: Double(pointXs[item]), y: Double(pointYs[item]), id: item, count: 1, aggregateIndex: -1)
      }
    }
    for item in addedItems {
      level.append(x: Double(pointXs[item]), y: Double(pointYs[item]), id: item, count: 1, aggregateIndex: -1)
    }
    level.parents = [Int32](repeating: -1, count: count)
    let forks = count >= NeighborLists.parallelThreshold ? ForkJoin.forks(threads: threads) : 0
    let updated: [Level]
    if options.minPoints == 2 {
      // Updated where the added points reach, the rest of each zoom's walk kept (`locallyUpdated`).
      var origin = (0..<old.count).map { Int32(truncatingIfNeeded: $0) }
      origin.append(contentsOf: repeatElement(-1, count: addedItems.count))
      updated = locallyUpdated(
        from: first, level: level, origin: origin, changed: Array(old.count..<count), above: above,
        featureCount: all.count, pointClearances: pointClearances, forks: forks, treeForks: treeForks)
    } else {
      // The clearances a whole build carries to this level (`members(_:within:xs:ys:forks:)`): a lone point's
      // own, so that only the items within reach of another are searched; none for a cluster.
      var clearances = [Double](repeating: -.infinity, count: count)
      for i in 0..<old.count where old.cluster(i) == nil {
        clearances[i] = Double(pointClearances[Int(old.items[i])])
      }
      for (j, item) in addedItems.enumerated() { clearances[old.count + j] = Double(pointClearances[item]) }
      // Whether the old level shared its storage with the one above (nothing merged at `first + 1`).
      let sameItems =
        first + 1 < options.maxZoom + 1
        && ObjectIdentifier(old.tree) == ObjectIdentifier(levels[first + 2 - options.minZoom].tree)
      var aggregates: [Aggregate] = []
      updated = Self.zooms(
        from: first, level: level, clearances: clearances, above: above, sameItems: sameItems,
        options: options, featureCount: all.count, forks: forks, treeForks: treeForks, aggregation: nil,
        aggregates: &aggregates)
    }
    return ClusterIndex(
      options: options, points: all, levels: updated, pointXs: pointXs, pointYs: pointYs,
      pointClearances: pointClearances)
  }

  /// An index of these parts, without aggregates.
  init(
    options: ClusterOptions, points: [GeoPoint?], levels: [Level], pointXs: [Float], pointYs: [Float],
    pointClearances: [Float]
  ) {
    self.options = options
    self.points = points
    self.levels = levels
    self.pointXs = pointXs
    self.pointYs = pointYs
    self.pointClearances = pointClearances
    aggregating = false
  }

  /// The highest zoom to cluster again when a change reaches no item above `first` (nil: none): `first`, or a
  /// higher zoom whose clustering put neighbours in its k-d tree's order (`Level.ordered`), which the change
  /// may alter (kdbush's order of the same items depends on every other item of the level).
  func reclustered(from first: Int?) -> Int? {
    let lowest = (first ?? options.minZoom - 1) + 1
    for zoom in stride(from: options.maxZoom, through: lowest, by: -1)
    where levels[zoom - options.minZoom].ordered {
      return zoom
    }
    return first
  }

  /// Whether an item of `level` is within `reach` of one of the input points `points` (at `xs`, `ys`) other than
  /// itself: points added (not in the level) or removed (lone points in it, each of which may reach another
  /// removed one: removed together, two points that clustered only with each other leave their cluster).
  func reaches(_ points: [Int], _ level: Level, _ reach: Double, _ xs: [Float], _ ys: [Float]) -> Bool {
    let reach2 = reach * reach
    for i in 0..<level.count {
      let own = level.cluster(i) == nil ? Int(level.items[i]) : -1
      let (x, y) = mercator(level, i)
      for point in points where point != own {
        let dx = Double(xs[point]) - x
        let dy = Double(ys[point]) - y
        if dx * dx + dy * dy <= reach2 { return true }
      }
    }
    return false
  }

  /// The most added points whose reach `appending(_:threads:)` checks level by level.
  static var checkedLimit: Int { 8 }

  /// The most points `appending(_:threads:)` adds without building the index whole.
  static var appendedLimit: Int { 64 }

  /// Room for rounding in `appending(_:threads:)`'s reach: four times the clearances' (`NeighborLists.
  /// clearanceSlack`, which covers the Float rounding of stored positions and the arithmetic).
  static var appendedSlack: Double { 1e-6 }
}

extension ClusterIndex.Level {
  /// This level with the input points `added` (indices, ascending) after its items, cluster ids moved by
  /// `shift` (the points added to the input), the parents left to the caller, and a tree to build on first
  /// use.
  func appending(_ added: [Int], shift: Int32, treeForks: Int) -> Self {
    var level = self
    level.items.append(contentsOf: added.map { UInt32(truncatingIfNeeded: $0) })
    level.clusterIds = clusterIds.map { $0 + Int(shift) }
    level.tree = DeferredTree(nil, forks: treeForks)
    return level
  }
}
