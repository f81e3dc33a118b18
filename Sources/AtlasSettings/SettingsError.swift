import AtlasMessages

/// Why the settings cannot be read or a value cannot be set, in one sentence, worded from the catalogue in the
/// reader's language (`text(in:)`); `description` is its English.
///
/// A sentence may quote the settings file's text or a value given on the command line: print it through a
/// filter of control characters (the CLI does).
public struct SettingsError: Error, CustomStringConvertible, Sendable {
  public enum Kind: Sendable {
    /// A value given on the command line (`config set`, a flag) is wrong.
    case usage
    /// The settings file or the environment holds something wrong (found when it is used).
    case configuration
    /// The settings file could not be written.
    case cannotWrite
  }
  public let kind: Kind
  public let sentence: Sentence

  public init(kind: Kind, sentence: Sentence) {
    self.kind = kind
    self.sentence = sentence
  }

  /// The sentence in `language`.
  public func text(in language: InterfaceLanguage) -> String { sentence.text(in: language) }

  /// The sentence in English.
  public var description: String { sentence.description }

  public static func usage(_ message: Message, _ arguments: any CustomStringConvertible...) -> SettingsError {
    SettingsError(kind: .usage, sentence: Sentence(message, arguments: arguments))
  }
  public static func configuration(_ message: Message, _ arguments: any CustomStringConvertible...)
    -> SettingsError
  {
    SettingsError(kind: .configuration, sentence: Sentence(message, arguments: arguments))
  }
  public static func cannotWrite(_ message: Message, _ arguments: any CustomStringConvertible...)
    -> SettingsError
  {
    SettingsError(kind: .cannotWrite, sentence: Sentence(message, arguments: arguments))
  }

  /// The same sentence as a configuration error found in `place` ("NEWSAPI_KEY", the line of a file).
  public func found(in place: any CustomStringConvertible) -> SettingsError {
    .configuration(.settingsFoundIn, place, sentence.lowercased)
  }
}
