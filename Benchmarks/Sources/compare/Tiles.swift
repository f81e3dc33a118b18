import AtlasAnswers
import Dispatch
import GeoFormats
import GeoIndex
import SeededPoints
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Mapbox Vector Tiles per second over a tile list (`Fixtures/tiles-3000.json`, z0–z14, from the shared
/// benchmark set) on `count` seeded points with an `{"index": i}` property, as the Node stack is measured:
/// supercluster's getTile, then vt-pbf. Prints one JSON line: load (parse + index) seconds and tiles/s.
func tileMeasurements(tilesPath: String, count: Int) {
  guard let data = readFile(tilesPath), case .array(let list)? = try? JSONParser.parse(data) else {
    print("{\"error\":\"cannot read \(tilesPath)\"}")
    return
  }
  let tiles: [(Int, Int, Int)] = list.compactMap { value in
    guard case .array(let xyz) = value, xyz.count == 3, let z = xyz[0].doubleValue,
      let x = xyz[1].doubleValue,
      let y = xyz[2].doubleValue
    else { return nil }
    return (Int(z), Int(x), Int(y))
  }
  let points = SeededSpherePoints.make(count: count, seed: 1)
  var text: [UInt8] = Array(#"{"type":"FeatureCollection","features":["#.utf8)
  for (i, point) in points.enumerated() {
    if i > 0 { text.append(UInt8(ascii: ",")) }
    text += Array(
      #"{"type":"Feature","properties":{"index":\#(i)},"geometry":{"type":"Point","coordinates":[\#(point.longitude),\#(point.latitude)]}}"#
        .utf8)
  }
  text += Array("]}".utf8)
  let loadStart = now()
  guard let file = try? FeatureFile.parse(text, name: "points"),
    let index = try? Aggregation.index(of: file, options: ClusterOptions(), aggregations: [])
  else { return }
  let load = now() - loadStart
  let writer = ClusterWriter(index: index, file: file, aggregations: [])
  var bytes = 0
  // TILE_ROUNDS raises the rounds (for a profiler to see the tiles rather than the load).
  let rounds = getenv("TILE_ROUNDS").flatMap { Int(String(cString: $0)) } ?? 3
  let seconds = best(rounds: rounds) {
    let start = now()
    for (z, x, y) in tiles {
      bytes += writer.vectorTile(index.tile(zoom: z, x: x, y: y), layerName: "points")?.count ?? 0
    }
    return now() - start
  }
  consume(bytes)
  // The same list on every core, as a tile server answers: each thread takes the next tile not yet taken,
  // from one shared, read-only index.
  let threads = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
  // Immutable once built; the service shares them between its threads the same way (`Dataset`).
  struct Shared: @unchecked Sendable {
    let writer: ClusterWriter
    let index: ClusterIndex<[Double]>
  }
  let shared = Shared(writer: writer, index: index)
  let parallelBytes = Atomic<Int>(0)
  let parallelSeconds = best(rounds: rounds) {
    let next = Atomic<Int>(0)
    let start = now()
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
      var bytes = 0
      while true {
        let i = next.add(1, ordering: .relaxed).oldValue
        if i >= tiles.count { break }
        let (z, x, y) = tiles[i]
        bytes +=
          shared.writer.vectorTile(shared.index.tile(zoom: z, x: x, y: y), layerName: "points")?.count ?? 0
      }
      parallelBytes.add(bytes, ordering: .relaxed)
    }
    return now() - start
  }
  // As many passes of the same tiles on all threads as on one: the same bytes.
  precondition(parallelBytes.load(ordering: .relaxed) == bytes)
  print(
    "{\"name\":\"mvt_tiles\",\"points\":\(count),\"tiles\":\(tiles.count),\"load_s\":\(load),"
      + "\"tiles_per_s\":\(Double(tiles.count) / seconds),\"threads\":\(threads),"
      + "\"tiles_per_s_all_threads\":\(Double(tiles.count) / parallelSeconds)}")
}

func readFile(_ path: String) -> [UInt8]? {
  guard let handle = fopen(path, "rb") else { return nil }
  defer { fclose(handle) }
  var result: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 1 << 16)
  while true {
    let got = fread(&chunk, 1, chunk.count, handle)
    if got == 0 { return result }
    result += chunk[0..<got]
  }
}
