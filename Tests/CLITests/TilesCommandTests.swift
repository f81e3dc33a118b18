import Foundation
import TestSupport
import Testing

/// `newsatlas tiles`: the MBTiles file as a file (the tiles themselves are read back by an independent reader
/// in Tests/MBTiles/verify_mbtiles.py, which .ci/run runs).
@Suite struct TilesCommandTests {
  @Test func writesAnSQLiteFileAndReplacesItWhole() throws {
    try Scratch.withDirectory { folder in
      let out = folder.appendingPathComponent("markers.mbtiles").path
      let first = try CLI.run(["tiles", "--out", out, "--max-zoom", "4"])
      #expect(first.status == 0, "\(first.stderr)")
      #expect(first.stdout.hasPrefix("60 tiles, ") && first.stdout.contains("zooms 0-4, layer markers"))
      let header = try #require(FileManager.default.contents(atPath: out)).prefix(16)
      #expect(header == Data("SQLite format 3\0".utf8))
      let again = try CLI.run(["tiles", "--out", out, "--max-zoom", "2", "--layer", "news"])
      #expect(
        again.status == 0 && again.stdout.hasPrefix("13 tiles, ") && again.stdout.contains("layer news"))
      // Nothing but the finished file is left beside it.
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["markers.mbtiles"])
    }
  }

  @Test(arguments: [
    (["tiles", "--out", "/nonexistent/folder/x.mbtiles"], Int32(73), "check the folder exists"),
    (["tiles", "--out", "x.mbtiles", "--layer", "a/b"], 64, "A layer name is letters"),
    (["tiles", "--out", "x.mbtiles", "--max-zoom", "30"], 64, "zooms up to 24"),
    (["tiles", "--out", "x.mbtiles", "--points", "/nonexistent.json"], 64, "Cannot open"),
    (["tiles"], 64, "--out"),
  ])
  func refusals(arguments: [String], status: Int32, mentions: String) throws {
    let result = try CLI.run(arguments)
    #expect(result.status == status, "\(result.stderr)")
    #expect(result.stderr.contains(mentions), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: "x.mbtiles"))
  }
}
