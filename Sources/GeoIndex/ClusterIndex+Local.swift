extension ClusterIndex {
  /// The levels of every zoom, given those above `startZoom` (`above`, from `maxZoom + 1` down to
  /// `startZoom + 2`) and the level that zoom clusters (`level`, at full width, its items the old level's at
  /// `origin` (-1: an item the old level has not) with those at `changed` different from them): each zoom
  /// from `startZoom` down updated where the change reaches, the rest of its walk kept from the old index,
  /// for a change of `featureCount - oldFeatureCount` input points.
  ///
  /// supercluster's walk at a zoom (`cluster(_:radius:zoom:…)`) takes each item not yet taken, in order, with
  /// every item after it within the radius not yet taken. With `minPoints` 2 an item not taken is one entry
  /// of the next level (a cluster, or itself alone), and a taken one is none. A change moves only what is
  /// within the radius of where an item is, was, or was removed: those items are walked again, in order; an
  /// item whose taker changes is walked again, and so is a later item that may now take an item let go. The
  /// other items keep the role the old walk gave them (read back from the old level's parents), so the next
  /// level is the old one with the entries of the items walked again replaced, and its own change is those
  /// entries. The walk below is then updated the same way.
  ///
  /// A zoom whose centres depend on the order of the level's k-d tree (the old level's `ordered`, or a
  /// neighbour list walked again whose sums round, `sumsExactly`) is clustered whole from there down
  /// (`zooms(from:…)`), as are the zooms below a change that spreads too far (`localLimit`).
  ///
  /// - Complexity: O(n) a zoom for its n items (the copies), plus the items near the change.
  func locallyUpdated(
    from startZoom: Int, level: Draft, origin: [Int32], changed: [Int], above: [Level], featureCount: Int,
    pointClearances: [Float], forks: Int, treeForks: Int
  ) -> [Level] {
    var finished = above
    var current = level
    var origin = origin
    var changed = changed
    let oldFeatureCount = points.count
    for zoom in stride(from: startZoom, through: options.minZoom, by: -1) {
      let oldA = levels[zoom + 1 - options.minZoom]
      let oldB = levels[zoom - options.minZoom]
      guard options.minPoints == 2,
        let step = localStep(
          zoom: zoom, level: &current, origin: origin, changed: changed, oldA: oldA, oldB: oldB,
          oldFeatureCount: oldFeatureCount, featureCount: featureCount, forks: forks)
      else {
        // Clustered whole from here, as a whole build does (each lone point with its own clearance).
        var clearances = [Double](repeating: -.infinity, count: current.xs.count)
        for i in 0..<current.xs.count where current.counts[i] == 1 {
          clearances[i] = Double(pointClearances[current.ids[i]])
        }
        current.parents = [Int32](repeating: -1, count: current.xs.count)  // the walk writes them
        var aggregates: [Aggregate] = []
        return Self.zooms(
          from: zoom, level: current, clearances: clearances, above: finished, sameItems: false,
          options: options, featureCount: featureCount, forks: forks, treeForks: treeForks, aggregation: nil,
          aggregates: &aggregates)
      }
      current.parents = step.parents
      finished.append(Level(current, treeForks: treeForks))
      current = step.next
      origin = step.origin
      changed = step.changed
    }
    current.parents = [Int32](repeating: -1, count: current.xs.count)
    finished.append(Level(current, treeForks: treeForks))
    return finished.reversed()
  }

  /// The most items a change may send back into one zoom's walk before the zooms from there are clustered
  /// whole.
  static var localLimit: Int { 20_000 }

  /// One zoom of `locallyUpdated`: the parents of `level`'s items, the next level, and its items' old places
  /// and changes; nil when the zoom is to be clustered whole.
  private func localStep(
    zoom: Int, level: inout Draft, origin: [Int32], changed: [Int], oldA: Level, oldB: Level,
    oldFeatureCount: Int, featureCount: Int, forks: Int
  ) -> (parents: [Int32], next: Draft, origin: [Int32], changed: [Int])? {
    let n = level.xs.count
    let oldCount = oldA.count
    let radius = Self.radius(zoom: zoom, options: options)
    let r2 = radius * radius
    // The old walk, read back from the old level's parents: each old item's taker (itself when it was not
    // taken) and, for those not taken, their entry in the old next level.
    let oldParents = oldA.parents.all(count: oldCount)
    let base = zoom + 1 + oldFeatureCount
    var oldSeed = [Int32](repeating: 0, count: oldCount)
    var oldEntry = [Int32](repeating: -1, count: oldCount)
    var entries = 0
    for j in 0..<oldCount {
      let parent = oldParents[j]
      var seed = j
      if parent != -1 {
        // A cluster id is (seed << 5) + zoom + 1 + the input's count, kept to 32 bits: below 2^32.
        seed = (Int(UInt32(bitPattern: parent)) - base) >> 5
        guard seed >= 0 && seed <= j else { return nil }
      }
      oldSeed[j] = Int32(truncatingIfNeeded: seed)
      if seed == j {
        oldEntry[j] = Int32(truncatingIfNeeded: entries)
        entries += 1
      }
    }
    guard entries == oldB.count else { return nil }
    var newIndex = [Int32](repeating: -1, count: oldCount)
    for i in 0..<n where origin[i] >= 0 { newIndex[Int(origin[i])] = Int32(truncatingIfNeeded: i) }
    // Each item's taker in the new walk (itself when not taken, -1 when not known yet), the old one's so far.
    var taker = [Int32](repeating: -1, count: n)
    var dirty = Heap()
    var orphans: [Int] = []
    for i in 0..<n {
      let j = Int(origin[i])
      guard j >= 0 else { continue }
      taker[i] = newIndex[Int(oldSeed[j])]
      if taker[i] < 0 { orphans.append(i) }  // its taker is gone
    }
    // Where the change is: items as they are and as they were, and items removed, each as the walk's
    // searches see an item (its Float position).
    var events: [(x: Double, y: Double)] = []
    func oldPosition(_ j: Int) -> (x: Double, y: Double) {
      let (x, y) = mercator(oldA, j)
      return (Double(Float(x)), Double(Float(y)))
    }
    for i in changed {
      dirty.push(i)
      events.append((Double(Float(level.xs[i])), Double(Float(level.ys[i]))))
      if origin[i] >= 0 { events.append(oldPosition(Int(origin[i]))) }
    }
    for j in 0..<oldCount where newIndex[j] < 0 { events.append(oldPosition(j)) }
    guard events.count + orphans.count <= Self.localLimit else { return nil }
    // The same items where they were (nothing to walk again) have the same tree, so the same order.
    let moved = !events.isEmpty || !orphans.isEmpty || !dirty.isEmpty
    var near = Nearby(level: level, radius: radius)
    for event in events { near.cover(x: event.x, y: event.y) }
    @inline(__always) func within(_ query: Int, _ x: Double, _ y: Double) -> Bool {
      let dx = x - level.xs[query]
      let dy = y - level.ys[query]
      return dx * dx + dy * dy <= r2
    }
    @inline(__always) func within(_ query: Int, item k: Int) -> Bool {
      within(query, Double(Float(level.xs[k])), Double(Float(level.ys[k])))
    }
    for event in events {
      near.forEach(x: event.x, y: event.y) { i in
        if within(i, event.x, event.y) { dirty.push(i) }
      }
    }
    // An item whose taker is gone is walked again, and so is each item before it that may now take it.
    for k in orphans {
      dirty.push(k)
      let kx = Double(Float(level.xs[k]))
      let ky = Double(Float(level.ys[k]))
      near.cover(x: kx, y: ky)
      near.forEach(x: kx, y: ky) { j in
        if j < k && within(j, kx, ky) { dirty.push(j) }
      }
    }
    // Walked again, in order: an item's new entry (nil: taken).
    var walked: [Int: (x: Double, y: Double, id: Int, count: Int32)?] = [:]
    var isWalked = [Bool](repeating: false, count: n)  // the keys of `walked`, read without hashing
    // The lists to sum in the order of the level's tree, by the item that took them.
    var ordering: [Int: [Int]] = [:]
    // `seed`'s cluster of `members`, its centre summed in their order after its own (supercluster's).
    func cluster(_ seed: Int, _ members: [Int]) -> (x: Double, y: Double, id: Int, count: Int32) {
      var count = Int(level.counts[seed])
      var wx = level.xs[seed] * Double(count)
      var wy = level.ys[seed] * Double(count)
      for k in members {
        let weight = Double(level.counts[k])
        wx += level.xs[k] * weight
        wy += level.ys[k] * weight
        count += Int(level.counts[k])
      }
      return (wx / Double(count), wy / Double(count), (seed << 5) + (zoom + 1) + featureCount, Int32(count))
    }
    var full: [Int] = []
    var taken: [Int] = []
    // Changed items, by number: an item the old walk let one of them take may be anywhere now.
    let changedItems = Set(changed)
    while let i = dirty.pop() {
      guard walked.count < Self.localLimit else { return nil }
      near.cover(x: level.xs[i], y: level.ys[i])
      let was = origin[i] >= 0 ? oldPosition(Int(origin[i])) : nil
      if let was { near.cover(x: was.x, y: was.y) }
      // The items the old walk let it take that still count it their taker: near where it is or was (where
      // they were), or changed.
      func formerTakes() -> [Int] {
        var found: Set<Int> = []
        let look = { (k: Int) in if k > i && taker[k] == i { found.insert(k) } }
        near.forEach(x: level.xs[i], y: level.ys[i], look)
        if let was { near.forEach(x: was.x, y: was.y, look) }
        for k in changedItems { look(k) }
        return found.sorted()
      }
      // Items it took in the old walk and does not now are let go: a later item within reach may take them.
      func release(_ k: Int) {
        taker[k] = -1
        dirty.push(k)
        let kx = Double(Float(level.xs[k]))
        let ky = Double(Float(level.ys[k]))
        near.cover(x: kx, y: ky)
        near.forEach(x: kx, y: ky) { j in
          if j > i && j < k && within(j, kx, ky) { dirty.push(j) }
        }
      }
      let by = Int(taker[i])
      if by >= 0 && by < i {
        walked[i] = .some(nil)
        isWalked[i] = true
        for k in formerTakes() { release(k) }
        continue
      }
      taker[i] = Int32(truncatingIfNeeded: i)
      full.removeAll(keepingCapacity: true)
      taken.removeAll(keepingCapacity: true)
      near.forEach(x: level.xs[i], y: level.ys[i]) { k in
        guard k != i, within(i, item: k) else { return }
        full.append(k)
        if k > i && (taker[k] < 0 || taker[k] >= i) { taken.append(k) }
      }
      // A list whose sums round is summed in the k-d tree's order (of the level as it is now), below.
      full.sort()
      let inOrder = full.count > 1 && !Self.sumsExactly(level.xs, level.ys, level.counts, i, full)
      taken.sort()
      for k in formerTakes() where taken.binarySearch(k) == nil { release(k) }
      for k in taken where taker[k] != i {
        let before = Int(taker[k])
        taker[k] = Int32(truncatingIfNeeded: i)
        dirty.push(k)
        if before > i && before != k { dirty.push(before) }  // a later item that took it no longer does
      }
      isWalked[i] = true
      if taken.isEmpty {
        walked[i] = .some((level.xs[i], level.ys[i], level.ids[i], level.counts[i]))
      } else if inOrder {
        ordering[i] = taken
        walked[i] = .some(cluster(i, taken))  // summed again in the tree's order below
      } else {
        walked[i] = .some(cluster(i, taken))
      }
    }
    // A zoom that summed lists in its tree's order: each cluster it made whose sums round (the tree's order
    // may be another now), its members read back from the walk.
    let ordered = oldB.ordered || !ordering.isEmpty
    if oldB.ordered && moved {
      var starts = [Int32](repeating: 0, count: n + 1)
      for i in 0..<n where taker[i] != i { starts[Int(taker[i]) + 1] += 1 }
      for i in 0..<n { starts[i + 1] += starts[i] }
      var members = [Int32](repeating: 0, count: Int(starts[n]))
      var filled = starts
      for i in 0..<n where taker[i] != i {
        let seed = Int(taker[i])
        members[Int(filled[seed])] = Int32(truncatingIfNeeded: i)
        filled[seed] += 1
      }
      var list: [Int] = []
      for seed in 0..<n where starts[seed + 1] > starts[seed] && !isWalked[seed] {
        list.removeAll(keepingCapacity: true)
        for m in starts[seed]..<starts[seed + 1] { list.append(Int(members[Int(m)])) }
        if list.count > 1 && !Self.sumsExactly(level.xs, level.ys, level.counts, seed, list) {
          ordering[seed] = list
        }
      }
    }
    if !ordering.isEmpty {
      var wanted: [UInt32] = []
      for list in ordering.values { wanted += list.map { UInt32(truncatingIfNeeded: $0) } }
      let ranks = Self.ranks(&level, ordering: wanted, nodeSize: options.nodeSize, forks: forks)
      for (seed, list) in ordering {
        var sorted = list
        NeighborLists.sortByRank(&sorted, ranks)
        walked[seed] = .some(cluster(seed, sorted))
        isWalked[seed] = true
      }
    }
    // The next level: an entry for each item not taken, in order; the parents of those taken.
    var parents = [Int32](repeating: -1, count: n)
    var next = Draft()
    next.xs.reserveCapacity(oldB.count + 8)
    next.ys.reserveCapacity(oldB.count + 8)
    next.ids.reserveCapacity(oldB.count + 8)
    next.counts.reserveCapacity(oldB.count + 8)
    var nextOrigin: [Int32] = []
    nextOrigin.reserveCapacity(oldB.count + 8)
    var nextChanged: [Int] = []
    next.ordered = ordered
    for i in 0..<n {
      let by = Int(taker[i])
      if by != i {
        parents[i] = parents[by]
        continue
      }
      let j = Int(origin[i])
      let old = j >= 0 && Int(oldSeed[j]) == j ? Int(oldEntry[j]) : -1
      if isWalked[i], let entry = walked[i], let entry {
        if entry.count > level.counts[i] { parents[i] = Int32(truncatingIfNeeded: entry.id) }
        if old < 0 || !sameEntry(oldB, old, entry) { nextChanged.append(next.xs.count) }
        next.append(x: entry.x, y: entry.y, id: entry.id, count: entry.count, aggregateIndex: -1)
      } else if oldParents[j] != -1, let k = oldB.cluster(old) {  // a cluster this zoom made
        let id = (i << 5) + (zoom + 1) + featureCount
        parents[i] = Int32(truncatingIfNeeded: id)
        next.append(
          x: oldB.clusterXs[k], y: oldB.clusterYs[k], id: id, count: oldB.clusterCounts[k], aggregateIndex: -1
        )
      } else {
        next.append(
          x: level.xs[i], y: level.ys[i], id: level.ids[i], count: level.counts[i], aggregateIndex: -1)
      }
      nextOrigin.append(Int32(truncatingIfNeeded: old))
    }
    return (parents, next, nextOrigin, nextChanged)
  }

  /// Whether the old level's entry `k` has this centre and count.
  private func sameEntry(_ level: Level, _ k: Int, _ entry: (x: Double, y: Double, id: Int, count: Int32))
    -> Bool
  {
    let (x, y) = mercator(level, k)
    let count = level.cluster(k).map { level.clusterCounts[$0] } ?? 1
    return x.bitPattern == entry.x.bitPattern && y.bitPattern == entry.y.bitPattern && count == entry.count
  }
}

extension ClusterIndex.Parents {
  /// Every item's parent, for a level of `count` items.
  func all(count: Int) -> [Int32] {
    if !dense.isEmpty { return dense }
    var all = [Int32](repeating: -1, count: count)
    for (k, i) in indices.enumerated() { all[Int(i)] = ids[k] }
    return all
  }
}

/// The items of a level near a change, by cells of the radius's width, gathered with one pass over the level
/// for a box around the change, and again for a larger box when a search reaches beyond it.
private struct Nearby {
  let xs: [Double]
  let ys: [Double]
  let radius: Double
  private var box: (west: Double, south: Double, east: Double, north: Double)? = nil
  private var cells: [Int64: [Int32]] = [:]

  init<Aggregate>(level: ClusterIndex<Aggregate>.Draft, radius: Double) {
    xs = level.xs
    ys = level.ys
    self.radius = radius
  }

  private func cell(_ x: Double, _ y: Double) -> Int64 {
    let cx = Int64((x / radius).rounded(.down))
    let cy = Int64((y / radius).rounded(.down))
    return cx &* 0x1_0000_0000 &+ cy
  }

  /// Makes sure every item within twice the radius of (x, y) is gathered.
  mutating func cover(x: Double, y: Double) {
    let margin = 2 * radius
    if let box, x - margin >= box.west, x + margin <= box.east, y - margin >= box.south,
      y + margin <= box.north
    {
      return
    }
    let wide = 8 * radius
    var grown = (west: x - wide, south: y - wide, east: x + wide, north: y + wide)
    if let box {
      grown = (
        min(grown.west, box.west - wide), min(grown.south, box.south - wide),
        max(grown.east, box.east + wide),
        max(grown.north, box.north + wide)
      )
    }
    box = grown
    cells.removeAll(keepingCapacity: true)
    for i in 0..<xs.count {
      let x = xs[i]
      let y = ys[i]
      if x >= grown.west && x <= grown.east && y >= grown.south && y <= grown.north {
        cells[cell(x, y), default: []].append(Int32(truncatingIfNeeded: i))
      }
    }
  }

  /// Calls `body` with every gathered item in the 3 × 3 cells around (x, y) (a superset of those within the
  /// radius; the caller tests each), after `cover(x:y:)`.
  func forEach(x: Double, y: Double, _ body: (Int) -> Void) {
    let cx = Int64((x / radius).rounded(.down))
    let cy = Int64((y / radius).rounded(.down))
    for dx in -1...1 {
      for dy in -1...1 {
        guard let items = cells[(cx + Int64(dx)) &* 0x1_0000_0000 &+ (cy + Int64(dy))] else { continue }
        for i in items { body(Int(i)) }
      }
    }
  }
}

/// A min-heap of item numbers, each held once until popped.
private struct Heap {
  private var items: [Int] = []
  private var held: Set<Int> = []

  var isEmpty: Bool { items.isEmpty }

  mutating func push(_ item: Int) {
    guard held.insert(item).inserted else { return }
    items.append(item)
    var child = items.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard items[child] < items[parent] else { break }
      items.swapAt(child, parent)
      child = parent
    }
  }

  mutating func pop() -> Int? {
    guard let top = items.first else { return nil }
    held.remove(top)
    items.swapAt(0, items.count - 1)
    items.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < items.count && items[left] < items[smallest] { smallest = left }
      if right < items.count && items[right] < items[smallest] { smallest = right }
      if smallest == parent { break }
      items.swapAt(parent, smallest)
      parent = smallest
    }
    return top
  }
}

extension Array where Element == Int {
  /// The index of `value` in this ascending array, or nil.
  fileprivate func binarySearch(_ value: Int) -> Int? {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) >> 1
      if self[middle] < value { low = middle + 1 } else { high = middle }
    }
    return low < count && self[low] == value ? low : nil
  }
}
