#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// supercluster's options, with its defaults.
public struct ClusterOptions: Sendable, Equatable {
  /// The lowest zoom at which points are clustered.
  public var minZoom = 0
  /// The highest zoom at which points are clustered; above it queries return the raw points.
  public var maxZoom = 16
  /// The fewest points that make a cluster.
  public var minPoints = 2
  /// The cluster radius, in pixels of a tile `extent` pixels wide.
  public var radiusPixels: Double = 40
  /// The width of a tile, in pixels.
  public var extent: Double = 512
  /// The leaf size of the per-zoom k-d trees (it changes the output order, so it is an option).
  public var nodeSize = 64
  /// The zooms whose clusters the index keeps (nil: all). A tool that will ask about one zoom can drop the
  /// others as soon as they are built, and use a fraction of the memory; asking about a zoom it dropped is a
  /// programming error and traps. Children, leaves and expansion zooms need every zoom from the cluster's own
  /// up to `maxZoom + 1`.
  public var retainedZooms: ClosedRange<Int>? = nil

  public init() {}
}

/// Why an index cannot be built or a cluster query cannot be answered.
public enum ClusterError: Error, Equatable, Sendable, CustomStringConvertible {
  case noCluster(id: Int)
  /// The cluster exists, but not on the map of that zoom (it is split there, or merged into a bigger one).
  case notAtZoom(id: Int, zoom: Double)
  /// An option outside its range (`ClusterOptions.check`): the value as given and what is accepted.
  case outOfRange(option: ClusterOptions.Option, value: String, accepted: String)
  /// More points than cluster ids can number (`limit`, supercluster's 26 bits of an item's position).
  case tooManyPoints(count: Int, limit: Int)

  public var description: String { description(naming: \.rawValue) }

  /// The sentence, with an option called by `name` (a CLI says `--max-zoom`, a query `maxZoom`).
  public func description(naming name: (ClusterOptions.Option) -> String) -> String {
    switch self {
    case .noCluster(let id): return "No cluster has the id \(id) in this index."
    case .notAtZoom(let id, let zoom):
      return "No cluster has the id \(id) at zoom \(ClusterOptions.text(zoom))."
    case .outOfRange(let option, let value, let accepted):
      return "\(name(option)) is \(accepted), not \(value)."
    case .tooManyPoints(let count, let limit):
      return "An index holds at most \(limit) points, as supercluster's cluster ids do; these are \(count)."
    }
  }
}

/// A cluster of points at one zoom, as supercluster describes it.
public struct Cluster: Hashable, Sendable {
  /// The cluster's id: its seed's position and zoom, offset by the number of input features (supercluster's).
  public let id: Int
  /// How many input points it holds.
  public let pointCount: Int
  /// The point-count-weighted centre of its members in supercluster's Web Mercator units (0...1), kept as
  /// such: a tile needs no latitude and longitude, so they are worked out only when `center` is asked for.
  let mercatorX: Double
  let mercatorY: Double
  /// Where the cluster's aggregate is in `ClusterIndex.aggregates`, if the index aggregates properties.
  public let aggregateIndex: Int?

  /// The point-count-weighted centre of its members, in Web Mercator, as a position.
  public var center: GeoPoint {
    GeoPoint(
      uncheckedLatitude: Projection.latitude(y: mercatorY), longitude: Projection.longitude(x: mercatorX))
  }

  /// supercluster's `point_count_abbreviated`: the count below 1000, then "1.2k" and "12k", rounded half up.
  public var pointCountAbbreviated: String {
    if pointCount >= 10_000 { return "\(Self.roundHalfUp(Double(pointCount) / 1000))k" }
    if pointCount >= 1000 {
      let tenths = Self.roundHalfUp(Double(pointCount) / 100)
      return tenths % 10 == 0 ? "\(tenths / 10)k" : "\(tenths / 10).\(tenths % 10)k"
    }
    return String(pointCount)
  }

  /// JavaScript's `Math.round`: the nearest integer, halves towards +∞.
  static func roundHalfUp(_ value: Double) -> Int {
    let floor = value.rounded(.down)
    return Int(value - floor >= 0.5 ? floor + 1 : floor)
  }
}

/// What a cluster query returns: a cluster, or an input point left on its own.
public enum ClusterItem: Hashable, Sendable {
  /// An input point, by its offset in the input (null-geometry slots included).
  case point(index: Int)
  case cluster(Cluster)
}

/// A feature of a map tile: a position in tile pixels and what is there.
public struct TileFeature: Hashable, Sendable {
  /// Pixels from the tile's left edge (negative or beyond `extent` in the buffer zone).
  public let x: Int
  /// Pixels from the tile's top edge.
  public let y: Int
  public let item: ClusterItem
}

/// Zoom-level point clustering that reproduces supercluster 8.0.1's clusters, ids, centres and order.
///
/// Follows supercluster (Vladimir Agafonkin, Mapbox; ISC): points are projected to spherical Mercator in
/// [0, 1]², rounded to Float as supercluster does, and clustered greedily zoom by zoom from `maxZoom` down to
/// `minZoom`; each zoom is indexed by a `PlanarKDTree` (kdbush) whose traversal order decides cluster ids and
/// output order. A cluster's id encodes its seed's position and zoom as supercluster's does, so ids are
/// interchangeable with it for the same input and options.
///
/// `Aggregate` is the type of the per-cluster value built by `map` and `reduce` (supercluster's map/reduce
/// options); use `Void` for none. Called from another module, a generic function runs unspecialised unless it
/// says otherwise: the build, `buildDeferredTrees` and `tile` have a specialisation for `[Double]` (the
/// aggregates of the service, the CLI and the Python package), which their generic entry points use.
public struct ClusterIndex<Aggregate> {
  /// One zoom's items as the build writes them, in supercluster's data-array order, every field of every
  /// item at full width; a finished zoom is kept as a compact `Level`.
  struct Draft {
    var xs: [Double] = []
    var ys: [Double] = []
    /// Input index for a point, cluster id for a cluster.
    var ids: [Int] = []
    var counts: [Int32] = []
    /// The id of the cluster that took the item at the next lower zoom, or -1 (filled in one go when the
    /// level is complete; the next zoom's clustering writes it).
    var parents: [Int32] = []
    /// Index into `aggregates`, or -1; empty when the index aggregates nothing (4 bytes an item saved).
    var aggregateIndices: [Int32] = []
    /// Whether `aggregateIndices` is kept.
    var aggregated = false
    /// Whether the zoom that made the level put a neighbour list in its k-d tree order (the level above's):
    /// then the level depends on that tree, which another point anywhere can reorder.
    var ordered = false
    /// The level's k-d tree, once built: beside the next zoom's neighbour searches when many items have
    /// neighbours there, else when the next zoom's clustering first needs its order (or never in the build).
    var tree: PlanarKDTree? = nil
    init(aggregated: Bool = false) {
      self.aggregated = aggregated
    }

    mutating func append(x: Double, y: Double, id: Int, count: Int32, aggregateIndex: Int32) {
      xs.append(x)
      ys.append(y)
      ids.append(id)
      counts.append(count)
      if aggregated { aggregateIndices.append(aggregateIndex) }
    }

    /// Appends copies of the items `run` of `other`, in order.
    mutating func append(run: Range<Int>, from other: Draft) {
      xs.append(contentsOf: other.xs[run])
      ys.append(contentsOf: other.ys[run])
      ids.append(contentsOf: other.ids[run])
      counts.append(contentsOf: other.counts[run])
      if aggregated {
        if other.aggregated {
          aggregateIndices.append(contentsOf: other.aggregateIndices[run])
        } else {
          aggregateIndices.append(contentsOf: repeatElement(-1, count: run.count))
        }
      }
    }

    mutating func append(copyOf i: Int, from other: Draft) {
      append(
        x: other.xs[i], y: other.ys[i], id: other.ids[i], count: other.counts[i],
        aggregateIndex: other.aggregated ? other.aggregateIndices[i] : -1)
    }

    /// The item's index into `aggregates`, or -1.
    func aggregateIndex(_ i: Int) -> Int32 { aggregated ? aggregateIndices[i] : -1 }
  }

  public let options: ClusterOptions
  /// The input positions (nil where a feature had no Point geometry), for tiles.
  @usableFromInline let points: [GeoPoint?]
  /// How many input features it was built from (those without a Point included).
  public var inputCount: Int { points.count }
  /// Levels for zooms `minZoom...maxZoom + 1`, at `zoom - minZoom`.
  @usableFromInline var levels: [Level]
  /// Each input point's projected position as the index keeps it (single precision, as supercluster rounds
  /// it), by input index: a level names a lone point by its index instead of keeping its coordinates.
  @usableFromInline let pointXs: [Float]
  @usableFromInline let pointYs: [Float]
  /// How far each input point is at least from every other (`NeighborLists.clearances`, rounded down), by
  /// input index, so that `appending(_:threads:)` searches only the items a whole build would; empty when the
  /// index aggregates (it cannot be appended to).
  let pointClearances: [Float]
  /// Every cluster's aggregate (supercluster's `clusterProps`).
  public private(set) var aggregates: [Aggregate] = []
  /// Whether it was built with `map` and `reduce`.
  let aggregating: Bool

  /// Builds the index.
  ///
  /// - Parameters:
  ///   - points: one entry per input feature; nil for features without a Point geometry (they keep their slot,
  ///     so ids and indices match supercluster's for the same FeatureCollection).
  ///   - map: a point's initial aggregate, by input index.
  ///   - reduce: folds a member's aggregate into a cluster's.
  ///   - threads: how many threads the build may use (default: one a processor); the index is the same
  ///     whatever the number. Each zoom's k-d sort and neighbour searches are shared between them.
  /// - Throws: `ClusterError.outOfRange` for an option outside its range (`ClusterOptions.check`),
  ///   `.tooManyPoints` for more points than cluster ids can number.
  /// - Complexity: O(n log n) per zoom.
  @_specialize(where Aggregate == [Double])  // see `ClusterIndex`
  public init(
    points: [GeoPoint?], options: ClusterOptions = ClusterOptions(),
    map: ((Int) -> Aggregate)?, reduce: ((inout Aggregate, Aggregate) -> Void)?, threads: Int? = nil
  ) throws(ClusterError) {
    try options.check()
    // supercluster's ids keep an item's position in 26 bits (`index << 5` in 32-bit arithmetic).
    guard points.count < 1 << 26 else { throw .tooManyPoints(count: points.count, limit: (1 << 26) - 1) }
    self.options = options
    self.points = points

    // Small inputs (the 54 markers) stay on this thread: a helper is not worth waking for them.
    let forks = points.count >= NeighborLists.parallelThreshold ? ForkJoin.forks(threads: threads) : 0
    // A tree left to its first query is built on as many threads (a large one, see `DeferredTree`).
    let treeForks = ForkJoin.forks(threads: threads)
    var level = Draft(aggregated: map != nil && reduce != nil)
    var pointXs = [Float](repeating: 0, count: points.count)
    var pointYs = [Float](repeating: 0, count: points.count)
    // The projection (a sine and a logarithm a point) on every core, then the level in input order.
    pointXs.withUnsafeMutableBufferPointer { pointXs in
      pointYs.withUnsafeMutableBufferPointer { pointYs in
        _ = ForkJoin.split(points.indices, forks: forks) { range in
          for i in range {
            guard let point = points[i] else { continue }
            pointXs[i] = Float(Projection.x(longitude: point.longitude))
            pointYs[i] = Float(Projection.y(latitude: point.latitude))
          }
        } merge: { _, _ in
        }
      }
    }
    level.xs.reserveCapacity(points.count)
    level.ys.reserveCapacity(points.count)
    level.ids.reserveCapacity(points.count)
    level.counts.reserveCapacity(points.count)
    for (i, point) in points.enumerated() where point != nil {
      level.append(
        x: Double(pointXs[i]), y: Double(pointYs[i]), id: i, count: 1, aggregateIndex: -1)
    }
    self.pointXs = pointXs
    self.pointYs = pointYs
    level.parents = [Int32](repeating: -1, count: level.xs.count)
    // How far each input point is at least from every other: a lone point farther than a zoom's radius from
    // everything has no neighbour there and is no one's neighbour, so the neighbour searches skip it
    // (`members(_:within:xs:ys:forks:)`, which also finds the lone points near a cluster); when no item is
    // that close, the zoom leaves the level as it is. Found once for the input (up to about the mean spacing
    // of the points) and carried down the zooms with the lone points (-inf for a cluster).
    let searchRadius = max(
      Self.radius(zoom: options.maxZoom, options: options), 1 / Double(max(1, level.xs.count)).squareRoot())
    let clearances = NeighborLists.clearances(
      xs: level.xs, ys: level.ys, searchRadius: searchRadius, forks: forks)
    var aggregation: (map: (Int) -> Aggregate, reduce: (inout Aggregate, Aggregate) -> Void)? = nil
    if let map, let reduce { aggregation = (map, reduce) }
    aggregating = aggregation != nil
    var pointClearances: [Float] = []
    if !aggregating {
      pointClearances = [Float](repeating: 0, count: points.count)
      for (k, id) in level.ids.enumerated() { pointClearances[id] = Self.roundedDown(clearances[k]) }
    }
    self.pointClearances = pointClearances
    var aggregates: [Aggregate] = []
    levels = Self.zooms(
      from: options.maxZoom, level: level, clearances: clearances, above: [], sameItems: false,
      options: options, featureCount: points.count, forks: forks, treeForks: treeForks,
      aggregation: aggregation, aggregates: &aggregates)
    self.aggregates = aggregates
  }

  /// Clusters the zooms from `zoom` down to `minZoom`, `level` being the items of `zoom + 1` (with their
  /// `clearances`, `NeighborLists.clearances`), below the finished levels `above` (from `maxZoom + 1` down to
  /// `zoom + 2`; `sameItems` when the last of them holds the same items as `level`, which then shares its
  /// storage); returns every level, from `minZoom` up.
  static func zooms(
    from startZoom: Int, level: Draft, clearances: [Double], above: [Level], sameItems: Bool,
    options: ClusterOptions, featureCount: Int, forks: Int, treeForks: Int,
    aggregation: (map: (Int) -> Aggregate, reduce: (inout Aggregate, Aggregate) -> Void)?,
    aggregates: inout [Aggregate]
  ) -> [Level] {
    var clearances = clearances
    // The level being clustered (finished once the zoom below has written its parents, then kept compact),
    // and the compact levels so far, from `maxZoom + 1` down.
    var current = level
    var finished = above
    finished.reserveCapacity(options.maxZoom - options.minZoom + 2)
    // Whether `current` holds the same items, in the same order, as the last finished level (nothing merged
    // at its zoom), which then lends it its items, clusters and tree.
    var sameItems = sameItems
    var neighbors: [Int] = []
    neighbors.reserveCapacity(64)
    // The neighbour lists for the coming zoom, when they were found as its level was made.
    var pending: NeighborLists? = nil
    // Whether the last zoom clustered needed its level's whole tree to order neighbours: the next level's
    // is then built beside the next zoom's searches. Neighbour order matters for every list of two or more
    // when the index aggregates or `minPoints` is above 2, else only where it can change a centre's
    // rounding (`sumsExactly`): at 1M uniform points, in none of the lists of zooms 11–7 and in 254 of
    // 147,542 at zoom 6.
    let orderAlways = aggregation != nil || options.minPoints > 2
    var treeWanted = orderAlways

    func finish(_ draft: inout Draft, zoom: Int, sameItems: Bool) {
      if let retained = options.retainedZooms, !retained.contains(zoom) {
        finished.append(Level(dropped: ()))
      } else if sameItems, let last = finished.last, !last.dropped {
        let level = last.withParents(draft.parents)
        if let tree = draft.tree { level.tree.offer(tree) }
        finished.append(level)
      } else {
        finished.append(Level(draft, treeForks: treeForks))
      }
      draft = Draft()  // done with it: free it now
    }

    for zoom in stride(from: startZoom, through: options.minZoom, by: -1) {
      let radius = Self.radius(zoom: zoom, options: options)
      var next: Draft
      var unchanged = true
      let members =
        pending == nil
        ? Self.members(clearances, within: radius, xs: current.xs, ys: current.ys, forks: forks) : []
      if pending == nil && members.isEmpty {
        next = current  // nothing within reach: the same items, order and tree
        next.ordered = false
      } else {
        let lists =
          pending
          ?? NeighborLists(
            members: members, xs: current.xs, ys: current.ys, radius: radius, forks: forks)
        pending = nil
        let changed: Bool
        let orderedByTree: Bool
        (next, changed, clearances, orderedByTree) = Self.cluster(
          &current, radius: radius, zoom: zoom, options: options, featureCount: featureCount,
          lists: lists, clearances: clearances, forks: forks, aggregation: aggregation,
          aggregates: &aggregates, neighbors: &neighbors)
        treeWanted = orderAlways || orderedByTree
        if !changed {
          next.tree = current.tree  // nothing merged: the same items in the same order, so the same tree
        } else {
          unchanged = false
        }
      }
      // The level above is complete (the clustering wrote its parents): kept compact from now on, before the
      // new level's tree is built beside it.
      finish(&current, zoom: zoom + 1, sameItems: sameItems)
      if !unchanged {
        // The next zoom's neighbour searches need the items only, not the tree (just its order, later), so
        // when they are a fair share of the work and this zoom needed its whole tree, they run beside the
        // tree's build, which that zoom's clustering will likely need too (order matters in more lists as
        // zooms go down). Otherwise the searches come first, and the tree waits until a neighbour list needs
        // its order (at the top zooms of a large input, none does), or for a query at this zoom
        // (`DeferredTree`).
        let nextRadius = Self.radius(zoom: zoom - 1, options: options)
        let nextMembers =
          zoom > options.minZoom
          ? Self.members(clearances, within: nextRadius, xs: next.xs, ys: next.ys, forks: forks) : []
        if forks > 0 && treeWanted && nextMembers.count >= next.xs.count / 4 {
          var tree: PlanarKDTree? = nil
          ForkJoin.both(
            {
              pending = NeighborLists(
                members: nextMembers, xs: next.xs, ys: next.ys, radius: nextRadius, forks: forks)
            },
            { tree = PlanarKDTree(xs: next.xs, ys: next.ys, nodeSize: options.nodeSize, forks: forks) })
          next.tree = tree
        } else if !nextMembers.isEmpty {
          pending = NeighborLists(
            members: nextMembers, xs: next.xs, ys: next.ys, radius: nextRadius, forks: forks)
        }
      }
      current = next
      sameItems = unchanged
    }
    finish(&current, zoom: options.minZoom, sameItems: sameItems)
    return finished.reversed()
  }

  /// Clusters one zoom: reads the level of `zoom + 1` (marking parents in it), returns the level of `zoom`,
  /// its items' clearances, and whether neighbours were put in order by the level's whole tree.
  ///
  /// supercluster's `_cluster`: walk the items in data order; an item not yet taken gathers every untaken
  /// neighbour within the zoom's radius; enough points make a cluster whose centre is the count-weighted mean
  /// accumulated in the tree's neighbour order; otherwise the item (and any too-few neighbours) is copied down.
  /// `lists` holds the neighbours at this radius; `clearances` are how far each lone point is from all other
  /// input points at least (-inf for a cluster).
  private static func cluster(
    _ previous: inout Draft, radius: Double, zoom: Int, options: ClusterOptions, featureCount: Int,
    lists: NeighborLists, clearances: [Double], forks: Int,
    aggregation: (map: (Int) -> Aggregate, reduce: (inout Aggregate, Aggregate) -> Void)?,
    aggregates: inout [Aggregate], neighbors: inout [Int]
  ) -> (level: Draft, changed: Bool, clearances: [Double], orderedByTree: Bool) {
    var next = Draft(aggregated: aggregation != nil)
    let count = previous.xs.count
    next.xs.reserveCapacity(count)
    next.ys.reserveCapacity(count)
    next.ids.reserveCapacity(count)
    next.counts.reserveCapacity(count)
    if next.aggregated { next.aggregateIndices.reserveCapacity(count) }
    var nextClearances: [Double] = []
    nextClearances.reserveCapacity(count)
    var taken = [Bool](repeating: false, count: count)
    // Neighbours go in the order kdbush's `within` would return them where that order can change the
    // result: by rank in the tree's traversal, worked out when a list first needs it. Aggregates are
    // reduced in it, and below `minPoints` the neighbours are copied to the next zoom in it; otherwise it
    // decides only the rounding of a centre's sums, which most lists do not round at all.
    var ranks: [UInt32] = []
    let orderAlways = aggregation != nil || options.minPoints > 2

    func mapped(_ k: Int) -> Aggregate {
      if previous.counts[k] > 1 { return aggregates[Int(previous.aggregateIndex(k))] }
      return aggregation!.map(previous.ids[k])
    }

    var changed = false
    var i = 0
    while i < count {
      defer { i += 1 }
      if taken[i] { continue }
      if lists.hasNone(i) {
        // A run of untaken items without neighbours is copied as it is (most items, at the top zooms).
        var end = i + 1
        while end < count && !taken[end] && lists.hasNone(end) { end += 1 }
        next.append(run: i..<end, from: previous)
        nextClearances.append(contentsOf: clearances[i..<end])
        for j in i..<end { taken[j] = true }  // no later item takes them
        i = end - 1
        continue
      }
      taken[i] = true
      let x = previous.xs[i]
      let y = previous.ys[i]
      neighbors.removeAll(keepingCapacity: true)
      lists.neighbors(of: i, into: &neighbors)
      if neighbors.count > 1
        && (orderAlways || !Self.sumsExactly(previous.xs, previous.ys, previous.counts, i, neighbors))
      {
        if ranks.isEmpty {
          // Where every list of two or more is put in order, a few of them are ranked without the whole
          // tree; where only the lists whose sums round are, finding those first costs more than the tree.
          let ordered =
            orderAlways && previous.tree == nil
            ? lists.itemsOfLongerLists(upTo: Self.partialRanksLimit(count, options.nodeSize)) : nil
          ranks = Self.ranks(&previous, ordering: ordered, nodeSize: options.nodeSize, forks: forks)
        }
        NeighborLists.sortByRank(&neighbors, ranks)
      }
      let ownCount = Int(previous.counts[i])
      var numPoints = ownCount
      for k in neighbors where !taken[k] { numPoints += Int(previous.counts[k]) }

      if numPoints > ownCount && numPoints >= options.minPoints {
        changed = true
        var wx = x * Double(ownCount)
        var wy = y * Double(ownCount)
        let id = (i << 5) + (zoom + 1) + featureCount
        var aggregate: Aggregate? = nil
        for k in neighbors where !taken[k] {
          taken[k] = true
          let weight = Double(previous.counts[k])
          wx += previous.xs[k] * weight
          wy += previous.ys[k] * weight
          previous.parents[k] = Int32(truncatingIfNeeded: id)
          if let aggregation {
            if aggregate == nil { aggregate = mapped(i) }
            aggregation.reduce(&aggregate!, mapped(k))
          }
        }
        previous.parents[i] = Int32(truncatingIfNeeded: id)
        var aggregateIndex: Int32 = -1
        if let aggregate {
          aggregateIndex = Int32(aggregates.count)
          aggregates.append(aggregate)
        }
        next.append(
          x: wx / Double(numPoints), y: wy / Double(numPoints), id: id, count: Int32(numPoints),
          aggregateIndex: aggregateIndex)
        nextClearances.append(-.infinity)
      } else {
        next.append(copyOf: i, from: previous)
        nextClearances.append(clearances[i])
        if numPoints > 1 {
          for k in neighbors where !taken[k] {
            taken[k] = true
            next.append(copyOf: k, from: previous)
            nextClearances.append(clearances[k])
            changed = true  // copied out of data order
          }
        }
      }
    }
    next.parents = [Int32](repeating: -1, count: next.xs.count)
    next.ordered = changed && !ranks.isEmpty
    return (next, changed, nextClearances, !ranks.isEmpty && previous.tree != nil)
  }

  /// Whether the count-weighted sums of `xs` and of `ys` over item `i` and `others` (supercluster's
  /// accumulation of a cluster's centre, `i` first) are exact, so the same whatever the order of `others`.
  ///
  /// The terms are non-negative (Mercator positions in [0, 1]², positive counts). If each is a whole
  /// multiple of 2^q, the smallest power of two any of them is a multiple of, and the exact total is below
  /// 2^(q + 53), every partial sum in any order is such a multiple below 2^(q + 53), which a double holds
  /// exactly, so no addition rounds. The total is bounded by the rounded sum taken here with a factor of two
  /// to spare. A lone point's position is a Float (24 significant bits) and a count has at most 26, so sums
  /// of points and of clusters of two (a halving is exact) pass; centres divided by three or more mostly do
  /// not. A subnormal term is not examined: false.
  static func sumsExactly(_ xs: [Double], _ ys: [Double], _ counts: [Int32], _ i: Int, _ others: [Int])
    -> Bool
  {
    xs.withUnsafeBufferPointer { xs in
      ys.withUnsafeBufferPointer { ys in
        counts.withUnsafeBufferPointer { counts in
          others.withUnsafeBufferPointer { others in
            sumExactly(xs, counts, i, others) && sumExactly(ys, counts, i, others)
          }
        }
      }
    }
  }

  @inline(__always)
  private static func sumExactly(
    _ values: UnsafeBufferPointer<Double>, _ counts: UnsafeBufferPointer<Int32>, _ i: Int,
    _ others: UnsafeBufferPointer<Int>
  ) -> Bool {
    var lowest = Int.max
    @inline(__always) func admit(_ term: Double) -> Bool {
      if term == 0 { return true }
      guard term >= .leastNormalMagnitude else { return false }
      let significand = term.significandBitPattern | (1 << 52)
      lowest = Swift.min(lowest, Int(term.exponent) - 52 + significand.trailingZeroBitCount)
      return true
    }
    var sum = values[i] * Double(counts[i])
    guard admit(sum) else { return false }
    for k in others {
      let term = values[k] * Double(counts[k])
      guard admit(term) else { return false }
      sum += term
    }
    return sum == 0 || Int(sum.exponent) <= lowest + 51
  }
}

extension ClusterIndex {
  /// Ranks in `level`'s k-d tree traversal (`PlanarKDTree.traversalRanks()`) for the items `wanted` (those
  /// of the lists to be put in order; nil: not known, or too many): from its tree when it was built; else,
  /// when they are few (a handful of lists at the top zooms of a large input), from the part of the tree
  /// that holds them (`PlanarKDTree.traversalRanks(xs:ys:nodeSize:of:forks:)`), the tree itself left to its
  /// first query; else from the tree, built now and kept.
  static func ranks(_ level: inout Draft, ordering wanted: [UInt32]?, nodeSize: Int, forks: Int) -> [UInt32] {
    if level.tree == nil, let wanted, wanted.count <= partialRanksLimit(level.xs.count, nodeSize) {
      return PlanarKDTree.traversalRanks(
        xs: level.xs, ys: level.ys, nodeSize: nodeSize, of: wanted, forks: forks)
    }
    if level.tree == nil {
      level.tree = PlanarKDTree(xs: level.xs, ys: level.ys, nodeSize: nodeSize, forks: forks)
    }
    return level.tree!.traversalRanks()
  }

  /// The most items of a level of `count` whose ranks are worth finding without building the whole tree.
  static func partialRanksLimit(_ count: Int, _ nodeSize: Int) -> Int { count / (4 * max(2, nodeSize)) }

  /// The items of a level (at `xs`, `ys`, with their `clearances`) that may have a neighbour within `radius`,
  /// the only ones searched and searched for there: every cluster (its clearance is -inf), every lone point
  /// whose clearance is within reach, and every lone point within reach of a cluster.
  ///
  /// A lone point's clearance is its distance to the nearest other input point (`NeighborLists.clearances`,
  /// lowered by `ClusterIndex.appending` for the points it adds), and lone points do not move, so no other
  /// lone point is ever nearer. A cluster may be: its centre lies within the radius of its seed at the zoom
  /// it formed, so within the sum of the radii of the zooms above this one (less than this radius) of an
  /// input point it holds. A lone point within reach of a cluster is then within twice the reach of that
  /// point, so only the lone points whose clearance is at most that are looked up on a grid of the clusters.
  /// (Lowering every clearance by the radius at each zoom that merged, as the build did before, searched
  /// 747,000 of the 985,000 items at zoom 9 of 1M uniform points; this searches 309,000.)
  static func members(
    _ clearances: [Double], within radius: Double, xs: [Double], ys: [Double], forks: Int
  ) -> [UInt32] {
    let reach = radius + NeighborLists.clearanceSlack
    let n = clearances.count
    var clusters: [UInt32] = []
    var nearby = false  // whether some lone point may be within reach of a cluster
    for (i, clearance) in clearances.enumerated() {
      if clearance == -.infinity {
        clusters.append(UInt32(i))
      } else if clearance > reach && clearance <= 2 * reach {
        nearby = true
      }
    }
    guard nearby && !clusters.isEmpty else {
      var members: [UInt32] = []
      for (i, clearance) in clearances.enumerated() where clearance <= reach { members.append(UInt32(i)) }
      return members
    }
    let grid = CellGrid(members: clusters, xs: xs, ys: ys, cellWidth: reach, forks: forks)
    return grid.withCells { cells in
      ForkJoin.split(0..<n, forks: n >= NeighborLists.parallelThreshold ? forks : 0) { range in
        var members: [UInt32] = []
        for i in range {
          let clearance = clearances[i]
          if clearance <= reach {
            members.append(UInt32(i))
          } else if clearance <= 2 * reach {
            let (xCells, yCells) = cells.cells(x: xs[i], y: ys[i], radius: reach)
            if cells.count(x: xCells, y: yCells) > 0
              && cells.closest(x: xs[i], y: ys[i], radius: reach, excluding: -1, limit: .max) <= reach * reach
            {
              members.append(UInt32(i))
            }
          }
        }
        return members
      } merge: {
        $0 + $1
      } ?? []
    }
  }

  /// The largest Float at most `value` (a clearance kept in single precision must not grow).
  static func roundedDown(_ value: Double) -> Float {
    let rounded = Float(value)
    return Double(rounded) > value ? rounded.nextDown : rounded
  }

  /// supercluster's cluster radius at `zoom`, in its Mercator units.
  static func radius(zoom: Int, options: ClusterOptions) -> Double {
    options.radiusPixels / (options.extent * pow(2, Double(zoom)))
  }
}

extension ClusterIndex where Aggregate == Void {
  /// Builds an index without aggregated properties.
  public init(
    points: [GeoPoint?], options: ClusterOptions = ClusterOptions(), threads: Int? = nil
  ) throws(ClusterError) {
    try self.init(points: points, options: options, map: nil, reduce: nil, threads: threads)
  }
}

/// supercluster's spherical Mercator projection onto [0, 1]², with its exact order of operations.
enum Projection {
  static func x(longitude: Double) -> Double { longitude / 360 + 0.5 }

  static func y(latitude: Double) -> Double {
    let s = sin(latitude * Double.pi / 180)
    let y = 0.5 - 0.25 * log((1 + s) / (1 - s)) / Double.pi
    return y < 0 ? 0 : (y > 1 ? 1 : y)
  }

  static func longitude(x: Double) -> Double { (x - 0.5) * 360 }

  static func latitude(y: Double) -> Double {
    let y2 = (180 - y * 360) * Double.pi / 180
    return 360 * atan(exp(y2)) / Double.pi - 90
  }
}
