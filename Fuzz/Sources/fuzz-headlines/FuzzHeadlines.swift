import Fetch
import Foundation
import FuzzDriver
import NewsAPI
import NewsAtlas
import Store

/// The headlines paths whose answers come back from concurrent requests, where the release binary trapped
/// (Result.awaiting(_:)): GDELT's answers for several countries at once, and several feeds of one country
/// merged. The input picks the countries and holds the answers: byte 0 how many countries (1–8) and bytes 1…8
/// which; the rest, split at each 0xFF, are the bodies the transport hands out, each request taking the body
/// its URL's bytes pick (so concurrent requests get the same answers in any order). A body's first byte picks
/// GDELT's status. Every job must come back once, at its own index, and a merge keeps to its limit.
func fuzzHeadlines(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size >= 2 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let done = Completion()
  // Everything an input makes lives in `headlines(of:)`, released when it returns and before the callback
  // does: libFuzzer's leak check after the callback would otherwise find a task's objects not yet let go.
  Task {
    await headlines(of: bytes)
    done.signal()
  }
  done.wait()
  return 0
}

func headlines(of bytes: [UInt8]) async {
  let count = 1 + Int(bytes[0]) % 8
  let picks = bytes.dropFirst().prefix(count)
  let countries = picks.map { Country.all[Int($0) % Country.all.count] }
  let bodies = bytes.dropFirst(1 + picks.count).split(separator: 0xFF, omittingEmptySubsequences: false)
    .map(Array.init)
  let transport = Answers(bodies: bodies.isEmpty ? [[]] : bodies)

  var configuration = NewsConfiguration()
  configuration.gdeltSpacing = 0
  let gdelt = try! GDELTClient(
    baseURL: "http://127.0.0.1:9", http: transport,
    cache: CachePolicy(database: InMemoryResponseStore()) { _ in }, configuration: configuration)
  let jobs = countries.map { HeadlinesJob(country: $0) }
  if let results = try? await gdelt.headlines(jobs, options: HeadlinesOptions()) {
    precondition(results.count == jobs.count, "GDELT answered \(results.count) of \(jobs.count) jobs")
    for (job, result) in zip(jobs, results) {
      precondition(result.job == job, "GDELT's answer for \(job.country.code) came back at another's index")
      precondition(result.articles.count <= 10)
    }
  }
  let urls = (0..<count).map { "http://127.0.0.1:9/feed/\($0)" }
  let merged = await FeedsClient(http: transport).merged(urls, limit: 10)
  precondition(merged.articles.count <= 10, "a merge kept \(merged.articles.count) articles, over its limit")
  precondition(merged.failures.count <= urls.count)
}

/// An in-process transport: each URL's answer is a body of the input, picked by the URL's bytes.
final class Answers: HTTPTransport {
  let defaultTimeout: Duration = .seconds(5)
  let bodies: [[UInt8]]
  init(bodies: [[UInt8]]) { self.bodies = bodies }

  func get(_ url: String, headers: [(String, String)], timeout: Duration?) async throws(HTTPError)
    -> HTTPResponse
  {
    let pick = url.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF } % bodies.count
    var body = bodies[pick]
    let statuses = [200, 200, 200, 200, 429, 500, 404]
    let status = body.isEmpty ? 200 : statuses[Int(body.removeFirst()) % statuses.count]
    let type = url.contains("/feed/") ? "application/rss+xml" : "application/json"
    return HTTPResponse(status: status, rawHeaders: Array("Content-Type: \(type)\r\n".utf8), body: body)
  }
}

/// One async run's end, waited for by the fuzzer's synchronous callback.
final class Completion: @unchecked Sendable {  // its state is behind the semaphore
  private let semaphore = DispatchSemaphore(value: 0)
  func signal() { semaphore.signal() }
  func wait() { semaphore.wait() }
}

@main enum Main {
  static func main() { runFuzzer { data, size in fuzzHeadlines(data, size) } }
}
