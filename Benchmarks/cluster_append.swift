// ClusterIndex.appending against whole builds (issue 30), in process: N seeded points (uniform in latitude
// -80...80 and longitude, as live_bench.py's), then ROUNDS times one more seeded point, appended to the index and
// built whole over the same points, alternately; prints both wall times in milliseconds and checks that the two
// indexes have as many items at zoom 0. Compiled with Sources/GeoIndex by cluster_append.sh (swiftc -O -wmo).
#if canImport(Glibc)
  import Glibc
#endif

var state: UInt64 = 7
func unit() -> Double {  // SplitMix64
  state &+= 0x9E37_79B9_7F4A_7C15
  var z = state
  z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
  z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
  return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
}
func milliseconds() -> Double {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return Double(t.tv_sec) * 1e3 + Double(t.tv_nsec) / 1e6
}
func point() -> GeoPoint? { GeoPoint(uncheckedLatitude: unit() * 160 - 80, longitude: unit() * 360 - 180) }

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1])! : 1_000_000
let rounds = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2])! : 6
var points: [GeoPoint?] = (0..<count).map { _ in point() }
var index = try! ClusterIndex(points: points)
var appended: [Int] = []
var whole: [Int] = []
var declined = 0
for _ in 0..<rounds {
  let added = [point()]
  var start = milliseconds()
  let extended = try! index.appending(added)
  appended.append(Int(milliseconds() - start))
  points += added
  start = milliseconds()
  let built = try! ClusterIndex(points: points)
  whole.append(Int(milliseconds() - start))
  if extended == nil {  // within reach at maxZoom: the caller builds whole, which the write then costs too
    declined += 1
    appended[appended.count - 1] += whole[whole.count - 1]
  }
  let next = extended ?? built
  precondition(built.entries(levelOffset: 0).count == next.entries(levelOffset: 0).count)
  index = next
}
print(
  "n=\(count) appending one point, ms: \(appended) (\(declined) declined) | whole builds, ms: \(whole)")
