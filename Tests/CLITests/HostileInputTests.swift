import Foundation
import TestSupport
import Testing

/// What a hostile (or unlucky) user gives the CLI: each ends in one sentence and the documented status, never a
/// crash, a hang or silent garbage.
@Suite struct HostileInputTests {
  /// One line on standard error, ending in a full stop, and nothing on standard output.
  func expectOneSentence(
    _ result: CLI.Result, status: Int32, mentions: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderrLines.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
    #expect(
      result.stderr.hasPrefix("newsatlas: ") && result.stderr.hasSuffix(".\n")
        || result.stderr.hasSuffix("help'.\n"), "\(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.contains(mentions), "\(result.stderr)", sourceLocation: sourceLocation)
  }

  @Test(arguments: ["nan", "inf", "1e309", "0x1p3", "", "1,5", "4 5"])
  func numbersThatAreNot(_ text: String) throws {
    expectOneSentence(try CLI.run(["nearest", text, "0"]), status: 64, mentions: "is not a number")
    expectOneSentence(try CLI.run(["resolve", "0", text]), status: 64, mentions: "is not a number")
    // Starting with '-', it reads as an option the command does not have.
    expectOneSentence(try CLI.run(["nearest", "-" + text, "0"]), status: 64, mentions: "'-")
  }

  @Test func signsAndSpacesAreDecimals() throws {
    let plus = try CLI.run(["nearest", "+48.85", " 2.35 ", "--format", "json"])
    #expect(plus.status == 0 && plus.stdout.contains(#""code":"fr""#))
  }

  @Test(arguments: [
    ["clusters", "--zoom", "nan"], ["clusters", "--zoom", "1", "--radius", "0x1p3"],
    ["clusters", "--zoom", "1", "--extent", "inf"], ["nearest", "1", "2", "--max-km", "1e309"],
    ["clusters", "--zoom", "1", "--bbox", "nan,0,1,1"], ["clusters", "--tile", "0x1/0/0"],
    ["nearest", "1", "2", "--count", "1e3"],
  ])
  func optionsThatAreNotNumbers(_ arguments: [String]) throws {
    let result = try CLI.run(arguments)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderrLines.count == 1 && result.stdout.isEmpty, "\(result.stderr)")
  }

  @Test func emptyFiles() throws {
    try Scratch.withFile(named: "empty", contents: "") { path in
      expectOneSentence(
        try CLI.run(["nearest", "1", "2", "--points", path]), status: 65, mentions: "holds no points")
      let batch = try CLI.run(["nearest", "--input", path])
      #expect(batch.status == 0 && batch.stderr.isEmpty)
      #expect(batch.stdout == "line,latitude,longitude,code,name,distance_km,bearing_deg,error\n")
    }
  }

  @Test func aDirectory() throws {
    try Scratch.withDirectory { directory in
      for arguments in [
        ["nearest", "--input", directory.path], ["clusters", "--zoom", "1", "--points", directory.path],
      ] {
        expectOneSentence(try CLI.run(arguments), status: 64, mentions: "is a directory; give a file")
      }
    }
  }

  @Test func devZeroIsBinary() throws {
    expectOneSentence(
      try CLI.run(["nearest", "--input", "/dev/zero"]), status: 65, mentions: "holds a NUL byte")
    expectOneSentence(
      try CLI.run(["clusters", "--zoom", "1", "--points", "/dev/zero"]), status: 65, mentions: "a NUL byte")
  }

  @Test func aFIFOIsReadLikeAPipe() throws {
    try Scratch.withDirectory { directory in
      let fifo = directory.appendingPathComponent("in.fifo").path
      #expect(mkfifo(fifo, 0o600) == 0)
      let writer = Thread {
        let handle = FileHandle(forWritingAtPath: fifo)
        handle?.write(
          Data(
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"n":1},"geometry":{"type":"Point","coordinates":[2,1]}}]}"#
              .utf8))
        try? handle?.close()
      }
      writer.start()
      let result = try CLI.run(["clusters", "--zoom", "20", "--points", fifo])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stdout.contains(#"{"type":"Feature","properties":{"n":1},"geometry""#))
    }
  }

  @Test func aTenMegabyteLine() throws {
    let line = String(repeating: "7", count: 10_000_000)
    try Scratch.withFile(named: "long.csv", contents: "1,2\n" + line + "\n3,4\n") { path in
      let batch = try CLI.run(["nearest", "--input", path])
      expectOneSentence(batch, status: 65, mentions: "1 of 3 rows failed (the first on line 2)")
      #expect(batch.stdout.split(separator: "\n").count == 4)  // the header, two answers, one error row
      expectOneSentence(
        try CLI.run(["nearest", "1", "2", "--points", path]), status: 65,
        mentions: "longer than 1048576 bytes")
    }
    // The same length as one GeoJSON line is fine: only CSV lines are limited.
    let features = (0..<110_000).map { i in
      #"{"type":"Feature","properties":{"i":\#(i)},"geometry":{"type":"Point","coordinates":[\#(Double(i % 360) - 180),\#(Double(i % 180) - 90)]}}"#
    }
    let oneLine = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
    #expect(oneLine.utf8.count > 10_000_000)
    try Scratch.withFile(named: "one-line.geojson", contents: oneLine) { path in
      let result = try CLI.run(["clusters", "--zoom", "0", "--points", path])
      #expect(result.status == 0, "\(result.stderr)")
    }
  }

  @Test func invalidUTF8() throws {
    let bytes =
      Array(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"n":""#.utf8) + [0xFF]
      + Array(#""},"geometry":null}]}"#.utf8)
    try Scratch.withFile(named: "bad.geojson", bytes: bytes) { path in
      expectOneSentence(
        try CLI.run(["clusters", "--zoom", "1", "--points", path]), status: 65, mentions: "not valid UTF-8")
    }
    try Scratch.withFile(named: "bad.csv", bytes: Array("lat,lon,n\n1,2,".utf8) + [0xC3]) { path in
      expectOneSentence(
        try CLI.run(["nearest", "1", "2", "--points", path]), status: 65, mentions: "not UTF-8")
    }
  }

  @Test func byteOrderMarkAndCRLF() throws {
    let batch = try CLI.run(
      ["resolve", "--input", "-"], stdin: "\u{FEFF}latitude,longitude\r\n48.58,7.75\r\n")
    #expect(batch.status == 0, "\(batch.stderr)")
    #expect(batch.stdout.split(separator: "\n").last?.hasPrefix("2,48.58,7.75,fr,France,inside,fr,") == true)
    let points = try CLI.run(
      ["nearest", "1", "2", "--points", "-", "--format", "json"], stdin: "\u{FEFF}lat,lon\r\n1,2\r\n")
    #expect(points.status == 0 && points.stdout.contains(#""distanceKm":0"#), "\(points.stderr)")
  }

  @Test func deepNesting() throws {
    let deep =
      #"{"type":"FeatureCollection","features":["# + String(repeating: "[", count: 100_000)
      + String(repeating: "]", count: 100_000) + "]}"
    try Scratch.withFile(named: "deep.geojson", contents: deep) { path in
      expectOneSentence(
        try CLI.run(["clusters", "--zoom", "1", "--points", path]), status: 65,
        mentions: "nesting deeper than 512")
    }
    expectOneSentence(
      try CLI.run(
        ["clusters", "--zoom", "1", "--points", "-"], stdin: String(repeating: "[", count: 100_000)),
      status: 65, mentions: "is a JSON array")
    let batch = try CLI.run(
      ["nearest", "--input", "-"], stdin: String(repeating: "[", count: 100_000) + "\n1,2\n")
    #expect(batch.status == 65 && batch.stdout.split(separator: "\n").count == 3)
  }

  /// `| head -1`: the command ends quietly when its reader goes away, with status 0 or 141 (SIGPIPE).
  @Test(arguments: [
    "nearest --input -", "resolve --input - --format jsonl", "clusters --zoom 20 --points -", "countries",
  ])
  func intoAClosedPipe(_ command: String) throws {
    let rows = (0..<300_000).map { "\(Double($0 % 170) - 85),\(Double($0 % 350) - 175)" }.joined(
      separator: "\n")
    let result = try Scratch.withFile(named: "rows.csv", contents: "latitude,longitude\n" + rows) { path in
      try CLI.shell("\"$0\" \(command) < \"$1\" | head -c 1 > /dev/null; echo \"${PIPESTATUS[0]}\"", [path])
    }
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    let status = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(status == "0" || status == "141", "\(command): \(status)")
  }
}
