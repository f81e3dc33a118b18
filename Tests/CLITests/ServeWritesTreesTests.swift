import Foundation
import GeoIndex
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import AtlasServer

/// The zooms' k-d trees that a dataset's build leaves to their first query (`DeferredTree`) are built by the
/// dataset's builder after the swap, and by the start before serving, so that no request waits for one (a
/// 1M-item tree takes 77 ms).
@Suite struct ServeWritesTreesTests {
  typealias Base = ServeWritesTests
  typealias Journal = ServeWritesJournalTests

  @Test func aWrittenDatasetsTreesAreBuiltByItsBuilder() async throws {
    let scratch = try ScratchDirectory()
    let features = ServeWritesFaultTests.features(1...3_000, seed: 11)
    let service = try ServeWritesFaultTests.service(scratch.path)
    let writes = try #require(service.writes)
    try await Application(router: service.router()).test(.router) { client in
      #expect(
        try await Base.send(client, .put, "/v1/datasets/live", Journal.collection(features)).status == 201)
      // The builder builds the trees after the answer; its seam counts the batches it did so after.
      while writes.seams.treesBuilt < 1 { try await Task.sleep(for: .milliseconds(1)) }
      let served = try #require(service.store["live"])
      #expect(served.index.deferredTreeCount == 0)
      // The same dataset built again leaves some zooms' trees to their first query: there was work to do.
      let fresh = try Dataset(name: "fresh", file: served.file, options: ClusterOptions(), aggregations: [])
      #expect(fresh.index.deferredTreeCount > 0)
      fresh.index.buildDeferredTrees()
      #expect(fresh.index.deferredTreeCount == 0)
    }
    // A restart serves the kept dataset with its trees built before the first request.
    let restarted = try ServeWritesFaultTests.service(scratch.path)
    #expect(try #require(restarted.store["live"]).index.deferredTreeCount == 0)
  }
}
