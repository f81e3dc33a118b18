import Benchmark
import GeoIndex
import SeededPoints

/// ClusterIndex build at 10k and 1M points (the fixtures' generator, seed 1), and world queries at every zoom.
func clusterBenchmarks() {
  for n in [10_000, 1_000_000] {
    let points: [GeoPoint?] = SeededSpherePoints.make(count: n, seed: 1)
    Benchmark("cluster build n=\(n)", configuration: .init(maxIterations: n >= 1_000_000 ? 5 : 200)) {
      benchmark in
      for _ in benchmark.scaledIterations { blackHole(try ClusterIndex(points: points)) }
    }
    let index = try! ClusterIndex(points: points)
    Benchmark("clusters world zooms 0-16 n=\(n)", configuration: .init(maxIterations: 50)) { benchmark in
      for _ in benchmark.scaledIterations {
        for zoom in 0...16 { blackHole(index.clusters(in: .world, zoom: Double(zoom))) }
      }
    }
  }
}
