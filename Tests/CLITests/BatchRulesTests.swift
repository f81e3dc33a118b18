import Foundation
import GeoFormats
import TestSupport
import Testing

/// One rule for headers and line ends in batch rows (`nearest --input`, `resolve --input`, the service's
/// POSTs) and CSV point files, and rows whose fields always line up under their header.
@Suite struct BatchRulesTests {
  /// Every row of a CSV answer, read by an RFC 4180 reader, has as many fields as the header.
  func expectAligned(_ csv: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let rows = CSV.rows(csv)
    #expect(rows.count > 1, sourceLocation: sourceLocation)
    for row in rows.dropFirst() {
      #expect(row.count == rows[0].count, "\(row) under \(rows[0])", sourceLocation: sourceLocation)
    }
  }

  @Test func errorRowsHaveTheHeadersFields() throws {
    let input = "latitude,longitude\n48.85,2.35\noops,1\n1\n91,0\n"
    let nearest = try CLI.run(["nearest", "--input", "-"], stdin: input)
    #expect(nearest.status == 65)
    expectAligned(nearest.stdout)
    #expect(CSV.rows(nearest.stdout)[2].last == "line 3: the latitude 'oops' is not a number.")
    let resolve = try CLI.run(["resolve", "--input", "-"], stdin: input)
    expectAligned(resolve.stdout)
    try Scratch.withFile(named: "p.csv", contents: "lat,lon,name\n1,2,a\n") { points in
      let own = try CLI.run(["nearest", "--input", "-", "--points", points], stdin: input)
      expectAligned(own.stdout)
      #expect(CSV.rows(own.stdout)[0].count == 7)
    }
  }

  @Test func aQuotedHeaderNamesItsColumns() throws {
    let paris = try CLI.run(["nearest", "--input", "-"], stdin: "\"lon\",\"LAT\"\n2.35,48.85\n")
    #expect(paris.status == 0 && paris.stdout.contains("\n2,48.85,2.35,fr,France,"), "\(paris.stdout)")
    // Quoted fields, a comma inside one, before the coordinates.
    let named = try CLI.run(
      ["resolve", "--input", "-"], stdin: "name,lat,lon\n\"Paris, France\",\"48.85\",2.35\n")
    #expect(named.status == 0 && named.stdout.contains("\n2,48.85,2.35,fr,France,"), "\(named.stdout)")
  }

  @Test func aHeaderPastTheSixteenthColumnIsRefusedNotMisread() throws {
    let names = (1...17).map { "c\($0)" }.joined(separator: ",") + ",lat,lon"
    let row = (1...17).map { _ in "5" }.joined(separator: ",") + ",48.85,2.35"
    let refused = try CLI.run(["nearest", "--input", "-"], stdin: names + "\n" + row + "\n")
    #expect(refused.status == 65)
    #expect(refused.stderr.contains("latitude in column 18 and longitude in column 19"), "\(refused.stderr)")
    #expect(!refused.stdout.contains(",5,5,"))  // nothing answered from columns 1 and 2
    #expect(refused.stdout == "line,latitude,longitude,code,name,distance_km,bearing_deg,error\n")
  }

  @Test func aFirstLineThatIsNotAHeaderIsARow() throws {
    let marked = try CLI.run(["nearest", "--input", "-"], stdin: "48.85N,2.35E\n48.85,2.35\n")
    #expect(marked.status == 65)
    #expect(marked.stdout.contains("1,48.85N,2.35E,,,,,line 1: the latitude '48.85N' is not a number."))
    #expect(marked.stdout.contains("\n2,48.85,2.35,fr,"))
  }

  @Test func aCarriageReturnInsideALineFailsItsRow() throws {
    let old = try CLI.run(["nearest", "--input", "-"], stdin: "lat,lon\r1,2\r3,4\r")
    #expect(old.status == 65 && old.stderr.contains("1 of 1 rows failed"), "\(old.stdout)\(old.stderr)")
    #expect(old.stdout.contains("carriage return (CR) that does not end it"))
    let crlf = try CLI.run(["nearest", "--input", "-"], stdin: "lat,lon\r\n48.85,2.35\r\n")
    #expect(crlf.status == 0 && crlf.stdout.contains("\n2,48.85,2.35,fr,"))
    try Scratch.withFile(named: "cr.csv", contents: "lat,lon\r1,2\r3,4\r") { points in
      let file = try CLI.run(["nearest", "1", "2", "--points", points])
      #expect(file.status == 65 && file.stderr.contains("carriage return"), "\(file.stderr)")
    }
  }
}

/// A write that fails is said: a full disk in one sentence with EX_IOERR (74), whatever printed it; a reader
/// that goes away early ends the command quietly.
@Suite struct WriteFailureTests {
  @Test(arguments: [
    "countries", "countries --format json", "config path", "quota", "--help", "--version", "help nearest",
    "nearest --help", "nearest 1 2", "resolve 1 2", "clusters --zoom 1",
  ])
  func aFullDiskIsSaid(_ command: String) throws {
    let result = try CLI.shell("\"$0\" \(command) > /dev/full")
    #expect(result.status == 74, "\(result.stderr)")
    #expect(result.stderr == "newsatlas: Could not write to standard output: No space left on device.\n")
  }

  @Test(arguments: ["countries", "--help", "config path"])
  func aReaderThatLeavesEndsItQuietly(_ command: String) throws {
    let result = try CLI.shell("\"$0\" \(command) | head -c 1 > /dev/null; echo \"${PIPESTATUS[0]}\"")
    #expect(["0", "141"].contains(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(result.stderr.isEmpty, "\(result.stderr)")
  }
}
