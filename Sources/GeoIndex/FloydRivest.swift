#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What a selection orders elements by, as a type so that each key gets its own specialised loop.
protocol SelectionKey {
  associatedtype Element
  static func key(_ element: Element) -> Double
}

/// Floyd and Rivest's SELECT (CACM 1975, algorithm 489), exactly as kdbush performs it.
///
/// Rearranges `left...right` so that position `k` holds the element that sorting by `Key` would put there, with
/// nothing greater before it and nothing smaller after it. Spans over 600 first recurse on a sample to shrink
/// the range around `k`; then a Hoare-style partition around the element at `k`. The swap sequence is kdbush's
/// to the letter, because supercluster's ids and output order depend on where equal and unsorted items end up.
enum FloydRivest {
  static func select<Key: SelectionKey>(
    _ items: UnsafeMutableBufferPointer<Key.Element>, k: Int, left: Int, right: Int, by _: Key.Type
  ) {
    var left = left
    var right = right
    while right > left {
      if right - left > 600 {
        let n = Double(right - left + 1)
        let m = Double(k - left + 1)
        let z = log(n)
        let s = 0.5 * exp(2 * z / 3)
        let sd = 0.5 * (z * s * (n - s) / n).squareRoot() * (m - n / 2 < 0 ? -1 : 1)
        let newLeft = max(left, Int((Double(k) - m * s / n + sd).rounded(.down)))
        let newRight = min(right, Int((Double(k) + (n - m) * s / n + sd).rounded(.down)))
        select(items, k: k, left: newLeft, right: newRight, by: Key.self)
      }
      let pivot = Key.key(items[k])
      var i = left
      var j = right
      items.swapAt(left, k)
      if Key.key(items[right]) > pivot { items.swapAt(left, right) }
      if right - left >= blockThreshold {
        // The loop below's first swap, then its swaps while they are certain, found without branching.
        items.swapAt(left, right)
        (i, j) = blockSwaps(items, pivot: pivot, afterSwapAt: left, and: right, by: Key.self)
        i += 1
        j -= 1
        while Key.key(items[i]) < pivot { i += 1 }
        while Key.key(items[j]) > pivot { j -= 1 }
      }
      while i < j {
        items.swapAt(i, j)
        i += 1
        j -= 1
        while Key.key(items[i]) < pivot { i += 1 }
        while Key.key(items[j]) > pivot { j -= 1 }
      }
      if Key.key(items[left]) == pivot {
        items.swapAt(left, j)
      } else {
        j += 1
        items.swapAt(j, right)
      }
      if j <= k { left = j + 1 }
      if k <= j { right = j - 1 }
    }
  }

  /// Spans at least this long partition through `blockSwaps`. Measured on a 10,000-point kd-sort, whose
  /// narrowing selections below 600 items are mostly short: 128 took 0.48 ms, 64 0.39, 32 0.35, 16 0.36.
  static let blockThreshold = 32
  /// Positions classified per block.
  private static let blockSize = 64

  /// Performs the swaps of the partition loop above that follow a swap at (`i`, `j`), while they are certain,
  /// and returns the last pair swapped (`i`, `j` if none), from which the loop goes on as before.
  ///
  /// The loop's swaps are predictable from the values alone: after swapping at (i, j), its left scan stops at
  /// the first position after i whose key is not below the pivot, its right scan at the last position before
  /// j whose key is not above it, and positions strictly between i and j still hold their values from before
  /// the partition. So the loop swaps the k-th such position from the left with the k-th from the right for
  /// as long as the first is below the second. Here both sequences are listed a block at a time without
  /// branching on the keys (Edelkamp and Weiß's BlockQuicksort, 2016), reading only between the last pair
  /// swapped, and the swaps are made in the same pairs; the few steps around the crossing are left to the loop.
  /// The result is the same arrangement, found without a mispredicted branch per element.
  @inline(__always)
  private static func blockSwaps<Key: SelectionKey>(
    _ items: UnsafeMutableBufferPointer<Key.Element>, pivot: Double, afterSwapAt i: Int, and j: Int,
    by _: Key.Type
  ) -> (i: Int, j: Int) {
    var i = i
    var j = j
    return withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * blockSize) { buffer in
      let lefts = UnsafeMutableBufferPointer(rebasing: buffer[0..<blockSize])
      let rights = UnsafeMutableBufferPointer(rebasing: buffer[blockSize...])
      var leftNext = i + 1  // the next position the left list reads
      var rightNext = j - 1  // the next position the right list reads
      var leftStart = 0
      var leftCount = 0
      var rightStart = 0
      var rightCount = 0
      while true {
        if leftStart == leftCount {
          let end = min(leftNext + blockSize, j)
          if leftNext >= end { break }
          leftStart = 0
          leftCount = 0
          for p in leftNext..<end {
            lefts[leftCount] = p
            leftCount &+= Int(unsafeBitCast(!(Key.key(items[p]) < pivot), to: UInt8.self))
          }
          leftNext = end
        }
        if rightStart == rightCount {
          let end = max(rightNext - blockSize, i)
          if rightNext <= end { break }
          rightStart = 0
          rightCount = 0
          var p = rightNext
          while p > end {
            rights[rightCount] = p
            rightCount &+= Int(unsafeBitCast(!(Key.key(items[p]) > pivot), to: UInt8.self))
            p &-= 1
          }
          rightNext = end
        }
        let pairs = min(leftCount - leftStart, rightCount - rightStart)
        for _ in 0..<pairs {
          let p = lefts[leftStart]
          let q = rights[rightStart]
          if p >= q { return (i, j) }
          items.swapAt(p, q)
          i = p
          j = q
          leftStart += 1
          rightStart += 1
        }
      }
      return (i, j)
    }
  }
}
