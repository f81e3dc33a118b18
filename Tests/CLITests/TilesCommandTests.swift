import Foundation
import TestSupport
import Testing

/// `newsatlas tiles`: the MBTiles file as a file (the tiles themselves are read back by an independent reader
/// in Tests/MBTiles/verify_mbtiles.py, which .ci/run runs).
@Suite struct TilesCommandTests {
  /// Progress (issue 47 item 10): piped, a plain line as each zoom is done, the tiles so far climbing to the
  /// summary's, which gives the time taken; on a terminal (script(1) gives it one) one redrawn line with the
  /// zoom of the zooms, the tiles and a percentage, ending at 100 %.
  @Test func progressAsItGoesAndTheTimeTaken() throws {
    try Scratch.withDirectory { folder in
      let out = folder.appendingPathComponent("markers.mbtiles").path
      let piped = try CLI.run(["tiles", "--out", out, "--max-zoom", "4"])
      #expect(piped.status == 0, "\(piped.stderr)")
      let zooms = piped.stderrLines.filter { $0.hasPrefix("newsatlas: zoom ") }
      #expect(zooms.count == 5 && piped.stderrLines.count == 5, "\(piped.stderr)")
      #expect(
        zooms.first?.hasPrefix("newsatlas: zoom 0 of 0–4 done: 1 tile so far, ") == true, "\(piped.stderr)")
      #expect(
        zooms.last?.hasPrefix("newsatlas: zoom 4 of 0–4 done: 60 tiles so far, ") == true, "\(piped.stderr)")
      #expect(
        piped.stdout.wholeMatch(
          of: /60 tiles, \d+ bytes of gzipped MVT, zooms 0-4, layer markers, in .* \(\d+\.\d s\)\n/) != nil,
        "\(piped.stdout)")
      let terminal = try CLI.shell(
        #"script -qec "$0 tiles --out '$1' --max-zoom 4 --lang fr" /dev/null"#, [out])
      #expect(terminal.status == 0, "\(terminal.stdout)")
      #expect(terminal.stdout.contains("\rnewsatlas: regroupement de 54 points…"), "\(terminal.stdout)")
      #expect(
        terminal.stdout.contains("\rnewsatlas: zoom 4 sur 0–4 · 60 tuiles · 100 %\u{1B}[K"),
        "\(terminal.stdout)")
      #expect(!terminal.stdout.contains("fini :"), "\(terminal.stdout)")
    }
  }

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

  /// Options out of their ranges are usage errors (64; they trapped or said "cannot write", 73), and leave
  /// nothing behind (a trap left the partial file).
  @Test(arguments: [
    (["--min-zoom", "5", "--max-zoom", "3"], "--max-zoom is a whole number from the lowest zoom (5)"),
    (["--extent", "1e-300"], "--extent is a whole number of pixels from 1 to 16777216"),
    (["--radius", "5e21"], "--radius is a number of pixels above 0 and at most the extent (512)"),
    (["--extent", "1e19"], "--extent is"), (["--extent", "1e10"], "--extent is"),
    (["--extent", "0.5"], "--extent is"), (["--radius", "0"], "--radius is"),
  ])
  func outOfRangeOptionsLeaveNothing(options: [String], mentions: String) throws {
    try Scratch.withDirectory { folder in
      let result = try CLI.run(["tiles", "--out", folder.path + "/x.mbtiles"] + options)
      #expect(result.status == 64, "\(result.stderr)")
      #expect(result.stderr.contains(mentions) && result.stderrLines.count == 1, "\(result.stderr)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
  }

  /// The layer's extent is the option's, a uint32 (4096 read back from the tile itself).
  @Test func theLayerExtentIsTheOption() throws {
    try Scratch.withDirectory { folder in
      let out = folder.path + "/x.mbtiles"
      let result = try CLI.run([
        "tiles", "--out", out, "--max-zoom", "0", "--extent", "4096", "--radius", "60",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let tile = try CLI.shell(
        "python3 -c 'import sqlite3,sys,gzip; sys.stdout.buffer.write(gzip.decompress(sqlite3.connect(sys.argv[1])"
          + ".execute(\"select tile_data from tiles\").fetchone()[0]))' \"$1\" | od -An -tx1 | tr -d ' \\n'",
        [out])
      // Layer field 5 (extent), varint 4096: 0x28 0x80 0x20.
      #expect(tile.stdout.contains("288020"), "\(tile.stdout) \(tile.stderr)")
    }
  }

  /// An output that is not a regular file (a FIFO, a symbolic link, a folder: /dev/null was replaced by an
  /// SQLite file), or that is the input itself (also through a hard or symbolic link), is refused with 73
  /// before anything is written, and the folder is as it was.
  @Test func outputsThatAreNotAFileOrAreTheInputAreRefused() throws {
    try Scratch.withDirectory { folder in
      let dir = folder.path
      let input = dir + "/points.csv"
      let points = "lat,lon\n48.85,2.35\n52.52,13.40\n"
      try Data(points.utf8).write(to: URL(fileURLWithPath: input))
      #expect(mkfifo(dir + "/fifo", 0o644) == 0)
      try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: "points.csv")
      try FileManager.default.linkItem(atPath: input, toPath: dir + "/hard.csv")
      try FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: false)
      let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
      for (points, out, mentions) in [
        (input, "fifo", "is a FIFO, not a regular file"), (input, "link", "is a symbolic link"),
        (input, "folder", "is a folder"), (input, "points.csv", "is the input file"),
        (input, "hard.csv", "is the input file"), (dir + "/link", "points.csv", "is the input file"),
      ] {
        let result = try CLI.run(["tiles", "--points", points, "--out", dir + "/" + out, "--max-zoom", "1"])
        #expect(result.status == 73, "\(out): \(result.stderr)")
        #expect(result.stderr.contains(mentions) && result.stderrLines.count == 1, "\(out): \(result.stderr)")
      }
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == before)
      #expect(FileManager.default.contents(atPath: input) == Data(points.utf8))
      #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link") == "points.csv")
    }
  }

  /// Stopped by SIGTERM or Ctrl-C (SIGINT) while writing, `tiles` removes its partial file (a PMTiles export its
  /// scratch file of tiles too) and exits 143 or 130: the folder holds nothing new. Readiness is the partial (or
  /// scratch) file appearing, polled (never a sleep).
  @Test(arguments: [
    (SIGTERM, Int32(143), "mbtiles", "partial"), (SIGINT, Int32(130), "mbtiles", "partial"),
    (SIGTERM, Int32(143), "pmtiles", "tiles"), (SIGINT, Int32(130), "pmtiles", "tiles"),
  ])
  func aSignalLeavesNothing(signal: Int32, status: Int32, format: String, working: String) throws {
    try Scratch.withDirectory { folder in
      let input = folder.path + "/points.csv"
      var text = "lat,lon\n"
      var state: UInt64 = 0x9E37_79B9_7F4A_7C15
      for _ in 0..<30_000 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let latitude = Double((state >> 11) % 1_000_000) / 1_000_000 * 160 - 80
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let longitude = Double((state >> 11) % 1_000_000) / 1_000_000 * 360 - 180
        text += "\(latitude),\(longitude)\n"
      }
      try Data(text.utf8).write(to: URL(fileURLWithPath: input))
      let process = Process()
      process.executableURL = CLI.executable
      process.arguments = [
        "tiles", "--points", input, "--out", folder.path + "/out.\(format)", "--max-zoom", "16",
      ]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      var sawPartial = false
      while process.isRunning && !sawPartial {
        sawPartial = try FileManager.default.contentsOfDirectory(atPath: folder.path).contains {
          $0.hasPrefix("out.\(format).\(working)-")
        }
        if !sawPartial { usleep(1000) }  // polling the folder for readiness
      }
      #expect(sawPartial, "the export ended before its partial file was seen")
      kill(process.processIdentifier, signal)
      process.waitUntilExit()
      #expect(
        process.terminationReason == .exit && process.terminationStatus == status,
        "\(process.terminationReason == .exit ? "exit" : "signal") \(process.terminationStatus)")
      let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      #expect(left == ["points.csv"], "\(left)")
    }
  }
}
