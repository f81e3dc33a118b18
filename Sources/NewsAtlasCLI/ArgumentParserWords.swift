import AtlasMessages

/// swift-argument-parser's own words (its parse errors, its help's headings and its `--help` and `--version`
/// lines) in the interface's language. ArgumentParser writes them in English and keeps their kinds internal,
/// so each is matched by the catalogue's English template, which is ArgumentParser's sentence as it writes it
/// (`Missing expected argument '{1}'`), and said again by the same message in the reader's language. A sentence
/// that matches none stays as ArgumentParser wrote it; `FrenchInterfaceTests` makes each kind happen and checks
/// its French, so a reworded sentence in a new ArgumentParser fails a test rather than going English unseen.
enum ArgumentParserWords {
  /// Parse errors, the most specific first (a suggestion's sentence also starts as the bare one).
  static let errors: [Message] = [
    .parserUnknownOptionSuggested, .parserUnknownOption, .parserMissingArgument, .parserMissingOneOf,
    .parserMissingValue, .parserTakesNoValue, .parserUnexpectedArgument, .parserUnexpectedArguments,
    .parserSetTwice, .parserInvalidValueFor, .parserInvalidValue, .parserMissingSubcommand,
  ]

  /// Headings, which begin a line of the help.
  static let headings: [Message] = [
    .helpOverviewHeading, .helpUsageHeading, .helpArgumentsHeading, .helpOptionsHeading,
    .helpSubcommandsHeading,
  ]

  /// Words anywhere in the help.
  static let phrases: [Message] = [
    .helpDefault, .helpDefaultAfterValues, .helpValues, .helpSubcommandHelpLine, .helpShowHelpLine,
    .helpShowVersion, .helpSeeSubcommand,
  ]

  /// ArgumentParser's error sentence (its first line) in `language`.
  static func error(_ text: String, in language: InterfaceLanguage) -> String {
    guard language != .english else { return text }
    for message in errors {
      guard var parts = match(text, message.texts.en, userText: userText(of: message)) else { continue }
      switch message {
      case .parserSetTwice:  // "flag '-x'" or "position 2": the first said in the reader's language
        parts = parts.map { part in
          match(part, Message.parserFlag.texts.en).map { Message.parserFlag.text($0, in: language) } ?? part
        }
      case .parserInvalidValueFor, .parserInvalidValue:  // ". Please provide one of 'a', 'b' or 'c'."
        let last = parts[parts.count - 1]
        if let values = match(last, Message.parserProvideOneOf.texts.en) {
          parts[parts.count - 1] = Message.parserProvideOneOf.text(
            [orList(values[0], in: language)], in: language)
        } else if last == Message.parserProvideOneOfList.texts.en {
          parts[parts.count - 1] = Message.parserProvideOneOfList.text(in: language)
        }
      default: break
      }
      return message.text(parts, in: language)
    }
    return text
  }

  /// ArgumentParser's help (or `--version`'s line) with its own words in `language`: the headings that begin
  /// a line, `(default: …)`, `(values: …)` and the help and version lines. The commands' own text is the
  /// catalogue's already.
  ///
  /// ArgumentParser wraps at spaces only, so a phrase with a space may end one line and begin the next
  /// (`(values: text, json;` then `default: text)`): each half is said in `language` where it stands. And French
  /// puts a space before `;` and `:`, where ArgumentParser may break: a line it begins with one (`; 75 réessayer`)
  /// gives it back to the line before, and an option group's title ends with ` :`.
  ///
  /// French words are longer than ArgumentParser's (`(par défaut : 20)` for `(default: 20)`, `UTILISATION :`
  /// for `USAGE:`), so a line it wrapped to `columns` may no longer fit; and it never wraps a usage line, in
  /// any language. Such lines are wrapped again (`fitted`), English help's usage too.
  static func help(_ text: String, in language: InterfaceLanguage, columns: Int = 80) -> String {
    let usage = Message.helpUsageHeading.text(in: language) + " "
    guard language != .english else {
      return fitted(
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
        columns: columns, usageHeading: usage
      ).joined(separator: "\n")
    }
    var lines: [String] = []
    var inUsage = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var line = String(line)
      for heading in headings where line.hasPrefix(heading.texts.en) {
        line = heading.text(in: language) + line.dropFirst(heading.texts.en.count)
      }
      // A usage's other forms, under its first: at the column of the first, after the heading said here.
      inUsage = line.hasPrefix(usage) || (inUsage && !line.isEmpty)
      let englishColumn = Message.helpUsageHeading.texts.en.count + 1
      if inUsage, !line.hasPrefix(usage), line.prefix(englishColumn).allSatisfy({ $0 == " " }) {
        line = String(repeating: " ", count: usage.count) + line.dropFirst(englishColumn)
      }
      if let last = lines.last, let (before, after) = brokenPhrase(last, line, in: language) {
        lines[lines.count - 1] = before
        line = after
      }
      for phrase in phrases where line.contains(phrase.texts.en) {
        line = line.replacingAll(phrase.texts.en, with: phrase.text(in: language))
      }
      // An option group's title, which ArgumentParser writes in capitals followed by its own ':'.
      if line.first != " ", line.hasSuffix(":"), !line.hasSuffix(" :"), line == line.uppercased() {
        line = line.dropLast() + " :"
      }
      let indent = line.prefix { $0 == " " }
      let rest = line.dropFirst(indent.count)
      if let mark = rest.first, mark == ";" || mark == ":", rest.dropFirst().first ?? " " == " ",
        let last = lines.last, !last.isEmpty
      {
        lines[lines.count - 1] = last + " " + String(mark)
        line = String(indent) + rest.dropFirst().drop { $0 == " " }
      }
      lines.append(line)
    }
    return fitted(lines, columns: columns, usageHeading: usage).joined(separator: "\n")
  }

  /// The column where ArgumentParser writes an option's or an argument's help, after its label (and where the
  /// help's next lines begin).
  static let helpColumn = 26

  /// `lines` of help with each longer than `columns` wrapped again as ArgumentParser wraps a paragraph: at the
  /// last space that lets it fit (never before a mark French spaces off, `;`), the words after it beginning
  /// the paragraph's next line, which is then wrapped in turn, or a line of their own when the paragraph has
  /// none. An option's help goes on at `helpColumn`, a usage (the lines from `usageHeading` to a blank one) two
  /// columns right of its forms, each line of its own, any other paragraph at its own indentation. A line with
  /// no such space (one long word) stays as it is.
  static func fitted(_ lines: [String], columns: Int, usageHeading: String) -> [String] {
    var lines = lines
    var index = 0
    var inUsage = false
    while index < lines.count {
      let line = Array(lines[index])
      inUsage = lines[index].hasPrefix(usageHeading) || (inUsage && !line.isEmpty)
      let lead = line.prefix { $0 == " " }.count
      // An option's first line: its label at 2, its help at the help column after at least one space.
      let isOption =
        lead == 2 && line.count > helpColumn && line[helpColumn - 1] == " " && line[helpColumn] != " "
      let indent = inUsage ? usageHeading.count + 2 : isOption ? helpColumn : lead
      // A usage breaks between its options, not inside one (`[--format <format>]`), where it can.
      var depth = 0
      let outside = line.map { character in
        if character == "[" || character == "<" { depth += 1 }
        if character == "]" || character == ">" { depth -= 1 }
        return depth == 0
      }
      let start = max(indent, lead) + 1
      func breaks(_ i: Int) -> Bool {
        line[i] == " " && line[i - 1] != " " && i + 1 < line.count && !";:!?»".contains(line[i + 1])
      }
      guard line.count > columns, start < columns,
        let space = (start...columns).last(where: { breaks($0) && (!inUsage || outside[$0]) })
          ?? (start...columns).last(where: breaks)
      else {
        index += 1
        continue
      }
      let head = String(line[..<space])
      let tail = String(line[(space + 1)...].drop { $0 == " " })
      let margin = String(repeating: " ", count: indent)
      let next = index + 1 < lines.count ? lines[index + 1] : ""
      if !inUsage, next.count > indent, next.hasPrefix(margin), next.dropFirst(indent).first != " " {
        lines[index + 1] = margin + tail + " " + next.dropFirst(indent)
      } else {
        lines.insert(margin + tail, at: index + 1)
      }
      lines[index] = head
      index += 1
    }
    return lines
  }

  /// Two lines of help with a phrase broken at its one space (`…, json;` and `   default: text)`), each half
  /// said in `language` (`…, json ;` and `   par défaut : text)`); nil when no phrase is broken there.
  static func brokenPhrase(_ first: String, _ second: String, in language: InterfaceLanguage)
    -> (String, String)?
  {
    let indent = second.prefix { $0 == " " }
    for phrase in phrases {
      let english = phrase.texts.en.split(separator: " ")
      let said = phrase.text(in: language).drop { $0 == " " }
      guard english.count == 2, let space = said.firstIndex(of: " "),
        first.hasSuffix(english[0]), second.dropFirst(indent.count).hasPrefix(english[1] + " ")
      else { continue }
      let lead = phrase.text(in: language).prefix { $0 == " " }
      return (
        String(first.dropLast(english[0].count) + lead + said[..<space]),
        String(indent + said[said.index(after: space)...] + second.dropFirst(indent.count + english[1].count))
      )
    }
    return nil
  }

  /// `'a', 'b' or 'c'` (ArgumentParser's list of values; `'a' and 'b'` for two) in `language`.
  static func orList(_ list: String, in language: InterfaceLanguage) -> String {
    for separator in [" or ", " and "] {
      guard let range = list.lastRange(of: separator) else { continue }
      let (head, last) = (String(list[..<range.lowerBound]), String(list[range.upperBound...]))
      return Message.listOr(head, last, in: language)
    }
    return list
  }

  /// The placeholder that holds what the user typed (a value, an option), when one before the last does: it
  /// may contain the template's own words (`--lang "x' is invalid for 'y"`), so it ends at the last place its
  /// following words occur rather than the first. ArgumentParser's own words after it (an option's name, its
  /// list of values) never contain them.
  static func userText(of message: Message) -> Int? {
    switch message {
    case .parserInvalidValueFor, .parserInvalidValue, .parserUnknownOptionSuggested: 1
    default: nil
    }
  }

  /// The texts that `template`'s placeholders (`{1}` … in order, each once) stand for in `text`, or nil when
  /// `text` is not the template's sentence. A placeholder takes the shortest text up to the literal after it,
  /// but for placeholder `userText`, which takes the longest; the last literal must end the text.
  static func match(_ text: String, _ template: String, userText: Int? = nil) -> [String]? {
    var literals: [Substring] = []
    var rest = template[...]
    while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
      literals.append(rest[..<open])
      rest = rest[rest.index(after: close)...]
    }
    literals.append(rest)
    guard text.hasPrefix(literals[0]) else { return nil }
    var position = text.index(text.startIndex, offsetBy: literals[0].count)
    var parts: [String] = []
    for (i, literal) in literals.enumerated().dropFirst() {
      if i == literals.count - 1 {
        guard text[position...].hasSuffix(literal), text[position...].count >= literal.count else {
          return nil
        }
        parts.append(String(text[position...].dropLast(literal.count)))
        return parts
      }
      let rest = text[position...]
      guard !literal.isEmpty,
        let found = i == userText ? rest.lastRange(of: String(literal)) : rest.firstRange(of: literal)
      else { return nil }
      parts.append(String(text[position..<found.lowerBound]))
      position = found.upperBound
    }
    return literals.count == 1 && text == template ? [] : nil
  }
}

extension String {
  /// Every occurrence of `target` replaced by `replacement` (Foundation's, without Foundation).
  fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
    var result = ""
    var rest = self[...]
    while let range = rest.firstRange(of: target) {
      result += rest[..<range.lowerBound] + replacement
      rest = rest[range.upperBound...]
    }
    return result + rest
  }

}

extension StringProtocol {
  /// The last place `target` occurs, or nil.
  fileprivate func lastRange(of target: String) -> Range<Index>? {
    var found: Range<Index>?
    var rest = self[...]
    while let range = rest.firstRange(of: target) {
      found = range
      rest = rest[range.upperBound...]
    }
    return found
  }
}
