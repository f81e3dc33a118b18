import CBoundaries
import GeoIndex
import SeededPoints
import Testing

@testable import NewsAtlas

/// The border data's stored cell index (version 2 of `Data/boundaries.bin`) against the one its borders give,
/// worked out here as version 1's reader did at every start; and data that lies about it is refused.
@Suite struct BoundaryDataTests {
  static var embedded: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: cboundaries_bytes(), count: cboundaries_count())
  }

  @Test func storedCellIndexIsTheBordersOwn() throws {
    let boundaries = try CountryBoundaries(data: Self.embedded)  // checked whole
    let pointCount = boundaries.coordinates.count / 2
    // Each ring's edges belong to its country; a ring's last point starts none.
    var edgeCountry = [Int](repeating: -1, count: pointCount)
    for ring in boundaries.ringTable {
      for i in ring.start..<(ring.start + ring.count - 1) { edgeCountry[i] = ring.country }
    }
    // Every edge in each cell its bounding box overlaps (integer units of 1e-7 degrees), in point order.
    let (columns, rows) = (boundaries.columns, boundaries.rows)
    let columnUnits = 3_600_000_000 / columns
    let rowUnits = 1_800_000_000 / rows
    var cells = [[Int]](repeating: [], count: columns * rows)
    for i in 0..<pointCount where edgeCountry[i] >= 0 {
      let ax = Int(boundaries.coordinates[2 * i]) + 1_800_000_000
      let bx = Int(boundaries.coordinates[2 * i + 2]) + 1_800_000_000
      let ay = Int(boundaries.coordinates[2 * i + 1]) + 900_000_000
      let by = Int(boundaries.coordinates[2 * i + 3]) + 900_000_000
      let c0 = max(0, min(columns - 1, min(ax, bx) / columnUnits))
      let c1 = max(0, min(columns - 1, max(ax, bx) / columnUnits))
      let r0 = max(0, min(rows - 1, min(ay, by) / rowUnits))
      let r1 = max(0, min(rows - 1, max(ay, by) / rowUnits))
      for r in r0...r1 { for c in c0...c1 { cells[r * columns + c].append(i) } }
    }
    var mismatches = 0
    var edgeCount = 0
    for (cell, expected) in cells.enumerated() {
      var stored: [Int] = []
      boundaries.forEachEdge(row: cell / columns, column: cell % columns) { i, country in
        stored.append(i)
        if country != edgeCountry[i] {
          Issue.record("edge \(i): stored country \(country), its ring's \(edgeCountry[i])")
        }
      }
      edgeCount += stored.count
      if stored != expected {
        mismatches += 1
        if mismatches <= 3 {
          Issue.record("cell \(cell): stored \(stored.prefix(8)), the borders give \(expected.prefix(8))")
        }
      }
    }
    #expect(mismatches == 0)
    #expect(edgeCount > 600_000)
  }

  @Test func readInPlaceAnswersAsTheCheckedCopy() throws {
    let copied = try CountryBoundaries(data: Self.embedded)
    var points = SeededSpherePoints(seed: 23)
    for _ in 0..<20_000 {
      let point = points.next()!
      #expect(copied.locate(point) == Country.boundaries.locate(point), "\(point)")
    }
  }

  /// A copy of the embedded data with one little-endian u32 replaced.
  static func corrupted(at offset: Int, with value: UInt32) -> [UInt8] {
    var bytes = Array(embedded)
    withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<(offset + 4), with: $0) }
    return bytes
  }

  static func header(_ field: Int) -> Int {
    Int(embedded.loadUnaligned(fromByteOffset: 4 * field, as: UInt32.self).littleEndian)
  }

  @Test func dataThatLiesIsRefused() {
    let size = Self.embedded.count
    let runCount = Self.header(9)
    let runStartsOffset = size - 8 * runCount - 4 * (Self.header(8) + 1)
    let cases: [(String, [UInt8])] = [
      ("a run past the last point", Self.corrupted(at: size - 8, with: UInt32(Self.header(4)))),
      ("a cell's runs starting after the next cell's", Self.corrupted(at: runStartsOffset + 4, with: .max)),
      ("a run of a country that is not there", Self.corrupted(at: size - 4, with: 0xFFFF_0001)),
      ("version 1", Self.corrupted(at: 4, with: 1)),
      ("a short file", Array(Self.embedded.dropLast(4))),
    ]
    for (what, bytes) in cases {
      let error = bytes.withUnsafeBytes { data -> CountryBoundaries.FormatError? in
        do throws(CountryBoundaries.FormatError) {
          _ = try CountryBoundaries(data: data)
          return nil
        } catch { return error }
      }
      #expect(error != nil, "\(what) was accepted")
      if let error { #expect(error.description.hasPrefix("The border data"), "\(what): \(error)") }
    }
  }
}
