import AtlasMessages
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

  /// Why a latitude and longitude are not a place on the earth, as a clause without its capital and full
  /// stop, naming the values as the user typed them; nil when they are fine.
  public static func rangeProblem(
    latitude: Double, _ latitudeText: String, longitude: Double, _ longitudeText: String
  ) -> Sentence? {
    if !(-90.0...90.0).contains(latitude) { return Sentence(.coordinateLatitudeOutside, latitudeText) }
    if !(-180.0...180.0).contains(longitude) { return Sentence(.coordinateLongitudeOutside, longitudeText) }
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
    func value(_ text: String, _ notANumber: Message) throws(FormatError) -> Double {
      guard let value = number(text) else { throw .argument(notANumber, text) }
      return value
    }
    let latitudeValue = try value(latitude, .coordinateLatitudeNotNumber)
    let longitudeValue = try value(longitude, .coordinateLongitudeNotNumber)
    if let problem = rangeProblem(
      latitude: latitudeValue, latitude, longitude: longitudeValue, longitude)
    {
      throw .argument(.coordinateSentence, problem.capitalized)
    }
    return GeoPoint(uncheckedLatitude: latitudeValue, longitude: longitudeValue)
  }

  /// `west,south,east,north` in degrees, as supercluster takes a bbox (longitudes wrap, latitudes clamp);
  /// `name` is how errors call it (an option's name, say; "A box" in the reader's language by default).
  public static func box(_ text: String, name: String? = nil) throws(FormatError) -> GeoBox {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    let values = parts.compactMap { number(String($0)) }
    guard parts.count == 4, values.count == 4, values.allSatisfy({ abs($0) <= 1e6 }) else {
      throw .argument(.coordinateBox, name ?? Sentence(.coordinateABox), text)
    }
    return GeoBox(west: values[0], south: values[1], east: values[2], north: values[3])
  }

  /// A zoom to ask clusters about, from 0 to 31 (`ClusterOptions.queryZooms`: one past the highest clustered
  /// zoom gives the raw points); fractions floor later. `name` is how errors call it.
  public static func zoom(_ value: Double, name: String = "zoom") throws(FormatError) {
    let zooms = ClusterOptions.queryZooms
    guard zooms.contains(value) else {
      throw .argument(
        .coordinateZoom, name, Int(zooms.lowerBound), Int(zooms.upperBound), ClusterOptions.text(value))
    }
  }

  /// `z/x/y`, a map tile with a zoom from 0 to 30 and x and y on the map; `name` is how errors call it ("A
  /// tile" in the reader's language by default).
  public static func tile(_ text: String, name: String? = nil) throws(FormatError)
    -> (zoom: Int, x: Int, y: Int)
  {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    let values = parts.compactMap { part in
      part.allSatisfy { $0.isASCII && $0.isNumber } && part.count <= 10 ? Int(part) : nil
    }
    guard parts.count == 3, values.count == 3, (0...30).contains(values[0]) else {
      throw .argument(.coordinateTile, name ?? Sentence(.coordinateATile), text)
    }
    let side = 1 << values[0]
    guard (0..<side).contains(values[1]), (0..<side).contains(values[2]) else {
      throw .argument(.coordinateTileOffMap, values[0], side - 1, text)
    }
    return (values[0], values[1], values[2])
  }
}

extension CoordinateError {
  /// The sentence, to be said in the reader's language (GeoIndex, pure, says it in English only).
  public var sentence: Sentence {
    switch self {
    case .notANumber(.latitude, let value): Sentence(.coordinateLatitudeNotFinite, value)
    case .notANumber(.longitude, let value): Sentence(.coordinateLongitudeNotFinite, value)
    case .latitudeOutOfRange(let value):
      Sentence(.coordinateSentence, Sentence(.coordinateLatitudeOutside, value).capitalized)
    case .longitudeOutOfRange(let value):
      Sentence(.coordinateSentence, Sentence(.coordinateLongitudeOutside, value).capitalized)
    }
  }
}
