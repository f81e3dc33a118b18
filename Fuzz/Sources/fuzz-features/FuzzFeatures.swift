import FuzzDriver
import GeoFormats

/// Reads the input as a GeoJSON or CSV feature file; every feature read back must parse again.
func fuzzFeatures(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let file = try? FeatureFile.parse(bytes, name: "fuzz", propertyNames: ["a", "index"]) else { return 0 }
  precondition(file.values.count == file.count * 2, "one value per feature and property")
  for index in 0..<min(file.count, 8) {
    let text = file.text(of: index)
    precondition((try? JSONParser.parse(text)) != nil, "feature \(index) does not read back")
  }
  return 0
}

@main enum Main {
  static func main() { runFuzzer { data, size in fuzzFeatures(data, size) } }
}
