import GeoIndex

/// Times ClusterIndex: build at 10k and 1M points, and world queries at every zoom 0...16.
func clusterMeasurements(sizes: [Int]) {
  for n in sizes {
    let points: [GeoPoint?] = SeededSpherePoints.make(count: n, seed: 1)
    let buildMilliseconds = best(rounds: n >= 1_000_000 ? 3 : 10) {
      let start = now()
      let index = try! ClusterIndex(points: points)
      let elapsed = now() - start
      consume(index.featureCount)
      return elapsed * 1000
    }
    let index = try! ClusterIndex(points: points)
    let queryMilliseconds = best(rounds: 3) {
      var total = 0
      let start = now()
      for zoom in 0...16 { total += index.clusters(in: .world, zoom: Double(zoom)).count }
      let elapsed = now() - start
      consume(total)
      return elapsed * 1000
    }
    print(
      "{\"clusters\":true,\"n\":\(n),\"buildMs\":\(buildMilliseconds),\"allZoomQueriesMs\":\(queryMilliseconds)}"
    )
  }
}
