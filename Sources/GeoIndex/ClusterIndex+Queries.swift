#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A longitude–latitude box: `west` to `east` (it may cross the antimeridian), `south` to `north`, in degrees.
public struct GeoBox: Hashable, Sendable {
  public var west: Double
  public var south: Double
  public var east: Double
  public var north: Double

  public init(west: Double, south: Double, east: Double, north: Double) {
    self.west = west
    self.south = south
    self.east = east
    self.north = north
  }

  /// The whole world.
  public static let world = GeoBox(west: -180, south: -90, east: 180, north: 90)
}

extension ClusterIndex {
  /// The clusters and lone points in `box` at `zoom`, in supercluster's order.
  ///
  /// As supercluster's `getClusters`: longitudes wrap, latitudes clamp, a box crossing the antimeridian
  /// returns its eastern part then its western part, a fractional zoom is floored, and a zoom above `maxZoom`
  /// returns the input points.
  public func clusters(in box: GeoBox, zoom: Double) -> [ClusterItem] {
    let level = level(limitZoom(zoom))
    return indices(in: box, level).map { item(level, $0) }
  }

  /// How many items `clusters(in:zoom:)` returns, without making them (a server refuses an answer too large
  /// to build before building it).
  ///
  /// - Complexity: O(log n + k) for k items in the box, with k offsets held meanwhile.
  public func clusterCount(in box: GeoBox, zoom: Double) -> Int {
    let level = level(limitZoom(zoom))
    if box.east - box.west >= 360 && box.south <= -90 && box.north >= 90 { return level.count }
    return indices(in: box, level).count
  }

  /// The offsets in `level` of the items in `box`, in supercluster's order.
  private func indices(in box: GeoBox, _ level: Level) -> [Int] {
    var minLongitude =
      ((box.west + 180).truncatingRemainder(dividingBy: 360) + 360)
      .truncatingRemainder(dividingBy: 360) - 180
    let minLatitude = max(-90, min(90, box.south))
    var maxLongitude =
      box.east == 180
      ? 180
      : ((box.east + 180).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
        - 180
    let maxLatitude = max(-90, min(90, box.north))
    if box.east - box.west >= 360 {
      minLongitude = -180
      maxLongitude = 180
    } else if minLongitude > maxLongitude {
      return indices(in: GeoBox(west: minLongitude, south: minLatitude, east: 180, north: maxLatitude), level)
        + indices(in: GeoBox(west: -180, south: minLatitude, east: maxLongitude, north: maxLatitude), level)
    }
    var found: [Int] = []
    tree(of: level).range(
      minX: Projection.x(longitude: minLongitude), minY: Projection.y(latitude: maxLatitude),
      maxX: Projection.x(longitude: maxLongitude), maxY: Projection.y(latitude: minLatitude), into: &found)
    return found
  }

  /// The items one zoom below a cluster's: what the cluster splits into.
  ///
  /// - Throws: `ClusterError.noCluster` when no cluster has this id.
  public func children(ofCluster id: Int) throws(ClusterError) -> [ClusterItem] {
    guard id >= points.count else { throw .noCluster(id: id) }  // a point's index, or no id at all
    let origin = id - points.count
    let originZoom = origin % 32
    let originIndex = origin >> 5
    guard originZoom >= options.minZoom, originZoom <= options.maxZoom + 1 else {
      throw .noCluster(id: id)
    }
    let level = self.level(originZoom)
    guard originIndex < level.count else { throw .noCluster(id: id) }
    let radius = options.radiusPixels / (options.extent * pow(2, Double(originZoom - 1)))
    var found: [Int] = []
    let (originX, originY) = mercator(level, originIndex)
    tree(of: level).within(x: originX, y: originY, radius: radius, into: &found)
    let children = found.filter { Int(level.parents[$0]) == id }.map { item(level, $0) }
    if children.isEmpty { throw .noCluster(id: id) }
    return children
  }

  /// The input points of a cluster, depth first through its children, skipping `offset` and returning at most
  /// `limit` (supercluster's `getLeaves`: a limit of 0 means 10, as there; pass `Int.max` for all).
  ///
  /// - Throws: `ClusterError.noCluster` when no cluster has this id.
  public func leaves(ofCluster id: Int, limit: Int = 10, offset: Int = 0) throws(ClusterError) -> [Int] {
    var result: [Int] = []
    _ = try appendLeaves(&result, id: id, limit: limit > 0 ? limit : 10, offset: max(0, offset), skipped: 0)
    return result
  }

  private func appendLeaves(_ result: inout [Int], id: Int, limit: Int, offset: Int, skipped: Int)
    throws(ClusterError) -> Int
  {
    var skipped = skipped
    for child in try children(ofCluster: id) {
      switch child {
      case .cluster(let cluster):
        if skipped + cluster.pointCount <= offset {
          skipped += cluster.pointCount
        } else {
          skipped = try appendLeaves(&result, id: cluster.id, limit: limit, offset: offset, skipped: skipped)
        }
      case .point(let index):
        if skipped < offset {
          skipped += 1
        } else {
          result.append(index)
        }
      }
      if result.count == limit { break }
    }
    return skipped
  }

  /// The zoom at which a cluster splits into several items (supercluster's `getClusterExpansionZoom`).
  ///
  /// - Throws: `ClusterError.noCluster` when no cluster has this id.
  public func expansionZoom(ofCluster id: Int) throws(ClusterError) -> Int {
    var id = id
    var children = try children(ofCluster: id)  // first, so that an id of no cluster is refused
    var zoom = (id - points.count) % 32 - 1
    while zoom <= options.maxZoom {
      zoom += 1
      guard children.count == 1, case .cluster(let only) = children[0], zoom <= options.maxZoom else { break }
      id = only.id
      children = try self.children(ofCluster: id)
    }
    return zoom
  }

  /// The cluster with this id on the map of `zoom` (as `clusters(in:zoom:)` lists it there).
  ///
  /// - Throws: `ClusterError.notAtZoom` when no cluster of that zoom has the id (none has it at all, or the
  ///   cluster is split or merged into a bigger one at that zoom).
  /// - Complexity: O(k) for the k clusters of the zoom.
  public func cluster(id: Int, atZoom zoom: Double) throws(ClusterError) -> Cluster {
    let level = level(limitZoom(zoom))
    guard let k = level.clusterIds.firstIndex(of: id) else { throw .notAtZoom(id: id, zoom: zoom) }
    return cluster(level, k)
  }

  /// The features of map tile `z/x/y` in tile pixels, or nil when it is empty (supercluster's `getTile`).
  ///
  /// Includes a buffer of `radiusPixels` around the tile; tiles on the left and right edges of the world also
  /// include the points wrapped around from the other edge.
  @_specialize(where Aggregate == [Double])  // see `ClusterIndex`
  public func tile(zoom z: Int, x: Int, y: Int) -> [TileFeature]? {
    let level = level(limitZoom(Double(z)))
    let z2 = pow(2, Double(z))
    let buffer = options.radiusPixels / options.extent
    let top = (Double(y) - buffer) / z2
    let bottom = (Double(y) + 1 + buffer) / z2
    var features: [TileFeature] = []
    var found: [Int] = []
    let tree = tree(of: level)
    tree.range(
      minX: (Double(x) - buffer) / z2, minY: top, maxX: (Double(x) + 1 + buffer) / z2, maxY: bottom,
      into: &found)
    addTileFeatures(found, level, x: Double(x), y: Double(y), z2: z2, to: &features)
    if x == 0 {
      found.removeAll()
      tree.range(minX: 1 - buffer / z2, minY: top, maxX: 1, maxY: bottom, into: &found)
      addTileFeatures(found, level, x: z2, y: Double(y), z2: z2, to: &features)
    }
    if Double(x) == z2 - 1 {
      found.removeAll()
      tree.range(minX: 0, minY: top, maxX: buffer / z2, maxY: bottom, into: &found)
      addTileFeatures(found, level, x: -1, y: Double(y), z2: z2, to: &features)
    }
    return features.isEmpty ? nil : features
  }

  /// The tiles of zoom `z` that can hold a feature: every tile whose box, widened by the tile buffer
  /// (`radius / extent`, as `tile(zoom:x:y:)` widens it, wrapping across the antimeridian), holds an item of
  /// that zoom, as `x * 2^z + y`, ascending. A superset by a hair (the k-d tree keeps single-precision
  /// coordinates): `tile(zoom:x:y:)` says which are empty.
  ///
  /// - Complexity: O(n log n) for the n items of the zoom.
  public func tileCandidates(zoom z: Int) -> [Int] {
    precondition((0...24).contains(z), "tile candidates are for zooms 0...24, not \(z)")
    let level = level(limitZoom(Double(z)))
    let n = 1 << z
    let z2 = Double(n)
    let buffer = options.radiusPixels / options.extent + 1e-3
    var keys: [Int] = []
    keys.reserveCapacity(level.count)
    for i in 0..<level.count {
      let (mx, my) = mercator(level, i)
      let fx = mx * z2
      let fy = my * z2
      let x0 = Int((fx - 1 - buffer).rounded(.up))
      let x1 = Int((fx + buffer).rounded(.down))
      let y0 = Swift.max(0, Int((fy - 1 - buffer).rounded(.up)))
      let y1 = Swift.min(n - 1, Int((fy + buffer).rounded(.down)))
      guard y0 <= y1 else { continue }
      for x in x0...Swift.max(x0, x1) {
        let wrapped = ((x % n) + n) % n
        for y in y0...y1 { keys.append(wrapped * n + y) }
      }
    }
    keys.sort()
    // Duplicates dropped in place (no second array at the export's peak).
    var kept = 0
    for i in keys.indices where kept == 0 || keys[kept - 1] != keys[i] {
      keys[kept] = keys[i]
      kept += 1
    }
    keys.removeLast(keys.count - kept)
    return keys
  }

  private func addTileFeatures(
    _ found: [Int], _ level: Level, x: Double, y: Double, z2: Double, to features: inout [TileFeature]
  ) {
    for i in found {
      let px: Double
      let py: Double
      let item = item(level, i)
      if case .point(let index) = item, let point = points[index] {
        // Lone points are re-projected from the input in double precision, as supercluster does.
        px = Projection.x(longitude: point.longitude)
        py = Projection.y(latitude: point.latitude)
      } else {
        (px, py) = mercator(level, i)
      }
      features.append(
        TileFeature(
          x: Cluster.roundHalfUp(options.extent * (px * z2 - x)),
          y: Cluster.roundHalfUp(options.extent * (py * z2 - y)), item: item))
    }
  }

  /// The aggregate of a cluster built with `map` and `reduce`.
  public func aggregate(of cluster: Cluster) -> Aggregate? {
    cluster.aggregateIndex.map { aggregates[$0] }
  }

  /// How many input features the index was built from (null-geometry slots included).
  public var featureCount: Int { points.count }

  /// The number of items (clusters and lone points) at a zoom.
  public func itemCount(atZoom zoom: Double) -> Int { level(limitZoom(zoom)).count }

  /// The level of a zoom in minZoom...maxZoom + 1.
  func level(_ zoom: Int) -> Level {
    let level = levels[zoom - options.minZoom]
    precondition(!level.dropped, "zoom \(zoom) is outside ClusterOptions.retainedZooms")
    return level
  }

  /// supercluster's `_limitZoom`: floor, then clamp into minZoom...maxZoom + 1.
  func limitZoom(_ zoom: Double) -> Int {
    guard zoom.isFinite else { return zoom > 0 ? options.maxZoom + 1 : options.minZoom }
    let floored = zoom.rounded(.down)
    if floored >= Double(options.maxZoom + 1) { return options.maxZoom + 1 }
    return max(options.minZoom, Int(max(floored, Double(options.minZoom))))
  }
}
