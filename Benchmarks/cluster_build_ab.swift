// The cluster build timed in process, for Benchmarks/cluster_build_ab.sh: compiled into the GeoIndex module of a
// revision (`swiftc -O -wmo -module-name GeoIndex Sources/GeoIndex/*.swift cluster_build_ab.swift`), it builds a
// `ClusterIndex` over N seeded points (uniform in latitude -80...80 and longitude, rounded to 6 decimals, as
// live_bench.py's) ROUNDS times and prints each build's wall and CPU time (the process's, both threads), then a
// hash of every level's items (positions' bits, ids, counts, parents) so that two revisions can be seen to agree.
//
//     cluster_build_ab N ROUNDS
#if canImport(Glibc)
  import Glibc
#endif

func seconds(_ clock: clockid_t) -> Double {
  var time = timespec()
  clock_gettime(clock, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

let arguments = CommandLine.arguments
let count = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
var state = UInt64(count)
func unit() -> Double {  // SplitMix64
  state &+= 0x9E37_79B9_7F4A_7C15
  var z = state
  z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
  z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
  return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
}
let points: [GeoPoint?] = (0..<count).map { _ in
  let latitude = ((-80 + 160 * unit()) * 1e6).rounded() / 1e6
  let longitude = ((-180 + 360 * unit()) * 1e6).rounded() / 1e6
  return GeoPoint(uncheckedLatitude: latitude, longitude: longitude)
}
var index: ClusterIndex<Void>? = nil
func minorFaults() -> Int {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return usage.ru_minflt
}
var walls: [Double] = []
var cpus: [Double] = []
var faults: [Double] = []
for _ in 0..<rounds {
  index = nil
  let wall = seconds(CLOCK_MONOTONIC)
  let cpu = seconds(CLOCK_PROCESS_CPUTIME_ID)
  let faulted = minorFaults()
  index = try ClusterIndex(points: points)
  walls.append((seconds(CLOCK_MONOTONIC) - wall) * 1000)
  cpus.append((seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu) * 1000)
  faults.append(Double(minorFaults() - faulted) / 1000)
}
var hash: UInt64 = 0xcbf2_9ce4_8422_2325
func mix(_ value: UInt64) { hash = (hash ^ value) &* 0x0000_0100_0000_01B3 }
for offset in index!.levels.indices {
  for item in index!.entries(levelOffset: offset) {
    mix(item.x.bitPattern)
    mix(item.y.bitPattern)
    mix(UInt64(bitPattern: Int64(item.id)))
    mix(UInt64(item.count))
    mix(UInt64(bitPattern: Int64(item.parent)))
  }
}
func list(_ values: [Double]) -> String { values.map { String(Int($0.rounded())) }.joined(separator: " ") }
print(
  "wall ms \(list(walls)) | cpu ms \(list(cpus)) | minor faults k \(list(faults)) | hash \(String(hash, radix: 16))"
)
