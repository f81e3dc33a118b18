import GeoIndex
import SeededPoints
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Properties every clustering must have, on seeded random inputs salted with duplicates, poles and the
/// antimeridian, checked against brute force.
@Suite struct ClusterIndexInvariantTests {
  static func points(count: Int, seed: UInt32) -> [GeoPoint?] {
    var points: [GeoPoint?] = SeededSpherePoints.make(count: count, seed: seed)
    guard count > 10 else { return points }
    var words = SeededSpherePoints(seed: seed &+ 77)
    for _ in 0..<(count / 10) {  // duplicates
      points[Int(words.nextWord() % UInt32(count))] = points[Int(words.nextWord() % UInt32(count))]
    }
    points[1] = GeoPoint(uncheckedLatitude: 89.9, longitude: 10)
    points[2] = GeoPoint(uncheckedLatitude: -90, longitude: -180)
    points[3] = GeoPoint(uncheckedLatitude: 12, longitude: 180)
    points[4] = GeoPoint(uncheckedLatitude: 12, longitude: -179.99)
    points[5] = nil  // a feature without geometry keeps its slot
    return points
  }

  @Test(arguments: [(1, UInt32(3)), (2, 4), (60, 5), (3000, 6)])
  func everyPointInExactlyOneItemAtEveryZoom(count: Int, seed: UInt32) throws {
    let points = Self.points(count: count, seed: seed)
    var options = ClusterOptions()
    options.maxZoom = 12
    let index = try ClusterIndex(points: points, options: options)
    let real = Set(points.indices.filter { points[$0] != nil })
    for zoom in 0...13 {
      let items = index.clusters(in: .world, zoom: Double(zoom))
      #expect(items.count == index.itemCount(atZoom: Double(zoom)), "seed \(seed) zoom \(zoom)")
      var seen: [Int] = []
      for item in items {
        switch item {
        case .point(let i): seen.append(i)
        case .cluster(let cluster):
          let leaves = try index.leaves(ofCluster: cluster.id, limit: .max)
          #expect(leaves.count == cluster.pointCount, "seed \(seed) cluster \(cluster.id)")
          seen += leaves
          // The counts of its children add up to its own.
          let children = try index.children(ofCluster: cluster.id)
          let sum = children.map { child -> Int in
            if case .cluster(let c) = child { return c.pointCount }
            return 1
          }.reduce(0, +)
          #expect(sum == cluster.pointCount)
          // Expansion zoom: the cluster is no longer one item there.
          let expansion = try index.expansionZoom(ofCluster: cluster.id)
          #expect(expansion > zoom && expansion <= options.maxZoom + 1)
          // The centre is the mean of its leaves in Mercator space (to float rounding).
          if cluster.pointCount <= 50 {
            let mercator = leaves.map { mercatorX(points[$0]!) }
            let meanX = mercator.reduce(0, +) / Double(mercator.count)
            #expect(abs((cluster.center.longitude / 360 + 0.5) - meanX) < 1e-6)
          }
        }
      }
      #expect(seen.count == real.count, "seed \(seed) zoom \(zoom)")
      #expect(Set(seen) == real, "seed \(seed) zoom \(zoom)")
    }
  }

  func mercatorX(_ point: GeoPoint) -> Double { point.longitude / 360 + 0.5 }

  /// supercluster's Mercator y of a latitude, clamped to [0, 1] as it clamps it.
  func mercatorY(_ point: GeoPoint) -> Double {
    let sine = sin(point.latitude * Double.pi / 180)
    let y = 0.5 - 0.25 * log((1 + sine) / (1 - sine)) / Double.pi
    return min(1, max(0, y))
  }

  /// Every leaf of a cluster at zoom z lies within 4·r of the cluster's centre in Mercator space, where r =
  /// radius / (extent · 2^z) is the search radius at z. Why: a cluster at z gathers items of z + 1 within r of
  /// a seed item, and its centre is their weighted mean, so each of them is within 2r of it; an item of z + 1
  /// is in turn within 2·(r/2) of its own leaves' items, and so on: 2r · (1 + 1/2 + 1/4 + …) < 4r. The bound
  /// does not grow with the number of leaves, so a cluster that swallowed a continent fails it.
  @Test(arguments: [(UInt32(9), 40.0), (10, 80), (11, 8)])
  func leavesAreNearTheirCluster(seed: UInt32, radius: Double) throws {
    let points = Self.points(count: 3000, seed: seed)
    var options = ClusterOptions()
    options.radiusPixels = radius
    let index = try ClusterIndex(points: points, options: options)
    var clusters = 0
    for zoom in 0...options.maxZoom {
      let r = radius / (options.extent * Double(1 << zoom))
      for case .cluster(let cluster) in index.clusters(in: .world, zoom: Double(zoom)) {
        clusters += 1
        let (cx, cy) = (mercatorX(cluster.center), mercatorY(cluster.center))
        let far = try index.leaves(ofCluster: cluster.id, limit: .max).map { leaf -> Double in
          let point = points[leaf]!
          let (dx, dy) = (mercatorX(point) - cx, mercatorY(point) - cy)
          return (dx * dx + dy * dy).squareRoot()
        }.max()!
        // 1e-6: the tree holds coordinates as Float, as supercluster's does.
        #expect(
          far <= 4 * r + 1e-6,
          "seed \(seed) radius \(radius) zoom \(zoom) cluster \(cluster.id): \(far / r) r")
      }
    }
    #expect(clusters > 100)  // the bound was checked, many times
  }

  @Test(arguments: [
    (999, "999"), (1000, "1k"), (1049, "1k"), (1050, "1.1k"), (9949, "9.9k"), (9950, "10k"),
    (10499, "10k"), (10500, "11k"), (123_456, "123k"),
  ])
  func pointCountAbbreviation(count: Int, text: String) throws {
    #expect(abbreviation(count) == text)
  }

  /// Builds a real cluster of `count` identical points and reads its abbreviation.
  func abbreviation(_ count: Int) -> String {
    let point = GeoPoint(uncheckedLatitude: 10, longitude: 20)
    let index = try! ClusterIndex(points: Array(repeating: point, count: count))
    guard case .cluster(let cluster) = index.clusters(in: .world, zoom: 0).first else { return "" }
    return cluster.pointCountAbbreviated
  }

  @Test func unknownClusterIdsAreErrors() throws {
    let index = try ClusterIndex(points: Self.points(count: 500, seed: 12))
    for id in [-5, 0, 499, 500, 501 + (10_000 << 5), Int.max / 2] {
      #expect(throws: ClusterError.noCluster(id: id)) { try index.children(ofCluster: id) }
      #expect(throws: ClusterError.noCluster(id: id)) { try index.leaves(ofCluster: id) }
      #expect(throws: ClusterError.noCluster(id: id)) { try index.expansionZoom(ofCluster: id) }
    }
  }

  @Test func sumMinMaxAggregation() throws {
    let points = Self.points(count: 400, seed: 21)
    let index = try ClusterIndex(
      points: points, options: ClusterOptions(),
      map: { i in (sum: Double(i), min: Double(i), max: Double(i)) },
      reduce: { acc, next in
        acc.sum += next.sum
        acc.min = Swift.min(acc.min, next.min)
        acc.max = Swift.max(acc.max, next.max)
      })
    for case .cluster(let cluster) in index.clusters(in: .world, zoom: 1) {
      let leaves = try index.leaves(ofCluster: cluster.id, limit: .max)
      let aggregate = try #require(index.aggregate(of: cluster))
      #expect(aggregate.sum == Double(leaves.reduce(0, +)))
      #expect(aggregate.min == Double(leaves.min()!))
      #expect(aggregate.max == Double(leaves.max()!))
    }
  }

  @Test func zoomsAboveMaxReturnPointsAndFractionsFloor() throws {
    let points = Self.points(count: 300, seed: 30)
    let index = try ClusterIndex(points: points)
    #expect(index.clusters(in: .world, zoom: 17).count == 299)
    #expect(index.clusters(in: .world, zoom: 25).count == 299)
    #expect(index.clusters(in: .world, zoom: 2.9) == index.clusters(in: .world, zoom: 2))
    #expect(index.clusters(in: .world, zoom: -3) == index.clusters(in: .world, zoom: 0))
  }

  @Test func boxAcrossTheAntimeridianIsBothSides() throws {
    let points = Self.points(count: 2000, seed: 31)
    let index = try ClusterIndex(points: points)
    let across = index.clusters(in: GeoBox(west: 170, south: -50, east: -170, north: 50), zoom: 17)
    let east = index.clusters(in: GeoBox(west: 170, south: -50, east: 180, north: 50), zoom: 17)
    let west = index.clusters(in: GeoBox(west: -180, south: -50, east: -170, north: 50), zoom: 17)
    #expect(across == east + west)
    let brute = points.indices.filter { i in
      guard let p = points[i] else { return false }
      return abs(p.latitude) <= 50 && (p.longitude >= 170 || p.longitude <= -170)
    }
    #expect(
      Set(
        across.map { item -> Int in
          if case .point(let i) = item { return i }
          return -1
        }) == Set(brute))
  }

  @Test func invalidOptionsAreErrors() {
    var options = ClusterOptions()
    options.maxZoom = -1
    #expect(throws: ClusterError.self) { try ClusterIndex(points: [], options: options) }
    options = ClusterOptions()
    options.radiusPixels = 0
    #expect(throws: ClusterError.self) { try ClusterIndex(points: [], options: options) }
  }

  /// Each option outside its range is refused by the index itself, naming the option, the value and the range.
  @Test(arguments: [
    ("minZoom", -1.0, "minZoom is a whole number from 0 to 30, not -1."),
    ("maxZoom", 31, "maxZoom is a whole number from the lowest zoom (0) to 30, not 31."),
    ("maxZoom", 9.2e18, "maxZoom is"), ("minPoints", 0, "minPoints is a whole number from 1 to"),
    ("radius", 5e21, "radius is a number of pixels above 0 and at most the extent (512), not 5e+21."),
    ("radius", .nan, "radius is"), ("extent", 1e19, "extent is a whole number of pixels from 1 to 16777216"),
    ("extent", 0.5, "not 0.5."), ("extent", 1e-300, "extent is"), ("nodeSize", 1, "nodeSize is"),
    ("nodeSize", 65_536, "nodeSize is a whole number from 2 to 65535, not 65536."),
  ])
  func optionsOutOfRange(option: String, value: Double, sentence: String) {
    var options = ClusterOptions()
    let whole = value.isFinite && abs(value) < 9e18 ? Int(value) : Int.max
    switch option {
    case "minZoom": options.minZoom = whole
    case "maxZoom": options.maxZoom = whole
    case "minPoints": options.minPoints = whole
    case "radius": options.radiusPixels = value
    case "extent": options.extent = value
    default: options.nodeSize = whole
    }
    do {
      _ = try ClusterIndex(points: [GeoPoint(uncheckedLatitude: 1, longitude: 2)], options: options)
      Issue.record("\(option) \(value) was accepted")
    } catch {
      #expect(error.description.hasPrefix(option) && error.description.contains(sentence), "\(error)")
    }
  }

  /// Any Int as a cluster id is answered (an error for no cluster), never an overflow; a cluster exists only
  /// on the map of its zooms.
  @Test func anyIdIsAnswered() throws {
    let index = try ClusterIndex(points: SeededSpherePoints.make(count: 500, seed: 7).map(Optional.some))
    for id in [Int.min, Int.min + 1, -1, 0, 499, 500, 9999, Int.max - 1, Int.max] {
      #expect(throws: ClusterError.self) { try index.children(ofCluster: id) }
      #expect(throws: ClusterError.self) { try index.leaves(ofCluster: id) }
      #expect(throws: ClusterError.self) { try index.expansionZoom(ofCluster: id) }
      #expect(throws: ClusterError.notAtZoom(id: id, zoom: 2)) { try index.cluster(id: id, atZoom: 2) }
    }
    for case .cluster(let cluster) in index.clusters(in: .world, zoom: 3) {
      #expect(try index.cluster(id: cluster.id, atZoom: 3) == cluster)
      // Made at zoom `origin - 1` from the items of zoom `origin`, where it is not yet.
      let origin = Double((cluster.id - 500) % 32)
      #expect(throws: ClusterError.notAtZoom(id: cluster.id, zoom: origin)) {
        try index.cluster(id: cluster.id, atZoom: origin)
      }
    }
  }

  @Test func emptyInput() throws {
    let index = try ClusterIndex(points: [nil, nil])
    #expect(index.clusters(in: .world, zoom: 0).isEmpty)
    #expect(index.tile(zoom: 0, x: 0, y: 0) == nil)
  }
}
