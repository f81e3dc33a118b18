import SeededPoints
import Testing

@testable import GeoIndex

/// `ClusterIndex.removing` against a whole build over the points left (issue 30: a removal visible within a
/// second at a million points), compared as `ClusterAppendingTests` compares (every level's items, ids, counts,
/// centres and parents; clusters over the world and a tile at every zoom), on the same kinds of seeded input;
/// and both changes where a zoom's clusters depend on its k-d tree's order.
@Suite struct ClusterRemovingTests {
  /// `count` distinct input indices of `0..<n`, ascending.
  static func pick(_ count: Int, of n: Int, _ random: inout SeededSpherePoints) -> [Int] {
    var chosen = Set<Int>()
    while chosen.count < min(count, n) { chosen.insert(Int(random.nextUnit() * Double(n)) % n) }
    return chosen.sorted()
  }

  static func without(_ points: [GeoPoint?], _ removed: [Int]) -> [GeoPoint?] {
    let gone = Set(removed)
    return points.indices.filter { !gone.contains($0) }.map { points[$0] }
  }

  @Test(arguments: 0..<4)
  func aReducedIndexIsTheWholeBuild(part: Int) throws {
    var random = SeededSpherePoints(seed: UInt32(part) * 6007 + 3)
    var reducedCount = 0
    for trial in (part * 30)..<((part + 1) * 30) {
      let n = [2, 3, 6, 40, 300, 2000][trial % 6]
      var base: [GeoPoint?] = (0..<n).map { _ in
        ClusterAppendingTests.point(trial % 7 == 0 ? 1 : Int(random.nextUnit() * 6), &random)
      }
      if trial % 5 == 0 { base += base.prefix(3) }
      // Up to 70 points, or all of them: beyond `appendedLimit` or with none left it declines (nil). Mostly
      // points that are not duplicates (a duplicate is within reach at `maxZoom`: declined).
      let m = min(base.count, [1, 1, 1, 2, 2, 3, 70][Int(random.nextUnit() * 7)])
      let duplicate = ClusterAppendingTests.point(5, &random)
      let candidates = base.indices.filter { trial % 3 == 0 || base[$0] != duplicate }
      let removed =
        m <= candidates.count && m < base.count
        ? Self.pick(m, of: candidates.count, &random).map { candidates[$0] }
        : Self.pick(m, of: base.count, &random)
      let options = ClusterAppendingTests.options(trial: trial)
      let old = try ClusterIndex(points: base, options: options)
      let left = Self.without(base, removed)
      let mustDecline = m > ClusterIndex<Void>.appendedLimit || m == base.count
      guard let reduced = try old.removing(removed) else {
        // Declined where it saves nothing: the documented cases, or a point within reach at `maxZoom`.
        #expect(
          mustDecline || removed.contains { base[$0] != nil },
          "trial \(trial): declined \(m) removed from \(base.count)")
        continue
      }
      #expect(!mustDecline, "trial \(trial): reduced \(m) removed from \(base.count)")
      reducedCount += 1
      let whole = try ClusterIndex(points: left, options: options)
      #expect(reduced.inputCount == left.count && reduced.pointXs == whole.pointXs)
      let difference = ClusterAppendingTests.difference(whole, reduced)
      #expect(
        difference == nil, "trial \(trial): \(base.count) points, \(removed) removed: \(difference ?? "")")
    }
    // Most cases are reduced, not declined (so the comparisons above are not vacuous).
    #expect(reducedCount >= 15, "part \(part): \(reducedCount) of 30 reduced")
  }

  /// One to three points at a time out of 30,000 uniform ones and a clump, now and then with points added too:
  /// each changed index is the whole build's, and so is the index changed again from it.
  @Test func repeatedRemovalsStayTheWholeBuild() throws {
    var random = SeededSpherePoints(seed: 77)
    var points: [GeoPoint?] = (0..<30_000).map { _ in ClusterAppendingTests.point(1, &random) }
    points += (0..<300).map { _ in ClusterAppendingTests.point(2, &random) }
    var index = try ClusterIndex(points: points)
    var reduced = 0
    for step in 0..<10 {
      let removed = Self.pick(step % 3 + 1, of: points.count, &random)
      if let next = try index.removing(removed) {
        index = next
        reduced += 1
      } else {
        index = try ClusterIndex(points: Self.without(points, removed))
      }
      points = Self.without(points, removed)
      if step % 4 == 3 {
        let added = [ClusterAppendingTests.point(1, &random)]
        index = try #require(try index.appending(added))
        points += added
      }
      let difference = ClusterAppendingTests.difference(try ClusterIndex(points: points), index)
      #expect(difference == nil, "step \(step): \(difference ?? "")")
    }
    #expect(reduced >= 7, "\(reduced) of 10 removals reduced the index")
  }

  /// Removals and moves (a removal, then the point added where it went, as a followed table's UPDATE) in clumped
  /// inputs, with other radii and zoom ranges: each zoom from the first one a removed point reached is updated
  /// where it was (`locallyUpdated`), and each changed index is the whole build's.
  @Test(arguments: 0..<4)
  func localRemovalsAreTheWholeBuild(part: Int) throws {
    var random = SeededSpherePoints(seed: UInt32(part) * 7919 + 29)
    var reduced = 0
    for trial in (part * 10)..<((part + 1) * 10) {
      let (options, centre) = ClusterAppendingTests.clumpedOptions(trial, &random)
      var points = ClusterAppendingTests.clumpedPoints(trial, centre, &random)
      var index = try ClusterIndex(points: points, options: options)
      for step in 0..<6 {
        let removed = Self.pick(step % 3 + 1, of: points.count, &random)
        points = Self.without(points, removed)
        guard let next = try index.removing(removed) else {
          // Declined: built whole, as the caller does.
          index = try ClusterIndex(points: points, options: options)
          continue
        }
        reduced += 1
        var changed = next
        if step % 2 == 1 {  // moved: added again elsewhere
          let added = [
            random.nextUnit() < 0.5 ? ClusterAppendingTests.clumped(centre, 4, &random) : random.next()
          ]
          points += added
          changed = try next.appending(added) ?? ClusterIndex(points: points, options: options)
        }
        let difference = ClusterAppendingTests.difference(
          try ClusterIndex(points: points, options: options), changed)
        #expect(difference == nil, "trial \(trial) step \(step), removed \(removed): \(difference ?? "")")
        if difference != nil { break }
        index = changed
      }
    }
    #expect(reduced >= 30, "part \(part): \(reduced) of 60 removals reduced the index")
  }

  /// Points removed together that were each other's only neighbours: the zooms where they reach each other (a
  /// pair or a trio clustered alone, at one to several hundred kilometres) are clustered again, not copied
  /// with their cluster left behind. A CI run of `ServeTableTests` found the pair (issue 45).
  @Test(arguments: 0..<8)
  func pointsRemovedTogetherThatReachedOnlyEachOther(seed: Int) throws {
    var random = SeededSpherePoints(seed: UInt32(seed) + 901)
    var points: [GeoPoint?] = (0..<300).map { _ in ClusterAppendingTests.point(1, &random) }
    let spread = [0.05, 0.5, 2, 5][seed % 4]
    let group = seed < 4 ? 2 : 3
    // Far from the other points (a few hundred of them leave gaps wider than the spread): in mid-ocean.
    let centre = (latitude: -40 + random.nextUnit() * 5, longitude: -120 + random.nextUnit() * 5)
    points.removeAll { point in
      abs(point!.latitude - centre.latitude) < 15 && abs(point!.longitude - centre.longitude) < 15
    }
    let at = Int(random.nextUnit() * Double(points.count))
    for k in 0..<group {
      points.insert(
        GeoPoint(
          uncheckedLatitude: centre.latitude + Double(k) * spread,
          longitude: centre.longitude + Double(k) * spread * 0.7),
        at: at + k * 7)
    }
    let removed = (0..<group).map { at + $0 * 7 }
    let index = try ClusterIndex(points: points)
    let reduced = try #require(try index.removing(removed), "seed \(seed): declined")
    let difference = ClusterAppendingTests.difference(
      try ClusterIndex(points: Self.without(points, removed)), reduced)
    #expect(difference == nil, "seed \(seed), removed \(removed): \(difference ?? "")")
  }

  /// A clump whose points gather too few neighbours for `minPoints` at the top zooms, so that each zoom copies
  /// them down in its k-d tree's order, and uniform points around it: a point added or removed far from the
  /// clump changes the level's tree, so those zooms are clustered again (`Level.ordered`), and both changes
  /// give the whole build.
  @Test(arguments: 0..<6)
  func zoomsThatDependOnTheTreeOrderAreClusteredAgain(seed: Int) throws {
    var random = SeededSpherePoints(seed: UInt32(seed) + 501)
    var options = ClusterOptions()
    options.minPoints = 6
    options.nodeSize = 4
    var points: [GeoPoint?] = (0..<400).map { _ in
      GeoPoint(
        uncheckedLatitude: 10 + random.nextUnit() * 0.002, longitude: 20 + random.nextUnit() * 0.002)
    }
    points += (0..<600).map { _ in ClusterAppendingTests.point(1, &random) }
    let index = try ClusterIndex(points: points, options: options)
    #expect(index.levels.contains { $0.ordered }, "seed \(seed): no zoom depends on its tree's order")
    let added: [GeoPoint?] = [GeoPoint(uncheckedLatitude: -60 + random.nextUnit(), longitude: -150)]
    if let extended = try index.appending(added) {
      let difference = ClusterAppendingTests.difference(
        try ClusterIndex(points: points + added, options: options), extended)
      #expect(difference == nil, "seed \(seed), added: \(difference ?? "")")
    }
    let removed = [400 + Int(random.nextUnit() * 600)]
    if let reduced = try index.removing(removed) {
      let difference = ClusterAppendingTests.difference(
        try ClusterIndex(points: Self.without(points, removed), options: options), reduced)
      #expect(difference == nil, "seed \(seed), removed \(removed): \(difference ?? "")")
    }
  }

  /// An index built with `map` and `reduce` is not reduced (their closures are not kept), nor one whose every
  /// point goes: nil, so that the caller builds it whole.
  @Test func anAggregatingIndexOrEveryPointIsNotReduced() throws {
    let points: [GeoPoint?] = [
      GeoPoint(uncheckedLatitude: 1, longitude: 1), GeoPoint(uncheckedLatitude: 50, longitude: 1),
    ]
    let aggregating = try ClusterIndex<Double>(points: points, map: { Double($0) }, reduce: { $0 += $1 })
    #expect(try aggregating.removing([0]) == nil)
    let plain = try ClusterIndex(points: points)
    #expect(try plain.removing([0, 1]) == nil)
    let one = try #require(try plain.removing([0]))
    #expect(one.inputCount == 1 && one.clusters(in: .world, zoom: 0) == [.point(index: 0)])
  }
}
