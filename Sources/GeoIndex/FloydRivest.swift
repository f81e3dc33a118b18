#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
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
}
