import FuzzDriver
import GeoFormats
import GeoIndex

/// Reads the input as a GeoJSON or CSV feature file. Every feature read back must parse again, and for GeoJSON
/// its position must be the one the full parser reads from that text: the fast scan and the parser must agree.
/// CSV read with `.jsonNumbers` (as `serve` keeps a written dataset) must give the values its features' GeoJSON
/// gives when read again.
func fuzzFeatures(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let file = try? FeatureFile.parse(bytes, name: "fuzz", propertyNames: ["a", "index"]) else {
    return 0
  }
  precondition(file.values.count == file.count * 2, "one value per feature and property")
  let isGeoJSON =
    bytes.first { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) } == UInt8(ascii: "{")
  for index in 0..<min(file.count, 16) {
    guard let feature = try? JSONParser.parse(file.text(of: index)) else {
      preconditionFailure("feature \(index) does not read back")
    }
    guard isGeoJSON else { continue }
    var expected: GeoPoint? = nil
    if let geometry = feature["geometry"], case .string("Point")? = geometry["type"],
      case .array(let coordinates)? = geometry["coordinates"], coordinates.count >= 2,
      let longitude = coordinates[0].doubleValue, let latitude = coordinates[1].doubleValue
    {
      expected = GeoPoint(uncheckedLatitude: latitude, longitude: longitude)
    }
    precondition(
      file.points[index] == expected,
      "feature \(index): \(String(describing: file.points[index])) != \(String(describing: expected))")
    let a = feature["properties"]?["a"]?.doubleValue ?? .nan
    precondition(
      a == file.values[index * 2] || (a.isNaN && file.values[index * 2].isNaN), "property a of \(index)")
  }
  if !isGeoJSON,
    let typed = try? FeatureFile.parse(
      bytes, name: "fuzz", propertyNames: ["a", "index"], csvFields: .jsonNumbers)
  {
    let count = min(typed.count, 16)
    var collection = Array(#"{"type":"FeatureCollection","features":["#.utf8)
    for index in 0..<count {
      if index > 0 { collection.append(UInt8(ascii: ",")) }
      collection += typed.text(of: index)
    }
    collection += Array("]}".utf8)
    guard let again = try? FeatureFile.parse(collection, name: "fuzz", propertyNames: ["a", "index"]) else {
      preconditionFailure("the typed CSV's features do not read back as a FeatureCollection")
    }
    for i in 0..<(count * 2) {
      let (x, y) = (typed.values[i], again.values[i])
      precondition(x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN), "value \(i) of the typed CSV")
    }
  }
  return 0
}

@main enum Main {
  static func main() { runFuzzer { data, size in fuzzFeatures(data, size) } }
}
