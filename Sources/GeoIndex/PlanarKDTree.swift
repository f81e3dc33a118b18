#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
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

  /// Builds the tree over items `0..<xs.count` at (`xs[i]`, `ys[i]`).
  init(xs: [Double], ys: [Double], nodeSize: Int) {
    precondition(xs.count == ys.count && xs.count < Int(UInt32.max))
    self.nodeSize = Swift.min(Swift.max(nodeSize, 2), 65_535)
    // Sorted as one packed array (one swap moves an item), then split into kdbush's two arrays.
    var items = [Item](unsafeUninitializedCapacity: xs.count) { buffer, initialized in
      for i in 0..<xs.count { buffer[i] = Item(x: Float(xs[i]), y: Float(ys[i]), id: UInt32(i)) }
      initialized = xs.count
    }
    let size = self.nodeSize
    items.withUnsafeMutableBufferPointer { items in
      let sorter = Sorter(items: items, nodeSize: size)
      sorter.sort(left: 0, right: items.count - 1, axis: 0)
    }
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

    func sort(left: Int, right: Int, axis: Int) {
      if right - left <= nodeSize { return }
      let middle = (left + right) >> 1
      if axis == 0 {
        FloydRivest.select(items, k: middle, left: left, right: right, by: XAxis.self)
      } else {
        FloydRivest.select(items, k: middle, left: left, right: right, by: YAxis.self)
      }
      sort(left: left, right: middle - 1, axis: 1 - axis)
      sort(left: middle + 1, right: right, axis: 1 - axis)
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

/// Every item's neighbours within a fixed radius, found with a uniform grid and ordered as kdbush would
/// return them.
///
/// The test is exactly `PlanarKDTree.within`'s: the query centre in double precision against the stored Float
/// coordinates, inclusive. Cells are at least the radius wide, and there are about as many cells as items, so
/// a search reads at most 3 × 3 cells. Searches in sparse places run up front, cell by cell, so they touch
/// memory in order; an item whose 3 × 3 cells hold many items (dense data, duplicates) is searched on demand
/// instead, because most such items are taken by a neighbour's cluster and never asked. Results are sorted by
/// `PlanarKDTree.traversalRanks()`, which is the order a kdbush query returns.
struct NeighborLists {
  /// An item's list in `neighbors` (the item itself excluded), or a count of -1: search on demand.
  private var starts: [Int32]
  private var counts: [Int32]
  private var neighbors: [UInt32] = []
  private let ranks: [UInt32]
  private let radius: Double
  private let side: Int
  private let scale: Double
  /// Items sorted by cell, with their Float coordinates and double-precision centres beside them.
  private let cellStarts: [Int32]
  private let sortedItems: [UInt32]
  private let sortedCoords: [Float]
  private let xs: [Double]
  private let ys: [Double]

  /// Above this many items in a search's cells, the search waits until it is needed.
  private static let denseLimit = 48

  init(xs: [Double], ys: [Double], radius: Double, ranks: [UInt32]) {
    let n = xs.count
    self.xs = xs
    self.ys = ys
    self.ranks = ranks
    self.radius = radius
    let side = Int(max(1, min((1 / radius).rounded(.down), Double(n).squareRoot().rounded(.up), 8192)))
    self.side = side
    scale = Double(side)
    starts = [Int32](repeating: 0, count: n)
    counts = [Int32](repeating: 0, count: n)

    // Counting sort of the items by cell.
    var cellStarts = [Int32](repeating: 0, count: side * side + 1)
    var cellOf = [Int32](repeating: 0, count: n)
    let scale = self.scale
    func cell(_ value: Double) -> Int { min(side - 1, max(0, Int((value * scale).rounded(.down)))) }
    for i in 0..<n {
      let c = cell(Double(Float(xs[i]))) + side * cell(Double(Float(ys[i])))
      cellOf[i] = Int32(c)
      cellStarts[c + 1] += 1
    }
    for c in 0..<(side * side) { cellStarts[c + 1] += cellStarts[c] }
    var fill = cellStarts
    var sortedItems = [UInt32](repeating: 0, count: n)
    var sortedCoords = [Float](repeating: 0, count: 2 * n)
    // The double-precision centres too, so the up-front searches below read memory in order.
    var sortedCentres = [Double](repeating: 0, count: 2 * n)
    for i in 0..<n {
      let slot = Int(fill[Int(cellOf[i])])
      fill[Int(cellOf[i])] += 1
      sortedItems[slot] = UInt32(i)
      sortedCoords[2 * slot] = Float(xs[i])
      sortedCoords[2 * slot + 1] = Float(ys[i])
      sortedCentres[2 * slot] = xs[i]
      sortedCentres[2 * slot + 1] = ys[i]
    }
    self.cellStarts = cellStarts
    self.sortedItems = sortedItems
    self.sortedCoords = sortedCoords

    // Locals, not properties: `search` reads self, so appending to a property would copy it every time.
    var lists: [UInt32] = []
    var listStarts = [Int32](repeating: 0, count: n)
    var listCounts = [Int32](repeating: 0, count: n)
    var found: [UInt32] = []
    cellStarts.withUnsafeBufferPointer { starts in
      sortedCoords.withUnsafeBufferPointer { coords in
        sortedItems.withUnsafeBufferPointer { items in
          ranks.withUnsafeBufferPointer { ranks in
            sortedCentres.withUnsafeBufferPointer { centres in
              let grid = Grid(
                starts: starts, coords: coords, items: items, side: side, scale: scale, radius: radius)
              for slot in 0..<n {
                let item = Int(items[slot])
                found.removeAll(keepingCapacity: true)
                guard
                  grid.search(
                    x: centres[2 * slot], y: centres[2 * slot + 1], excluding: item, into: &found,
                    limit: Self.denseLimit)
                else {
                  listCounts[item] = -1
                  continue
                }
                if found.isEmpty { continue }
                if found.count > 1 { Self.sortByRank(&found, ranks) }
                listStarts[item] = Int32(lists.count)
                listCounts[item] = Int32(found.count)
                for neighbor in found { lists.append(neighbor) }
              }
            }
          }
        }
      }
    }
    neighbors = lists
    starts = listStarts
    counts = listCounts
  }

  /// Appends item `i`'s neighbours (itself excluded) to `result`, in kdbush's order.
  func neighbors(of i: Int, into result: inout [Int]) {
    let count = Int(counts[i])
    if count >= 0 {
      let start = Int(starts[i])
      for j in start..<(start + count) { result.append(Int(neighbors[j])) }
      return
    }
    var found: [UInt32] = []
    _ = search(x: xs[i], y: ys[i], excluding: i, into: &found, limit: .max)
    ranks.withUnsafeBufferPointer { Self.sortByRank(&found, $0) }
    for item in found { result.append(Int(item)) }
  }

  /// Appends the items within the radius of (qx, qy) but `excluded`, unless the cells searched hold more than
  /// `limit` items: then it returns false, having appended nothing useful.
  private func search(
    x qx: Double, y qy: Double, excluding excluded: Int, into result: inout [UInt32], limit: Int
  ) -> Bool {
    cellStarts.withUnsafeBufferPointer { starts in
      sortedCoords.withUnsafeBufferPointer { coords in
        sortedItems.withUnsafeBufferPointer { items in
          Grid(starts: starts, coords: coords, items: items, side: side, scale: scale, radius: radius)
            .search(x: qx, y: qy, excluding: excluded, into: &result, limit: limit)
        }
      }
    }
  }

  /// The grid's arrays, borrowed for a run of searches.
  private struct Grid {
    let starts: UnsafeBufferPointer<Int32>
    let coords: UnsafeBufferPointer<Float>
    let items: UnsafeBufferPointer<UInt32>
    let side: Int
    let scale: Double
    let radius: Double

    @inline(__always)
    func cell(_ value: Double) -> Int { min(side - 1, max(0, Int((value * scale).rounded(.down)))) }

    func search(
      x qx: Double, y qy: Double, excluding excluded: Int, into result: inout [UInt32], limit: Int
    ) -> Bool {
      let r2 = radius * radius
      // A hair of slack keeps rounding in the cell arithmetic from losing an item on a cell edge.
      let lowX = cell(qx - radius - 1e-12)
      let highX = cell(qx + radius + 1e-12)
      let lowY = cell(qy - radius - 1e-12)
      let highY = cell(qy + radius + 1e-12)
      if limit != .max {
        var total = 0
        for cy in lowY...highY {
          total += Int(starts[cy * side + highX + 1] - starts[cy * side + lowX])
        }
        if total > limit { return false }
      }
      for cy in lowY...highY {
        var slot = Int(starts[cy * side + lowX])
        let end = Int(starts[cy * side + highX + 1])
        while slot < end {
          let dx = Double(coords[2 * slot]) - qx
          let dy = Double(coords[2 * slot + 1]) - qy
          if dx * dx + dy * dy <= r2 && Int(items[slot]) != excluded { result.append(items[slot]) }
          slot += 1
        }
      }
      return true
    }
  }

  /// Orders items by traversal rank: insertion sort for the usual handful, the standard sort beyond.
  private static func sortByRank(_ items: inout [UInt32], _ ranks: UnsafeBufferPointer<UInt32>) {
    if items.count > 16 {
      items.sort { ranks[Int($0)] < ranks[Int($1)] }
      return
    }
    guard items.count > 1 else { return }
    for i in 1..<items.count {
      let value = items[i]
      let rank = ranks[Int(value)]
      var j = i
      while j > 0 && ranks[Int(items[j - 1])] > rank {
        items[j] = items[j - 1]
        j -= 1
      }
      items[j] = value
    }
  }
}
