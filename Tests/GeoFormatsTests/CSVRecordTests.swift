import GeoIndex
import TestSupport
import Testing

@testable import GeoFormats

/// The one CSV reader (`CSVRecord`) that batch rows, CSV point files and `CSV.rows` read through.
@Suite struct CSVRecordTests {
  /// The fields of one line, as text, with whether each was quoted.
  static func fields(_ line: String) -> [(text: String, quoted: Bool)] {
    Array(line.utf8).withUnsafeBufferPointer { bytes in
      var record = CSVRecord(bytes)
      var found: [(String, Bool)] = []
      while let field = record.next() { found.append((field.string, field.isQuoted)) }
      return found
    }
  }

  @Test(arguments: [
    ("48.85,2.35", ["48.85", "2.35"]),
    ("\"Paris, France\",48.85,2.35", ["Paris, France", "48.85", "2.35"]),
    ("a,,b,", ["a", "", "b", ""]),
    ("\"say \"\"hi\"\"\",1", ["say \"hi\"", "1"]),
    ("  \"a,b\"  , c ", ["a,b", " c "]),  // spaces around a quoted field go, an unquoted field keeps them
    ("O\"Brien,1,2", ["O\"Brien", "1", "2"]),  // a quote inside an unquoted field is a byte like any other
    ("\"12\"5,2", ["\"12\"5", "2"]),  // text after the closing quote: the field as written
    ("\"12.5,2", ["\"12.5,2"]),  // no closing quote: the rest of the line, as written
    ("", [""]),
  ])
  func readsFields(_ line: String, _ expected: [String]) {
    #expect(Self.fields(line).map(\.text) == expected, "\(line)")
  }

  /// The defect that made one reader of two: a comma splitter moved every column after a quoted comma.
  @Test func aQuotedCommaDoesNotMoveTheColumns() {
    let found = Self.fields("\"Paris, France\",\"48.85\", 2.35 ,\"a \"\"b\"\", c\"")
    #expect(found.count == 4)
    #expect(found.map(\.text) == ["Paris, France", "48.85", " 2.35 ", "a \"b\", c"])
    #expect(found.map(\.quoted) == [true, true, false, true])
  }

  @Test func numbersAndEchoesReadTheTrimmedValue() {
    Array(" \"-33.87\" ,\t151.21\t".utf8).withUnsafeBufferPointer { bytes in
      var record = CSVRecord(bytes)
      let latitude = record.next()!
      let longitude = record.next()!
      #expect(record.next() == nil)
      #expect(NumberParser.parse(latitude.trimmed) == -33.87)
      #expect(NumberParser.parse(longitude.trimmed) == 151.21)
      #expect(longitude.trimmedString == "151.21")
    }
  }

  /// `CSV.rows` over several records: CRLF or LF ends one, a quoted line break does not.
  @Test func rowsSpanQuotedLineBreaks() {
    #expect(CSV.rows("a,b\r\n\"x\ny\",2\n\n3") == [["a", "b"], ["x\ny", "2"], [""], ["3"]])
    #expect(CSV.rows("") == [])
  }

  /// Whatever `csvField` writes, the reader reads back, on seeded random fields.
  @Test(arguments: [1, 2, 3] as [UInt64])
  func writtenFieldsReadBack(seed: UInt64) {
    var random = SplitMix64(state: seed)
    let alphabet = Array("a,\"\n\r 1.-é\t")
    for _ in 0..<500 {
      let row = (0..<Int(random.next() % 5 + 1)).map { _ in
        String(
          (0..<Int(random.next() % 6)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
      }
      // A field of spaces alone, or one that starts or ends with them unquoted, keeps them; write it so.
      let line = row.map(csvField).joined(separator: ",")
      #expect(CSV.rows(line + "\n") == [row], "seed \(seed): \(line)")
    }
  }
}
