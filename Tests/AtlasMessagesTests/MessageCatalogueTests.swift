import Foundation
import Testing

@testable import AtlasMessages

/// The catalogue is complete: every message has an English and a French text, with the same placeholders, and
/// the French is a translation, not a copy.
@Suite struct MessageCatalogueTests {
  @Test(arguments: Message.allCases)
  func bothLanguagesWithTheSamePlaceholders(message: Message) {
    let (english, french) = message.texts
    #expect(!english.isEmpty && !french.isEmpty, "\(message)")
    #expect(
      Message.placeholders(english) == Message.placeholders(french),
      "\(message): \(english) | \(french)")
    let count = Message.placeholders(english).count
    #expect(
      Message.placeholders(english) == Set((0..<count).map { $0 + 1 }), "\(message) numbers {1}… in order")
  }

  /// Texts that are the same in both languages: numbers and units, names, or words French shares.
  static let sameInBoth: Set<Message> = [
    .headlinesArticles, .headlinesOneArticle, .durationMinutes, .durationMinute, .tilesProgress,
    .coordinateSentence, .dateToday, .mapLatitude, .mapLongitude, .mapPoint, .mapCategorySports,
    .clustersKindPoint,
  ]

  @Test func frenchIsATranslation() {
    for message in Message.allCases where !Self.sameInBoth.contains(message) {
      #expect(message.texts.en != message.texts.fr, "\(message) is not translated: \(message.texts.fr)")
    }
  }

  @Test func argumentsTakeTheirPlacesOnce() {
    #expect(Message.unknownOption.text(["--x", "nearest"], in: .english).hasPrefix("Unknown option '--x'"))
    #expect(Message.unknownOption.text(["--x", "nearest"], in: .french).hasPrefix("Option inconnue '--x'"))
    // An argument's own braces are left as they are, never read as a placeholder.
    #expect(
      Message.longitudeMissing.text(["{1}{2}"], in: .english)
        == "Give the longitude after the latitude {1}{2}.")
    #expect(Sentence(.pageRange, "page", 0).text(in: .french) == "page doit valoir 1 ou plus, pas 0.")
    #expect(Sentence(verbatim: "As it is.").text(in: .french) == "As it is.")
  }

  @Test func theLanguageChosenAtLaunch() {
    let french = ["LANG": "fr_FR.UTF-8"]
    #expect(InterfaceLanguage.chosen(arguments: [], setting: nil, environment: french) == .french)
    #expect(
      InterfaceLanguage.chosen(arguments: [], setting: nil, environment: ["LANG": "C.UTF-8"]) == .english)
    #expect(
      InterfaceLanguage.chosen(arguments: [], setting: nil, environment: ["LC_ALL": "C", "LANG": "fr_FR"])
        == .english)
    #expect(
      InterfaceLanguage.chosen(
        arguments: [], setting: nil, environment: ["LC_MESSAGES": "fr_BE", "LANG": "C"])
        == .french)
    #expect(
      InterfaceLanguage.chosen(arguments: ["x", "--lang", "en"], setting: "fr", environment: french)
        == .english)
    #expect(InterfaceLanguage.chosen(arguments: ["--lang=fr"], setting: nil, environment: [:]) == .french)
    #expect(InterfaceLanguage.chosen(arguments: [], setting: "en", environment: french) == .english)
    #expect(InterfaceLanguage.chosen(arguments: [], setting: "fr", environment: [:]) == .french)
    // After --, a --lang is an argument, not the option; a value that is no language is left to the parser.
    #expect(
      InterfaceLanguage.chosen(arguments: ["--", "--lang", "fr"], setting: nil, environment: [:]) == .english)
    #expect(
      InterfaceLanguage.chosen(arguments: ["--lang", "de"], setting: nil, environment: french) == .french)
  }

  /// The setting means reading the settings file: it is read only when `--lang` does not decide.
  @Test func theSettingIsAskedForOnlyWhenNeeded() {
    var asked = 0
    func setting() -> String? {
      asked += 1
      return "fr"
    }
    #expect(
      InterfaceLanguage.chosen(arguments: ["--lang", "en"], setting: setting(), environment: [:]) == .english)
    #expect(
      InterfaceLanguage.chosen(arguments: ["--lang=fr"], setting: setting(), environment: [:]) == .french)
    #expect(asked == 0)
    #expect(InterfaceLanguage.chosen(arguments: ["nearest"], setting: setting(), environment: [:]) == .french)
    #expect(
      InterfaceLanguage.chosen(arguments: ["--lang", "de"], setting: setting(), environment: [:]) == .french)
    #expect(asked == 2)
  }

  @Test func theLanguageARequestAsksFor() {
    #expect(InterfaceLanguage.requested(query: "fr", acceptLanguage: "en") == .french)
    #expect(InterfaceLanguage.requested(query: nil, acceptLanguage: "fr-FR,fr;q=0.9,en;q=0.8") == .french)
    #expect(InterfaceLanguage.requested(query: nil, acceptLanguage: "de-DE, en;q=0.5, fr;q=0.7") == .french)
    #expect(InterfaceLanguage.requested(query: nil, acceptLanguage: "fr;q=0, en") == .english)
    #expect(InterfaceLanguage.requested(query: nil, acceptLanguage: "de") == .english)
    #expect(InterfaceLanguage.requested(query: nil, acceptLanguage: nil) == .english)
    #expect(InterfaceLanguage.requested(query: "xx", acceptLanguage: "fr") == .french)
  }

  /// The README says how many messages the catalogue holds: the count it gives is the catalogue's (helpers
  /// adding messages at once each updated it from the count they started from, and it fell behind).
  @Test func theReadmeCountsTheCatalogue() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let said = readme.firstMatch(of: /`AtlasMessages` module \((\d+) messages/).flatMap { Int($0.1) }
    #expect(said == Message.allCases.count, "README: \(String(describing: said))")
  }
}
