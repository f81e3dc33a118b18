import ArgumentParser
import AtlasAnswers
import GeoFormats
import GeoIndex
import NewsAtlas

struct ResolveCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "resolve",
    abstract: "Resolve a place to a news country: the one it is in, else the nearest.",
    usage: """
      newsatlas resolve LAT LON [--format text|json]
      newsatlas resolve --input <file> [--format csv|jsonl] [--threads <n>]
      """,
    discussion: """
      A place inside one of the 54 countries' borders, or within 12 nautical miles of their coasts, resolves to \
      that country, even when another country's marker is nearer; anywhere else resolves to the nearest marker \
      by great-circle distance. Borders: Natural Earth 1:10m admin-0 (public domain), compiled in. \
      --input FILE (or -) resolves one latitude,longitude per line, as nearest does.
      """
  )

  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp("Latitude and longitude in degrees: LAT LON or LAT,LON.", valueName: "lat lon"))
  var rawCoordinates: [String] = []

  @Option(help: "Output format: text or json for one place; csv or jsonl with --input.")
  var format: ResolveFormat?

  @Option(
    help: ArgumentHelp(
      "Resolve every latitude,longitude line of this file (- for standard input).", valueName: "file"))
  var input: String?

  @OptionGroup var threads: ThreadsOption

  func run() throws {
    let arguments = rawCoordinates.filter { $0 != "--" }
    if let option = arguments.first(where: { $0.hasPrefix("-") && !Coordinates.isPlaceArgument($0) }) {
      throw CLIError.usage("Unknown option '\(option)'; 'newsatlas resolve --help' lists the options.")
    }
    let coordinates = Coordinates.placeFields(arguments)
    if let input {
      guard coordinates.isEmpty else {
        throw CLIError.usage("Give either LAT LON or --input FILE, not both.")
      }
      try runBatch(
        path: input, query: .resolve, format: try batchFormat(format?.output), threads: threads.threads)
      return
    }
    guard coordinates.count == 2 else {
      throw CLIError.usage(
        coordinates.isEmpty
          ? "Give a latitude and a longitude (for example: resolve 48.58 7.75), or --input FILE."
          : coordinates.count == 1
            ? "Give the longitude after the latitude \(coordinates[0])."
            : "Give one latitude and one longitude, not \(coordinates.count) values.")
    }
    let point = try formats { () throws(FormatError) in
      try Coordinates.point(latitude: coordinates[0], longitude: coordinates[1])
    }
    let format = self.format ?? .text
    guard format == .text || format == .json else {
      throw CLIError.usage("For one place the format is text or json; csv and jsonl go with --input.")
    }
    let resolution = Country.resolve(point)
    let out = OutputBuffer.standardOutput()
    if format == .json {
      var json = JSONWriter()
      json.object { resolution.write(to: &$0) }
      out.append(json.bytes)
      out.append("\n")
      return
    }
    var line = "\(resolution.country.code)  \(resolution.country.name)  (\(resolution.method.rawValue)"
    if let containing = resolution.containing, resolution.method == .nearest {
      line += "; in \(containing.name)"
    }
    line += ", marker \(Format.fixed(resolution.distanceKilometers, 1)) km away)\n"
    out.append(line)
  }
}
