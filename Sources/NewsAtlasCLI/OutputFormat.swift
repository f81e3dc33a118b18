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
