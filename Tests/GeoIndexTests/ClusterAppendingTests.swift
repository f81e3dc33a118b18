import SeededPoints
import Testing

@testable import GeoIndex

/// `ClusterIndex.appending` against a whole build over the same points (issue 30: a change visible within a
/// second at a million points): every level's items, ids, counts, centres and parents, and the answers that
/// depend on each zoom's k-d tree (clusters over the world, a tile), on seeded inputs with clumps, duplicates,
/// points at a pole and on the antimeridian, features without a point, and other options.
@Suite struct ClusterAppendingTests {
  /// A point of one of six kinds: none, anywhere, in a clump, near the north pole, on the antimeridian, or the
  /// same place again.
  static func point(_ kind: Int, _ random: inout SeededSpherePoints) -> GeoPoint? {
    switch kind {
    case 0: return nil
    case 1: return random.next()
    case 2:
      return GeoPoint(
        uncheckedLatitude: 48.85 + random.nextUnit() * 0.5, longitude: 2.35 + random.nextUnit() * 0.5)
    case 3:
      return GeoPoint(
        uncheckedLatitude: 90 - random.nextUnit() * 0.01, longitude: random.nextUnit() * 360 - 180)
    case 4:
      return GeoPoint(
        uncheckedLatitude: random.nextUnit() * 10, longitude: random.nextUnit() < 0.5 ? 180 : -180)
    default: return GeoPoint(uncheckedLatitude: 48.85, longitude: 2.35)
    }
  }

  /// The options of a seeded trial: the defaults, a wider radius with a lower `maxZoom`, `minPoints` 3 with
  /// leaves of 16, or a `minZoom` of 2, in turn.
  static func options(trial: Int) -> ClusterOptions {
    var options = ClusterOptions()
    if trial % 4 == 1 {
      options.radiusPixels = 80
      options.maxZoom = 12
    }
    if trial % 4 == 2 {
      options.minPoints = 3
      options.nodeSize = 16
    }
    if trial % 4 == 3 { options.minZoom = 2 }
    return options
  }

  /// What differs between two indexes, or nil.
  static func difference(_ a: ClusterIndex<Void>, _ b: ClusterIndex<Void>) -> String? {
    for offset in 0..<(a.options.maxZoom - a.options.minZoom + 2) {
      let x = a.entries(levelOffset: offset)
      let y = b.entries(levelOffset: offset)
      guard x.count == y.count else {
        return "zoom \(offset + a.options.minZoom): \(x.count) and \(y.count) items"
      }
      for i in x.indices where x[i] != y[i] {
        return "zoom \(offset + a.options.minZoom) item \(i): \(x[i]) and \(y[i])"
      }
    }
    let world = GeoBox(west: -180, south: -85, east: 180, north: 85)
    for z in a.options.minZoom...(a.options.maxZoom + 1) {
      if a.clusters(in: world, zoom: Double(z)) != b.clusters(in: world, zoom: Double(z)) {
        return "clusters at zoom \(z)"
      }
      let (x, y) = ((1 << z) / 2, (1 << z) / 3)
      if a.tile(zoom: z, x: x, y: y) != b.tile(zoom: z, x: x, y: y) { return "tile \(z)/\(x)/\(y)" }
    }
    return nil
  }

  @Test(arguments: 0..<4)
  func anExtendedIndexIsTheWholeBuild(part: Int) throws {
    var random = SeededSpherePoints(seed: UInt32(part) * 7919 + 1)
    var extendedCount = 0
    for trial in (part * 30)..<((part + 1) * 30) {
      let n = [0, 1, 5, 40, 300, 2000][trial % 6]
      var base: [GeoPoint?] = (0..<n).map { _ in
        Self.point(trial % 7 == 0 ? 1 : Int(random.nextUnit() * 6), &random)
      }
      if trial % 5 == 0 { base += base.prefix(3) }
      // Up to 70 points: beyond `appendedLimit` it declines (nil), and the caller builds whole.
      let m = [0, 1, 1, 2, 3, 9, 70][Int(random.nextUnit() * 7)]
      let added: [GeoPoint?] = (0..<m).map { _ in
        Self.point(random.nextUnit() < 0.6 ? 1 : Int(random.nextUnit() * 6), &random)
      }
      let options = Self.options(trial: trial)
      let old = try ClusterIndex(points: base, options: options)
      let whole = try ClusterIndex(points: base + added, options: options)
      let mustDecline = m > ClusterIndex<Void>.appendedLimit || base.isEmpty
      guard let extended = try old.appending(added) else {
        // Declined where it saves nothing: the documented cases, or a point within reach at `maxZoom`.
        #expect(mustDecline || added.contains { $0 != nil }, "trial \(trial): declined \(m) added to \(n)")
        continue
      }
      #expect(!mustDecline, "trial \(trial): extended \(m) added to \(n)")
      extendedCount += 1
      let difference = Self.difference(whole, extended)
      #expect(difference == nil, "trial \(trial): \(n) points, \(m) added: \(difference ?? "")")
    }
    // Many cases are extended, not declined (so the comparisons above are not vacuous); a duplicate added, or
    // `minPoints` 3 on duplicates (whose top zoom depends on its tree's order, `Level.ordered`), is declined.
    #expect(extendedCount >= 12, "part \(part): \(extendedCount) of 30 extended")
  }

  /// One to three points at a time onto 30,000 uniform ones (and now and then into a clump): each extended index
  /// is the whole build's, and so is the index extended again from it.
  @Test func repeatedAppendsStayTheWholeBuild() throws {
    var random = SeededSpherePoints(seed: 99)
    var points: [GeoPoint?] = (0..<30_000).map { _ in Self.point(1, &random) }
    var index = try ClusterIndex(points: points)
    for step in 0..<8 {
      let added: [GeoPoint?] = (0..<(step % 3 + 1)).map { _ in Self.point(step % 4 == 3 ? 2 : 1, &random) }
      index = try #require(try index.appending(added))
      points += added
      let difference = Self.difference(try ClusterIndex(points: points), index)
      #expect(difference == nil, "step \(step): \(difference ?? "")")
    }
  }

  /// An index built with `map` and `reduce` is not extended (their closures are not kept): nil, so that the
  /// caller builds it whole.
  @Test func anAggregatingIndexIsNotExtended() throws {
    let points: [GeoPoint?] = [
      GeoPoint(uncheckedLatitude: 1, longitude: 1), GeoPoint(uncheckedLatitude: 1.0001, longitude: 1),
    ]
    let index = try ClusterIndex<Double>(points: points, map: { Double($0) }, reduce: { $0 += $1 })
    #expect(try index.appending([GeoPoint(uncheckedLatitude: 5, longitude: 5)]) == nil)
  }
}
