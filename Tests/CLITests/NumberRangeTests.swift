import Fetch
import Foundation
import TestSupport
import Testing

/// Every number that reaches arithmetic is checked where it enters, with its range in the sentence: the
/// reproducers of issue 25 that trapped (exit 132) on an overflow, and the cluster ids that answered for no
/// cluster.
@Suite struct NumberRangeTests {
  let client = HTTPClient()

  /// One line on standard error naming what is wrong, status 64, nothing on standard output.
  func expectUsageError(
    _ result: CLI.Result, mentions: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(result.status == 64, "\(result.stderr)", sourceLocation: sourceLocation)
    #expect(
      result.stdout.isEmpty && result.stderrLines.count == 1, "\(result.stderr)",
      sourceLocation: sourceLocation)
    #expect(
      result.stderr.hasPrefix("newsatlas: ") && result.stderr.hasSuffix(".\n"), "\(result.stderr)",
      sourceLocation: sourceLocation)
    #expect(result.stderr.contains(mentions), "\(result.stderr)", sourceLocation: sourceLocation)
  }

  @Test(arguments: [
    (["clusters", "--children", "-9223372036854775808"], "No cluster has the id -9223372036854775808"),
    (["clusters", "--leaves", "-9223372036854775807"], "No cluster has the id -9223372036854775807"),
    (["clusters", "--expansion-zoom", "-9223372036854775808"], "No cluster has the id"),
    (["clusters", "--zoom", "2", "--max-zoom", "9223372036854775807"], "from the lowest zoom (0) to 30"),
    (["clusters", "--tile", "0/0/0", "--extent", "1e19"], "--extent is a whole number of pixels from 1 to"),
    // As /v1/headlines says it (one request model): no cluster id is negative.
    (
      ["headlines", "--cluster", "-9223372036854775808", "--zoom", "2", "--dry-run"],
      "A cluster id is a whole number"
    ),
    // Issue 43: a whole number past 18 digits is refused for what it is (too large), not for its form.
    (
      ["headlines", "--cluster", "9223372036854775807", "--zoom", "2", "--dry-run"],
      "No map has a cluster with an id as large as 9223372036854775807"
    ),
    (
      ["headlines", "--cluster", "123456789012345678901234", "--zoom", "2", "--dry-run"],
      "No map has a cluster with an id as large as"
    ),
    (["clusters", "--zoom", "2", "--radius", "5e21"], "--radius is a number of pixels above 0 and at most"),
    (["clusters", "--zoom", "2", "--extent", "0.5"], "not 0.5"),
    (["clusters", "--zoom", "2", "--extent", "1e10"], "from 1 to 16777216, not 10000000000"),
    (["clusters", "--zoom", "2", "--node-size", "1"], "--node-size is a whole number from 2 to 65535"),
    (["clusters", "--zoom", "2", "--min-points", "0"], "--min-points is a whole number from 1 to"),
    (["clusters", "--zoom", "2", "--min-zoom", "-1"], "--min-zoom is a whole number from 0 to 30"),
    (["clusters", "--zoom", "2", "--min-zoom", "5", "--max-zoom", "3"], "lowest zoom (5) to 30, not 3"),
    (["clusters", "--zoom", "40"], "--zoom runs from 0 to 31"),
    (["clusters", "--zoom", "-1"], "--zoom runs from 0 to 31"),
    (["clusters", "--expansion-zoom", "9999"], "No cluster has the id 9999"),
    (["clusters", "--tile", "-1/0/0"], "not '-1/0/0'"),
    (["headlines", "--cluster", "120", "--zoom", "-1", "--dry-run"], "--zoom runs from 0 to 31"),
    (["headlines", "--cluster", "120", "--zoom", "32", "--dry-run"], "--zoom runs from 0 to 31"),
    (["headlines", "--cluster", "120", "--zoom", "nan", "--dry-run"], "--zoom"),
  ])
  func outOfRangeNumbersAreUsageErrors(arguments: [String], mentions: String) throws {
    expectUsageError(try CLI.run(arguments), mentions: mentions)
  }

  /// An id of no cluster is the same error whatever asks about it (it answered expansion zoom 24 before).
  @Test func anIdOfNoClusterIsOneError() throws {
    let children = try CLI.run(["clusters", "--children", "9999"])
    let expansion = try CLI.run(["clusters", "--expansion-zoom", "9999"])
    expectUsageError(expansion, mentions: "No cluster has the id 9999")
    #expect(expansion.stderr == children.stderr)
  }

  /// The first cluster of the 54 markers at `zoom` (default options), as `clusters --zoom` lists it.
  static func markerCluster(zoom: Int) throws -> Int {
    let result = try CLI.run(["clusters", "--zoom", String(zoom)])
    let features = try #require(result.json?["features"] as? [[String: Any]])
    let clusters = features.compactMap { $0["properties"] as? [String: Any] }.filter {
      $0["cluster"] as? Bool == true
    }
    return try #require(clusters.first?["cluster_id"] as? Int)
  }

  /// `headlines --cluster ID --zoom Z` takes a cluster of the map of zoom Z, and no other zoom.
  @Test func headlinesTakeAClusterOfItsZoomOnly() throws {
    let id = try Self.markerCluster(zoom: 2)
    let planned = try CLI.run(["headlines", "--cluster", String(id), "--zoom", "2", "--dry-run"])
    #expect(planned.status == 0, "\(planned.stderr)")
    for zoom in ["2.5"] {  // fractions floor, as for clusters
      #expect(try CLI.run(["headlines", "--cluster", String(id), "--zoom", zoom, "--dry-run"]).status == 0)
    }
    for zoom in ["3", "16", "31"] {
      expectUsageError(
        try CLI.run(["headlines", "--cluster", String(id), "--zoom", zoom, "--dry-run"]),
        mentions: "No cluster has the id \(id) at zoom \(zoom).")
    }
  }

  @Test func serveRefusesOutOfRangeOptionsAtStart() throws {
    for (arguments, mentions) in [
      (["serve", "--extent", "1e19"], "--extent is a whole number of pixels from 1 to 16777216"),
      (["serve", "--radius", "0"], "--radius is a number of pixels above 0"),
      (["serve", "--max-zoom", "9223372036854775807"], "--max-zoom is a whole number"),
      (["serve", "--node-size", "0"], "--node-size"),
    ] {
      expectUsageError(try CLI.run(arguments), mentions: mentions)
    }
  }

  @Test func serveQueriesAreRangeChecked() async throws {
    let served = try Served()
    for (path, status, mentions) in [
      ("/v1/datasets/markers/clusters/9999/expansion-zoom", 404, "No cluster has the id 9999"),
      ("/v1/datasets/markers/clusters/999999999999999999/expansion-zoom", 404, "No cluster has the id"),
      ("/v1/datasets/markers/clusters/999999999999999999/leaves", 404, "No cluster has the id"),
      ("/v1/datasets/markers/clusters/-5/children", 400, "A cluster id is a whole number"),
      ("/v1/datasets/markers/clusters/9223372036854775807/children", 400, "A cluster id is a whole number"),
      ("/v1/datasets/markers/clusters/120/leaves?limit=99999999999999999999", 400, "limit must be"),
      ("/v1/datasets/markers/clusters/120/leaves?offset=-1", 400, "offset must be"),
      ("/v1/datasets/markers/clusters?zoom=-1", 400, "zoom runs from 0 to 31"),
      ("/v1/datasets/markers/clusters?zoom=1e300", 400, "zoom runs from 0 to 31"),
      ("/tiles/markers/31/0/0.mvt", 400, "a zoom from 0 to 30"),
      ("/tiles/markers/-1/0/0.mvt", 400, "a zoom from 0 to 30"),
      ("/v1/nearest?lat=1&lon=1&maxKm=-1", 400, "maxKm must be"),
    ] {
      let response = try await client.get(served.base + path)
      #expect(response.status == status, "\(path)")
      let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
      let error = body?["error"] as? String
      #expect(error?.contains(mentions) == true && error?.hasSuffix(".") == true, "\(path): \(error ?? "")")
    }
    #expect(served.stop() == 0)
  }

  /// `GET /v1/headlines?cluster=ID&zoom=Z` asks the same question as the CLI: the cluster of the markers'
  /// map of zoom Z, with the server's clustering options (the defaults here).
  @Test func serveHeadlinesTakeAClusterOfItsZoomOnly() async throws {
    let news = try LocalServer()
    let environment = ["NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": news.base]
    let served = try Served([], environment: environment)
    let id = try Self.markerCluster(zoom: 2)
    let ok = try await client.get(served.base + "/v1/headlines?cluster=\(id)&zoom=2")
    #expect(ok.status == 200)
    for (query, status, mentions) in [
      ("cluster=\(id)&zoom=3", 404, "No cluster has the id \(id) at zoom 3."),
      ("cluster=\(id)&zoom=-1", 400, "zoom runs from 0 to 31"),
      ("cluster=\(id)&zoom=32", 400, "zoom runs from 0 to 31"),
      ("cluster=\(id)&zoom=nan", 400, "zoom must be a decimal number"),
      ("cluster=-9223372036854775808&zoom=2", 400, "A cluster id is a whole number"),
    ] {
      let refused = try await client.get(served.base + "/v1/headlines?" + query)
      #expect(refused.status == status, "\(query)")
      let text = String(decoding: refused.body, as: UTF8.self)
      #expect(text.contains(mentions), "\(query): \(text)")
    }
  }
}
