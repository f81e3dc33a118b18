// Times GeoIndex on the point sets compare.py gives its peers, and prints one JSON line a measurement.
//
// Points are the seed-1 stream of SeededSpherePoints (the shared fixtures' generator), queries the seed-2
// stream, visited in a random order. Each figure is the best of several rounds, single-threaded.
import GeoIndex
import SeededPoints

#if canImport(Glibc)
  import Glibc
#endif

func now() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

@inline(never) func consume(_ value: Int) {
  if value == -1 { print("") }
}

func best(rounds: Int, _ body: () -> Double) -> Double {
  (0..<rounds).map { _ in body() }.min()!
}

let arguments = CommandLine.arguments
if arguments.count > 2 && arguments[1] == "cache" {
  cacheMeasurements(path: arguments[2])
  exit(0)
}
if arguments.count > 3 && arguments[1] == "resolve" {
  resolveMeasurements(pointsPath: arguments[2], codesPath: arguments[3])
  exit(0)
}
if arguments.count > 2 && arguments[1] == "tiles" {
  tileMeasurements(tilesPath: arguments[2], count: arguments.count > 3 ? Int(arguments[3])! : 1_000_000)
  exit(0)
}
if arguments.count > 1 && arguments[1] == "clusters" {
  clusterMeasurements(
    sizes: arguments.count > 2 ? arguments[2].split(separator: ",").map { Int($0)! } : [10_000, 1_000_000])
  exit(0)
}
let sizes =
  arguments.count > 1 ? arguments[1].split(separator: ",").map { Int($0)! } : [54, 10_000, 1_000_000]
let leaf = Int(String(cString: getenv("LEAF") ?? strdup("16"))) ?? 16
let queryCount = arguments.count > 2 ? Int(arguments[2])! : 100_000
var shuffle = SeededSpherePoints(seed: 3)
var queries = SeededSpherePoints.make(count: queryCount, seed: 2)
for i in stride(from: queries.count - 1, to: 0, by: -1) {  // Fisher–Yates, seeded
  queries.swapAt(i, Int(shuffle.nextWord() % UInt32(i + 1)))
}

for n in sizes {
  let points = SeededSpherePoints.make(count: n, seed: 1)
  let buildMilliseconds = best(rounds: n >= 1_000_000 ? 3 : 10) {
    let start = now()
    let tree = SphericalKDTree(points: points, leafSize: leaf)
    let elapsed = now() - start
    consume(tree.count)
    return elapsed * 1000
  }
  let tree = SphericalKDTree(points: points, leafSize: leaf)
  let nearestNanoseconds = best(rounds: 5) {
    var checksum = 0
    let start = now()
    for query in queries {
      // The distance too: a query that is never asked for its distance could skip computing it.
      let neighbor = tree.nearest(to: query)!
      checksum &+= neighbor.index &+ Int(truncatingIfNeeded: neighbor.distanceKilometers.bitPattern)
    }
    let elapsed = now() - start
    consume(checksum)
    return elapsed * 1e9 / Double(queries.count)
  }
  // The naive twin: every distance, keep the smallest (ties to the lowest index).
  let bruteQueries = Array(queries.prefix(max(200, min(queries.count, 50_000_000 / n))))
  let skipBrute = arguments.count > 3
  let bruteNanoseconds =
    skipBrute
    ? 0
    : best(rounds: 3) {
      var checksum = 0
      let start = now()
      for query in bruteQueries {
        var bestIndex = 0
        var bestDistance = Double.infinity
        for (i, point) in points.enumerated() {
          let d = GreatCircle.distanceKilometers(from: query, to: point)
          if d < bestDistance {
            bestDistance = d
            bestIndex = i
          }
        }
        checksum &+= bestIndex
      }
      let elapsed = now() - start
      consume(checksum)
      return elapsed * 1e9 / Double(bruteQueries.count)
    }
  print(
    "{\"n\":\(n),\"queries\":\(queries.count),\"buildMs\":\(buildMilliseconds),"
      + "\"nearestNs\":\(nearestNanoseconds),\"bruteForceNs\":\(bruteNanoseconds)}")
}
