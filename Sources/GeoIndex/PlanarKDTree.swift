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
    var ids = [UInt32](unsafeUninitializedCapacity: xs.count) { buffer, initialized in
      for i in 0..<xs.count { buffer[i] = UInt32(i) }
      initialized = xs.count
    }
    var coords = [Float](unsafeUninitializedCapacity: 2 * xs.count) { buffer, initialized in
      for i in 0..<xs.count {
        buffer[2 * i] = Float(xs[i])
        buffer[2 * i + 1] = Float(ys[i])
      }
      initialized = 2 * xs.count
    }
    let size = self.nodeSize
    ids.withUnsafeMutableBufferPointer { ids in
      coords.withUnsafeMutableBufferPointer { coords in
        var sorter = Sorter(ids: ids, coords: coords, nodeSize: size)
        sorter.sort(left: 0, right: ids.count - 1, axis: 0)
      }
    }
    self.ids = ids
    self.coords = coords
  }

  private struct Sorter {
    let ids: UnsafeMutableBufferPointer<UInt32>
    let coords: UnsafeMutableBufferPointer<Float>
    let nodeSize: Int

    mutating func sort(left: Int, right: Int, axis: Int) {
      if right - left <= nodeSize { return }
      let middle = (left + right) >> 1
      select(k: middle, left: left, right: right, axis: axis)
      sort(left: left, right: middle - 1, axis: 1 - axis)
      sort(left: middle + 1, right: right, axis: 1 - axis)
    }

    /// Floyd–Rivest selection exactly as kdbush performs it, including its sampling bounds and swap order.
    mutating func select(k: Int, left: Int, right: Int, axis: Int) {
      var left = left
      var right = right
      while right > left {
        if right - left > 600 {
          let n = Double(right - left + 1)
          let m = Double(k - left + 1)
          let z = log(n)
          let s = 0.5 * exp(2 * z / 3)
          let sd = 0.5 * (z * s * (n - s) / n).squareRoot() * (m - n / 2 < 0 ? -1 : 1)
          let newLeft = Swift.max(left, Int((Double(k) - m * s / n + sd).rounded(.down)))
          let newRight = Swift.min(right, Int((Double(k) + (n - m) * s / n + sd).rounded(.down)))
          select(k: k, left: newLeft, right: newRight, axis: axis)
        }
        let pivot = coords[2 * k + axis]
        var i = left
        var j = right
        swapItems(left, k)
        if coords[2 * right + axis] > pivot { swapItems(left, right) }
        while i < j {
          swapItems(i, j)
          i += 1
          j -= 1
          while coords[2 * i + axis] < pivot { i += 1 }
          while coords[2 * j + axis] > pivot { j -= 1 }
        }
        if coords[2 * left + axis] == pivot {
          swapItems(left, j)
        } else {
          j += 1
          swapItems(j, right)
        }
        if j <= k { left = j + 1 }
        if k <= j { right = j - 1 }
      }
    }

    @inline(__always)
    func swapItems(_ i: Int, _ j: Int) {
      ids.swapAt(i, j)
      coords.swapAt(2 * i, 2 * j)
      coords.swapAt(2 * i + 1, 2 * j + 1)
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
