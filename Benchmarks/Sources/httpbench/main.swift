// The fetch layer, side by side on loopback: a bare libcurl multi loop (C), NewsAtlas's HTTPClient, and
// URLSession with a task group, in one run, against the same URL. Prints one JSON line.
//
//   httpbench URL [TOTAL] [CONCURRENCY]
//   httpbench --wave URL COUNT CONCURRENCY   (seconds for COUNT requests started at once through HTTPClient)
import CurlLoop
import Fetch
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try await body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let arguments = CommandLine.arguments
if arguments.count >= 5 && arguments[1] == "--wave" {
  var configuration = HTTPClientConfiguration()
  configuration.maxConcurrentTransfers = Int(arguments[4])!
  let client = HTTPClient(configuration: configuration)
  let elapsed = try await seconds {
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<Int(arguments[3])! { group.addTask { _ = try await client.get(arguments[2]) } }
      try await group.waitForAll()
    }
  }
  print("{\"waveSeconds\":\(elapsed)}")
  exit(0)
}

let url = arguments[1]
let total = arguments.count > 2 ? Int(arguments[2])! : 2000
let concurrency = arguments.count > 3 ? Int(arguments[3])! : 32

func best(_ rounds: Int, _ body: () async throws -> Double) async rethrows -> Double {
  var result = Double.infinity
  for _ in 0..<rounds { result = min(result, try await body()) }
  return result
}

let curlSeconds = await best(3) { curl_loop_run(url, Int32(total), Int32(concurrency)) }

var configuration = HTTPClientConfiguration()
configuration.maxConcurrentTransfers = concurrency
let client = HTTPClient(configuration: configuration)
let clientSeconds = try await best(3) {
  try await seconds {
    try await withThrowingTaskGroup(of: Void.self) { group in
      var next = 0
      while next < min(concurrency * 2, total) {
        group.addTask { _ = try await client.get(url) }
        next += 1
      }
      while try await group.next() != nil {
        if next < total {
          group.addTask { _ = try await client.get(url) }
          next += 1
        }
      }
    }
  }
}

let session = URLSession(configuration: .default)
let sessionSeconds = try await best(2) {
  try await seconds {
    try await withThrowingTaskGroup(of: Void.self) { group in
      var next = 0
      let request = URLRequest(url: URL(string: url)!)
      while next < min(concurrency, total) {
        group.addTask { _ = try await session.data(for: request) }
        next += 1
      }
      while try await group.next() != nil {
        if next < total {
          group.addTask { _ = try await session.data(for: request) }
          next += 1
        }
      }
    }
  }
}

print(
  "{\"total\":\(total),\"concurrency\":\(concurrency),\"curlLoopPerSecond\":\(Double(total) / curlSeconds),"
    + "\"clientPerSecond\":\(Double(total) / clientSeconds),\"urlSessionPerSecond\":\(Double(total) / sessionSeconds)}"
)
