import ArgumentParser
import AtlasAnswers
import AtlasMessages
import AtlasSettings
import Fetch
import GeoFormats
import GeoIndex
import NewsAPI
import NewsAtlas

struct ResolveCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "resolve",
    abstract: Message.resolveAbstract(),
    usage: """
      newsatlas resolve LAT LON [--format text|json] [--news-countries newsapi|world]
      newsatlas resolve --input <file> [--format csv|jsonl] [--threads <n>] [--news-countries newsapi|world]
      """,
    discussion: helpDiscussion(Message.resolveDiscussion())
  )

  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp(Message.resolvePlaceHelp(), valueName: "lat lon"))
  var rawCoordinates: [String] = []

  @Option(help: ArgumentHelp(Message.resolveFormatHelp()))
  var format: ResolveFormat?

  @Option(
    help: ArgumentHelp(
      Message.resolveInputHelp(), valueName: "file"))
  var input: String?

  @OptionGroup var threads: ThreadsOption

  @OptionGroup var newsCountries: NewsCountriesOption

  @OptionGroup var interface: InterfaceOptions

  func run() throws {
    let arguments = rawCoordinates.filter { $0 != "--" }
    if let option = arguments.first(where: { $0.hasPrefix("-") && !Coordinates.isPlaceArgument($0) }) {
      throw NewsAtlasCommand.unknownOption(option, of: Self.self, named: "resolve")
    }
    let coordinates = Coordinates.placeFields(arguments)
    if let input {
      guard coordinates.isEmpty else {
        throw CLIError.usage(Message.eitherPlaceOrInput())
      }
      try runBatch(
        path: input, query: .resolve(try newsCountries.set()), format: try batchFormat(format?.output),
        threads: threads.threads)
      return
    }
    guard coordinates.count == 2 else {
      throw CLIError.usage(
        coordinates.isEmpty
          ? Message.placeMissing("resolve")
          : coordinates.count == 1
            ? Message.longitudeMissing(coordinates[0])
            : Message.tooManyCoordinates(coordinates.count))
    }
    let point = try formats { () throws(FormatError) in
      try Coordinates.point(latitude: coordinates[0], longitude: coordinates[1])
    }
    let format = self.format ?? .text
    guard format == .text || format == .json else {
      throw CLIError.usage(Message.resolveOnePlaceFormat())
    }
    let resolution = Country.resolve(point, in: try newsCountries.set())
    let out = OutputBuffer.standardOutput()
    if format == .json {
      var json = JSONWriter()
      json.object { resolution.write(to: &$0) }
      out.append(json.bytes)
      out.append("\n")
      return
    }
    let french = InterfaceLanguage.current == .french
    let method: String
    switch resolution.method {
    case .inside: method = Message.resolveInside()
    case .territorialSea: method = Message.resolveSea()
    case .nearest: method = Message.resolveNearest()
    }
    var line =
      "\(resolution.country.code)  \(french ? resolution.country.nameFrench : resolution.country.name)  (\(method)"
    if let containing = resolution.containing, resolution.method == .nearest {
      line += Message.resolveSeparator() + Message.resolveIn(french ? containing.nameFrench : containing.name)
    }
    line += ", " + Message.resolveMarkerAway(Format.decimal(resolution.distanceKilometers, 1)) + ")\n"
    out.append(line)
  }
}

/// `--news-countries newsapi|world`: the countries a place resolves among (`NewsCountrySet`).
struct NewsCountriesOption: ParsableArguments {
  @Option(
    name: .customLong("news-countries"),
    help: ArgumentHelp(Message.newsCountriesHelp(), valueName: "newsapi|world"))
  var given: String?

  /// The set given, else the provider setting's: every country unless it is newsapi (`ProviderChoice.
  /// newsCountries`), so that a place resolves to a country whose news the provider has.
  func set() throws(CLIError) -> NewsCountrySet {
    if let set = try self.named() { return set }
    do {
      return try LaunchSettings.load().provider(given: nil).newsCountries
    } catch {
      throw CLIError(error)
    }
  }

  /// The set given, if any.
  func named() throws(CLIError) -> NewsCountrySet? {
    guard let given else { return nil }
    guard let set = NewsCountrySet(rawValue: given.lowercased()) else {
      throw .usage(Message.newsCountriesValue(printable(String(given.prefix(64)))))
    }
    return set
  }
}
