import ArgumentParser
import AtlasAnswers
import AtlasMessages
import GeoFormats
import GeoIndex
import NewsAtlas

#if canImport(Glibc)
  import Glibc
#endif

struct NearestCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "nearest",
    abstract: Message.nearestAbstract(),
    usage: """
      newsatlas nearest LAT LON [--count <n>] [--max-km <km>] [--format <format>] [--points <file>]
      newsatlas nearest --input <file> [--format csv|jsonl] [--count <n>] [--points <file>] [--threads <n>]
      """,
    discussion: helpDiscussion(Message.nearestDiscussion())
  )

  // Collected unparsed so that negative numbers ("-33.87 151.21") are read as coordinates, not options.
  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp(
      Message.nearestPlaceHelp(),
      valueName: "lat lon"))
  var rawCoordinates: [String] = []

  /// The arguments typed, without a `--` separator if the user gave one.
  var rawArguments: [String] { rawCoordinates.filter { $0 != "--" } }
  /// The latitude and longitude texts, typed `LAT LON` or `LAT,LON`.
  var coordinates: [String] { Coordinates.placeFields(rawArguments) }

  @Option(
    parsing: .unconditional, help: ArgumentHelp(Message.nearestCountHelp(), valueName: "n"))
  var count: Int = 1

  @Option(
    name: .customLong("max-km"), parsing: .unconditional,
    help: ArgumentHelp(Message.nearestMaxKmHelp(), valueName: "km"))
  var maxKilometersOption: DecimalNumber?

  var maxKilometers: Double? { maxKilometersOption?.value }

  @Option(help: ArgumentHelp(Message.nearestFormatHelp()))
  var format: OutputFormat?

  @Option(
    help: ArgumentHelp(
      Message.nearestPointsHelp(),
      valueName: "file"))
  var points: String?

  @Option(
    help: ArgumentHelp(
      Message.nearestInputHelp(), valueName: "file"))
  var input: String?

  @OptionGroup var threads: ThreadsOption

  @OptionGroup var interface: InterfaceOptions

  func run() throws {
    guard count >= 1 else { throw CLIError.usage(Message.nearestCountRange(count)) }
    if let maxKilometers, !(maxKilometers >= 0) {
      throw CLIError.usage(Message.nearestMaxKmRange(maxKilometers))
    }
    if let option = rawArguments.first(where: { $0.hasPrefix("-") && !Coordinates.isPlaceArgument($0) }) {
      throw NewsAtlasCommand.unknownOption(option, of: Self.self, named: "nearest")
    }
    guard coordinates.count <= 2 else {
      throw CLIError.usage(Message.tooManyCoordinates(coordinates.count))
    }
    if input != nil && !coordinates.isEmpty {
      throw CLIError.usage(Message.eitherPlaceOrInput())
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
        throw CLIError.usage(Message.nearestCountWithCSV())
      }
      try runBatch(
        path: input, query: .nearest(target, count: count, maxKilometers: maxKilometers ?? .infinity),
        format: format, threads: threads.threads)
      return
    }
    guard let latitudeText = coordinates.first else {
      throw CLIError.usage(Message.placeMissing("nearest"))
    }
    guard coordinates.count == 2 else {
      throw CLIError.usage(Message.longitudeMissing(latitudeText))
    }
    let query = try formats { () throws(FormatError) in
      try Coordinates.point(latitude: latitudeText, longitude: coordinates[1])
    }
    let format = self.format ?? .text
    guard format == .text || format == .json || format == .geojson else {
      throw CLIError.usage(Message.nearestOnePlaceFormat())
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
          Message.nearestNothingWithin(Format.decimal(maxKilometers ?? 0, 1), latitudeText, coordinates[1])
            + "\n")
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
  case let other: throw .usage(Message.batchFormat(other.rawValue))
  }
}

/// `--threads N` for `--input`: cores for the rows, all of them by default.
struct ThreadsOption: ParsableArguments {
  @Option(
    name: .customLong("threads"), parsing: .unconditional,
    help: ArgumentHelp(
      Message.threadsHelp(), valueName: "n"))
  var requested: Int?

  /// The cores asked for, else all of this machine's (not a default in the help, which would show this one's).
  var threads: Int { requested ?? Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

  func validate() throws {
    guard (1...256).contains(threads) else { throw CLIError.usage(Message.threadsRange(threads)) }
  }
}

/// Answers every row of `path` to standard output; failed rows become one summary sentence and the status 65.
func runBatch(path: String, query: BatchQuery, format: BatchFormat, threads: Int = 1) throws(CLIError) {
  let out = OutputBuffer.standardOutput()
  let summary = try formats { () throws(FormatError) in
    try BatchRows.run(
      path: path, query: query, format: format, output: out, showProgress: StandardError.isTerminal,
      threads: threads, language: .current)
  }
  if summary.failedRows > 0 {
    throw .data(
      (summary.failedRows == 1
        ? (format == .csv ? Message.batchOneFailedRow : Message.batchOneFailedRowJSONL)
        : (format == .csv ? Message.batchFailedRows : Message.batchFailedRowsJSONL))(
          summary.failedRows, summary.rows, summary.firstFailedLine))
  }
}

extension NearestTarget {
  /// One neighbour as an aligned line for people.
  func textLine(_ neighbor: Neighbor, from query: GeoPoint) -> String {
    let location = location(neighbor)
    let distance = Format.decimal(neighbor.distanceKilometers, 1).leftPadding(to: 8) + " km"
    let bearing =
      Format.fixed(GreatCircle.initialBearingDegrees(from: query, to: location), 0)
      .leftPadding(to: 3) + "°"
    switch self {
    case .countries:
      let country = Country.all[neighbor.index]
      let name = InterfaceLanguage.current == .french ? country.nameFrench : country.name
      return "\(country.code)  \(name.padding(to: 20)) \(distance)  \(Message.nearestBearing()) \(bearing)\n"
    case .userPoints:
      var json = JSONWriter()
      json.value(properties(neighbor))
      let properties = String(decoding: json.bytes, as: UTF8.self)
      return
        "#\(featureIndex(neighbor))  \(distance)  \(Message.nearestBearing()) \(bearing)  \(properties)\n"
    }
  }
}
