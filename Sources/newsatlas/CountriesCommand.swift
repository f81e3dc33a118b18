import ArgumentParser
import GeoIndex
import NewsAtlas

struct CountriesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "countries",
    abstract: "List the 54 news countries, or those matching a code or an English or French name."
  )

  @Argument(help: "A code or the start of a name, any case, accents optional (\"egypte\" finds Égypte).")
  var query: String?

  @Option(help: "Output format: text or json.")
  var format: OutputFormat = .text

  func run() throws {
    guard format == .text || format == .json else {
      throw CLIError.usage("The countries command prints text or json, not \(format.rawValue).")
    }
    let countries = Country.search(query ?? "")
    let out = OutputBuffer()
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
      throw CLIError.data(
        "No news country matches '\(query ?? "")'; try a code such as fr or a name such as Égypte.")
    }
    let width = countries.map(\.name.count).max() ?? 0
    for country in countries {
      let name = country.name.padding(to: width)
      out.append(
        "\(country.code)  \(name)  \(country.nameFrench.padding(to: 22))  "
          + "\(Format.fixed(country.marker.latitude, 4).leftPadding(to: 9)) "
          + "\(Format.fixed(country.marker.longitude, 4).leftPadding(to: 9))  \(country.language)\n")
    }
  }
}

extension Country {
  /// The JSON members every command uses for a country.
  func write(to object: inout JSONWriter.ObjectWriter) {
    object.string("code", code)
    object.string("name", name)
    object.string("nameFr", nameFrench)
    object.number("latitude", marker.latitude)
    object.number("longitude", marker.longitude)
    object.string("language", language)
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
}

extension String {
  func padding(to width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
  func leftPadding(to width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}
