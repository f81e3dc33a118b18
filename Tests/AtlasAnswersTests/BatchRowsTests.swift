import Foundation
import GeoFormats
import GeoIndex
import NewsAtlas
import TestSupport
import Testing

@testable import AtlasAnswers

/// Batch rows: answers equal to a brute force, the same bytes whatever the chunking, and every bad row kept.
@Suite struct BatchRowsTests {
  /// Runs `input` through a batch, fed in the given chunk sizes (cycled), and returns the output text.
  static func run(
    _ input: [UInt8], chunks: [Int] = [Int.max],
    query: BatchQuery = .nearest(.countries, count: 1, maxKilometers: .infinity),
    format: BatchFormat = .csv, threads: Int = 1
  ) -> (output: String, summary: BatchSummary, error: FormatError?) {
    var received: [UInt8] = []
    let out = OutputBuffer(capacity: 1 << 10) { bytes in
      received += bytes
      return true
    }
    var rows = BatchRows(query: query, format: format, output: out, name: "the input", threads: threads)
    var offset = 0
    var turn = 0
    var failure: FormatError? = nil
    while offset < input.count && failure == nil {
      let count = min(chunks[turn % chunks.count], input.count - offset)
      turn += 1
      do {
        try input[offset..<(offset + count)].withUnsafeBufferPointer { try rows.feed($0) }
      } catch let error as FormatError {
        failure = error
      } catch {}
      offset += count
    }
    let summary = rows.finish()
    return (String(decoding: received, as: UTF8.self), summary, failure)
  }

  typealias Generator = SplitMix64

  /// Lines of every kind: good rows, poles, the antimeridian, bad numbers, blank lines, CRLF, quotes, extra fields.
  static func mixedInput(seed: UInt64, lines: Int) -> [UInt8] {
    var random = Generator(state: seed)
    var text = "latitude,longitude,name\n"
    for i in 0..<lines {
      switch random.next() % 12 {
      case 0: text += "90,\(Double.random(in: -180...180, using: &random))\n"
      case 1: text += "\(Double.random(in: -90...90, using: &random)),180\r\n"
      case 2: text += "nan,1\n"
      case 3: text += "\n"
      case 4: text += "\"\(Double.random(in: -90...90, using: &random))\", -180 ,quoted\n"
      case 5: text += "1\n"
      case 6: text += "91,0\n"
      case 7: text += "0x1p3,2\n"
      default:
        text +=
          "\(Double.random(in: -90...90, using: &random)),\(Double.random(in: -180...180, using: &random)),row \(i)\n"
      }
    }
    return Array(text.utf8)
  }

  @Test(arguments: [1, 2, 3])
  func answersEqualABruteForceWhateverTheChunking(seed: UInt64) {
    let input = Self.mixedInput(seed: seed, lines: 3000)
    let whole = Self.run(input)
    var random = Generator(state: seed &* 7)
    let sizes = (0..<50).map { _ in Int(random.next() % 300) + 1 }
    #expect(Self.run(input, chunks: sizes).output == whole.output, "seed \(seed)")
    #expect(Self.run(input, chunks: [1]).output == whole.output, "seed \(seed)")
    #expect(whole.summary.rows > 0 && whole.summary.failedRows > 0)

    // Every answered row names the country a brute force finds (ties by index), at the same distance.
    var answered = 0
    for row in whole.output.split(separator: "\n").dropFirst() {
      let fields = row.split(separator: ",", omittingEmptySubsequences: false)
      guard fields.last == "", let latitude = Double(fields[1]), let longitude = Double(fields[2]) else {
        continue
      }
      let query = GeoPoint(uncheckedLatitude: latitude, longitude: longitude)
      let distances = Country.all.map { GreatCircle.distanceKilometers(from: query, to: $0.marker) }
      let best = distances.indices.min { (distances[$0], $0) < (distances[$1], $1) }!
      #expect(fields[3] == Country.all[best].code, "seed \(seed), row \(row)")
      #expect(abs(Double(fields[5])! - distances[best]) <= 1e-6, "seed \(seed), row \(row)")
      answered += 1
    }
    #expect(answered == whole.summary.rows - whole.summary.failedRows)
  }

  /// A quoted comma in a row, before the coordinates or inside one, moves no column: a comma splitter read
  /// '"Paris, France",48.85,2.35' under `name,lat,lon` as latitude ' France"' and failed the row, and echoed
  /// '"41' for a quoted '41,9'.
  @Test func aQuotedCommaInARowMovesNoColumn() {
    let input = Array("name,lat,lon\n\"Paris, France\",48.85,2.35\n\"Rome\",\"41,9\",12.5\n".utf8)
    let nearest = Self.run(input)
    let rows = CSV.rows(nearest.output)
    #expect(rows.count == 3, "\(nearest.output)")
    #expect(rows.dropFirst().first?.prefix(5) == ["2", "48.85", "2.35", "fr", "France"], "\(nearest.output)")
    #expect(
      rows.last == ["3", "41,9", "12.5", "", "", "", "", "line 3: the latitude '41,9' is not a number."])
    #expect(nearest.summary == BatchSummary(rows: 2, failedRows: 1, firstFailedLine: 3))
    let resolve = Self.run(input, query: .resolve(.newsAPI), format: .jsonl)
    #expect(resolve.output.hasPrefix("{\"line\":2,\"query\":{\"latitude\":48.85,\"longitude\":2.35},"))
  }

  /// Several cores give the one-core output byte for byte: numbering, error rows, summary, whatever the
  /// chunking, the query and the format (the shares start mid-chunk, after a header, around a long line).
  @Test(arguments: [4, 5])
  func manyCoresAnswerAsOne(seed: UInt64) {
    let long = Array("1,2\n".utf8) + [UInt8](repeating: 0x35, count: 2 << 20) + Array("\n".utf8)
    let input =
      Array("latitude,longitude\n".utf8) + Self.mixedInput(seed: seed, lines: 40_000) + long
      + Self.mixedInput(seed: seed + 10, lines: 20_000)
    var random = Generator(state: seed &* 11)
    let sizes = (0..<20).map { _ in Int(random.next() % 300_000) + 1 }
    for (query, format) in [
      (BatchQuery.nearest(.countries, count: 1, maxKilometers: .infinity), BatchFormat.csv),
      (.nearest(.countries, count: 3, maxKilometers: 2000), .jsonl), (.resolve(.newsAPI), .csv),
    ] {
      let one = Self.run(input, query: query, format: format)
      #expect(one.summary.rows > 50_000 && one.summary.failedRows > 0)
      for threads in [2, 3] {
        for chunks in [[Int.max], sizes] {
          let many = Self.run(input, chunks: chunks, query: query, format: format, threads: threads)
          #expect(many.output == one.output, "seed \(seed), \(threads) threads, \(format)")
          #expect(many.summary == one.summary, "seed \(seed), \(threads) threads")
        }
      }
    }
  }

  /// The sixteen-bytes-at-a-time line count against a byte-by-byte one: every length and offset around the
  /// blocks and around the 255-block tally, line feeds dense and sparse.
  @Test func lineBreaksAreCountedAsOneByOne() {
    var random = Generator(state: 9)
    for trial in 0..<400 {
      let count =
        [0, 1, 15, 16, 17, 31, 255 * 16, 255 * 16 + 1, 256 * 16 + 7, 70_000][trial % 10]
        + Int(random.next() % 20)
      let density = [2, 30, 1000][trial % 3]
      let bytes = (0..<count).map { _ in
        random.next() % UInt64(density) == 0 ? 0x0A : UInt8(random.next() % 256)
      }
      let offset = trial % 16 < count ? trial % 16 : 0
      let expected = bytes[offset...].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
      let found = bytes.withUnsafeBufferPointer {
        BatchRows.lineBreaks($0.baseAddress! + offset, count - offset)
      }
      #expect(found == expected, "trial \(trial): \(count) bytes from \(offset)")
    }
  }

  /// A file of many chunks, read ahead on two cores, gives the one-core output; a NUL in a later chunk stops
  /// both runs after the same rows.
  @Test func aFileReadAheadAnswersAsOneCore() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "BatchRowsTests-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let rows = Self.mixedInput(seed: 6, lines: 40_000)
    let chunk = 1 << 17  // twice `parallelBytes`, so each chunk is cut into pieces
    try #require(rows.count > 6 * chunk)
    let nul = rows.count * 3 / 4  // in a chunk that was read ahead
    let clean = directory.appendingPathComponent("rows.csv")
    let binary = directory.appendingPathComponent("binary.csv")
    try Data(rows).write(to: clean)
    try Data(rows[..<nul] + [0] + rows[nul...]).write(to: binary)
    func run(_ path: URL, threads: Int) -> (bytes: [UInt8], summary: BatchSummary?, error: FormatError?) {
      var received: [UInt8] = []
      let out = OutputBuffer { bytes in
        received += bytes
        return true
      }
      do {
        let summary = try BatchRows.run(
          path: path.path, query: .resolve(.newsAPI), format: .csv, output: out, showProgress: false, threads: threads,
          chunkSize: chunk)
        return (received, summary, nil)
      } catch {
        out.flush()
        return (received, nil, error)
      }
    }
    let one = run(clean, threads: 1)
    let two = run(clean, threads: 2)
    #expect(one.summary?.rows ?? 0 > 30_000)
    #expect(two.bytes == one.bytes && two.summary == one.summary)
    let stoppedOne = run(binary, threads: 1)
    let stoppedTwo = run(binary, threads: 2)
    #expect(stoppedOne.error?.description.contains("NUL byte") == true)
    #expect(stoppedTwo.error == stoppedOne.error && stoppedTwo.bytes == stoppedOne.bytes)
    #expect(stoppedOne.bytes.count > 4 * chunk && stoppedOne.bytes.count < one.bytes.count)
  }

  @Test func headerNamesColumnsInAnyOrderAndBOMIsSkipped() {
    let result = Self.run(Array("\u{FEFF}lon,lat\n2.35,48.85\n".utf8))
    #expect(result.output.split(separator: "\n")[1].hasPrefix("2,48.85,2.35,fr,France,"))
  }

  @Test func aLongLineFailsAloneAndTheRestIsKept() {
    let input = Array("1,2\n".utf8) + [UInt8](repeating: 0x35, count: 2 << 20) + Array("\n3,4\n5,6".utf8)
    for chunks in [[Int.max], [4096], [1 << 20, 7]] {
      let result = Self.run(input, chunks: chunks)
      #expect(result.summary == BatchSummary(rows: 4, failedRows: 1, firstFailedLine: 2), "\(chunks)")
      let lines = result.output.split(separator: "\n")
      #expect(lines.count == 5)
      #expect(lines[2].contains("line 2: the line is longer than 1048576 bytes"))
      #expect(lines[3].hasPrefix("3,3,4,") && lines[4].hasPrefix("4,5,6,"))
    }
  }

  @Test func aNULStopsTheRunAfterTheRowsBeforeIt() {
    let input = Array("1,2\n3,4\n5,".utf8) + [0] + Array("6\n7,8\n".utf8)
    let result = Self.run(input, chunks: [5])
    #expect(
      result.error
        == FormatError(
          .data, "the input holds a NUL byte on line 3; it is binary, not latitude,longitude text."))
    #expect(result.summary.rows == 2 && result.summary.failedRows == 0)
    #expect(result.output.split(separator: "\n").count == 3)
  }

  @Test func jsonlRowsAndErrors() {
    let result = Self.run(
      Array("48.85,2.35\nabc,1\n".utf8), query: .nearest(.countries, count: 2, maxKilometers: 300),
      format: .jsonl)
    let lines = result.output.split(separator: "\n").map(String.init)
    #expect(lines.count == 2)
    #expect(
      lines[0].hasPrefix(#"{"line":1,"query":{"latitude":48.85,"longitude":2.35},"results":[{"code":"fr""#))
    #expect(lines[0].contains(#""code":"be""#) == true)
    #expect(lines[1] == #"{"line":2,"error":"line 2: the latitude 'abc' is not a number."}"#)
  }

  @Test func resolveRows() {
    let result = Self.run(Array("36.75,3.06\r\n48.58,7.75".utf8), query: .resolve(.newsAPI))
    let lines = result.output.split(separator: "\n")
    #expect(lines[0] == "line,latitude,longitude,code,name,method,containing,distance_km,error")
    #expect(lines[1].hasPrefix("1,36.75,3.06,pt,Portugal,nearest,dz,"))
    #expect(lines[2].hasPrefix("2,48.58,7.75,fr,France,inside,fr,"))
  }

  @Test func aClosedOutputStopsReading() {
    var calls = 0
    let out = OutputBuffer(capacity: 64) { _ in
      calls += 1
      return false
    }
    var rows = BatchRows(query: .resolve(.newsAPI), format: .csv, output: out)
    let input = Array(String(repeating: "1,2\n", count: 10_000).utf8)
    input.withUnsafeBufferPointer { try? rows.feed($0) }
    #expect(out.isClosed && calls == 1)
    #expect(rows.summary.rows < 10_000)
  }
}
