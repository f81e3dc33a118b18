// The Swift side of feeds_bench.py: parses each feed file given, `--iterations N` times in one process (after
// one warm-up parse; `--iterations 0` parses once, for a per-process timing), and prints one JSON line per file
// (bytes, iterations, seconds, items: -1 when refused). Reading the file is outside the timing.
import Feeds
import Foundation

@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

var iterations = 20
var files: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  if argument == "--iterations", let value = arguments.popFirst().flatMap(Int.init) {
    iterations = value
  } else {
    files.append(argument)
  }
}
for file in files {
  let bytes = Array(FileManager.default.contents(atPath: file) ?? Data())
  let url = "https://bench.example/" + (file as NSString).lastPathComponent
  // Warm-up, and the item count; -1 for a document the parser refuses (the corpus has some, on purpose).
  var items = (try? FeedParser.parse(bytes, url: url))?.items.count ?? -1
  let clock = ContinuousClock()
  let start = clock.now
  for _ in 0..<iterations {
    let feed = try? FeedParser.parse(bytes, url: url)
    items = feed?.items.count ?? -1
    blackHole(feed)
  }
  let elapsed = start.duration(to: clock.now)
  let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  print(
    "{\"file\":\"\((file as NSString).lastPathComponent)\",\"bytes\":\(bytes.count),"
      + "\"iterations\":\(iterations),\"seconds\":\(seconds),\"items\":\(items)}")
}
