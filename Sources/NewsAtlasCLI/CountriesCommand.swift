import ArgumentParser
import AtlasAnswers
import AtlasMessages
import GeoFormats
import GeoIndex
import NewsAtlas

struct CountriesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "countries",
    abstract: Message.countriesAbstract(),
    discussion: helpDiscussion()
  )

  @Argument(help: ArgumentHelp(Message.countriesQueryHelp()))
  var query: String?

  @Option(help: ArgumentHelp(Message.formatTextOrJSON()))
  var format: TextOrJSON = .text

  @OptionGroup var newsCountries: NewsCountriesOption

  @OptionGroup var interface: InterfaceOptions

  func run() throws {
    // The 54 markers of the map unless every country is asked for (GDELT's and the feeds' news countries).
    let countries = Country.search(query ?? "", in: try newsCountries.named() ?? .newsAPI)
    let out = OutputBuffer.standardOutput()
    if format == .json {
      var json = JSONWriter()
      json.object { object in
        object.array("countries", countries) { json, country in json.object { country.write(to: &$0) } }
      }
      out.append(json.bytes)
      out.append("\n")
      return
    }
    if countries.isEmpty {
      throw CLIError.data(Message.countriesNoMatch(query ?? ""))
    }
    var table = Columns(titles: Message.countriesColumns(), rightAligned: [3, 4])
    for country in countries {
      table.append([
        country.code, country.name, country.nameFrench, Format.decimal(country.marker.latitude, 4),
        Format.decimal(country.marker.longitude, 4), country.language,
      ])
    }
    out.append(table.text)
  }
}

/// Number formatting for people.
enum Format {
  /// `value` with exactly `decimals` digits after the point.
  static func fixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e15 else { return value.description }
    let whole = Int64(scaled)
    let integerPart = whole / Int64(scale)
    var fraction = String(whole % Int64(scale))
    while fraction.count < decimals { fraction = "0" + fraction }
    let sign = value < 0 && whole != 0 ? "-" : ""
    return decimals == 0 ? "\(sign)\(integerPart)" : "\(sign)\(integerPart).\(fraction)"
  }

  /// `value` with exactly `decimals` digits after the decimal mark of the interface's language (a comma in
  /// French): for text people read, never for CSV, JSON or anything a program reads back.
  static func decimal(_ value: Double, _ decimals: Int) -> String {
    let text = fixed(value, decimals)
    return InterfaceLanguage.current == .french ? String(text.map { $0 == "." ? "," : $0 }) : text
  }

  /// The shortest text that reads back as `value`, without ".0" for whole numbers.
  static func shortest(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : value.description
  }
}

extension String {
  func padding(to width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
  func leftPadding(to width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}
