#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A point found by a query: its offset in the input and its great-circle distance from the query.
public struct Neighbor: Hashable, Sendable {
  /// The point's offset in the collection the tree was built from.
  public let index: Int
  /// The haversine distance from the query, in kilometres.
  public let distanceKilometers: Double

  @inlinable
  public init(index: Int, distanceKilometers: Double) {
    self.index = index
    self.distanceKilometers = distanceKilometers
  }

  /// Nearest first; equal distances by lowest index: the order every query returns.
  @inlinable
  static func precedes(_ a: Neighbor, _ b: Neighbor) -> Bool {
    a.distanceKilometers < b.distanceKilometers
      || (a.distanceKilometers == b.distanceKilometers && a.index < b.index)
  }
}

extension SphericalKDTree {
  /// The nearest point to `point`, or nil when the tree is empty.
  ///
  /// Equal distances go to the lowest index, exactly as a brute-force scan would decide.
  /// - Complexity: O(log n) expected for spread-out points; allocates nothing.
  @inlinable
  public func nearest(to point: GeoPoint) -> Neighbor? {
    if count == 0 { return nil }
    if let cover, let cell = NearestCover.cell(latitude: point.latitude, longitude: point.longitude) {
      let entry = cover.cells[cell]
      if entry & NearestCover.listFlag == 0 {
        // The cell lies in one point's Voronoi region (with margin): no comparison needed.
        let index = Int(entry)
        return Neighbor(
          index: index, distanceKilometers: cover.distanceKilometers(from: point, to: index))
      }
      return nearest(to: point, candidatesAt: Int(entry & ~NearestCover.listFlag), of: cover)
    }
    var visitor = NearestVisitor()
    traverse(Self.unitVector(point), &visitor)
    if visitor.second > Self.slackLimit(visitor.best) {
      // No other point comes within rounding distance of the best: it is the answer.
      return Neighbor(
        index: Int(indices[visitor.bestPosition]),
        distanceKilometers: exactDistance(point, position: visitor.bestPosition))
    }
    return neighbors(of: point, count: 1).first
  }

  /// `nearest(to:)` for four queries at once: the same answers, bit for bit. With a cover, the four cells are
  /// read first (their loads overlap), a cell's candidates are ranked as `nearest(to:)` ranks them, and the
  /// four exact distances are computed in the lanes of vectors (`GreatCircle.kilometers(lanes…)`), where one
  /// haversine is a chain of dependent operations that leaves the processor mostly idle. Nil when the tree is
  /// empty. For answering arrays of points (the Python package's `nearest`).
  @inlinable
  public func nearest(
    to q: (GeoPoint, GeoPoint, GeoPoint, GeoPoint)
  ) -> (Neighbor, Neighbor, Neighbor, Neighbor)? {
    guard count > 0 else { return nil }
    guard let cover, let c0 = NearestCover.cell(latitude: q.0.latitude, longitude: q.0.longitude),
      let c1 = NearestCover.cell(latitude: q.1.latitude, longitude: q.1.longitude),
      let c2 = NearestCover.cell(latitude: q.2.latitude, longitude: q.2.longitude),
      let c3 = NearestCover.cell(latitude: q.3.latitude, longitude: q.3.longitude)
    else { return (nearest(to: q.0)!, nearest(to: q.1)!, nearest(to: q.2)!, nearest(to: q.3)!) }
    let entries = (cover.cells[c0], cover.cells[c1], cover.cells[c2], cover.cells[c3])
    /// The answer's offset for a query whose cell holds `entry`.
    func index(_ entry: UInt16, _ point: GeoPoint) -> Int {
      if entry & NearestCover.listFlag == 0 { return Int(entry) }
      return nearest(to: point, candidatesAt: Int(entry & ~NearestCover.listFlag), of: cover)!.index
    }
    let i = (index(entries.0, q.0), index(entries.1, q.1), index(entries.2, q.2), index(entries.3, q.3))
    let p = (cover.points[i.0], cover.points[i.1], cover.points[i.2], cover.points[i.3])
    let d = GreatCircle.kilometers(
      latitudesA: SIMD4(q.0.latitude, q.1.latitude, q.2.latitude, q.3.latitude),
      longitudesA: SIMD4(q.0.longitude, q.1.longitude, q.2.longitude, q.3.longitude),
      latitudesB: SIMD4(p.0.latitude, p.1.latitude, p.2.latitude, p.3.latitude),
      longitudesB: SIMD4(p.0.longitude, p.1.longitude, p.2.longitude, p.3.longitude),
      cosLatitudesB: SIMD4(
        cover.cosLatitudes[i.0], cover.cosLatitudes[i.1], cover.cosLatitudes[i.2], cover.cosLatitudes[i.3]))
    return (
      Neighbor(index: i.0, distanceKilometers: d[0]), Neighbor(index: i.1, distanceKilometers: d[1]),
      Neighbor(index: i.2, distanceKilometers: d[2]), Neighbor(index: i.3, distanceKilometers: d[3])
    )
  }

  /// The nearest of a cover cell's candidates (input offsets), which include every point that can be nearest
  /// in the cell.
  @inlinable
  func nearest(to point: GeoPoint, candidatesAt offset: Int, of cover: NearestCover) -> Neighbor? {
    let query = Self.unitVector(point)
    var visitor = NearestVisitor()
    let end = offset + 1 + Int(cover.lists[offset])
    for i in offset + 1..<end {
      let index = Int(cover.lists[i])
      let dx = cover.xs[index] - query.x
      let dy = cover.ys[index] - query.y
      let dz = cover.zs[index] - query.z
      visitor.visit(chordSquared: dx * dx + dy * dy + dz * dz, position: index)
    }
    if visitor.second > Self.slackLimit(visitor.best) {
      let index = visitor.bestPosition
      return Neighbor(
        index: index, distanceKilometers: cover.distanceKilometers(from: point, to: index))
    }
    // Near-ties: rank every candidate within rounding of the best by exact distance, in input order.
    var best: Neighbor?
    for i in offset + 1..<end {
      let index = Int(cover.lists[i])
      let dx = cover.xs[index] - query.x
      let dy = cover.ys[index] - query.y
      let dz = cover.zs[index] - query.z
      guard dx * dx + dy * dy + dz * dz <= visitor.limit else { continue }
      let distance = cover.distanceKilometers(from: point, to: index)
      if best == nil || distance < best!.distanceKilometers {
        best = Neighbor(index: index, distanceKilometers: distance)
      }
    }
    return best
  }

  /// The `count` nearest points to `point`, nearest first, no farther than `maxDistanceKilometers`.
  ///
  /// Equal distances are ordered by lowest index, exactly as a brute-force sort would order them.
  /// - Complexity: O(k log k + log n) expected for spread-out points.
  public func neighbors(
    of point: GeoPoint, count: Int, maxDistanceKilometers: Double = .infinity
  ) -> [Neighbor] {
    guard count > 0, self.count > 0, maxDistanceKilometers >= 0 else { return [] }
    let limit = GreatCircle.chordSquared(kilometers: maxDistanceKilometers)
    var visitor = CollectingVisitor(count: Swift.min(count, self.count), fixedLimit: limit)
    traverse(Self.unitVector(point), &visitor)
    return finish(visitor, point, count: count, maxDistanceKilometers: maxDistanceKilometers)
  }

  /// Every point within `radiusKilometers` of `point` (inclusive), nearest first.
  ///
  /// Equal distances are ordered by lowest index. A radius of half the circumference or more returns all.
  /// - Complexity: O(m log m + log n) expected for m results.
  public func points(withinKilometers radiusKilometers: Double, of point: GeoPoint) -> [Neighbor] {
    guard count > 0, radiusKilometers >= 0 else { return [] }
    let limit = GreatCircle.chordSquared(kilometers: radiusKilometers)
    var visitor = CollectingVisitor(count: nil, fixedLimit: limit)
    traverse(Self.unitVector(point), &visitor)
    return finish(visitor, point, count: .max, maxDistanceKilometers: radiusKilometers)
  }

  // MARK: - Internals

  /// A squared chord plus a margin that exceeds any rounding difference between the chord of two unit
  /// vectors and the haversine of the same pair (about 1e-15 absolute on the chord), so that no point whose
  /// exact distance could tie with or beat a candidate is ever pruned.
  @inlinable
  static func slackLimit(_ chordSquared: Double) -> Double {
    chordSquared + 1e-12 * chordSquared + 1e-13 * chordSquared.squareRoot() + 1e-28
  }

  /// The haversine distance from `point` to the point at a tree position, in kilometres: the input point's
  /// `GreatCircle.distanceKilometers(from:to:)`, as a brute-force scan computes it.
  @inlinable
  func exactDistance(_ point: GeoPoint, position: Int) -> Double {
    GreatCircle.distanceKilometers(from: point, to: points[position])
  }

  /// Ranks a collecting visitor's candidates by exact distance.
  func finish(
    _ visitor: CollectingVisitor, _ point: GeoPoint, count: Int, maxDistanceKilometers: Double
  ) -> [Neighbor] {
    let limit = visitor.limit
    var results = [Neighbor]()
    results.reserveCapacity(visitor.candidates.count)
    for candidate in visitor.candidates where candidate.chordSquared <= limit {
      let distance = exactDistance(point, position: candidate.position)
      if distance <= maxDistanceKilometers {
        results.append(Neighbor(index: Int(indices[candidate.position]), distanceKilometers: distance))
      }
    }
    results.sort(by: Neighbor.precedes)
    if results.count > count { results.removeSubrange(count...) }
    return results
  }

  /// Depth-first search, nearer child first, skipping every subtree whose box is beyond `visitor.limit`.
  @inlinable
  func traverse<V: Visitor>(_ query: SIMD3<Double>, _ visitor: inout V) {
    xs.withUnsafeBufferPointer { xs in
      ys.withUnsafeBufferPointer { ys in
        zs.withUnsafeBufferPointer { zs in
          splitValues.withUnsafeBufferPointer { values in
            splitAxes.withUnsafeBufferPointer { axes in
              let tree = Layout(
                xs: xs.baseAddress!, ys: ys.baseAddress!, zs: zs.baseAddress!, values: values.baseAddress!,
                axes: axes.baseAddress!, leafSize: leafSize)
              tree.search(
                query, node: 1, low: 0, high: xs.count, bound: 0, offsets: .zero, visitor: &visitor)
            }
          }
        }
      }
    }
  }

  /// The tree's arrays, borrowed for one search.
  @usableFromInline
  struct Layout {
    @usableFromInline let xs: UnsafePointer<Double>
    @usableFromInline let ys: UnsafePointer<Double>
    @usableFromInline let zs: UnsafePointer<Double>
    @usableFromInline let values: UnsafePointer<Double>
    @usableFromInline let axes: UnsafePointer<UInt8>
    @usableFromInline let leafSize: Int

    @inlinable
    init(
      xs: UnsafePointer<Double>, ys: UnsafePointer<Double>, zs: UnsafePointer<Double>,
      values: UnsafePointer<Double>, axes: UnsafePointer<UInt8>, leafSize: Int
    ) {
      self.xs = xs
      self.ys = ys
      self.zs = zs
      self.values = values
      self.axes = axes
      self.leafSize = leafSize
    }

    /// One node of the search. `bound` is the squared distance from the query to the node's box, built
    /// incrementally from the per-axis `offsets` (Arya and Mount, 1993).
    @inlinable
    func search<V: Visitor>(
      _ query: SIMD3<Double>, node: Int, low: Int, high: Int, bound: Double, offsets: SIMD3<Double>,
      visitor: inout V
    ) {
      if high - low <= leafSize {
        var i = low
        while i < high {
          let dx = xs[i] - query.x
          let dy = ys[i] - query.y
          let dz = zs[i] - query.z
          let d = dx * dx + dy * dy + dz * dz
          if d <= visitor.limit { visitor.visit(chordSquared: d, position: i) }
          i += 1
        }
        return
      }
      let axis = Int(axes[node])
      let difference = query[axis] - values[node]
      let middle = (low + high) >> 1
      let old = offsets[axis]
      let farBound = bound - old * old + difference * difference
      var farOffsets = offsets
      farOffsets[axis] = difference
      if difference < 0 {
        search(
          query, node: 2 * node, low: low, high: middle, bound: bound, offsets: offsets, visitor: &visitor)
        if farBound <= visitor.limit {
          search(
            query, node: 2 * node + 1, low: middle, high: high, bound: farBound, offsets: farOffsets,
            visitor: &visitor)
        }
      } else {
        search(
          query, node: 2 * node + 1, low: middle, high: high, bound: bound, offsets: offsets,
          visitor: &visitor)
        if farBound <= visitor.limit {
          search(
            query, node: 2 * node, low: low, high: middle, bound: farBound, offsets: farOffsets,
            visitor: &visitor)
        }
      }
    }
  }
}

/// What a search reports each point within its current limit to.
@usableFromInline
protocol Visitor {
  /// The squared chord beyond which nothing can matter any more; it only ever shrinks.
  var limit: Double { get }
  mutating func visit(chordSquared: Double, position: Int)
}

/// Tracks the two smallest chords seen, enough to prove the nearest point unique without allocating.
@usableFromInline
struct NearestVisitor: Visitor {
  @usableFromInline var best = Double.infinity
  @usableFromInline var second = Double.infinity
  @usableFromInline var bestPosition = 0
  @usableFromInline var limit = Double.infinity

  @inlinable init() {}

  @inlinable
  mutating func visit(chordSquared d: Double, position: Int) {
    if d < best {
      second = best
      best = d
      bestPosition = position
      limit = SphericalKDTree.slackLimit(d)
    } else if d < second {
      second = d
    }
  }
}

/// Keeps every point that may rank among the `count` nearest (or all within a fixed limit when `count` is nil).
@usableFromInline
struct CollectingVisitor: Visitor {
  @usableFromInline struct Candidate {
    @usableFromInline var chordSquared: Double
    @usableFromInline var position: Int
  }

  @usableFromInline var candidates: [Candidate] = []
  /// A max-heap of the `count` smallest chords seen so far.
  @usableFromInline var heap: [Double] = []
  @usableFromInline let count: Int?
  @usableFromInline var limit: Double
  @usableFromInline var compactionThreshold: Int

  init(count: Int?, fixedLimit: Double) {
    self.count = count
    self.limit = SphericalKDTree.slackLimit(fixedLimit)
    self.compactionThreshold = 2 * Swift.max(count ?? 0, 32)
    if let count { heap.reserveCapacity(count) }
  }

  @usableFromInline
  mutating func visit(chordSquared d: Double, position: Int) {
    candidates.append(Candidate(chordSquared: d, position: position))
    guard let count else { return }
    if heap.count < count {
      heap.append(d)
      siftUp(heap.count - 1)
      if heap.count == count { tighten() }
    } else if d < heap[0] {
      heap[0] = d
      siftDown(0)
      tighten()
    }
    if candidates.count >= compactionThreshold {
      let limit = self.limit
      candidates.removeAll { $0.chordSquared > limit }
      if candidates.count * 2 >= compactionThreshold { compactionThreshold *= 2 }
    }
  }

  private mutating func tighten() {
    limit = Swift.min(limit, SphericalKDTree.slackLimit(heap[0]))
  }

  private mutating func siftUp(_ start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      if heap[parent] >= heap[child] { return }
      heap.swapAt(parent, child)
      child = parent
    }
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      var largest = parent
      let left = 2 * parent + 1
      let right = left + 1
      if left < heap.count && heap[left] > heap[largest] { largest = left }
      if right < heap.count && heap[right] > heap[largest] { largest = right }
      if largest == parent { return }
      heap.swapAt(parent, largest)
      parent = largest
    }
  }
}
