/// What NewsAtlas says to people, in every interface language, from one catalogue
/// (`Message+Catalogue.swift`): the command line's help, messages, headings and error sentences, and the
/// service's error sentences. `{1}`, `{2}` … in a text stand for its arguments, in order.
extension Message {
  /// The text in `language`, its arguments in place; an argument's own text is never read for placeholders.
  public func text(_ arguments: [String] = [], in language: InterfaceLanguage) -> String {
    let template = language == .french ? texts.fr : texts.en
    var result = ""
    var rest = template[...]
    while let open = rest.firstIndex(of: "{") {
      result += rest[..<open]
      let after = rest[rest.index(after: open)...]
      guard let close = after.firstIndex(of: "}"), let number = Int(after[..<close]), number >= 1,
        number <= arguments.count
      else {
        result.append("{")
        rest = after
        continue
      }
      result += arguments[number - 1]
      rest = after[after.index(after: close)...]
    }
    return result + rest
  }

  /// The text in the process's language (`InterfaceLanguage.current`): for the command line.
  public func callAsFunction(_ arguments: any CustomStringConvertible...) -> String {
    text(arguments.map(\.description), in: .current)
  }

  /// The text in `language`, its arguments in place.
  public func callAsFunction(_ arguments: any CustomStringConvertible..., in language: InterfaceLanguage)
    -> String
  {
    text(arguments.map(\.description), in: language)
  }

  /// The placeholders a template uses, `{1}` … as numbers.
  public static func placeholders(_ template: String) -> Set<Int> {
    var found: Set<Int> = []
    var rest = template[...]
    while let open = rest.firstIndex(of: "{") {
      let after = rest[rest.index(after: open)...]
      if let close = after.firstIndex(of: "}"), let number = Int(after[..<close]) { found.insert(number) }
      rest = after
    }
    return found
  }
}

/// A message with its arguments, said later in the language of whoever reads it: an error a library throws
/// holds one, and the command line or the service words it (`text(in:)`).
public struct Sentence: Sendable, Hashable, CustomStringConvertible {
  /// The message, or nil for text that has no translation yet (a lower layer's English sentence).
  public let message: Message?
  public let arguments: [String]
  /// The arguments said in French, when they differ (a country's French name).
  public let frenchArguments: [String]?

  public init(_ message: Message, _ arguments: any CustomStringConvertible...) {
    self.message = message
    self.arguments = arguments.map(\.description)
    frenchArguments = nil
  }

  /// A message whose arguments are words of their own language (a country's name in each).
  public init(_ message: Message, english: [String], french: [String]) {
    self.message = message
    arguments = english
    frenchArguments = french
  }

  /// Text said as it is in every language (a lower layer's sentence, a service's own words).
  public init(verbatim text: String) {
    message = nil
    arguments = [text]
    frenchArguments = nil
  }

  public func text(in language: InterfaceLanguage) -> String {
    message?.text(language == .french ? frenchArguments ?? arguments : arguments, in: language)
      ?? arguments.joined()
  }

  /// English: for logs and for tests that read the sentence as the library words it.
  public var description: String { text(in: .english) }
}
