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
    for offset in (0..<(a.options.maxZoom - a.options.minZoom + 2)).reversed() {
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

  /// A clumped trial's options (the defaults, a radius of 60, or zooms 3-14, in turn) and its clump's centre.
  static func clumpedOptions(_ trial: Int, _ random: inout SeededSpherePoints) -> (
    ClusterOptions, (lat: Double, lon: Double)
  ) {
    var options = ClusterOptions()
    if trial % 3 == 1 { options.radiusPixels = 60 }
    if trial % 3 == 2 {
      options.minZoom = 3
      options.maxZoom = 14
    }
    return (options, (lat: random.nextUnit() * 100 - 50, lon: random.nextUnit() * 340 - 170))
  }

  /// A point within `spread` degrees of `centre`.
  static func clumped(
    _ centre: (lat: Double, lon: Double), _ spread: Double, _ random: inout SeededSpherePoints
  )
    -> GeoPoint?
  {
    GeoPoint(
      uncheckedLatitude: centre.lat + (random.nextUnit() - 0.5) * spread,
      longitude: min(180, max(-180, centre.lon + (random.nextUnit() - 0.5) * spread)))
  }

  /// A clumped trial's input (600, 2,500 or 6,000 points): a clump around `centre` (a quarter within 4°,
  /// a quarter within 40°) and uniform points.
  static func clumpedPoints(
    _ trial: Int, _ centre: (lat: Double, lon: Double), _ random: inout SeededSpherePoints
  ) -> [GeoPoint?] {
    (0..<[600, 2500, 6000][trial % 3]).map { k in
      switch k % 4 {
      case 0: return clumped(centre, 4, &random)
      case 1: return clumped(centre, 40, &random)
      default: return random.next()
      }
    }
  }

  /// Points added one to three at a time into clumps, onto uniform points and near earlier ones, on 48 seeded
  /// inputs of up to 6,000 points (three option sets): each zoom is updated only where the points reach
  /// (`locallyUpdated`), the walk again only for the items near them, and a zoom whose centres follow its tree's
  /// order summed again in the new tree's order; every extended index is the whole build's.
  @Test(arguments: 0..<4)
  func localUpdatesAreTheWholeBuild(part: Int) throws {
    var random = SeededSpherePoints(seed: UInt32(part) * 104_729 + 17)
    for trial in (part * 12)..<((part + 1) * 12) {
      let (options, centre) = Self.clumpedOptions(trial, &random)
      func clumped(_ spread: Double) -> GeoPoint? { Self.clumped(centre, spread, &random) }
      var points = Self.clumpedPoints(trial, centre, &random)
      var index = try ClusterIndex(points: points, options: options)
      for step in 0..<6 {
        let added: [GeoPoint?] = (0..<(step % 3 + 1)).map { _ in
          random.nextUnit() < 0.5 ? clumped(step % 2 == 0 ? 4 : 40) : random.next()
        }
        points += added
        let whole = try ClusterIndex(points: points, options: options)
        guard let extended = try index.appending(added) else {
          index = whole  // within reach at maxZoom: built whole, as the caller does
          continue
        }
        let difference = Self.difference(whole, extended)
        #expect(difference == nil, "trial \(trial) step \(step): \(difference ?? "")")
        if difference != nil { break }
        index = extended
      }
    }
  }

  /// Points added into dense clumps of 40,000 (a third in a 2° square, a tenth in a 0.05° one): zooms whose
  /// centres follow their k-d tree's order (`Level.ordered`), which each added point rearranges, are summed
  /// again in the new order; each extended index is the whole build's.
  @Test func clumpedInputsStayTheWholeBuild() throws {
    var random = SeededSpherePoints(seed: 4545)
    func point() -> GeoPoint? {
      let kind = random.nextUnit()
      if kind < 0.3 {
        return GeoPoint(uncheckedLatitude: 48 + random.nextUnit() * 2, longitude: 2 + random.nextUnit() * 2)
      }
      if kind < 0.4 {
        return GeoPoint(
          uncheckedLatitude: 40 + random.nextUnit() * 0.05, longitude: -74 + random.nextUnit() * 0.05)
      }
      return random.next()
    }
    var points: [GeoPoint?] = (0..<40_000).map { _ in point() }
    var index = try ClusterIndex(points: points)
    var extendedCount = 0
    for step in 0..<6 {
      let added = (0..<(step % 3 + 1)).map { _ in point() }
      points += added
      let whole = try ClusterIndex(points: points)
      guard let extended = try index.appending(added) else {
        index = whole
        continue
      }
      extendedCount += 1
      let difference = Self.difference(whole, extended)
      #expect(difference == nil, "step \(step): \(difference ?? "")")
      index = extended
    }
    #expect(extendedCount >= 3, "\(extendedCount) of 6 extended")
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
