#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
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
/// - Complexity: building is O(n log n); memory is 44 bytes a point (its unit vector, its input offset and a
///   copy of the point in tree order) plus 9 bytes a leaf, and 130 KB for the `NearestCover` of a tree of at
///   most `coverLimit` points.
public struct SphericalKDTree: Sendable {
  /// Unit-vector coordinates, in tree order.
  @usableFromInline let xs: [Double]
  @usableFromInline let ys: [Double]
  @usableFromInline let zs: [Double]
  /// Each tree position's offset in the input.
  @usableFromInline let indices: [UInt32]
  /// The points as given, in tree order, for the exact distance of candidates: beside the leaf just scanned
  /// in order, not behind `indices` (two dependent cache misses at a million points, a sixth of a query).
  @usableFromInline let points: [GeoPoint]
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
  ///   - threads: how many threads the build may use (default: one a processor). Trees under 65,536 points
  ///     are built on one; the tree is the same whatever the number.
  /// - Complexity: O(n log n).
  @inlinable
  public init(points: some Collection<GeoPoint>, leafSize: Int = 16, threads: Int? = nil) {
    self.init(array: Array(points), leafSize: leafSize, threads: threads)
  }

  /// The fewest points in a subtree worth handing to a thread of its own.
  static let parallelThreshold = 1 << 16

  @usableFromInline
  init(array points: [GeoPoint], leafSize: Int, threads: Int?) {
    precondition(leafSize >= 1, "leafSize must be at least 1")
    precondition(points.count < Int(UInt32.max), "a tree holds fewer than 2^32 points")
    let n = points.count
    // Forks double the threads at work: `forks` levels of the tree are split between threads.
    let forks = n >= Self.parallelThreshold ? ForkJoin.forks(threads: threads) : 0
    var depth = 0
    var size = n
    while size > leafSize {
      size = (size + 1) / 2
      depth += 1
    }
    var values = [Double](repeating: 0, count: 1 << depth)
    var axes = [UInt8](repeating: 0, count: 1 << depth)
    var entries = [SIMD4<Double>](unsafeUninitializedCapacity: n) { _, initialized in initialized = n }
    var low = SIMD3<Double>(repeating: .infinity)
    var high = SIMD3<Double>(repeating: -.infinity)
    // The unit vectors and their bounding box, the halves of the input on separate threads.
    points.withUnsafeBufferPointer { points in
      entries.withUnsafeMutableBufferPointer { entries in
        ForkJoin.split(0..<n, forks: forks) { range in
          var rangeLow = SIMD3<Double>(repeating: .infinity)
          var rangeHigh = SIMD3<Double>(repeating: -.infinity)
          for i in range {
            let v = Self.unitVector(points[i])
            entries[i] = SIMD4(v.x, v.y, v.z, Double(i))
            rangeLow = pointwiseMin(rangeLow, v)
            rangeHigh = pointwiseMax(rangeHigh, v)
          }
          return (rangeLow, rangeHigh)
        } merge: { a, b in
          (pointwiseMin(a.0, b.0), pointwiseMax(a.1, b.1))
        }.map { (low, high) = $0 }
      }
    }
    if n > leafSize {
      entries.withUnsafeMutableBufferPointer { entries in
        values.withUnsafeMutableBufferPointer { values in
          axes.withUnsafeMutableBufferPointer { axes in
            let builder = Builder(entries: entries, values: values, axes: axes, leafSize: leafSize)
            builder.build(node: 1, low: 0, high: n, boxLow: low, boxHigh: high, forks: forks)
          }
        }
      }
    }
    // The query layout, in one sequential pass over the tree order (again in halves), into arrays never
    // zero-filled: their pages are first touched by the thread that fills them. The points are copied into
    // tree order too: the reads of the input are random (1M points, harness, alternately: a build 52-55
    // -> 57-63 ms), and the answer's exact distance no longer waits on `indices` first (a query 960-1,150
    // -> 840-950 ns).
    var layout = QueryArrays(count: n)
    points.withUnsafeBufferPointer { input in
      entries.withUnsafeBufferPointer { entries in
        layout.fill { columns in
          _ = ForkJoin.split(0..<n, forks: forks) { range in
            for i in range {
              let e = entries[i]
              columns.xs[i] = e.x
              columns.ys[i] = e.y
              columns.zs[i] = e.z
              columns.indices[i] = UInt32(e.w)
              (columns.points.baseAddress! + i).initialize(to: input[Int(e.w)])
            }
            return ()
          } merge: { _, _ in
            ()
          }
        }
      }
    }
    xs = layout.xs
    ys = layout.ys
    zs = layout.zs
    indices = layout.indices
    self.points = layout.points
    splitValues = values
    splitAxes = axes
    self.leafSize = leafSize
    cover = (1...Self.coverLimit).contains(n) ? NearestCover(points: points) : nil
  }

  /// The query arrays, made without zero-filling and filled all at once.
  private struct QueryArrays {
    var xs: [Double] = []
    var ys: [Double] = []
    var zs: [Double] = []
    var indices: [UInt32] = []
    var points: [GeoPoint] = []
    let count: Int

    init(count: Int) { self.count = count }

    struct Columns {
      let xs, ys, zs: UnsafeMutableBufferPointer<Double>
      let indices: UnsafeMutableBufferPointer<UInt32>
      let points: UnsafeMutableBufferPointer<GeoPoint>
    }

    /// Creates every array, letting `fill` initialise all `count` elements of each.
    mutating func fill(_ fill: (Columns) -> Void) {
      let n = count
      func make<T>(_ body: (UnsafeMutableBufferPointer<T>) -> Void) -> [T] {
        [T](unsafeUninitializedCapacity: n) { buffer, initialized in
          body(buffer)
          initialized = n
        }
      }
      var indices: [UInt32] = []
      var points: [GeoPoint] = []
      xs = make { xs in
        ys = make { ys in
          zs = make { zs in
            indices = make { indices in
              points = make { points in
                fill(Columns(xs: xs, ys: ys, zs: zs, indices: indices, points: points))
              }
            }
          }
        }
      }
      self.indices = indices
      self.points = points
    }
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

    /// Splits `low..<high` at its middle across the longest side of its box, recursively; the first `forks`
    /// levels build their two halves on two threads (the halves touch disjoint entries and nodes).
    func build(
      node: Int, low: Int, high: Int, boxLow: SIMD3<Double>, boxHigh: SIMD3<Double>, forks: Int = 0
    ) {
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
      if forks > 0 && high - low >= SphericalKDTree.parallelThreshold {
        ForkJoin.both(
          {
            build(node: 2 * node, low: low, high: middle, boxLow: boxLow, boxHigh: leftHigh, forks: forks - 1)
          },
          {
            build(
              node: 2 * node + 1, low: middle, high: high, boxLow: rightLow, boxHigh: boxHigh,
              forks: forks - 1)
          })
      } else {
        build(node: 2 * node, low: low, high: middle, boxLow: boxLow, boxHigh: leftHigh)
        build(node: 2 * node + 1, low: middle, high: high, boxLow: rightLow, boxHigh: boxHigh)
      }
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
