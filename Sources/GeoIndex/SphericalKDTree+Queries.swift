#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
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
    if entries.isEmpty { return nil }
    let query = Self.query(point)
    var visitor = NearestVisitor()
    traverse(query, &visitor)
    if visitor.second > Self.slackLimit(visitor.best) {
      // No other point comes within rounding distance of the best: it is the answer.
      return Neighbor(
        index: entries[visitor.bestPosition].index,
        distanceKilometers: exactDistance(point, position: visitor.bestPosition))
    }
    return neighbors(of: point, count: 1).first
  }

  /// The `count` nearest points to `point`, nearest first, no farther than `maxDistanceKilometers`.
  ///
  /// Equal distances are ordered by lowest index, exactly as a brute-force sort would order them.
  /// - Complexity: O(k log k + log n) expected for spread-out points.
  public func neighbors(
    of point: GeoPoint, count: Int, maxDistanceKilometers: Double = .infinity
  ) -> [Neighbor] {
    guard count > 0, !entries.isEmpty, maxDistanceKilometers >= 0 else { return [] }
    let limit = GreatCircle.chordSquared(kilometers: maxDistanceKilometers)
    var visitor = CollectingVisitor(count: Swift.min(count, entries.count), fixedLimit: limit)
    traverse(Self.query(point), &visitor)
    return finish(visitor, point, count: count, maxDistanceKilometers: maxDistanceKilometers)
  }

  /// Every point within `radiusKilometers` of `point` (inclusive), nearest first.
  ///
  /// Equal distances are ordered by lowest index. A radius of half the circumference or more returns all.
  /// - Complexity: O(m log m + log n) expected for m results.
  public func points(withinKilometers radiusKilometers: Double, of point: GeoPoint) -> [Neighbor] {
    guard !entries.isEmpty, radiusKilometers >= 0 else { return [] }
    let limit = GreatCircle.chordSquared(kilometers: radiusKilometers)
    var visitor = CollectingVisitor(count: nil, fixedLimit: limit)
    traverse(Self.query(point), &visitor)
    return finish(visitor, point, count: .max, maxDistanceKilometers: radiusKilometers)
  }

  // MARK: - Internals

  /// The unit vector of a point, computed exactly as the tree computed its own.
  @inlinable
  static func query(_ point: GeoPoint) -> Entry {
    let latitude = point.latitude * GreatCircle.radiansPerDegree
    let longitude = point.longitude * GreatCircle.radiansPerDegree
    let cosLatitude = GreatCircle.cosine(latitudeDegrees: point.latitude)
    return Entry(
      x: cosLatitude * cos(longitude), y: cosLatitude * sin(longitude), z: sin(latitude), index: -1)
  }

  /// A squared chord plus a margin that exceeds any rounding difference between the chord of two unit
  /// vectors and the haversine of the same pair (about 1e-15 absolute on the chord), so that no point whose
  /// exact distance could tie with or beat a candidate is ever pruned.
  @inlinable
  static func slackLimit(_ chordSquared: Double) -> Double {
    chordSquared + 1e-12 * chordSquared + 1e-13 * chordSquared.squareRoot() + 1e-28
  }

  /// The haversine distance from `point` to the point at a tree position, in kilometres.
  @inlinable
  func exactDistance(_ point: GeoPoint, position: Int) -> Double {
    GreatCircle.distanceKilometers(
      from: point,
      to: GeoPoint(uncheckedLatitude: latitudes[position], longitude: longitudes[position]))
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
        results.append(Neighbor(index: entries[candidate.position].index, distanceKilometers: distance))
      }
    }
    results.sort(by: Neighbor.precedes)
    if results.count > count { results.removeSubrange(count...) }
    return results
  }

  /// Depth-first search, nearer child first, skipping every subtree whose box is beyond `visitor.limit`.
  @inlinable
  func traverse<V: Visitor>(_ query: Entry, _ visitor: inout V) {
    entries.withUnsafeBufferPointer { entries in
      splitAxes.withUnsafeBufferPointer { axes in
        Self.search(
          entries, axes, nodeSize: nodeSize, query: query, left: 0, right: entries.count - 1,
          bound: 0, offsets: .zero, visitor: &visitor)
      }
    }
  }

  /// One node of the search. `bound` is the squared distance from the query to the node's box, built
  /// incrementally from the per-axis `offsets` (Arya and Mount, 1993).
  @inlinable
  static func search<V: Visitor>(
    _ entries: UnsafeBufferPointer<Entry>, _ axes: UnsafeBufferPointer<UInt8>, nodeSize: Int,
    query: Entry, left: Int, right: Int, bound: Double, offsets: SIMD3<Double>, visitor: inout V
  ) {
    if right - left <= nodeSize {
      var i = left
      while i <= right {
        let e = entries[i]
        let dx = e.x - query.x
        let dy = e.y - query.y
        let dz = e.z - query.z
        let d = dx * dx + dy * dy + dz * dz
        if d <= visitor.limit { visitor.visit(chordSquared: d, position: i) }
        i += 1
      }
      return
    }
    let middle = (left + right) >> 1
    let e = entries[middle]
    let dx = e.x - query.x
    let dy = e.y - query.y
    let dz = e.z - query.z
    let d = dx * dx + dy * dy + dz * dz
    if d <= visitor.limit { visitor.visit(chordSquared: d, position: middle) }

    let axis = axes[middle]
    let difference = query[axis] - e[axis]
    let old = offsets[Int(axis)]
    let farBound = bound - old * old + difference * difference
    var farOffsets = offsets
    farOffsets[Int(axis)] = difference
    if difference <= 0 {
      search(
        entries, axes, nodeSize: nodeSize, query: query, left: left, right: middle - 1,
        bound: bound, offsets: offsets, visitor: &visitor)
      if farBound <= visitor.limit {
        search(
          entries, axes, nodeSize: nodeSize, query: query, left: middle + 1, right: right,
          bound: farBound, offsets: farOffsets, visitor: &visitor)
      }
    } else {
      search(
        entries, axes, nodeSize: nodeSize, query: query, left: middle + 1, right: right,
        bound: bound, offsets: offsets, visitor: &visitor)
      if farBound <= visitor.limit {
        search(
          entries, axes, nodeSize: nodeSize, query: query, left: left, right: middle - 1,
          bound: farBound, offsets: farOffsets, visitor: &visitor)
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
