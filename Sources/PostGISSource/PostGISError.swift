import AtlasMessages

/// Why a PostGIS table could not be served, as one sentence; no sentence holds a password.
public enum PostGISError: Error, Sendable, Equatable {
  /// The command line is wrong: a URL, a table or a column name that cannot be, or names nothing there.
  case usage(Sentence)
  /// The database could not be reached, refused the connection or the query.
  case unavailable(Sentence)

  public var sentence: Sentence {
    switch self {
    case .usage(let sentence), .unavailable(let sentence): sentence
    }
  }
}

/// Text from the command line or a server, for a sentence: at most 64 characters, controls as U+FFFD.
func shown(_ text: String) -> String {
  String(
    String.UnicodeScalarView(
      text.unicodeScalars.prefix(64).map {
        $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "\u{FFFD}" : $0
      }))
}
