import ArgumentParser
import GeoIndex
import NewsAtlas

struct NearestCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "nearest",
    abstract: "Find the news countries (or your own points) nearest to a place by great-circle distance.",
    discussion: """
      Give LAT LON for one place, or --input FILE (or - for standard input) with one latitude,longitude per \
      line to answer millions of places in one run; bad rows get an error row and the exit status 65.
      """
  )

  // Collected unparsed so that negative numbers ("-33.87 151.21") are read as coordinates, not options.
  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp(
      "Latitude (degrees north, -90 to 90) and longitude (degrees east, -180 to 180).", valueName: "lat lon"))
  var rawCoordinates: [String] = []

  /// The coordinates typed, without a `--` separator if the user gave one.
  var coordinates: [String] { rawCoordinates.filter { $0 != "--" } }

  @Option(
    parsing: .unconditional, help: ArgumentHelp("How many neighbours to list, nearest first.", valueName: "n")
  )
  var count: Int = 1

  @Option(
    name: .customLong("max-km"), parsing: .unconditional,
    help: ArgumentHelp("List only neighbours within this many kilometres.", valueName: "km"))
  var maxKilometers: Double?

  @Option(help: "Output format: text, json or geojson for one place; csv or jsonl with --input.")
  var format: OutputFormat?

  @Option(
    help: ArgumentHelp(
      "Search your own points instead: a GeoJSON FeatureCollection of Points, or CSV with latitude and longitude columns.",
      valueName: "file"))
  var points: String?

  @Option(
    help: ArgumentHelp(
      "Answer every latitude,longitude line of this file (- for standard input), in order.", valueName: "file"
    ))
  var input: String?

  func run() throws {
    guard count >= 1 else { throw CLIError.usage("--count must be 1 or more, not \(count).") }
    if let maxKilometers, !(maxKilometers >= 0) {
      throw CLIError.usage("--max-km must be a distance of 0 kilometres or more, not \(maxKilometers).")
    }
    let target =
      try points.map { path throws(CLIError) in
        try Target.features(FeatureFile.load(path: path, propertyNames: []))
      } ?? Target.countries
    if let option = coordinates.first(where: { $0.hasPrefix("-") && !$0.isNumber }) {
      throw CLIError.usage("Unknown option '\(option)'; 'newsatlas nearest --help' lists the options.")
    }
    guard coordinates.count <= 2 else {
      throw CLIError.usage("Give one latitude and one longitude, not \(coordinates.count) values.")
    }
    if let input {
      guard coordinates.isEmpty else {
        throw CLIError.usage("Give either LAT LON or --input FILE, not both.")
      }
      let format = try BatchNearest.format(self.format)
      guard format == .jsonl || count == 1 else {
        throw CLIError.usage(
          "--count above 1 needs --format jsonl with --input; csv has one row per input line.")
      }
      try BatchNearest(
        target: target, format: format, count: count, maxKilometers: maxKilometers ?? .infinity
      )
      .runReportingFailures(path: input)
      return
    }
    guard let latitudeText = coordinates.first else {
      throw CLIError.usage(
        "Give a latitude and a longitude (for example: nearest 48.85 2.35), or --input FILE.")
    }
    guard coordinates.count == 2 else {
      throw CLIError.usage("Give the longitude after the latitude \(latitudeText).")
    }
    let query = try Self.point(latitude: latitudeText, longitude: coordinates[1])
    let format = self.format ?? .text
    guard format == .text || format == .json || format == .geojson else {
      throw CLIError.usage(
        "For one place the format is text, json or geojson; csv and jsonl go with --input.")
    }
    let found = target.tree.neighbors(
      of: query, count: count, maxDistanceKilometers: maxKilometers ?? .infinity)
    let out = OutputBuffer()
    switch format {
    case .json:
      var json = JSONWriter()
      json.object { object in
        object.object("query") {
          $0.number("latitude", query.latitude)
          $0.number("longitude", query.longitude)
        }
        object.array("results", found) { json, neighbor in
          json.object { target.writeResult(neighbor, from: query, to: &$0) }
        }
      }
      out.append(json.bytes)
      out.append("\n")
    case .geojson:
      var json = JSONWriter()
      json.object { object in
        object.string("type", "FeatureCollection")
        object.array("features", found) { json, neighbor in
          json.object { target.writeFeature(neighbor, from: query, to: &$0) }
        }
      }
      out.append(json.bytes)
      out.append("\n")
    default:
      if found.isEmpty {
        out.append(
          "Nothing within \(Format.fixed(maxKilometers ?? 0, 1)) km of \(latitudeText), \(coordinates[1]).\n")
      }
      for neighbor in found {
        out.append(target.textLine(neighbor, from: query))
      }
    }
  }
}

/// Why a latitude and longitude are not a place on the earth, as a sentence without its capital and full stop,
/// naming the values as the user typed them; nil when they are fine.
func rangeProblem(latitude: Double, _ latitudeText: String, longitude: Double, _ longitudeText: String)
  -> String?
{
  if !(-90.0...90.0).contains(latitude) {
    return "the latitude \(latitudeText) is outside -90...90; latitudes are degrees north of the equator"
  }
  if !(-180.0...180.0).contains(longitude) {
    return "the longitude \(longitudeText) is outside -180...180; longitudes are degrees east of Greenwich"
  }
  return nil
}

extension String {
  /// Whether the text reads as a decimal number.
  var isNumber: Bool {
    var text = self
    return text.withUTF8 { NumberParser.parse($0) } != nil
  }
}

extension NearestCommand {
  /// A point from a CSV row, or a data error naming the line.
  static func csvPoint(latitude: String, longitude: String, line: Int, path: String) throws(CLIError)
    -> GeoPoint
  {
    let latitudeText = latitude.trimmingSpaces
    let longitudeText = longitude.trimmingSpaces
    guard latitudeText.isNumber, let latitudeValue = Double(latitudeText) else {
      throw .data("Line \(line) of '\(path)': the latitude '\(latitudeText)' is not a number.")
    }
    guard longitudeText.isNumber, let longitudeValue = Double(longitudeText) else {
      throw .data("Line \(line) of '\(path)': the longitude '\(longitudeText)' is not a number.")
    }
    if let problem = rangeProblem(
      latitude: latitudeValue, latitudeText, longitude: longitudeValue, longitudeText)
    {
      throw .data("Line \(line) of '\(path)': \(problem).")
    }
    return GeoPoint(uncheckedLatitude: latitudeValue, longitude: longitudeValue)
  }

  /// A place typed on the command line, or a one-sentence usage error naming the bad value.
  static func point(latitude: String, longitude: String) throws(CLIError) -> GeoPoint {
    func number(_ text: String, _ axis: String) throws(CLIError) -> Double {
      var text = text
      let value = text.withUTF8 { NumberParser.parse($0) }
      guard let value else {
        throw .usage("The \(axis) '\(text)' is not a number; give degrees as a decimal number such as 48.85.")
      }
      return value
    }
    let latitudeValue = try number(latitude, "latitude")
    let longitudeValue = try number(longitude, "longitude")
    if let problem = rangeProblem(latitude: latitudeValue, latitude, longitude: longitudeValue, longitude) {
      throw .usage(problem.prefix(1).uppercased() + problem.dropFirst() + ".")
    }
    return GeoPoint(uncheckedLatitude: latitudeValue, longitude: longitudeValue)
  }
}

/// What a nearest query searches: the 54 news countries or the user's own points.
enum Target {
  case countries
  /// The user's features, the tree over those with a Point, and each tree point's feature index.
  case userPoints(FeatureFile, SphericalKDTree, [Int])

  static func features(_ file: FeatureFile) -> Target {
    let slots = file.points.indices.filter { file.points[$0] != nil }
    return .userPoints(file, SphericalKDTree(points: slots.map { file.points[$0]! }), slots)
  }

  var tree: SphericalKDTree {
    switch self {
    case .countries: return Country.markerIndex
    case .userPoints(_, let tree, _): return tree
    }
  }

  var isCountries: Bool {
    if case .countries = self { return true }
    return false
  }

  /// The feature index of a neighbour found in `tree`.
  func featureIndex(_ neighbor: Neighbor) -> Int {
    switch self {
    case .countries: return neighbor.index
    case .userPoints(_, _, let slots): return slots[neighbor.index]
    }
  }

  func location(_ neighbor: Neighbor) -> GeoPoint {
    switch self {
    case .countries: return Country.all[neighbor.index].marker
    case .userPoints(let file, _, let slots): return file.points[slots[neighbor.index]]!
    }
  }

  func properties(_ neighbor: Neighbor) -> JSONValue {
    switch self {
    case .countries: return .null
    case .userPoints(let file, _, let slots):
      return file.feature(slots[neighbor.index])["properties"] ?? .null
    }
  }

  func writeResult(_ neighbor: Neighbor, from query: GeoPoint, to object: inout JSONWriter.ObjectWriter) {
    let location = location(neighbor)
    switch self {
    case .countries:
      let country = Country.all[neighbor.index]
      object.string("code", country.code)
      object.string("name", country.name)
      object.string("nameFr", country.nameFrench)
    case .userPoints:
      object.number("index", Double(featureIndex(neighbor)))
      object.value("properties", properties(neighbor))
    }
    object.number("latitude", location.latitude)
    object.number("longitude", location.longitude)
    object.number("distanceKm", neighbor.distanceKilometers)
    object.number("bearingDegrees", GreatCircle.initialBearingDegrees(from: query, to: location))
  }

  func writeFeature(_ neighbor: Neighbor, from query: GeoPoint, to object: inout JSONWriter.ObjectWriter) {
    let location = location(neighbor)
    object.string("type", "Feature")
    if !isCountries { object.number("id", Double(featureIndex(neighbor))) }
    object.pointGeometry(location)
    object.object("properties") { properties in
      switch self {
      case .countries:
        let country = Country.all[neighbor.index]
        properties.string("code", country.code)
        properties.string("name", country.name)
        properties.string("nameFr", country.nameFrench)
      case .userPoints:
        if case .object(let members) = self.properties(neighbor) {
          for member in members where member.key != "distanceKm" && member.key != "bearingDegrees" {
            properties.value(member.key, member.value)
          }
        }
      }
      properties.number("distanceKm", neighbor.distanceKilometers)
      properties.number("bearingDegrees", GreatCircle.initialBearingDegrees(from: query, to: location))
    }
  }

  func textLine(_ neighbor: Neighbor, from query: GeoPoint) -> String {
    let location = location(neighbor)
    let distance = Format.fixed(neighbor.distanceKilometers, 1).leftPadding(to: 8) + " km"
    let bearing =
      Format.fixed(GreatCircle.initialBearingDegrees(from: query, to: location), 0)
      .leftPadding(to: 3) + "°"
    switch self {
    case .countries:
      let country = Country.all[neighbor.index]
      return "\(country.code)  \(country.name.padding(to: 20)) \(distance)  bearing \(bearing)\n"
    case .userPoints:
      var json = JSONWriter()
      json.value(properties(neighbor))
      let properties = String(decoding: json.bytes, as: UTF8.self)
      return "#\(featureIndex(neighbor))  \(distance)  bearing \(bearing)  \(properties)\n"
    }
  }
}
