#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A static k-d tree over points on the sphere that answers great-circle queries exactly.
///
/// Points are stored as unit vectors in three dimensions. The chord between two unit vectors grows
/// monotonically with the great-circle distance, so the tree prunes with cheap Euclidean bounds; the few
/// candidates that survive are ranked by `GreatCircle.distanceKilometers`, the same function a brute-force scan
/// uses, with ties broken by the lowest input index. A small slack on every pruning bound (far larger than the
/// rounding error of either distance, far smaller than any real gap) keeps the answers identical to brute force.
///
/// The layout follows kdbush (Vladimir Agafonkin, ISC): one flat array sorted in place by recursive median
/// selection (Floyd–Rivest), leaves of at most `nodeSize + 1` points, no node objects. Unlike kdbush it is
/// three-dimensional, splits each node on the axis of largest spread, and searches best-first with the
/// incremental box distance of Arya and Mount.
///
/// - Complexity: building is O(n log n); memory is 48 bytes a point plus one byte a point for split axes.
public struct SphericalKDTree: Sendable {
  /// A point as a unit vector, with its position in the input.
  @usableFromInline
  struct Entry: Sendable {
    @usableFromInline var x: Double
    @usableFromInline var y: Double
    @usableFromInline var z: Double
    @usableFromInline var index: Int

    @inlinable
    init(x: Double, y: Double, z: Double, index: Int) {
      self.x = x
      self.y = y
      self.z = z
      self.index = index
    }

    @inlinable
    subscript(axis: UInt8) -> Double {
      switch axis {
      case 0: return x
      case 1: return y
      default: return z
      }
    }
  }

  /// Points in tree order.
  @usableFromInline let entries: [Entry]
  /// Latitudes and longitudes in degrees, in tree order, for the exact distance of candidates.
  @usableFromInline let latitudes: [Double]
  @usableFromInline let longitudes: [Double]
  /// The split axis (0 x, 1 y, 2 z) of the node whose median sits at each position; unused in leaves.
  @usableFromInline let splitAxes: [UInt8]
  /// The largest number of points a leaf holds, less one (kdbush's convention).
  public let nodeSize: Int

  /// The number of points in the tree.
  public var count: Int { entries.count }

  /// Builds the tree.
  ///
  /// - Parameters:
  ///   - points: the points to index; results refer to them by their offset in this collection.
  ///   - nodeSize: leaves hold up to `nodeSize + 1` points. Smaller is faster to query, larger faster to build.
  /// - Complexity: O(n log n).
  public init(points: some Collection<GeoPoint>, nodeSize: Int = 12) {
    precondition(nodeSize >= 1, "nodeSize must be at least 1")
    var entries = [Entry]()
    entries.reserveCapacity(points.count)
    for point in points {
      let latitude = point.latitude * GreatCircle.radiansPerDegree
      let longitude = point.longitude * GreatCircle.radiansPerDegree
      let cosLatitude = GreatCircle.cosine(latitudeDegrees: point.latitude)
      entries.append(
        Entry(
          x: cosLatitude * cos(longitude), y: cosLatitude * sin(longitude), z: sin(latitude),
          index: entries.count))
    }
    var axes = [UInt8](repeating: 0, count: entries.count)
    entries.withUnsafeMutableBufferPointer { buffer in
      axes.withUnsafeMutableBufferPointer { axes in
        Self.sort(buffer, axes, nodeSize: nodeSize, left: 0, right: buffer.count - 1)
      }
    }
    let inputLatitudes = points.map(\.latitude)
    let inputLongitudes = points.map(\.longitude)
    self.latitudes = entries.map { inputLatitudes[$0.index] }
    self.longitudes = entries.map { inputLongitudes[$0.index] }
    self.entries = entries
    self.splitAxes = axes
    self.nodeSize = nodeSize
  }

  /// Orders `left...right` into a k-d tree: the median on the widest axis in the middle, recursively.
  private static func sort(
    _ entries: UnsafeMutableBufferPointer<Entry>, _ axes: UnsafeMutableBufferPointer<UInt8>,
    nodeSize: Int, left: Int, right: Int
  ) {
    if right - left <= nodeSize { return }
    let axis = widestAxis(entries, left: left, right: right)
    let middle = (left + right) >> 1
    select(entries, k: middle, left: left, right: right, axis: axis)
    axes[middle] = axis
    sort(entries, axes, nodeSize: nodeSize, left: left, right: middle - 1)
    sort(entries, axes, nodeSize: nodeSize, left: middle + 1, right: right)
  }

  private static func widestAxis(_ entries: UnsafeMutableBufferPointer<Entry>, left: Int, right: Int)
    -> UInt8
  {
    var low = SIMD3<Double>(repeating: .infinity)
    var high = SIMD3<Double>(repeating: -.infinity)
    for i in left...right {
      let v = SIMD3(entries[i].x, entries[i].y, entries[i].z)
      low = pointwiseMin(low, v)
      high = pointwiseMax(high, v)
    }
    let spread = high - low
    if spread.x >= spread.y && spread.x >= spread.z { return 0 }
    return spread.y >= spread.z ? 1 : 2
  }

  /// Rearranges `left...right` so that position `k` holds the element that sorting on `axis` would put
  /// there, with nothing greater before it and nothing smaller after it.
  ///
  /// Floyd and Rivest's SELECT (CACM 1975, algorithm 489), as kdbush uses it: recursion on a sample shrinks
  /// the range around `k` before each partition.
  private static func select(
    _ entries: UnsafeMutableBufferPointer<Entry>, k: Int, left: Int, right: Int, axis: UInt8
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
        select(entries, k: k, left: newLeft, right: newRight, axis: axis)
      }
      let pivot = entries[k][axis]
      var i = left
      var j = right
      entries.swapAt(left, k)
      if entries[right][axis] > pivot { entries.swapAt(left, right) }
      while i < j {
        entries.swapAt(i, j)
        i += 1
        j -= 1
        while entries[i][axis] < pivot { i += 1 }
        while entries[j][axis] > pivot { j -= 1 }
      }
      if entries[left][axis] == pivot {
        entries.swapAt(left, j)
      } else {
        j += 1
        entries.swapAt(j, right)
      }
      if j <= k { left = j + 1 }
      if k <= j { right = j - 1 }
    }
  }
}
