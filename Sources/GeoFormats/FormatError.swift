/// Why input could not be read: one sentence naming the bad value or place and what is accepted.
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
  public let description: String

  public init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }

  public static func argument(_ message: String) -> FormatError { FormatError(.argument, message) }
  public static func data(_ message: String) -> FormatError { FormatError(.data, message) }
  public static func input(_ message: String) -> FormatError { FormatError(.input, message) }
}
