import GeoIndex

/// Coordinates, boxes and tile addresses typed by a person: parsed strictly, refused in one sentence.
///
/// Numbers are decimals (`48.85`, `-33.87`, `+5`, `1e-3`), with spaces around them ignored; `nan`, `inf`,
/// hexadecimal (`0x1p3`) and anything that overflows a Double (`1e309`) are refused.
public enum Coordinates {
  /// A decimal number, or nil; the text is read as one CSV field (`CSVRecord`: quotes around it allowed).
  public static func number(_ text: String) -> Double? {
    var text = text
    return text.withUTF8 { bytes in
      guard !bytes.contains(0x0A) else { return nil }
      var record = CSVRecord(bytes)
      guard let field = record.next(), record.next() == nil else { return nil }
      return NumberParser.parse(field.trimmed)
    }
  }

  /// Why a latitude and longitude are not a place on the earth, as a sentence without its capital and full
  /// stop, naming the values as the user typed them; nil when they are fine.
  public static func rangeProblem(
    latitude: Double, _ latitudeText: String, longitude: Double, _ longitudeText: String
  ) -> String? {
    if !(-90.0...90.0).contains(latitude) {
      return "the latitude \(latitudeText) is outside -90...90; latitudes are degrees north of the equator"
    }
    if !(-180.0...180.0).contains(longitude) {
      return "the longitude \(longitudeText) is outside -180...180; longitudes are degrees east of Greenwich"
    }
    return nil
  }

  /// The latitude and longitude texts of a place typed in either spelling: two arguments (`48.85 2.35`, or
  /// `48.85, 2.35` whose comma is dropped), or one that holds both (`48.85,2.35`, `"48.85, 2.35"`,
  /// `"48.85 2.35"`; a comma separates when there is one, else spaces). Other shapes come back as given, or
  /// split as well as they can, for the caller to refuse by their count or their numbers.
  public static func placeFields(_ arguments: [String]) -> [String] {
    func isSpace(_ character: Character) -> Bool { character == " " || character == "\t" }
    func trimmed(_ text: Substring) -> String {
      String(text.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
    if arguments.count == 2, arguments[0].hasSuffix(",") {
      return [trimmed(arguments[0].dropLast()), arguments[1]]
    }
    guard arguments.count == 1 else { return arguments }
    let text = arguments[0]
    let fields =
      text.contains(",")
      ? text.split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
      : text.split(whereSeparator: isSpace).map(String.init)
    return fields.filter { !$0.isEmpty }
  }

  /// Whether a command-line argument starting with `-` is a place or part of one (`-33.87`, `-33.87,151.21`,
  /// even `-33.87,x`, to be refused as a place), not an option.
  public static func isPlaceArgument(_ argument: String) -> Bool {
    placeFields([argument]).first.flatMap(number) != nil
  }

  /// A place from a latitude and a longitude as typed, or an argument error naming the bad value.
  public static func point(latitude: String, longitude: String) throws(FormatError) -> GeoPoint {
    func value(_ text: String, _ axis: String) throws(FormatError) -> Double {
      guard let value = number(text) else {
        throw .argument(
          "The \(axis) '\(text)' is not a number; give degrees as a decimal number such as 48.85.")
      }
      return value
    }
    let latitudeValue = try value(latitude, "latitude")
    let longitudeValue = try value(longitude, "longitude")
    if let problem = rangeProblem(
      latitude: latitudeValue, latitude, longitude: longitudeValue, longitude)
    {
      throw .argument(problem.prefix(1).uppercased() + problem.dropFirst() + ".")
    }
    return GeoPoint(uncheckedLatitude: latitudeValue, longitude: longitudeValue)
  }

  /// `west,south,east,north` in degrees, as supercluster takes a bbox (longitudes wrap, latitudes clamp);
  /// `name` is how errors call it (an option's name, say).
  public static func box(_ text: String, name: String = "A box") throws(FormatError) -> GeoBox {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    let values = parts.compactMap { number(String($0)) }
    guard parts.count == 4, values.count == 4, values.allSatisfy({ abs($0) <= 1e6 }) else {
      throw .argument(
        "\(name) takes four numbers, west,south,east,north (for example -10,35,30,60), not '\(text)'.")
    }
    return GeoBox(west: values[0], south: values[1], east: values[2], north: values[3])
  }

  /// A zoom to ask clusters about, from 0 to 31 (`ClusterOptions.queryZooms`: one past the highest clustered
  /// zoom gives the raw points); fractions floor later. `name` is how errors call it.
  public static func zoom(_ value: Double, name: String = "zoom") throws(FormatError) {
    let zooms = ClusterOptions.queryZooms
    guard zooms.contains(value) else {
      throw .argument(
        "\(name) runs from \(Int(zooms.lowerBound)) to \(Int(zooms.upperBound)) (above the highest clustered "
          + "zoom, the raw points), not \(ClusterOptions.text(value)).")
    }
  }

  /// `z/x/y`, a map tile with a zoom from 0 to 30 and x and y on the map; `name` is how errors call it.
  public static func tile(_ text: String, name: String = "A tile") throws(FormatError)
    -> (zoom: Int, x: Int, y: Int)
  {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    let values = parts.compactMap { part in
      part.allSatisfy { $0.isASCII && $0.isNumber } && part.count <= 10 ? Int(part) : nil
    }
    guard parts.count == 3, values.count == 3, (0...30).contains(values[0]) else {
      throw .argument("\(name) takes Z/X/Y with a zoom from 0 to 30 (for example 2/1/1), not '\(text)'.")
    }
    let side = 1 << values[0]
    guard (0..<side).contains(values[1]), (0..<side).contains(values[2]) else {
      throw .argument(
        "At zoom \(values[0]) a tile's x and y run from 0 to \(side - 1); '\(text)' is off the map.")
    }
    return (values[0], values[1], values[2])
  }
}
