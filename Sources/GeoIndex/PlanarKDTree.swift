#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A static two-dimensional k-d tree over single-precision coordinates, answering box and radius queries.
///
/// It follows kdbush 4.1.0 (Vladimir Agafonkin, ISC) step by step, because supercluster's cluster ids and output
/// order depend on it: the same in-place kd-sort (Floyd–Rivest selection of the middle item, axes alternating
/// x, y by depth, leaves of up to `nodeSize + 1` items), and the same depth-first traversal with an explicit
/// stack, which visits a node's middle item, then its right half, then its left half. Query results come in that
/// order.
///
/// - Complexity: building is O(n log n); a query is O(√n + k) in the worst case.
@usableFromInline
struct PlanarKDTree: Sendable {
  /// Each sorted position's item number.
  @usableFromInline let ids: [UInt32]
  /// Interleaved x, y per sorted position, rounded to Float as kdbush's Float32Array does.
  @usableFromInline let coords: [Float]
  @usableFromInline let nodeSize: Int

  @usableFromInline var count: Int { ids.count }

  /// The fewest items in a node worth sorting its two halves on two threads.
  static let parallelThreshold = 4096

  /// Builds the tree over items `0..<xs.count` at (`xs[i]`, `ys[i]`); the first `forks` levels of nodes of at
  /// least `parallelThreshold` items sort their halves on two threads (the same tree whatever `forks` is).
  init(xs: [Double], ys: [Double], nodeSize: Int, forks: Int = 0) {
    self = Self(xs: xs, ys: ys, nodeSize: nodeSize, forks: forks, proceed: nil)!
  }

  /// The same tree, or nil as soon as `proceed()` is false: it is asked before sorting each node of at least
  /// `stopSpan` items (about 128 times for a million items, on whichever thread sorts the node), so a caller
  /// that has better things to do waits a fraction of a build, not all of it.
  init?(xs: [Double], ys: [Double], nodeSize: Int, forks: Int = 0, while proceed: () -> Bool) {
    let tree = withoutActuallyEscaping(proceed) { proceed in
      Self(xs: xs, ys: ys, nodeSize: nodeSize, forks: forks, proceed: proceed)
    }
    guard let tree else { return nil }
    self = tree
  }

  /// Nodes at least this long ask `proceed` before they are sorted.
  static let stopSpan = 1 << 13

  private init?(xs: [Double], ys: [Double], nodeSize: Int, forks: Int, proceed: (() -> Bool)?) {
    precondition(xs.count == ys.count && xs.count < Int(UInt32.max))
    self.nodeSize = Swift.min(Swift.max(nodeSize, 2), 65_535)
    // Sorted as one packed array (one swap moves an item), then split into kdbush's two arrays.
    var items = [Item](unsafeUninitializedCapacity: xs.count) { buffer, initialized in
      for i in 0..<xs.count { buffer[i] = Item(x: Float(xs[i]), y: Float(ys[i]), id: UInt32(i)) }
      initialized = xs.count
    }
    let size = self.nodeSize
    let sorted = items.withUnsafeMutableBufferPointer { items in
      Sorter(items: items, nodeSize: size, proceed: proceed).sort(
        left: 0, right: items.count - 1, axis: 0, forks: forks)
    }
    guard sorted else { return nil }
    ids = items.map(\.id)
    coords = [Float](unsafeUninitializedCapacity: 2 * items.count) { buffer, initialized in
      for (i, item) in items.enumerated() {
        buffer[2 * i] = item.x
        buffer[2 * i + 1] = item.y
      }
      initialized = 2 * items.count
    }
  }

  private struct Item {
    var x: Float
    var y: Float
    var id: UInt32
  }

  private enum XAxis: SelectionKey { static func key(_ item: Item) -> Double { Double(item.x) } }
  private enum YAxis: SelectionKey { static func key(_ item: Item) -> Double { Double(item.y) } }

  /// kdbush's kd-sort: the middle item selected on x, then y, alternating by depth, down to leaves.
  private struct Sorter {
    let items: UnsafeMutableBufferPointer<Item>
    let nodeSize: Int
    /// Asked before a node of `stopSpan` items or more is sorted; nil: always go on.
    var proceed: (() -> Bool)? = nil

    /// Sorts the node `left...right`; false if it stopped because `proceed()` was false (the items are then
    /// in no useful order).
    @discardableResult
    func sort(left: Int, right: Int, axis: Int, forks: Int = 0) -> Bool {
      if right - left <= nodeSize { return true }
      if right - left >= PlanarKDTree.stopSpan, let proceed, !proceed() { return false }
      let middle = (left + right) >> 1
      if axis == 0 {
        FloydRivest.select(items, k: middle, left: left, right: right, by: XAxis.self)
      } else {
        FloydRivest.select(items, k: middle, left: left, right: right, by: YAxis.self)
      }
      // The halves touch disjoint items.
      var leftSorted = true
      var rightSorted = true
      if forks > 0 && right - left >= PlanarKDTree.parallelThreshold {
        ForkJoin.both(
          { leftSorted = sort(left: left, right: middle - 1, axis: 1 - axis, forks: forks - 1) },
          { rightSorted = sort(left: middle + 1, right: right, axis: 1 - axis, forks: forks - 1) })
      } else {
        leftSorted = sort(left: left, right: middle - 1, axis: 1 - axis)
        rightSorted = leftSorted && sort(left: middle + 1, right: right, axis: 1 - axis)
      }
      return leftSorted && rightSorted
    }

    /// Marks a wanted item in `Item.id` (item numbers stay below it).
    static var wanted: UInt32 { 1 << 31 }

    /// `sort`, descending only into nodes that hold wanted items (`wanted` of them in `left...right`), and
    /// writing their traversal ranks, the node's first being `first`.
    func rank(
      left: Int, right: Int, axis: Int, first: Int, wanted: Int,
      into ranks: UnsafeMutableBufferPointer<UInt32>,
      forks: Int
    ) {
      if wanted == 0 { return }
      if right - left <= nodeSize {
        for i in left...right where items[i].id & Self.wanted != 0 {
          ranks[Int(items[i].id & ~Self.wanted)] = UInt32(first + i - left)
        }
        return
      }
      let middle = (left + right) >> 1
      if axis == 0 {
        FloydRivest.select(items, k: middle, left: left, right: right, by: XAxis.self)
      } else {
        FloydRivest.select(items, k: middle, left: left, right: right, by: YAxis.self)
      }
      var leftWanted = 0
      for i in left..<middle { leftWanted &+= Int(items[i].id >> 31) }
      let middleWanted = Int(items[middle].id >> 31)
      if middleWanted != 0 { ranks[Int(items[middle].id & ~Self.wanted)] = UInt32(first) }
      let rightWanted = wanted - leftWanted - middleWanted
      // The middle item, then the right half, then the left half.
      let rightFirst = first + 1
      let leftFirst = first + 1 + (right - middle)
      if forks > 0 && leftWanted > 0 && rightWanted > 0 && right - left >= PlanarKDTree.parallelThreshold {
        ForkJoin.both(
          {
            rank(
              left: left, right: middle - 1, axis: 1 - axis, first: leftFirst, wanted: leftWanted,
              into: ranks, forks: forks - 1)
          },
          {
            rank(
              left: middle + 1, right: right, axis: 1 - axis, first: rightFirst, wanted: rightWanted,
              into: ranks, forks: forks - 1)
          })
      } else {
        rank(
          left: left, right: middle - 1, axis: 1 - axis, first: leftFirst, wanted: leftWanted, into: ranks,
          forks: 0)
        rank(
          left: middle + 1, right: right, axis: 1 - axis, first: rightFirst, wanted: rightWanted, into: ranks,
          forks: 0)
      }
    }
  }

  /// Appends to `result` the item numbers inside the box (bounds inclusive), in kdbush's order.
  func range(minX: Double, minY: Double, maxX: Double, maxY: Double, into result: inout [Int]) {
    traverse(
      goLeft: { axis, value in (axis == 0 ? minX : minY) <= value },
      goRight: { axis, value in (axis == 0 ? maxX : maxY) >= value },
      matches: { x, y in x >= minX && x <= maxX && y >= minY && y <= maxY },
      into: &result)
  }

  /// Appends to `result` the item numbers within `radius` of (x, y) (inclusive), in kdbush's order.
  func within(x qx: Double, y qy: Double, radius r: Double, into result: inout [Int]) {
    let r2 = r * r
    traverse(
      goLeft: { axis, value in (axis == 0 ? qx : qy) - r <= value },
      goRight: { axis, value in (axis == 0 ? qx : qy) + r >= value },
      matches: { x, y in
        let dx = x - qx
        let dy = y - qy
        return dx * dx + dy * dy <= r2
      },
      into: &result)
  }

  /// kdbush's traversal: pop (left, right, axis); scan leaves; otherwise test the middle item and push the
  /// left half, then the right half, so the right half is visited first.
  @inline(__always)
  private func traverse(
    goLeft: (Int, Double) -> Bool, goRight: (Int, Double) -> Bool, matches: (Double, Double) -> Bool,
    into result: inout [Int]
  ) {
    guard !ids.isEmpty else { return }
    ids.withUnsafeBufferPointer { ids in
      coords.withUnsafeBufferPointer { coords in
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 * 128) { stack in
          var top = 0
          stack[0] = 0
          stack[1] = ids.count - 1
          stack[2] = 0
          top = 3
          while top > 0 {
            let axis = stack[top - 1]
            let right = stack[top - 2]
            let left = stack[top - 3]
            top -= 3
            if right - left <= nodeSize {
              var i = left
              while i <= right {
                if matches(Double(coords[2 * i]), Double(coords[2 * i + 1])) { result.append(Int(ids[i])) }
                i += 1
              }
              continue
            }
            let middle = (left + right) >> 1
            let x = Double(coords[2 * middle])
            let y = Double(coords[2 * middle + 1])
            if matches(x, y) { result.append(Int(ids[middle])) }
            let value = axis == 0 ? x : y
            if goLeft(axis, value) {
              stack[top] = left
              stack[top + 1] = middle - 1
              stack[top + 2] = 1 - axis
              top += 3
            }
            if goRight(axis, value) {
              stack[top] = middle + 1
              stack[top + 1] = right
              stack[top + 2] = 1 - axis
              top += 3
            }
          }
        }
      }
    }
  }
}

extension PlanarKDTree {
  /// The traversal ranks (`traversalRanks()`) of the items `wanted` in the tree that `init(xs:ys:nodeSize:forks:)`
  /// builds, without building all of it; other items' entries are 0.
  ///
  /// kdbush's kd-sort arranges a node's items from that node's items alone, so sorting only the nodes that hold a
  /// wanted item leaves each of those where the whole sort puts it; and a position's rank follows from the nodes
  /// above it (a node's middle item comes first, then its right half, then its left half). For a few wanted items
  /// of many this reads each level of the tree once above the nodes where they part, instead of every level.
  ///
  /// - Complexity: O(n log k) for k wanted items spread over n, O(n log n) at most.
  static func traversalRanks(
    xs: [Double], ys: [Double], nodeSize: Int, of wanted: [UInt32], forks: Int = 0
  ) -> [UInt32] {
    precondition(xs.count == ys.count && xs.count < Int(UInt32.max >> 1))
    let size = Swift.min(Swift.max(nodeSize, 2), 65_535)
    var items = [Item](unsafeUninitializedCapacity: xs.count) { buffer, initialized in
      for i in 0..<xs.count { buffer[i] = Item(x: Float(xs[i]), y: Float(ys[i]), id: UInt32(i)) }
      initialized = xs.count
    }
    var ranks = [UInt32](repeating: 0, count: xs.count)
    var count = 0
    for item in wanted where items[Int(item)].id & Sorter.wanted == 0 {
      items[Int(item)].id |= Sorter.wanted
      count += 1
    }
    items.withUnsafeMutableBufferPointer { items in
      ranks.withUnsafeMutableBufferPointer { ranks in
        Sorter(items: items, nodeSize: size).rank(
          left: 0, right: items.count - 1, axis: 0, first: 0, wanted: count, into: ranks, forks: forks)
      }
    }
    return ranks
  }

  /// Each item's position in the order a traversal visits items when nothing is pruned.
  ///
  /// Every range or radius query returns its matches in this order (pruning skips items, it never reorders
  /// them), so sorting another structure's matches by these ranks reproduces kdbush's output order.
  func traversalRanks() -> [UInt32] {
    var ranks = [UInt32](repeating: 0, count: ids.count)
    guard !ids.isEmpty else { return ranks }
    var next: UInt32 = 0
    var stack: [(left: Int, right: Int)] = [(0, ids.count - 1)]
    while let (left, right) = stack.popLast() {
      if right - left <= nodeSize {
        for i in left...right {
          ranks[Int(ids[i])] = next
          next += 1
        }
        continue
      }
      let middle = (left + right) >> 1
      ranks[Int(ids[middle])] = next
      next += 1
      stack.append((left, middle - 1))
      stack.append((middle + 1, right))
    }
    return ranks
  }
}
