import ArgumentParser
import AtlasAnswers
import GeoFormats
import GeoIndex
import NewsAtlas

#if canImport(Glibc)
  import Glibc
#endif

struct NearestCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "nearest",
    abstract: "Find the news countries (or your own points) nearest to a place by great-circle distance.",
    usage: """
      newsatlas nearest LAT LON [--count <n>] [--max-km <km>] [--format <format>] [--points <file>]
      newsatlas nearest --input <file> [--format csv|jsonl] [--count <n>] [--points <file>] [--threads <n>]
      """,
    discussion: """
      Give LAT LON for one place, or --input FILE (or - for standard input) with one latitude,longitude per \
      line to answer millions of places in one run; bad rows get an error row and the exit status 65.
      """
  )

  // Collected unparsed so that negative numbers ("-33.87 151.21") are read as coordinates, not options.
  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp(
      "Latitude (degrees north, -90 to 90) and longitude (degrees east, -180 to 180): LAT LON or LAT,LON.",
      valueName: "lat lon"))
  var rawCoordinates: [String] = []

  /// The arguments typed, without a `--` separator if the user gave one.
  var rawArguments: [String] { rawCoordinates.filter { $0 != "--" } }
  /// The latitude and longitude texts, typed `LAT LON` or `LAT,LON`.
  var coordinates: [String] { Coordinates.placeFields(rawArguments) }

  @Option(
    parsing: .unconditional, help: ArgumentHelp("How many neighbours to list, nearest first.", valueName: "n")
  )
  var count: Int = 1

  @Option(
    name: .customLong("max-km"), parsing: .unconditional,
    help: ArgumentHelp("List only neighbours within this many kilometres.", valueName: "km"))
  var maxKilometersOption: DecimalNumber?

  var maxKilometers: Double? { maxKilometersOption?.value }

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

  @OptionGroup var threads: ThreadsOption

  func run() throws {
    guard count >= 1 else { throw CLIError.usage("--count must be 1 or more, not \(count).") }
    if let maxKilometers, !(maxKilometers >= 0) {
      throw CLIError.usage("--max-km must be a distance of 0 kilometres or more, not \(maxKilometers).")
    }
    if let option = rawArguments.first(where: { $0.hasPrefix("-") && !Coordinates.isPlaceArgument($0) }) {
      throw CLIError.usage("Unknown option '\(option)'; 'newsatlas nearest --help' lists the options.")
    }
    guard coordinates.count <= 2 else {
      throw CLIError.usage("Give one latitude and one longitude, not \(coordinates.count) values.")
    }
    if input != nil && !coordinates.isEmpty {
      throw CLIError.usage("Give either LAT LON or --input FILE, not both.")
    }
    let target =
      try points.map { path throws(CLIError) in
        try formats { () throws(FormatError) in
          NearestTarget.features(try FeatureFile.load(path: path, showProgress: StandardError.isTerminal))
        }
      } ?? .countries
    if let input {
      let format = try batchFormat(self.format)
      guard format == .jsonl || count == 1 else {
        throw CLIError.usage(
          "--count above 1 needs --format jsonl with --input; csv has one row per input line.")
      }
      try runBatch(
        path: input, query: .nearest(target, count: count, maxKilometers: maxKilometers ?? .infinity),
        format: format, threads: threads.threads)
      return
    }
    guard let latitudeText = coordinates.first else {
      throw CLIError.usage(
        "Give a latitude and a longitude (for example: nearest 48.85 2.35), or --input FILE.")
    }
    guard coordinates.count == 2 else {
      throw CLIError.usage("Give the longitude after the latitude \(latitudeText).")
    }
    let query = try formats { () throws(FormatError) in
      try Coordinates.point(latitude: latitudeText, longitude: coordinates[1])
    }
    let format = self.format ?? .text
    guard format == .text || format == .json || format == .geojson else {
      throw CLIError.usage(
        "For one place the format is text, json or geojson; csv and jsonl go with --input.")
    }
    let found = target.tree.neighbors(
      of: query, count: count, maxDistanceKilometers: maxKilometers ?? .infinity)
    let out = OutputBuffer.standardOutput()
    switch format {
    case .json:
      out.append(target.answerJSON(found, from: query))
      out.append("\n")
    case .geojson:
      out.append(target.answerGeoJSON(found, from: query))
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

/// The batch format for `--input`, csv by default, or a usage error.
func batchFormat(_ format: OutputFormat?) throws(CLIError) -> BatchFormat {
  switch format ?? .csv {
  case .csv: return .csv
  case .jsonl: return .jsonl
  case let other: throw .usage("With --input the format is csv or jsonl, not \(other.rawValue).")
  }
}

/// `--threads N` for `--input`: cores for the rows, all of them by default.
struct ThreadsOption: ParsableArguments {
  @Option(
    name: .customLong("threads"), parsing: .unconditional,
    help: ArgumentHelp(
      "Cores that answer --input rows (default: all); the output is the same.", valueName: "n"))
  var requested: Int?

  /// The cores asked for, else all of this machine's (not a default in the help, which would show this one's).
  var threads: Int { requested ?? Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

  func validate() throws {
    guard (1...256).contains(threads) else { throw CLIError.usage("--threads is 1 to 256, not \(threads).") }
  }
}

/// Answers every row of `path` to standard output; failed rows become one summary sentence and the status 65.
func runBatch(path: String, query: BatchQuery, format: BatchFormat, threads: Int = 1) throws(CLIError) {
  let out = OutputBuffer.standardOutput()
  let summary = try formats { () throws(FormatError) in
    try BatchRows.run(
      path: path, query: query, format: format, output: out, showProgress: StandardError.isTerminal,
      threads: threads)
  }
  if summary.failedRows > 0 {
    throw .data(
      "\(summary.failedRows) of \(summary.rows) rows failed (the first on line \(summary.firstFailedLine)); "
        + "their \(format == .csv ? "error column" : "\"error\" member") says why.")
  }
}

extension NearestTarget {
  /// One neighbour as an aligned line for people.
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
