import ArgumentParser

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
