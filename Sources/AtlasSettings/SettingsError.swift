/// Why the settings cannot be read or a value cannot be set, in one sentence.
///
/// A description may quote the settings file's text or a value given on the command line: print it through a
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
  public let description: String

  public init(kind: Kind, description: String) {
    self.kind = kind
    self.description = description
  }

  public static func usage(_ message: String) -> SettingsError {
    SettingsError(kind: .usage, description: message)
  }
  public static func configuration(_ message: String) -> SettingsError {
    SettingsError(kind: .configuration, description: message)
  }
  public static func cannotWrite(_ message: String) -> SettingsError {
    SettingsError(kind: .cannotWrite, description: message)
  }

  /// The same sentence as a configuration error found in `place` ("NEWSAPI_KEY", "line 2 of 'FILE'").
  public func found(in place: String) -> SettingsError {
    .configuration("In \(place), " + description.prefix(1).lowercased() + description.dropFirst())
  }
}
