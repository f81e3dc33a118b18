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
/// holds one, and the command line or the service words it (`text(in:)`). An argument that is itself a
/// `Sentence` (a reason inside a sentence) is said in the same language.
public struct Sentence: Sendable, Hashable, CustomStringConvertible {
  /// One argument: text said as it is, words of each language, or a sentence said in the reader's language.
  public indirect enum Argument: Sendable, Hashable {
    case text(String)
    case words(english: String, french: String)
    case sentence(Sentence)

    func text(in language: InterfaceLanguage) -> String {
      switch self {
      case .text(let text): text
      case .words(let english, let french): language == .french ? french : english
      case .sentence(let sentence): sentence.text(in: language)
      }
    }
  }

  /// The message, or nil for text that has no translation (a C library's own words, a service's reason).
  public let message: Message?
  public let arguments: [Argument]
  /// How the text's first letter is written: as the message has it, or made a capital or small letter.
  enum FirstLetter: Sendable, Hashable { case asWritten, capital, small }
  let firstLetter: FirstLetter

  public init(_ message: Message, _ arguments: any CustomStringConvertible...) {
    self.init(message, arguments: arguments)
  }

  /// A message with its arguments: each `Sentence` among them said in the reader's language, anything else as
  /// its description.
  public init(_ message: Message, arguments: [any CustomStringConvertible]) {
    self.message = message
    self.arguments = arguments.map { ($0 as? Sentence).map(Argument.sentence) ?? .text($0.description) }
    firstLetter = .asWritten
  }

  /// A message whose arguments are words of their own language (a country's name in each).
  public init(_ message: Message, english: [String], french: [String]) {
    self.message = message
    arguments = zip(english, french).map { Argument.words(english: $0, french: $1) }
    firstLetter = .asWritten
  }

  /// Text said as it is in every language (a C library's reason, a service's own words).
  public init(verbatim text: String) {
    message = nil
    arguments = [.text(text)]
    firstLetter = .asWritten
  }

  private init(message: Message?, arguments: [Argument], firstLetter: FirstLetter) {
    self.message = message
    self.arguments = arguments
    self.firstLetter = firstLetter
  }

  /// The same text with its first letter a capital, for a clause (`the latitude 91 is outside …`) that
  /// begins a sentence.
  public var capitalized: Sentence { Sentence(message: message, arguments: arguments, firstLetter: .capital) }

  /// The same text with its first letter small, for a sentence that goes on another (`In NEWSAPI_KEY, the …`).
  public var lowercased: Sentence { Sentence(message: message, arguments: arguments, firstLetter: .small) }

  public func text(in language: InterfaceLanguage) -> String {
    let texts = arguments.map { $0.text(in: language) }
    let text = message?.text(texts, in: language) ?? texts.joined()
    switch firstLetter {
    case .asWritten: return text
    case .capital: return text.prefix(1).uppercased() + text.dropFirst()
    case .small: return text.prefix(1).lowercased() + text.dropFirst()
    }
  }

  /// English: for logs and for tests that read the sentence as the library words it.
  public var description: String { text(in: .english) }
}
