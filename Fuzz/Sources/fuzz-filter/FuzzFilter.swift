import FuzzDriver
import GeoFormats

/// A MapLibre filter expression (the input's first line) evaluated on a feature's properties (the rest), as
/// `filter=` is on `serve`: reading never traps; the metered evaluation agrees with the unmetered one or says it
/// ran out of steps, and spends no more than it was given; the canonical text reads back to the same
/// canonical text and the same answer.
func fuzzFilter(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let newline = bytes.firstIndex(of: 0x0A) ?? bytes.count
  guard let filter = try? FeatureFilter(json: String(decoding: bytes[..<newline], as: UTF8.self)) else {
    return 0
  }
  let properties = newline < bytes.count ? try? JSONParser.parse(Array(bytes[(newline + 1)...])) : nil
  let answer = filter.matches(properties)
  for budget in [0, 1, 7, 64, 1_000] {
    var steps = budget
    do {
      let metered = try filter.matches(properties, steps: &steps)
      precondition(metered == answer, "the metered answer differs")
      precondition(steps >= 0 && steps <= budget, "steps went below zero or up")
    } catch {
      precondition(steps >= 0 && steps <= budget, "steps went below zero or up")
    }
  }
  let again = try? FeatureFilter(json: filter.canonical)
  precondition(again?.canonical == filter.canonical, "the canonical text does not read back to itself")
  precondition(again?.matches(properties) == answer, "the canonical filter answers otherwise")
  return 0
}

@main enum Main {
  static func main() { runFuzzer { data, size in fuzzFilter(data, size) } }
}
