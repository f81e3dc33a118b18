// Build and query benchmarks for SphericalKDTree, each beside a brute-force twin.
//
// Points: the seed-1 stream of SeededSpherePoints (the shared fixtures' generator); queries: the seed-2 stream
// in a seeded random order. Setup happens outside the measured region; every result goes through blackHole.
import Benchmark
import GeoIndex
import SeededPoints

let sizes = [54, 10_000, 1_000_000]

func shuffledQueries(_ count: Int) -> [GeoPoint] {
  var queries = SeededSpherePoints.make(count: count, seed: 2)
  var words = SeededSpherePoints(seed: 3)
  for i in stride(from: queries.count - 1, to: 0, by: -1) {
    queries.swapAt(i, Int(words.nextWord() % UInt32(i + 1)))
  }
  return queries
}

/// The naive twin: every distance, the smallest kept, ties to the lowest index.
func bruteForceNearest(_ points: [GeoPoint], _ query: GeoPoint) -> Int {
  var best = 0
  var bestDistance = Double.infinity
  for (i, point) in points.enumerated() {
    let d = GreatCircle.distanceKilometers(from: query, to: point)
    if d < bestDistance {
      bestDistance = d
      best = i
    }
  }
  return best
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    warmupIterations: 3,
    maxDuration: .seconds(3),
    maxIterations: 1_000
  )
  let queries = shuffledQueries(100_000)
  clusterBenchmarks()

  for n in sizes {
    let points = SeededSpherePoints.make(count: n, seed: 1)

    Benchmark("build n=\(n)", configuration: .init(maxIterations: n >= 1_000_000 ? 20 : 1_000)) { benchmark in
      for _ in benchmark.scaledIterations { blackHole(SphericalKDTree(points: points)) }
    }

    // Brute force builds nothing; its twin of "build" is copying the points it will scan.
    Benchmark("build brute force n=\(n)", configuration: .init(maxIterations: n >= 1_000_000 ? 20 : 1_000)) {
      benchmark in
      for _ in benchmark.scaledIterations { blackHole(Array(points)) }
    }

    let tree = SphericalKDTree(points: points)
    Benchmark("nearest n=\(n)", configuration: .init(scalingFactor: .kilo)) { benchmark in
      var q = 0
      for _ in benchmark.scaledIterations {
        blackHole(tree.nearest(to: queries[q]))
        q = q + 1 == queries.count ? 0 : q + 1
      }
    }

    Benchmark("nearest brute force n=\(n)", configuration: .init(scalingFactor: n >= 10_000 ? .one : .kilo)) {
      benchmark in
      var q = 0
      for _ in benchmark.scaledIterations {
        blackHole(bruteForceNearest(points, queries[q]))
        q = q + 1 == queries.count ? 0 : q + 1
      }
    }

    Benchmark("10 nearest n=\(n)", configuration: .init(scalingFactor: .kilo)) { benchmark in
      var q = 0
      for _ in benchmark.scaledIterations {
        blackHole(tree.neighbors(of: queries[q], count: 10))
        q = q + 1 == queries.count ? 0 : q + 1
      }
    }

    Benchmark("within 500 km n=\(n)", configuration: .init(scalingFactor: .kilo)) { benchmark in
      var q = 0
      for _ in benchmark.scaledIterations {
        blackHole(tree.points(withinKilometers: 500, of: queries[q]))
        q = q + 1 == queries.count ? 0 : q + 1
      }
    }
  }
}
