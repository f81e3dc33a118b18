import Fetch
import Foundation
import TestSupport
import Testing

/// What one filtered request may cost a server (issue 43, item 1): a filter's evaluation over a dataset is
/// bounded, and new filtered indexes are built off the request pool, a bounded number waiting, the rest
/// refused with a 503 and `Retry-After`.
@Suite struct ServeFilterCostTests {
  let client = HTTPClient()

  func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

  /// A 16 KB literal searched in every feature's name (127 s of CPU on 300k points before) is a 400 that says
  /// why; a filter of the same dataset a map style would write, a list of 200 names, is answered.
  @Test func aFilterThatCostsTooMuchIsRefusedWithItsReason() async throws {
    let points = try ScratchFile(named: "points.csv", contents: ServePressureTests.pointsCSV(50_000))
    defer { points.remove() }
    let served = try Served(["--points", "p=" + points.path, "--no-news"])
    let literal = String(repeating: "x", count: 16_000)
    let costly = #"["in", ["get", "name"], "\#(literal)"]"#
    let refused = try await client.get(served.base + "/tiles/p/0/0/0.mvt?filter=" + queryEscaped(costly))
    #expect(refused.status == 400, "\(text(refused).prefix(300))")
    #expect(text(refused).contains("This filter takes more than"), "\(text(refused).prefix(300))")
    #expect(text(refused).contains("50000 features of 'p'"), "\(text(refused).prefix(300))")
    let names = (0..<200).map { #""point \#($0 * 7)""# }.joined(separator: ",")
    let listed = #"["in", ["get", "name"], ["literal", [\#(names)]]]"#
    let answered = try await client.get(
      served.base + "/v1/datasets/p/clusters?zoom=20&filter=" + queryEscaped(listed))
    #expect(answered.status == 200, "\(text(answered).prefix(300))")
    #expect(text(answered).components(separatedBy: "\"type\":\"Feature\"").count - 1 == 200)
    #expect(try await client.get(served.base + "/healthz").status == 200)
  }

  /// With one builder and room for one more, eight new filters asked at once: the first is built, the second
  /// waits its turn, the others are 503s with `Retry-After` and one sentence; asked again, each is answered.
  /// Two requests for the same new filter share its build.
  @Test func newFiltersWaitTheirTurnOrAreAskedToComeBack() async throws {
    let points = try ScratchFile(named: "points.csv", contents: ServePressureTests.pointsCSV(50_000))
    defer { points.remove() }
    let served = try Served([
      "--points", "p=" + points.path, "--no-news", "--filter-builds", "1", "--filter-queue", "1",
    ])
    let filters = (0..<8).map { #"["!=", ["get", "name"], "point \#($0)"]"# }
    let answers = try await withThrowingTaskGroup(of: (Int, HTTPResponse).self) { group in
      for (i, filter) in filters.enumerated() {
        group.addTask {
          (i, try await client.get(served.base + "/tiles/p/0/0/0.geojson?filter=" + queryEscaped(filter)))
        }
      }
      return try await group.reduce(into: [Int: HTTPResponse]()) { $0[$1.0] = $1.1 }
    }
    let refused = answers.filter { $0.value.status == 503 }
    #expect(answers.values.allSatisfy { [200, 503].contains($0.status) })
    #expect(answers.values.filter { $0.status == 200 }.count >= 2)
    #expect(!refused.isEmpty)
    for answer in refused.values {
      #expect(Int(answer.header("retry-after") ?? "").map { $0 >= 1 } == true)
      #expect(text(answer).contains("other filtered indexes; ask again in"), "\(text(answer))")
    }
    let metrics = text(try await client.get(served.base + "/metrics"))
    #expect(metrics.contains("newsatlas_filter_builds_refused_total \(refused.count)\n"), "\(metrics)")
    #expect(metrics.contains("newsatlas_filter_builds_running 0\n"))
    for i in refused.keys {
      let again = try await client.get(served.base + "/tiles/p/0/0/0.geojson?filter=" + queryEscaped(filters[i]))
      #expect(again.status == 200, "\(text(again).prefix(200))")
    }
    // The same new filter asked twice at once is built once.
    let same = #"["==", ["get", "name"], "point 12"]"#
    async let first = client.get(served.base + "/v1/datasets/p/clusters?zoom=3&filter=" + queryEscaped(same))
    async let second = client.get(served.base + "/tiles/p/0/0/0.mvt?filter=" + queryEscaped(same))
    let (a, b) = try await (first, second)
    #expect(a.status == 200 && b.status == 200)
    let builds = text(try await client.get(served.base + "/metrics")).split(separator: "\n")
      .first { $0.hasPrefix("newsatlas_filter_cache_builds_total ") }
    #expect(builds == "newsatlas_filter_cache_builds_total \(8 - refused.count + refused.count + 1)")
  }
}
