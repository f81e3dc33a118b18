import Synchronization

/// The language of what NewsAtlas says to people: messages, help, table headings, dates and error sentences
/// (JSON keys and values are the same in every language).
public enum InterfaceLanguage: String, Sendable, CaseIterable {
  case english = "en"
  case french = "fr"

  /// The language a reader's locale asks for: `LC_ALL`, else `LC_MESSAGES`, else `LANG` (POSIX's order), French
  /// when the first one set starts with `fr`, English otherwise.
  public static func fromLocale(_ environment: [String: String]) -> InterfaceLanguage {
    for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
      guard let value = environment[name], !value.isEmpty else { continue }
      return value.lowercased().hasPrefix("fr") ? .french : .english
    }
    return .english
  }

  /// The language a command line asks for, read before it is parsed (help is written in it): `--lang xx`
  /// (or `--lang=xx`, before any `--`), else the `interface-language` setting, else the locale. `setting` is
  /// asked for only when `--lang` does not decide (reading it means reading the settings file).
  public static func chosen(
    arguments: [String], setting: @autoclosure () -> String?, environment: [String: String]
  ) -> InterfaceLanguage {
    if let language = given(arguments: arguments) { return language }
    return setting().flatMap(InterfaceLanguage.init(rawValue:)) ?? fromLocale(environment)
  }

  /// The language `--lang xx` (or `--lang=xx`, before any `--`) asks for on a command line, the last one given;
  /// nil when none is, or it names no language.
  public static func given(arguments: [String]) -> InterfaceLanguage? {
    lastValue(of: "--lang", in: arguments).flatMap(InterfaceLanguage.init(rawValue:))
  }

  /// The value the last `NAME X` (or `NAME=X`) before any `--` gives on a command line, nil when none does:
  /// for the options a front end reads before parsing (`--lang`, the CLI's `--color`).
  public static func lastValue(of name: String, in arguments: [String]) -> String? {
    var given: String?
    var rest = arguments[...]
    while let argument = rest.popFirst(), argument != "--" {
      if argument == name {
        given = rest.popFirst()
      } else if argument.hasPrefix(name + "=") {
        given = String(argument.dropFirst(name.count + 1))
      }
    }
    return given
  }

  /// The locale variable that decides `fromLocale`: the first of `LC_ALL`, `LC_MESSAGES` and `LANG` set.
  public static func localeVariable(_ environment: [String: String]) -> String? {
    ["LC_ALL", "LC_MESSAGES", "LANG"].first { !(environment[$0] ?? "").isEmpty }
  }

  /// The language of a web request: `lang=xx` in its query, else the first of `Accept-Language`'s languages
  /// (by weight) that is English or French; English otherwise.
  public static func requested(query lang: String?, acceptLanguage: String?) -> InterfaceLanguage {
    if let lang, let language = InterfaceLanguage(rawValue: lang.lowercased()) { return language }
    guard let acceptLanguage else { return .english }
    var best: (language: InterfaceLanguage, weight: Double)?
    for item in acceptLanguage.split(separator: ",").prefix(32) {
      let parts = item.split(separator: ";")
      guard let tag = parts.first?.trimmingWhiteSpace.lowercased() else { continue }
      let primary = tag.split(separator: "-").first.map(String.init) ?? tag
      guard let language = InterfaceLanguage(rawValue: primary) else { continue }
      var weight = 1.0
      for parameter in parts.dropFirst() {
        let pair = parameter.trimmingWhiteSpace
        if pair.hasPrefix("q="), let value = Double(pair.dropFirst(2)), value >= 0, value <= 1 {
          weight = value
        }
      }
      if weight > 0, weight > (best?.weight ?? 0) { best = (language, weight) }
    }
    return best?.language ?? .english
  }

  /// The process's language, for a command-line run: set once at launch from `chosen(…)`. The service never
  /// reads it; each of its answers is in the language its request asks for.
  public static var current: InterfaceLanguage {
    get { processLanguage.withLock { $0 } }
    set { processLanguage.withLock { $0 = newValue } }
  }
}

private let processLanguage = Mutex<InterfaceLanguage>(.english)

extension Substring {
  fileprivate var trimmingWhiteSpace: String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}
