import Foundation
import GeoFormats
import GeoIndex
import TestSupport
import Testing

/// The streaming feature reader: GeoJSON and CSV, from memory, files, pipes and FIFOs, and what it refuses.
@Suite struct FeatureFileTests {
  static let collection = """
    {"type":"FeatureCollection","features":[
      {"type":"Feature","id":"a","properties":{"n":1.5,"name":"é"},"geometry":{"type":"Point","coordinates":[2.35,48.85]}},
      {"type":"Feature","properties":null,"geometry":null},
      {"type":"Feature","properties":{"n":"x"},"geometry":{"type":"Polygon","coordinates":[]}},
      {"geometry":{"coordinates":[-180,-90],"type":"Point"},"type":"Feature","properties":{"n":-2}}
    ],"bbox":[1,2,3,4]}
    """

  @Test func geoJSONKeepsSlotsTextAndValues() throws {
    let file = try FeatureFile.parse(Array(Self.collection.utf8), propertyNames: ["n"])
    #expect(file.count == 4)
    #expect(file.points[0] == GeoPoint(uncheckedLatitude: 48.85, longitude: 2.35))
    #expect(file.points[1] == nil && file.points[2] == nil)
    #expect(file.points[3] == GeoPoint(uncheckedLatitude: -90, longitude: -180))
    #expect(file.values[0] == 1.5 && file.values[1].isNaN && file.values[2].isNaN && file.values[3] == -2)
    #expect(
      String(decoding: file.text(of: 0), as: UTF8.self)
        == #"{"type":"Feature","id":"a","properties":{"n":1.5,"name":"é"},"geometry":{"type":"Point","coordinates":[2.35,48.85]}}"#
    )
    #expect(file.feature(3)["properties"]?["n"] == .number("-2"))
  }

  @Test func aFileIsReadBackByOffsetAndAFIFOFromMemory() throws {
    let fromFile = try Scratch.withFile(named: "points.geojson", contents: Self.collection) { path in
      let file = try FeatureFile.load(path: path)
      return (0..<file.count).map { file.text(of: $0) }
    }
    let inMemory = try FeatureFile.parse(Array(Self.collection.utf8))
    #expect(fromFile == (0..<4).map { inMemory.text(of: $0) })

    // A FIFO cannot be read twice: its features' text must be kept as it streams by.
    try Scratch.withDirectory { directory in
      let fifo = directory.appendingPathComponent("points.fifo").path
      #expect(mkfifo(fifo, 0o600) == 0)
      let writer = Thread {
        let handle = FileHandle(forWritingAtPath: fifo)
        handle?.write(Data(Self.collection.utf8))
        try? handle?.close()
      }
      writer.start()
      let file = try FeatureFile.load(path: fifo)
      #expect((0..<file.count).map { file.text(of: $0) } == fromFile)
    }
  }

  /// The fast scan and the full parser read a feature alike (found by the features fuzzer's differential check).
  @Test func escapesAndRepeatedMembersReadAsTheParserReadsThem() throws {
    let text = #"""
      {"type":"FeatureCollection","features":[
        {"type":"Feature","geometry":{"type":"\u0050oint","coordinates":[1,2]},"properties":{"a":1}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[3,4]},"geometry":null,"properties":{"a":1,"a":2}},
        {"type":"Feature","geometry":{"type":"Point","type":"Polygon","coordinates":[5,6],"coordinates":[]}}
      ]}
      """#
    let file = try FeatureFile.parse(Array(text.utf8), propertyNames: ["a"])
    #expect(
      file.points == [
        GeoPoint(uncheckedLatitude: 2, longitude: 1), GeoPoint(uncheckedLatitude: 4, longitude: 3),
        GeoPoint(uncheckedLatitude: 6, longitude: 5),
      ])
    #expect(file.values[1] == 1)
  }

  @Test func csvWithHeaderQuotesBOMAndCRLF() throws {
    let text = "\u{FEFF}name,lon,lat,pop\r\n\"Gare, Nord\",2.355,48.881,12\r\nBercy, 2.382 , 48.839 ,x\r\n"
    let file = try FeatureFile.parse(Array(text.utf8), propertyNames: ["pop"])
    #expect(
      file.points == [
        GeoPoint(uncheckedLatitude: 48.881, longitude: 2.355),
        GeoPoint(uncheckedLatitude: 48.839, longitude: 2.382),
      ])
    #expect(file.values[0] == 12 && file.values[1].isNaN)
    #expect(file.feature(0)["properties"]?["name"] == .string("Gare, Nord"))
  }

  @Test(arguments: [
    ("", "holds no points"),
    ("[1,2]", "is a JSON array"),
    ("{\"type\":\"FeatureCollection\",\"features\":[", "the text ends"),
    ("{\"type\":\"Topology\",\"features\":[]}", "not a GeoJSON FeatureCollection"),
    ("{\"features\":[]}", "needs \"type\" and \"features\""),
    (
      "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[10,95]}}]}",
      "Feature 0"
    ),
    (
      "{\"type\":\"FeatureCollection\",\"features\":[{\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,\"2\"]}}]}",
      "without numeric [longitude, latitude]"
    ),
    ("{\"type\":\"FeatureCollection\",\"features\":[1,}", "Feature 0 in 'in' is not an object"),
    ("name,lat,lon\nx,abc,3\n", "Line 2"),
    ("name,lat,lon\nx,nan,3\n", "the latitude 'nan' is not a number"),
    ("name,lat,lon\nx,0x1p3,3\n", "the latitude '0x1p3' is not a number"),
    ("name,city\nx,y\n", "no latitude and longitude columns"),
    ("lat,lon\n1,2\u{0}\n", "a NUL byte"),
    // A lone surrogate is not text: its feature was kept with "properties":null (the user's data dropped).
    (
      "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{\"n\":\"a\\ud800b\"},\"geometry\":null}]}",
      "a high surrogate must be followed by a low one"
    ),
    (
      "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{\"n\":\"\\udc00\"},\"geometry\":null}]}",
      "line 1"
    ),
    ("lat,lon\r1,2\r3,4\r", "carriage return"),
  ])
  func malformedInputSaysWhere(_ text: String, _ mentions: String) {
    #expect {
      try FeatureFile.parse(Array(text.utf8), name: "in")
    } throws: { error in
      guard let error = error as? FormatError else { return false }
      return error.kind == .data && error.description.contains(mentions) && error.description.hasSuffix(".")
    }
  }

  @Test func aSurrogatePairIsKept() throws {
    let text =
      #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"n":"a\ud83d\ude00b"},"geometry":{"type":"Point","coordinates":[2,1]}}]}"#
    let file = try FeatureFile.parse(Array(text.utf8), name: "in")
    #expect(file.feature(0)["properties"]?["n"] == .string("a😀b"))
  }

  @Test func hostileBytes() {
    func refusal(_ bytes: [UInt8]) -> String? {
      do {
        _ = try FeatureFile.parse(bytes, name: "in")
        return nil
      } catch { return error.description }
    }
    let deep =
      "{\"type\":\"FeatureCollection\",\"features\":[" + String(repeating: "[", count: 100_000)
      + String(repeating: "]", count: 100_000) + "]}"
    #expect(refusal(Array(deep.utf8))?.contains("nesting deeper than 512 levels") == true)
    let badUTF8: [UInt8] =
      Array(
        "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{\"n\":\"".utf8)
      + [0xC3, 0x28] + Array("\"},\"geometry\":null}]}".utf8)
    #expect(refusal(badUTF8)?.contains("not valid UTF-8") == true)
    let longLine = [UInt8](repeating: 0x31, count: 10_000_000)
    #expect(refusal(longLine)?.contains("longer than 1048576 bytes") == true)
    #expect(refusal([UInt8](repeating: 0, count: 4096))?.contains("NUL") == true)
    let nulInString = Array("{\"type\":\"FeatureCollection\",\"features\":[{\"a\":\"".utf8) + [0, 0, 0]
    #expect(refusal(nulInString) != nil)
  }

  @Test func unreadableInputsAreInputErrors() throws {
    #expect(throws: FormatError(.input, "Cannot open '/nonexistent/p.json': No such file or directory.")) {
      try FeatureFile.load(path: "/nonexistent/p.json")
    }
    try Scratch.withDirectory { directory in
      #expect(throws: FormatError(.input, "'\(directory.path)' is a directory; give a file.")) {
        try FeatureFile.load(path: directory.path)
      }
    }
  }
}

/// `indices(withAnyOf:)`, the one pass a followed table's burst of changes takes, against one `indices(withID:)`
/// per id (a few ids and many): ids of every kind (strings, numbers written several ways, 64-bit numbers past 2^53, escapes,
/// non-ASCII, repeated, absent), asked in any number.
@Suite struct FeatureIDsTests {
  static let ids = [
    #""a""#, #""b""#, "7", "7.0", "0.7e1", "-0", "0", "9007199254740993", "9007199254740992", #""\u0041""#,
    #""été""#, #""K""#, "12", "12", #""12""#, "null", "true", #""x\"y""#,
  ]

  @Test(arguments: [UInt64(1), 2, 3, 4])
  func oneSearchFindsWhatOneSearchPerIDFinds(seed: UInt64) throws {
    var random = SplitMix64(state: seed)
    var features: [String] = []
    for n in 0..<300 {
      let id =
        Int.random(in: 0..<5, using: &random) == 0
        ? "" : #""id":\#(Self.ids.randomElement(using: &random)!),"#
      features.append(
        #"{"type":"Feature",\#(id)"properties":{"n":\#(n)},"geometry":{"type":"Point","coordinates":[1,2]}}"#)
    }
    let file = try FeatureFile.parse(
      Array((#"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}").utf8))
    let asked = [
      "a", "b", "7", "7.00", "0", "-0", "9007199254740993", "A", "été", "K", "\u{212A}", "12", "x\"y", "none",
      "null", "true",
    ]
    for round in 0..<40 {
      // A few ids are compared with each feature's hash, more than 16 hashes looked up.
      let most = round % 2 == 0 ? 6 : 30
      let some = (0..<Int.random(in: 0...most, using: &random)).map { _ in
        asked.randomElement(using: &random)!
      }
      let expected = Set(some.flatMap { file.indices(withID: $0) }).sorted()
      #expect(file.indices(withAnyOf: some) == expected, "\(some)")
    }
  }
}
