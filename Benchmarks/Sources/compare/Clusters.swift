import GeoIndex
import SeededPoints

/// Times ClusterIndex: build at 10k and 1M points (on every core and on one), and world queries at every zoom
/// 0...16.
func clusterMeasurements(sizes: [Int]) {
  for n in sizes {
    let points: [GeoPoint?] = SeededSpherePoints.make(count: n, seed: 1)
    // Every core (the default), then one thread: the same index, so the ratio is what the threads bring.
    let buildMilliseconds = best(rounds: n >= 1_000_000 ? 3 : 20) {
      let start = now()
      let index = try! ClusterIndex(points: points)
      let elapsed = now() - start
      consume(index.featureCount)
      return elapsed * 1000
    }
    let oneThreadMilliseconds = best(rounds: n >= 1_000_000 ? 3 : 20) {
      let start = now()
      let index = try! ClusterIndex(points: points, threads: 1)
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
      "{\"clusters\":true,\"n\":\(n),\"buildMs\":\(buildMilliseconds),"
        + "\"buildOneThreadMs\":\(oneThreadMilliseconds),\"allZoomQueriesMs\":\(queryMilliseconds)}"
    )
  }
}
