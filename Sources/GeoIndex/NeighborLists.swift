/// Every item's neighbours within a fixed radius, found with a uniform grid, for supercluster's clustering.
///
/// The test is exactly `PlanarKDTree.within`'s: the query centre in double precision against the stored Float
/// coordinates, inclusive. Only the items that may have a neighbour are searched and searched for (the caller
/// knows the others are farther than the radius from everything; see `clearances`). Cells are at least the
/// radius wide, and there are about as many cells as items, so a search reads at most 3 × 3 cells. Searches
/// in sparse places run up front, cell by cell, so they touch memory in order (on two threads, each with its
/// own run of cells, when `forks` allows); an item whose 3 × 3 cells hold many items (dense data, duplicates)
/// is searched on demand instead, because most such items are taken by a neighbour's cluster and never asked.
/// Lists come in no particular order: `sortByRank` with `PlanarKDTree.traversalRanks()` puts one in the order
/// a kdbush query returns. So they can be found while the level's tree is still being built.
struct NeighborLists {
  /// An item's list in `neighbors` (the item itself excluded), or a count of -1: search on demand.
  private let starts: [Int32]
  private let counts: [Int32]
  private let neighbors: [UInt32]
  private let radius: Double
  private let grid: CellGrid
  private let xs: [Double]
  private let ys: [Double]

  /// Above this many items in a search's cells, the search waits until it is needed.
  private static let denseLimit = 48
  /// The fewest items worth searching on more than one thread.
  static let parallelThreshold = 4096

  /// Lists the neighbours of `members` (increasing item numbers) among `members`, of the items at `xs`, `ys`;
  /// every other item has none.
  init(
    members: [UInt32], xs: [Double], ys: [Double], radius: Double, forks: Int = 0
  ) {
    let n = xs.count
    self.xs = xs
    self.ys = ys
    self.radius = radius
    let grid = CellGrid(members: members, xs: xs, ys: ys, cellWidth: radius, forks: forks)
    self.grid = grid
    var listCounts = [Int32](repeating: 0, count: n)
    // Runs of the grid's slots, each searched on a thread of its own into lists of its own, in slot order.
    // Every item is in one slot, so the runs write disjoint entries of `listCounts`.
    let slotCount = members.count
    let pieces: [(slots: Range<Int>, lists: [UInt32])] =
      listCounts.withUnsafeMutableBufferPointer { listCounts in
        grid.withCells { cells in
          ForkJoin.split(0..<slotCount, forks: slotCount >= Self.parallelThreshold ? forks : 0) { slots in
            var lists: [UInt32] = []
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: Self.denseLimit) { found in
              for slot in slots {
                let item = Int(cells.items[slot])
                let x = cells.centres[2 * slot]
                let y = cells.centres[2 * slot + 1]
                guard
                  let count = cells.search(
                    x: x, y: y, radius: radius, excluding: item,
                    cells: cells.cells(x: x, y: y, radius: radius),
                    into: found.baseAddress!, limit: Self.denseLimit)
                else {
                  listCounts[item] = -1
                  continue
                }
                if count == 0 { continue }
                listCounts[item] = Int32(count)
                for k in 0..<count { lists.append(found[k]) }  // a handful: no call to copy them
              }
            }
            return [(slots, lists)]
          } merge: {
            $0 + $1
          } ?? []
        }
      }
    // One array of lists in item order, which the cluster walk reads in order (read in slot order, a list was
    // a cache miss for the walk to wait on): each run's lists copied to their items' places, the runs on
    // their threads (their items, so their places, are disjoint).
    var listStarts = [Int32](repeating: 0, count: n)
    var total = 0
    for i in 0..<n where listCounts[i] > 0 {
      listStarts[i] = Int32(truncatingIfNeeded: total)
      total += Int(listCounts[i])
    }
    neighbors = [UInt32](unsafeUninitializedCapacity: total) { lists, initialized in
      grid.items.withUnsafeBufferPointer { items in
        listStarts.withUnsafeBufferPointer { listStarts in
          listCounts.withUnsafeBufferPointer { listCounts in
            _ = ForkJoin.split(pieces.indices, forks: pieces.count > 1 ? forks : 0) { runs in
              for run in runs {
                pieces[run].lists.withUnsafeBufferPointer { source in
                  var next = 0
                  for slot in pieces[run].slots {
                    let item = Int(items[slot])
                    let count = Int(listCounts[item])
                    guard count > 0 else { continue }
                    let start = Int(listStarts[item])
                    for k in 0..<count { lists[start + k] = source[next + k] }
                    next += count
                  }
                }
              }
            } merge: { _, _ in
            }
          }
        }
      }
      initialized = total
    }
    starts = listStarts
    counts = listCounts
  }

  /// Whether item `i` has no neighbour.
  @inline(__always)
  func hasNone(_ i: Int) -> Bool { counts[i] == 0 }

  /// Every item of the lists of two or more neighbours (the lists that must be put in order), perhaps more
  /// than once; nil when some list is found on demand (its items are not known yet) or there are more than
  /// `limit` (the caller then ranks them all).
  func itemsOfLongerLists(upTo limit: Int) -> [UInt32]? {
    var items: [UInt32] = []
    for i in counts.indices where counts[i] != 0 && counts[i] != 1 {
      guard counts[i] > 0 else { return nil }
      let start = Int(starts[i])
      items.append(contentsOf: neighbors[start..<(start + Int(counts[i]))])
      if items.count > limit { return nil }
    }
    return items
  }

  /// Appends item `i`'s neighbours (itself excluded) to `result`, in no particular order.
  func neighbors(of i: Int, into result: inout [Int]) {
    let count = Int(counts[i])
    if count >= 0 {
      let start = Int(starts[i])
      for j in start..<(start + count) { result.append(Int(neighbors[j])) }
      return
    }
    grid.withCells { cells in
      let (xCells, yCells) = cells.cells(x: xs[i], y: ys[i], radius: radius)
      withUnsafeTemporaryAllocation(of: UInt32.self, capacity: cells.count(x: xCells, y: yCells)) { found in
        let count = cells.search(
          x: xs[i], y: ys[i], radius: radius, excluding: i, cells: (xCells, yCells), into: found.baseAddress!,
          limit: .max)!
        for item in found[..<count] { result.append(Int(item)) }
      }
    }
  }

  /// How far each item is at least from every other, in true distance between centres: the distance to the
  /// nearest other item, or `searchRadius` if none is nearer, or 0 in crowded places; less `clearanceSlack`,
  /// which covers both the Float rounding of stored positions and the rounding of this arithmetic.
  static func clearances(xs: [Double], ys: [Double], searchRadius: Double, forks: Int = 0) -> [Double] {
    let n = xs.count
    let all = [UInt32](unsafeUninitializedCapacity: n) { buffer, initialized in
      for i in 0..<n { buffer[i] = UInt32(i) }
      initialized = n
    }
    let grid = CellGrid(members: all, xs: xs, ys: ys, cellWidth: searchRadius, forks: forks)
    var clearances = [Double](unsafeUninitializedCapacity: n) { _, initialized in initialized = n }
    clearances.withUnsafeMutableBufferPointer { clearances in
      grid.withCells { cells in
        _ = ForkJoin.split(0..<n, forks: n >= Self.parallelThreshold ? forks : 0) { slots in
          for slot in slots {
            let closest = cells.closest(
              x: cells.centres[2 * slot], y: cells.centres[2 * slot + 1], radius: searchRadius,
              excluding: Int(cells.items[slot]), limit: denseLimit)
            clearances[Int(cells.items[slot])] = min(closest.squareRoot(), searchRadius) - clearanceSlack
          }
        } merge: { _, _ in
        }
      }
    }
    return clearances
  }

  /// A distance above every difference between a search's measure and the true distance between centres
  /// (a Float position is within 4.3e-8 of its double centre in [0, 1]²), with room to spare.
  static let clearanceSlack = 2.5e-7

  /// Orders items by traversal rank (`PlanarKDTree.traversalRanks()`): insertion sort for the usual handful,
  /// the standard sort beyond.
  static func sortByRank(_ items: inout [Int], _ ranks: [UInt32]) {
    if items.count > 16 {
      ranks.withUnsafeBufferPointer { ranks in items.sort { ranks[$0] < ranks[$1] } }
      return
    }
    guard items.count > 1 else { return }
    for i in 1..<items.count {
      let value = items[i]
      let rank = ranks[value]
      var j = i
      while j > 0 && ranks[items[j - 1]] > rank {
        items[j] = items[j - 1]
        j -= 1
      }
      items[j] = value
    }
  }
}

/// Items binned by their Float positions into a square grid over [0, 1]² (a counting sort), their Float
/// positions and double-precision centres stored beside them in cell order, so that searches made slot by
/// slot read memory in order.
struct CellGrid {
  let side: Int
  let scale: Double
  /// Where each cell's items start in the slots, and one past the last cell.
  let cellStarts: [Int32]
  /// Each slot's item.
  let items: [UInt32]
  /// Each slot's Float position, interleaved x, y.
  let coords: [Float]
  /// Each slot's double-precision centre, interleaved x, y.
  let centres: [Double]

  /// Cells at least `cellWidth` wide, and about as many of them as items at most, over the items `members`
  /// (in increasing order) of those at `xs`, `ys`; each cell's items in that order. The rows' binning shares
  /// `forks` levels of threads.
  init(members: [UInt32], xs: [Double], ys: [Double], cellWidth: Double, forks: Int = 0) {
    let n = members.count
    let side = Int(max(1, min((1 / cellWidth).rounded(.down), Double(n).squareRoot().rounded(.up), 8192)))
    self.side = side
    let scale = Double(side)
    self.scale = scale
    let cellCount = side * side
    var cellStarts = [Int32](unsafeUninitializedCapacity: cellCount + 1) { _, initialized in
      initialized = cellCount + 1
    }
    var items = [UInt32](unsafeUninitializedCapacity: n) { _, initialized in initialized = n }
    var coords = [Float](unsafeUninitializedCapacity: 2 * n) { _, initialized in initialized = 2 * n }
    var centres = [Double](unsafeUninitializedCapacity: 2 * n) { _, initialized in initialized = 2 * n }
    // Truncation, not `rounded(.down)` (a call into libm here): they differ only below 0, which clamps to 0.
    func cell(_ value: Float) -> Int { min(side - 1, max(0, Int(Double(value) * scale))) }
    // A counting sort in two passes that each write memory in order, where one pass would write each item to
    // a cell of a million, scattered: first the members by row (a running position a row, a few hundred of
    // them), then each row's members by column (a row's slots fit in a cache), rows on their own threads.
    var rowStarts = [Int](repeating: 0, count: side + 1)
    withUnsafeTemporaryAllocation(of: Binned.self, capacity: n) { byRow in
      members.withUnsafeBufferPointer { members in
        xs.withUnsafeBufferPointer { xs in
          ys.withUnsafeBufferPointer { ys in
            rowStarts.withUnsafeMutableBufferPointer { rowStarts in
              for m in 0..<n { rowStarts[cell(Float(ys[Int(members[m])])) + 1] += 1 }
              for row in 0..<side { rowStarts[row + 1] += rowStarts[row] }
              withUnsafeTemporaryAllocation(of: Int.self, capacity: side) { next in
                for row in 0..<side { next[row] = rowStarts[row] }
                for m in 0..<n {
                  let item = Int(members[m])
                  let x = xs[item]
                  let y = ys[item]
                  let row = cell(Float(y))
                  byRow[next[row]] = Binned(
                    x: x, y: y, item: UInt32(truncatingIfNeeded: item),
                    column: UInt32(truncatingIfNeeded: cell(Float(x))))
                  next[row] += 1
                }
              }
            }
          }
        }
      }
      let binned = UnsafeBufferPointer(byRow)
      let rowStarts = rowStarts
      cellStarts.withUnsafeMutableBufferPointer { cellStarts in
        items.withUnsafeMutableBufferPointer { items in
          coords.withUnsafeMutableBufferPointer { coords in
            centres.withUnsafeMutableBufferPointer { centres in
              _ = ForkJoin.split(0..<side, forks: n >= NeighborLists.parallelThreshold ? forks : 0) { rows in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: side) { next in
                  for row in rows {
                    let first = rowStarts[row]
                    let end = rowStarts[row + 1]
                    for column in 0..<side { next[column] = 0 }
                    for b in first..<end { next[Int(binned[b].column)] += 1 }
                    var start = first
                    for column in 0..<side {
                      let count = next[column]
                      cellStarts[row * side + column] = Int32(truncatingIfNeeded: start)
                      next[column] = start
                      start += count
                    }
                    for b in first..<end {
                      let entry = binned[b]
                      let column = Int(entry.column)
                      let slot = next[column]
                      next[column] = slot + 1
                      items[slot] = entry.item
                      coords[2 * slot] = Float(entry.x)
                      coords[2 * slot + 1] = Float(entry.y)
                      centres[2 * slot] = entry.x
                      centres[2 * slot + 1] = entry.y
                    }
                  }
                }
              } merge: { _, _ in
              }
              cellStarts[cellCount] = Int32(truncatingIfNeeded: n)
            }
          }
        }
      }
    }
    self.cellStarts = cellStarts
    self.items = items
    self.coords = coords
    self.centres = centres
  }

  /// A member on its way to its cell: its position, number and column.
  private struct Binned {
    var x: Double
    var y: Double
    var item: UInt32
    var column: UInt32
  }

  /// Lends the grid's arrays for a run of searches.
  func withCells<Result>(_ body: (Cells) -> Result) -> Result {
    cellStarts.withUnsafeBufferPointer { starts in
      coords.withUnsafeBufferPointer { coords in
        items.withUnsafeBufferPointer { items in
          centres.withUnsafeBufferPointer { centres in
            body(
              Cells(
                starts: starts, coords: coords, items: items, centres: centres, side: side, scale: scale))
          }
        }
      }
    }
  }

  /// The grid's arrays, borrowed.
  struct Cells {
    let starts: UnsafeBufferPointer<Int32>
    let coords: UnsafeBufferPointer<Float>
    let items: UnsafeBufferPointer<UInt32>
    let centres: UnsafeBufferPointer<Double>
    let side: Int
    let scale: Double

    /// The cell column or row of a coordinate, clamped to the grid (truncating: see `CellGrid.init`). The
    /// product is clamped before it becomes an integer: a search box can reach far off the grid (a radius of
    /// 1e300 pixels is a valid option), and converting such a double to `Int` traps.
    @inline(__always)
    func cell(_ value: Double) -> Int {
      min(side - 1, max(0, Int(min(max(value * scale, -1), Double(side)))))
    }

    /// The cells that can hold items within `radius` of (qx, qy), which must not be wider than a cell.
    @inline(__always)
    func cells(x qx: Double, y qy: Double, radius: Double) -> (x: ClosedRange<Int>, y: ClosedRange<Int>) {
      // A hair of slack keeps rounding in the cell arithmetic from losing an item on a cell edge.
      (
        cell(qx - radius - 1e-12)...cell(qx + radius + 1e-12),
        cell(qy - radius - 1e-12)...cell(qy + radius + 1e-12)
      )
    }

    /// How many items the cells `x` × `y` hold.
    @inline(__always)
    func count(x xCells: ClosedRange<Int>, y yCells: ClosedRange<Int>) -> Int {
      var total = 0
      for cy in yCells {
        total += Int(starts[cy * side + xCells.upperBound + 1] - starts[cy * side + xCells.lowerBound])
      }
      return total
    }

    /// Writes to `result` the items within `radius` of (qx, qy) but `excluded`, searching `cells` (those of
    /// `cells(x:y:radius:)`), and returns how many; nil when those cells hold more than `limit` items. `result`
    /// must have room for `limit` items, or all those of the cells.
    @inline(__always)
    func search(
      x qx: Double, y qy: Double, radius: Double, excluding excluded: Int,
      cells: (x: ClosedRange<Int>, y: ClosedRange<Int>), into result: UnsafeMutablePointer<UInt32>, limit: Int
    ) -> Int? {
      let r2 = radius * radius
      // Every candidate is written and the count moves on only for a match, so that the test, true for a
      // third of the candidates or so, is not a branch to mispredict.
      var found = 0
      var total = 0
      for cy in cells.y {
        var slot = Int(starts[cy * side + cells.x.lowerBound])
        let end = Int(starts[cy * side + cells.x.upperBound + 1])
        total += end - slot
        if total > limit { return nil }
        while slot < end {
          let dx = Double(coords[2 * slot]) - qx
          let dy = Double(coords[2 * slot + 1]) - qy
          let item = items[slot]
          result[found] = item
          let near = unsafeBitCast(dx * dx + dy * dy <= r2, to: UInt8.self)
          let other = unsafeBitCast(Int(item) != excluded, to: UInt8.self)
          found &+= Int(near & other)
          slot &+= 1
        }
      }
      return found
    }

    /// The smallest squared distance from (qx, qy) to an item but `excluded` in the cells that can hold items
    /// within `radius`; `.infinity` if they hold none, and 0 if they hold more than `limit` items (crowded
    /// places, duplicates: not worth the search, since such an item will be searched anyway).
    func closest(x qx: Double, y qy: Double, radius: Double, excluding excluded: Int, limit: Int) -> Double {
      var closest = Double.infinity
      var other = Double.infinity
      let (xCells, yCells) = cells(x: qx, y: qy, radius: radius)
      var total = 0
      for cy in yCells {
        var slot = Int(starts[cy * side + xCells.lowerBound])
        let end = Int(starts[cy * side + xCells.upperBound + 1])
        total += end - slot
        if total > limit { return 0 }
        // Two running minima, so that each candidate does not wait for the one before it.
        while slot + 1 < end {
          closest = min(closest, squaredDistance(slot, x: qx, y: qy, excluding: excluded))
          other = min(other, squaredDistance(slot + 1, x: qx, y: qy, excluding: excluded))
          slot += 2
        }
        if slot < end { closest = min(closest, squaredDistance(slot, x: qx, y: qy, excluding: excluded)) }
      }
      return min(closest, other)
    }

    /// The squared distance from (qx, qy) to the slot's item, or `.infinity` if it is `excluded`.
    @inline(__always)
    private func squaredDistance(_ slot: Int, x qx: Double, y qy: Double, excluding excluded: Int) -> Double {
      let dx = Double(coords[2 * slot]) - qx
      let dy = Double(coords[2 * slot + 1]) - qy
      return Int(items[slot]) != excluded ? dx * dx + dy * dy : .infinity
    }
  }
}
