import AtlasServer
import Foundation
import FuzzDriver
import GeoIndex

/// The base every input is the journal of: version 1, nonce 0123456789abcdef (the seeds' journals were written
/// by `serve` over it).
let base = """
  {"type":"FeatureCollection","newsatlas":{"version":1,"nonce":"0123456789abcdef"},"features":[\
  {"type":"Feature","id":1,"properties":{"name":"a"},"geometry":{"type":"Point","coordinates":[2.35,48.85]}},\
  {"type":"Feature","id":"b","properties":{"name":"b"},"geometry":{"type":"Point","coordinates":[-0.12,51.5]}},\
  {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[179.9,-89.9]}}]}
  """

let folder: String = {
  let path = "/dev/shm/newsatlas-fuzz-journal-\(getpid())"
  mkdir(path, 0o700)
  return path
}()

/// The input as the journal of a kept dataset, read as `serve` reads it at start: never a trap; a dataset not
/// served is said in a warning; nothing the journal held is lost: what stays is a prefix of it, and what was
/// cut away is kept aside (`live.journal.damaged-*`), or the whole is moved aside (`live.journal.stale-*`) unless
/// it was empty.
func fuzzJournal(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let journal = Data(bytes: data, count: size)
  let manager = FileManager.default
  for name in (try? manager.contentsOfDirectory(atPath: folder)) ?? [] {
    try? manager.removeItem(atPath: folder + "/" + name)
  }
  try! Data(base.utf8).write(to: URL(fileURLWithPath: folder + "/live.geojson"))
  try! journal.write(to: URL(fileURLWithPath: folder + "/live.journal"))
  var warnings: [String] = []
  let kept = AtlasService.keptDatasets(
    directory: folder, options: ClusterOptions(), aggregations: [], warn: { warnings.append($0) })
  let live = kept.first { $0.name == "live" }
  precondition(live != nil || !warnings.isEmpty, "the dataset is not served and no warning says why")
  if let live { precondition(live.version >= 1, "a version below the base's") }
  let names = (try? manager.contentsOfDirectory(atPath: folder)) ?? []
  let left = manager.contents(atPath: folder + "/live.journal")
  let damaged = names.filter { $0.hasPrefix("live.journal.damaged-") }.compactMap {
    manager.contents(atPath: folder + "/" + $0)
  }
  let stale = names.filter { $0.hasPrefix("live.journal.stale-") }.compactMap {
    manager.contents(atPath: folder + "/" + $0)
  }
  if let left {
    precondition(journal.starts(with: left), "what stays of the journal is not a prefix of it")
    precondition(
      left.count == journal.count || damaged == [journal.suffix(from: left.count)],
      "bytes cut away were not kept aside")
  } else {
    // An empty journal holds nothing and goes without a copy.
    precondition(stale == [journal] || (journal.isEmpty && stale.isEmpty), "a journal gone and not kept aside")
  }
  return 0
}

@main enum Main {
  static func main() { runFuzzer { data, size in fuzzJournal(data, size) } }
}
