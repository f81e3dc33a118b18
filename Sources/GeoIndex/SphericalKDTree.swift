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
/// The build follows kdbush (Vladimir Agafonkin, ISC): one flat array ordered in place by recursive median
/// selection (Floyd–Rivest), no node objects. Unlike kdbush it is three-dimensional, keeps every point in a
/// leaf bucket of at most `leafSize` points, splits each node across the longest side of its box, and keeps the
/// split planes in a small breadth-first array, so that a query touches little memory besides the leaves it
/// scans. Queries search nearer child first with the incremental box distance of Arya and Mount (1993).
///
/// - Complexity: building is O(n log n); memory is 52 bytes a point plus 9 bytes a leaf, and 259 KB for the
///   `NearestCover` of a tree of at most `coverLimit` points.
public struct SphericalKDTree: Sendable {
  /// Unit-vector coordinates, in tree order.
  @usableFromInline let xs: [Double]
  @usableFromInline let ys: [Double]
  @usableFromInline let zs: [Double]
  /// Each tree position's offset in the input.
  @usableFromInline let indices: [UInt32]
  /// Latitudes and longitudes in degrees and `cos φ`, in tree order, for the exact distance of candidates.
  @usableFromInline let latitudes: [Double]
  @usableFromInline let longitudes: [Double]
  @usableFromInline let cosLatitudes: [Double]
  /// Split planes of the inner nodes in breadth-first order (root 1, children 2i and 2i + 1).
  @usableFromInline let splitValues: [Double]
  @usableFromInline let splitAxes: [UInt8]
  /// The most points a leaf holds.
  public let leafSize: Int
  /// For up to `coverLimit` points, the grid that answers most nearest queries without a search.
  @usableFromInline let cover: NearestCover?

  /// The most points a tree builds a `NearestCover` for: beyond it cells list too many candidates to pay.
  public static let coverLimit = 256

  /// The number of points in the tree.
  @inlinable public var count: Int { xs.count }

  /// Builds the tree.
  ///
  /// - Parameters:
  ///   - points: the points to index; results refer to them by their offset in this collection.
  ///   - leafSize: the most points a leaf holds. Smaller is faster to query, larger faster to build.
  /// - Complexity: O(n log n).
  @inlinable
  public init(points: some Collection<GeoPoint>, leafSize: Int = 16) {
    self.init(array: Array(points), leafSize: leafSize)
  }

  @usableFromInline
  init(array points: [GeoPoint], leafSize: Int) {
    precondition(leafSize >= 1, "leafSize must be at least 1")
    precondition(points.count < Int(UInt32.max), "a tree holds fewer than 2^32 points")
    var entries = [SIMD4<Double>]()
    entries.reserveCapacity(points.count)
    for point in points {
      let v = Self.unitVector(point)
      entries.append(SIMD4(v.x, v.y, v.z, Double(entries.count)))
    }
    var depth = 0
    var size = entries.count
    while size > leafSize {
      size = (size + 1) / 2
      depth += 1
    }
    var values = [Double](repeating: 0, count: 1 << depth)
    var axes = [UInt8](repeating: 0, count: 1 << depth)
    if entries.count > leafSize {
      var low = SIMD3<Double>(repeating: .infinity)
      var high = SIMD3<Double>(repeating: -.infinity)
      for e in entries {
        low = pointwiseMin(low, SIMD3(e.x, e.y, e.z))
        high = pointwiseMax(high, SIMD3(e.x, e.y, e.z))
      }
      entries.withUnsafeMutableBufferPointer { entries in
        values.withUnsafeMutableBufferPointer { values in
          axes.withUnsafeMutableBufferPointer { axes in
            let builder = Builder(entries: entries, values: values, axes: axes, leafSize: leafSize)
            builder.build(node: 1, low: 0, high: entries.count, boxLow: low, boxHigh: high)
          }
        }
      }
    }
    xs = entries.map { $0.x }
    ys = entries.map { $0.y }
    zs = entries.map { $0.z }
    indices = entries.map { UInt32($0.w) }
    latitudes = indices.map { points[Int($0)].latitude }
    longitudes = indices.map { points[Int($0)].longitude }
    cosLatitudes = latitudes.map { GreatCircle.cosine(latitudeDegrees: $0) }
    splitValues = values
    splitAxes = axes
    self.leafSize = leafSize
    cover =
      (1...Self.coverLimit).contains(entries.count)
      ? NearestCover(xs: xs, ys: ys, zs: zs, indices: indices) : nil
  }

  /// The point as a unit vector: x towards (0°, 0°), y towards (0°, 90°E), z towards the north pole.
  @inlinable
  static func unitVector(_ point: GeoPoint) -> SIMD3<Double> {
    let latitude = SineCosine.ofDegrees(point.latitude)
    let longitude = SineCosine.ofDegrees(point.longitude)
    return SIMD3(latitude.cos * longitude.cos, latitude.cos * longitude.sin, latitude.sin)
  }

  private enum XKey: SelectionKey { static func key(_ e: SIMD4<Double>) -> Double { e.x } }
  private enum YKey: SelectionKey { static func key(_ e: SIMD4<Double>) -> Double { e.y } }
  private enum ZKey: SelectionKey { static func key(_ e: SIMD4<Double>) -> Double { e.z } }

  /// Orders entries into the tree, node by node.
  private struct Builder {
    let entries: UnsafeMutableBufferPointer<SIMD4<Double>>
    let values: UnsafeMutableBufferPointer<Double>
    let axes: UnsafeMutableBufferPointer<UInt8>
    let leafSize: Int

    /// Splits `low..<high` at its middle across the longest side of its box, recursively.
    func build(node: Int, low: Int, high: Int, boxLow: SIMD3<Double>, boxHigh: SIMD3<Double>) {
      if high - low <= leafSize { return }
      let extent = boxHigh - boxLow
      let axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2)
      let middle = (low + high) >> 1
      select(k: middle, left: low, right: high - 1, axis: axis)
      let value = entries[middle][axis]
      values[node] = value
      axes[node] = UInt8(axis)
      var leftHigh = boxHigh
      leftHigh[axis] = value
      var rightLow = boxLow
      rightLow[axis] = value
      build(node: 2 * node, low: low, high: middle, boxLow: boxLow, boxHigh: leftHigh)
      build(node: 2 * node + 1, low: middle, high: high, boxLow: rightLow, boxHigh: boxHigh)
    }

    func select(k: Int, left: Int, right: Int, axis: Int) {
      switch axis {
      case 0: FloydRivest.select(entries, k: k, left: left, right: right, by: XKey.self)
      case 1: FloydRivest.select(entries, k: k, left: left, right: right, by: YKey.self)
      default: FloydRivest.select(entries, k: k, left: left, right: right, by: ZKey.self)
      }
    }
  }
}
