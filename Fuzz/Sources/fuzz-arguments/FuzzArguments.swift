import FuzzDriver
import GeoFormats

/// Coordinates, boxes and tile addresses as typed: each is accepted with sane values or refused.
func fuzzArguments(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  if let number = Coordinates.number(text) { precondition(number.isFinite) }
  if let box = try? Coordinates.box(text) {
    precondition([box.west, box.south, box.east, box.north].allSatisfy(\.isFinite))
  }
  if let tile = try? Coordinates.tile(text) {
    precondition((0...30).contains(tile.zoom) && tile.x >= 0 && tile.y >= 0 && tile.x < 1 << tile.zoom)
  }
  let parts = text.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
  if parts.count == 2,
    let point = try? Coordinates.point(latitude: String(parts[0]), longitude: String(parts[1]))
  {
    precondition(abs(point.latitude) <= 90 && abs(point.longitude) <= 180)
  }
  return 0
}

@main enum Main {
  static func main() { runFuzzer { data, size in fuzzArguments(data, size) } }
}
