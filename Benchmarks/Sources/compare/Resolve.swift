import GeoIndex
import NewsAtlas

#if canImport(Glibc)
  import Glibc
#endif

/// Times `Country.resolve` over the points of a file (one "latitude,longitude" a line), single-threaded, and
/// writes each point's containing country code (or "-") to `codesPath`, for the comparison with a peer.
func resolveMeasurements(pointsPath: String, codesPath: String) {
  guard let file = fopen(pointsPath, "r") else { fatalError("cannot open \(pointsPath)") }
  var points: [GeoPoint] = []
  var line: UnsafeMutablePointer<CChar>? = nil
  var capacity = 0
  while getline(&line, &capacity, file) > 0 {
    let parts = String(cString: line!).split(separator: ",")
    points.append(GeoPoint(uncheckedLatitude: Double(parts[0])!, longitude: Double(parts[1].dropLast())!))
  }
  fclose(file)
  _ = Country.resolve(points[0])  // load the borders outside the timing
  let seconds = best(rounds: 5) {
    var checksum = 0
    let start = now()
    for point in points { checksum &+= Country.resolve(point).country.code.utf8.count }
    let elapsed = now() - start
    consume(checksum)
    return elapsed
  }
  let codes = points.map { Country.resolve($0).containing?.code ?? "-" }.joined(separator: "\n")
  let out = fopen(codesPath, "w")
  fputs(codes + "\n", out)
  fclose(out)
  print("{\"resolve\":true,\"points\":\(points.count),\"perSecond\":\(Double(points.count) / seconds)}")
}
