import FuzzDriver
import GeoFormats

/// Parses JSON; whatever parses must survive a round trip through the writer unchanged.
func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let value = try? JSONParser.parse(bytes) else { return 0 }
  var writer = JSONWriter()
  writer.value(value)
  let again = try? JSONParser.parse(writer.bytes)
  precondition(again == value, "the writer's text does not parse back to the same value")
  return 0
}

@main enum Main {
  static func main() { runFuzzer { data, size in fuzzJSON(data, size) } }
}
