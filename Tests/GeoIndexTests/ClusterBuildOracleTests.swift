import SeededPoints
import Testing

@testable import GeoIndex

#if canImport(Glibc)
  import Glibc
#endif

/// The fast paths of the cluster build against plain transcriptions of what they replace: the block partition
/// of Floyd–Rivest against kdbush's scalar loop, and the whole index, zoom by zoom, against a supercluster whose
/// neighbour searches are brute force over every pair (so the skipped searches, the grid and the threads have
/// nothing to hide behind).
@Suite struct ClusterBuildOracleTests {
  /// kdbush's `select`, as kdbush writes it: the reference for `FloydRivest.select`.
  static func referenceSelect<Element>(
    _ a: inout [Element], k: Int, left: Int, right: Int, key: (Element) -> Double
  ) {
    var left = left
    var right = right
    while right > left {
      if right - left > 600 {
        let n = Double(right - left + 1)
        let m = Double(k - left + 1)
        let z = log(n)
        let s = 0.5 * exp(2 * z / 3)
        let sign: Double = m - n / 2 < 0 ? -1 : 1
        let sd = 0.5 * (z * s * (n - s) / n).squareRoot() * sign
        let newLeft = max(left, Int((Double(k) - m * s / n + sd).rounded(.down)))
        let newRight = min(right, Int((Double(k) + (n - m) * s / n + sd).rounded(.down)))
        referenceSelect(&a, k: k, left: newLeft, right: newRight, key: key)
      }
      let t = key(a[k])
      var i = left
      var j = right
      a.swapAt(left, k)
      if key(a[right]) > t { a.swapAt(left, right) }
      while i < j {
        a.swapAt(i, j)
        i += 1
        j -= 1
        while key(a[i]) < t { i += 1 }
        while key(a[j]) > t { j -= 1 }
      }
      if key(a[left]) == t {
        a.swapAt(left, j)
      } else {
        j += 1
        a.swapAt(j, right)
      }
      if j <= k { left = j + 1 }
      if k <= j { right = j - 1 }
    }
  }

  struct Tagged: Equatable {
    var key: Double
    var tag: Int
  }
  enum TaggedKey: SelectionKey { static func key(_ e: Tagged) -> Double { e.key } }

  /// Every shape of input that changes where a partition's swaps go: few distinct keys, all equal, sorted,
  /// reversed, saw-toothed, and random; spans around the block threshold and the sampling threshold (600).
  @Test func blockPartitionSwapsAsKdbushDoes() {
    var words = SeededSpherePoints(seed: 41)
    for trial in 0..<600 {
      let block = FloydRivest.blockThreshold
      let n =
        [1, 2, 3, 10, block - 1, block, block + 1, 127, 255, 256, 300, 601, 1000, 5000][trial % 14]
        + Int(words.nextWord() % 40)
      let distinct = [2, 5, 100, 1 << 30][Int(words.nextWord() % 4)]
      let pattern = words.nextWord() % 6
      let keys: [Double] = (0..<n).map { i in
        switch pattern {
        case 0: return Double(words.nextWord() % UInt32(distinct))
        case 1: return Double(i)
        case 2: return Double(n - i)
        case 3: return 7
        case 4: return Double(i % 17) + Double(words.nextWord() % 3)
        default: return Double(words.nextWord()) / 4_294_967_296
        }
      }
      let k = Int(words.nextWord() % UInt32(n))
      var expected = keys.enumerated().map { Tagged(key: $0.element, tag: $0.offset) }
      var actual = expected
      Self.referenceSelect(&expected, k: k, left: 0, right: n - 1, key: \.key)
      actual.withUnsafeMutableBufferPointer {
        FloydRivest.select($0, k: k, left: 0, right: n - 1, by: TaggedKey.self)
      }
      #expect(actual == expected, "trial \(trial): n \(n), k \(k), pattern \(pattern), distinct \(distinct)")
    }
  }

  /// One zoom's items as supercluster keeps them.
  struct Item: Equatable {
    var x: Double
    var y: Double
    var id: Int
    var count: Int
    var parent = -1
  }

  /// kdbush's kd-sort with the reference selection, then each item's place in kdbush's traversal.
  static func referenceRanks(_ items: [Item], nodeSize: Int) -> [Int] {
    var sorted = items.enumerated().map { (x: Float($0.element.x), y: Float($0.element.y), id: $0.offset) }
    func sort(_ left: Int, _ right: Int, _ axis: Int) {
      if right - left <= nodeSize { return }
      let middle = (left + right) >> 1
      referenceSelect(&sorted, k: middle, left: left, right: right) { Double(axis == 0 ? $0.x : $0.y) }
      sort(left, middle - 1, 1 - axis)
      sort(middle + 1, right, 1 - axis)
    }
    sort(0, sorted.count - 1, 0)
    var ranks = [Int](repeating: 0, count: items.count)
    var next = 0
    var stack = sorted.isEmpty ? [] : [(0, sorted.count - 1)]
    while let (left, right) = stack.popLast() {
      if right - left <= nodeSize {
        for i in left...right {
          ranks[sorted[i].id] = next
          next += 1
        }
        continue
      }
      let middle = (left + right) >> 1
      ranks[sorted[middle].id] = next
      next += 1
      stack.append((left, middle - 1))
      stack.append((middle + 1, right))
    }
    return ranks
  }

  /// supercluster's `_cluster` over brute-force neighbour lists: levels for zooms `maxZoom + 1` down to
  /// `minZoom`, parents marked.
  static func referenceLevels(points: [GeoPoint?], options: ClusterOptions) -> [[Item]] {
    var level: [Item] = []
    for (i, point) in points.enumerated() {
      guard let point else { continue }
      level.append(
        Item(
          x: Double(Float(Projection.x(longitude: point.longitude))),
          y: Double(Float(Projection.y(latitude: point.latitude))), id: i, count: 1))
    }
    var levels = [level]
    for zoom in stride(from: options.maxZoom, through: options.minZoom, by: -1) {
      var previous = levels.removeLast()
      let r = options.radiusPixels / (options.extent * pow(2, Double(zoom)))
      let ranks = referenceRanks(previous, nodeSize: max(2, options.nodeSize))
      var taken = [Bool](repeating: false, count: previous.count)
      var next: [Item] = []
      for i in previous.indices where !taken[i] {
        taken[i] = true
        let neighbors = previous.indices.filter { j in
          let dx = Double(Float(previous[j].x)) - previous[i].x
          let dy = Double(Float(previous[j].y)) - previous[i].y
          return j != i && dx * dx + dy * dy <= r * r
        }.sorted { ranks[$0] < ranks[$1] }.filter { !taken[$0] }
        let numPoints = previous[i].count + neighbors.reduce(0) { $0 + previous[$1].count }
        if numPoints > previous[i].count && numPoints >= options.minPoints {
          var wx = previous[i].x * Double(previous[i].count)
          var wy = previous[i].y * Double(previous[i].count)
          let id = (i << 5) + (zoom + 1) + points.count
          for k in neighbors {
            taken[k] = true
            wx += previous[k].x * Double(previous[k].count)
            wy += previous[k].y * Double(previous[k].count)
            previous[k].parent = id
          }
          previous[i].parent = id
          next.append(Item(x: wx / Double(numPoints), y: wy / Double(numPoints), id: id, count: numPoints))
        } else {
          next.append(Item(x: previous[i].x, y: previous[i].y, id: previous[i].id, count: previous[i].count))
          if numPoints > 1 {
            for k in neighbors {
              taken[k] = true
              next.append(
                Item(x: previous[k].x, y: previous[k].y, id: previous[k].id, count: previous[k].count))
            }
          }
        }
      }
      levels.append(previous)
      levels.append(next)
    }
    return levels
  }

  /// Clumps whose members sit a set multiple of some zoom's radius apart (so that items come within reach
  /// exactly around the zooms where the build starts searching for them), with exact duplicates, both poles,
  /// both sides of the antimeridian and a feature without geometry.
  static func clumps(count: Int, seed: UInt32) -> [GeoPoint?] {
    var words = SeededSpherePoints(seed: seed)
    let centres = SeededSpherePoints.make(count: max(1, count / 12), seed: seed &+ 1)
    var points: [GeoPoint?] = []
    for i in 0..<count {
      let centre = centres[Int(words.nextWord()) % centres.count]
      if i % 29 == 0, let last = points.last {
        points.append(last)  // a duplicate
        continue
      }
      let zoom = Double(words.nextWord() % 17)
      let degrees = 360 * (40 / 512) / pow(2, zoom) * (0.5 + words.nextUnit())  // about a radius at `zoom`
      let angle = 2 * Double.pi * words.nextUnit()
      points.append(
        GeoPoint(
          uncheckedLatitude: max(-85, min(85, centre.latitude + degrees * sin(angle))),
          longitude: (centre.longitude + degrees * cos(angle) + 540).truncatingRemainder(dividingBy: 360)
            - 180))
    }
    if count > 8 {
      points[1] = GeoPoint(uncheckedLatitude: 90, longitude: 10)
      points[2] = GeoPoint(uncheckedLatitude: -90, longitude: -180)
      points[3] = GeoPoint(uncheckedLatitude: 12, longitude: 180)
      points[4] = GeoPoint(uncheckedLatitude: 12, longitude: -179.9999)
      points[5] = nil
    }
    return points
  }

  static func options(_ variant: Int) -> ClusterOptions {
    var options = ClusterOptions()
    switch variant {
    case 1:
      options.minPoints = 3
      options.radiusPixels = 60
      options.nodeSize = 16
      options.maxZoom = 18
    case 2:
      options.minPoints = 5
      options.radiusPixels = 10
      options.extent = 256
      options.minZoom = 2
      options.maxZoom = 12
    case 3:
      // The widest valid radius (the extent): search boxes reach far off the grid (1e300 used to trap
      // converting to Int; it is out of range now).
      options.radiusPixels = options.extent
    case 4:
      // Leaves of three items and triples that do not merge (uniform points, see below): a zoom with a few lists
      // of two or more puts them in order with the ranks of the part of the tree that holds them
      // (`PlanarKDTree.traversalRanks(xs:ys:nodeSize:of:forks:)`), their items often in different halves, and
      // the triples are copied to the next zoom in that order.
      options.nodeSize = 2
      options.minPoints = 4
    default: break
    }
    return options
  }

  @Test(arguments: [
    (0, UInt32(1), 0), (1, 2, 0), (9, 3, 0), (700, 4, 0), (700, 5, 1), (700, 6, 2), (1500, 7, 0),
    (54, 9, 3), (5000, 10, 3), (3000, 11, 4),
  ])
  func buildMatchesBruteForceSupercluster(count: Int, seed: UInt32, variant: Int) throws {
    // Variant 4 on uniform points: few neighbour lists of two or more at the zooms where items first meet.
    let points: [GeoPoint?] =
      variant == 4 ? SeededSpherePoints.make(count: count, seed: seed) : Self.clumps(count: count, seed: seed)
    let options = Self.options(variant)
    let expected = Self.referenceLevels(points: points, options: options)
    let index = try ClusterIndex(points: points, options: options)
    #expect(index.levels.count == expected.count)
    for offset in index.levels.indices where offset < expected.count {
      let zoom = options.minZoom + offset
      let actual = index.entries(levelOffset: offset).map {
        Item(x: $0.x, y: $0.y, id: $0.id, count: $0.count, parent: $0.parent)
      }
      let want = expected[expected.count - 1 - offset]
      let difference = zip(actual, want).enumerated().first { $0.element.0 != $0.element.1 }
      #expect(
        actual.count == want.count && difference == nil,
        """
        seed \(seed), variant \(variant), zoom \(zoom): \(actual.count) items for \(want.count), \
        first difference \(String(describing: difference))
        """
      )
    }
  }

  /// The ranks of a few items found by sorting only the nodes that hold them, against the reference kd-sort's
  /// ranks of the whole tree: sizes around a leaf and the threads' threshold, few distinct coordinates (ties
  /// go either way of a split), leaf sizes, one wanted item to all of them, on one and two threads.
  @Test func ranksOfAFewItemsAreTheirRanksInTheWholeTree() {
    var words = SeededSpherePoints(seed: 57)
    for trial in 0..<60 {
      let n = [1, 2, 3, 17, 65, 66, 130, 700, 5000, 9000][trial % 10]
      let nodeSize = [2, 16, 64][trial % 3]
      let distinct = [3, 40, 1 << 30, 1 << 30][trial % 4]
      let items = (0..<n).map { _ in
        Item(
          x: Double(Float(Double(words.nextWord() % UInt32(distinct)) / Double(distinct))),
          y: Double(Float(Double(words.nextWord() % UInt32(distinct)) / Double(distinct))), id: 0, count: 1)
      }
      let expected = Self.referenceRanks(items, nodeSize: nodeSize)
      let count = [1, 2, 9, n / 7 + 1, n][trial % 5]
      let wanted = (0..<count).map { _ in words.nextWord() % UInt32(n) }
      let ranks = PlanarKDTree.traversalRanks(
        xs: items.map(\.x), ys: items.map(\.y), nodeSize: nodeSize, of: wanted, forks: trial % 2)
      let wrong = wanted.first { ranks[Int($0)] != expected[Int($0)] }
      #expect(
        wrong == nil,
        "trial \(trial): n \(n), node size \(nodeSize), \(count) wanted, item \(String(describing: wrong))")
    }
  }

  /// A cluster's centre is summed in the neighbours' kdbush order only where the order can change it: a list
  /// `ClusterIndex.sumsExactly` passes must give the same sums, bit for bit, in every order. Lists of lone
  /// points (Float positions), clusters of two and of three (centres a division apart), counts up to a
  /// million, positions near 0 and 1; the lists that fail must include some whose sums do differ by order
  /// (else the check could not tell), and lone points must pass.
  @Test func sumsThatPassTheCheckAreTheSameInEveryOrder() {
    var words = SeededSpherePoints(seed: 91)
    func position() -> Double {
      let base = [0.5, 0.25, 1e-6, 0.999_9][Int(words.nextWord() % 4)]
      let value = Double(Float(min(1, base + 1e-3 * words.nextUnit())))
      switch words.nextWord() % 3 {
      case 0: return value
      case 1: return (value + Double(Float(value + 1e-5))) / 2
      default: return (value + Double(Float(value + 1e-5)) + Double(Float(value + 3e-5))) / 3
      }
    }
    var passed = 0
    var failedAndDiffer = 0
    var lonePointsPassed = true
    for trial in 0..<4000 {
      let size = 2 + Int(words.nextWord() % 7)
      let lone = trial % 4 == 0
      let xs = (0..<size).map { _ in lone ? Double(Float(0.3 + 0.01 * words.nextUnit())) : position() }
      let ys = (0..<size).map { _ in lone ? Double(Float(0.6 + 0.01 * words.nextUnit())) : position() }
      let counts = (0..<size).map { _ in
        lone ? Int32(1) : Int32(1 + words.nextWord() % [2, 40, 1_000_000][trial % 3])
      }
      let own = Int(words.nextWord()) % size
      let others = (0..<size).filter { $0 != own }
      func sums(_ order: [Int]) -> (Double, Double) {
        var wx = xs[own] * Double(counts[own])
        var wy = ys[own] * Double(counts[own])
        for k in order {
          wx += xs[k] * Double(counts[k])
          wy += ys[k] * Double(counts[k])
        }
        return (wx, wy)
      }
      var orders = [others, Array(others.reversed())]
      for _ in 0..<6 {
        var shuffled = others
        for i in stride(from: shuffled.count - 1, to: 0, by: -1) {
          shuffled.swapAt(i, Int(words.nextWord() % UInt32(i + 1)))
        }
        orders.append(shuffled)
      }
      let first = sums(others)
      let differ = orders.contains { sums($0) != first }
      if ClusterIndex<Void>.sumsExactly(xs, ys, counts, own, others) {
        passed += 1
        #expect(!differ, "trial \(trial): passed the check, yet its sums depend on the order")
      } else {
        if lone { lonePointsPassed = false }
        if differ { failedAndDiffer += 1 }
      }
    }
    #expect(
      passed > 1000 && failedAndDiffer > 100 && lonePointsPassed, "\(passed) passed, \(failedAndDiffer)")
  }

  /// Large enough that every zoom's sort and searches are split between threads.
  @Test func threadsDoNotChangeTheIndex() throws {
    let points = Self.clumps(count: 30_000, seed: 8)
    let one = try ClusterIndex(points: points, threads: 1)
    for threads in [2, 4] {
      let many = try ClusterIndex(points: points, threads: threads)
      #expect(one.levels.count == many.levels.count)
      for (zoom, (a, b)) in zip(one.levels, many.levels).enumerated() {
        let same =
          one.entries(levelOffset: zoom).elementsEqual(many.entries(levelOffset: zoom), by: ==)
          && one.tree(of: a).ids == many.tree(of: b).ids
        #expect(same, "threads \(threads), zoom \(zoom)")
      }
    }
  }
}
