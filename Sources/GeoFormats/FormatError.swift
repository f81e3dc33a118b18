import AtlasMessages

/// Why input could not be read: one sentence naming the bad value or place and what is accepted, worded from
/// the catalogue (`AtlasMessages`) in the reader's language (`text(in:)`); `description` is its English.
public struct FormatError: Error, CustomStringConvertible, Equatable {
  /// What went wrong, for a front end to choose its status (sysexits: 64, 65, 66).
  public enum Kind: Sendable, Equatable {
    /// A value given as a parameter (a coordinate, a box, a tile address) is malformed.
    case argument
    /// The content of a file or stream is malformed.
    case data
    /// The file cannot be opened or read at all.
    case input
  }

  public let kind: Kind
  /// The sentence, to be said in the reader's language.
  public let sentence: Sentence

  public init(_ kind: Kind, _ sentence: Sentence) {
    self.kind = kind
    self.sentence = sentence
  }

  /// Text said as it is in every language, for what has no catalogue entry (a test's expected sentence).
  public init(_ kind: Kind, _ text: String) {
    self.init(kind, Sentence(verbatim: text))
  }

  /// Errors are the same when their kinds and their English are.
  public static func == (a: FormatError, b: FormatError) -> Bool {
    a.kind == b.kind && a.description == b.description
  }

  /// The sentence in `language`.
  public func text(in language: InterfaceLanguage) -> String { sentence.text(in: language) }

  /// The sentence in English.
  public var description: String { sentence.description }

  public static func argument(_ message: Message, _ arguments: any CustomStringConvertible...) -> FormatError
  {
    FormatError(.argument, Sentence(message, arguments: arguments))
  }
  public static func data(_ message: Message, _ arguments: any CustomStringConvertible...) -> FormatError {
    FormatError(.data, Sentence(message, arguments: arguments))
  }
  public static func input(_ message: Message, _ arguments: any CustomStringConvertible...) -> FormatError {
    FormatError(.input, Sentence(message, arguments: arguments))
  }
}
