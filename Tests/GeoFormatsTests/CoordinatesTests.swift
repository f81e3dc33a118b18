import GeoFormats
import GeoIndex
import Testing

/// Numbers, places, boxes and tiles as a person types them.
@Suite struct CoordinatesTests {
  @Test(arguments: [
    ("48.85", 48.85), ("-33.87", -33.87), ("+5", 5), (" 5", 5), ("5\t", 5), ("1e-3", 0.001), ("-0", 0),
    ("\"12.5\"", 12.5), ("0.1", 0.1), ("123456789012345678901234", 123456789012345678901234.0),
    ("5e-400", 0),
  ])
  func acceptsDecimals(_ text: String, _ value: Double) {
    #expect(Coordinates.number(text) == value, "'\(text)'")
  }

  @Test(arguments: [
    "nan", "NaN", "inf", "-inf", "infinity", "1e309", "-1e309", "0x1p3", "0x10", "", " ", "+", "-", ".", "1e",
    "--5", "1_0", "1,5", "١٢", "5 5", "\"\"",
  ])
  func refusesEverythingElse(_ text: String) {
    #expect(Coordinates.number(text) == nil, "'\(text)'")
  }

  @Test func placesAreCheckedAndNamedInErrors() throws {
    let point = try Coordinates.point(latitude: " -33.87", longitude: "151.21 ")
    #expect(point.latitude == -33.87 && point.longitude == 151.21)
    #expect(
      throws: FormatError(
        .argument, "The latitude 'nan' is not a number; give degrees as a decimal number such as 48.85.")
    ) {
      try Coordinates.point(latitude: "nan", longitude: "0")
    }
    #expect(
      throws: FormatError(
        .argument, "The longitude 180.5 is outside -180...180; longitudes are degrees east of Greenwich.")
    ) { try Coordinates.point(latitude: "0", longitude: "180.5") }
  }

  @Test func boxes() throws {
    let box = try Coordinates.box("-10, 35,30,60")
    #expect(box.west == -10 && box.south == 35 && box.east == 30 && box.north == 60)
    // supercluster's own odd boxes: longitudes wrap later, so they are taken as given.
    #expect(try Coordinates.box("458.220043,-84.239039,-117.137190,120.206585").west == 458.220043)
    for bad in ["1,2,3", "1,2,3,4,5", "a,b,c,d", "1,2,3,nan", "1,2,3,1e7", ""] {
      #expect(throws: FormatError.self, "'\(bad)'") { try Coordinates.box(bad, name: "--bbox") }
    }
  }

  @Test func tiles() throws {
    #expect(try Coordinates.tile("2/1/3") == (2, 1, 3))
    #expect(try Coordinates.tile("30/1073741823/0") == (30, 1_073_741_823, 0))
    for bad in [
      "2/4/0", "2/0/4", "31/0/0", "-1/0/0", "1/-0/0", "+1/0/0", "a/b", "1/0", "1/0/0/0", "", "1//0",
      "99999999999999999999/0/0", " 1/0/0",
    ] {
      #expect(throws: FormatError.self, "'\(bad)'") { try Coordinates.tile(bad) }
    }
  }
}
