import AtlasAnswers
import FuzzDriver
import GeoFormats
import NewsAtlas

/// Feeds batch rows in chunks whose size the first byte picks, for a query and format the second picks;
/// every input line must be accounted for, and the output must be whole lines.
func fuzzBatch(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size >= 2 else { return 0 }
  let chunk = Int(data[0]) + 1
  let query: BatchQuery =
    data[1] & 1 == 0
    ? .resolve(data[1] & 8 == 0 ? .newsAPI : .world)
    : .nearest(.countries, count: Int(data[1] >> 4) + 1, maxKilometers: data[1] & 2 == 0 ? .infinity : 500)
  let format: BatchFormat = data[1] & 4 == 0 ? .csv : .jsonl
  var output: [UInt8] = []
  let out = OutputBuffer(capacity: 1 << 12) { bytes in
    output.append(contentsOf: bytes)
    return true
  }
  var rows = BatchRows(query: query, format: format, output: out)
  var offset = 2
  var failed = false
  while offset < size {
    let count = min(chunk, size - offset)
    do {
      try rows.feed(UnsafeBufferPointer(start: data + offset, count: count))
    } catch {
      failed = true
      break
    }
    offset += count
  }
  let summary = rows.finish()
  precondition(summary.failedRows <= summary.rows)
  precondition(output.isEmpty || output.last == 0x0A || failed, "output ends inside a line")
  let lines = output.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
  precondition(lines == summary.rows + (format == .csv ? 1 : 0), "one output line per row (and a header)")
  return 0
}

@main enum Main {
  static func main() { runFuzzer { data, size in fuzzBatch(data, size) } }
}
