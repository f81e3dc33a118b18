import ArgumentParser
import GeoFormats

/// How a command prints its answer.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
  /// Aligned lines for people.
  case text
  /// One JSON document.
  case json
  /// A GeoJSON FeatureCollection.
  case geojson
  /// Comma-separated values, one row per input line (batch mode).
  case csv
  /// One JSON object per input line (batch mode).
  case jsonl
}

/// `--format` of the commands that print only text or JSON, so that their help lists only those.
enum TextOrJSON: String, ExpressibleByArgument, CaseIterable {
  case text
  case json
}

/// `resolve`'s `--format`: text or json for one place, csv or jsonl with `--input` (it has no GeoJSON answer).
enum ResolveFormat: String, ExpressibleByArgument, CaseIterable {
  case text
  case json
  case csv
  case jsonl

  var output: OutputFormat {
    switch self {
    case .text: .text
    case .json: .json
    case .csv: .csv
    case .jsonl: .jsonl
    }
  }
}

/// A decimal number option (`48.85`, `-3`, `1e-3`), refusing what `Double(_:)` would also take: `nan`, `inf`,
/// hexadecimal (`0x1p3`) and values that overflow (`1e309`).
struct DecimalNumber: ExpressibleByArgument {
  let value: Double

  init?(argument: String) {
    guard let value = Coordinates.number(argument) else { return nil }
    self.value = value
  }

  init(_ value: Double) { self.value = value }

  var defaultValueDescription: String { Format.shortest(value) }
}
