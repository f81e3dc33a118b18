import AtlasMessages
import Foundation
import NewsAPI
import Testing

/// Article dates in text output: the reader's time zone and language, relative for today, ISO 8601 UTC on demand.
@Suite struct HumanDateTests {
  let paris = TimeZone(identifier: "Europe/Paris")!
  /// A moment long after every date below, so none of them is "today".
  let later = Date(timeIntervalSince1970: 1_900_000_000)

  /// Europe/Paris changes its offset at 01:00 UTC on the last Sunday of March and of October: the same UTC
  /// half-hour steps show local times an hour apart (spring) or the same local time twice (autumn).
  @Test(arguments: [
    ("2026-03-29T00:30:00Z", "29 Mar 2026, 01:30", "Le 29/03/2026 à 01:30"),
    ("2026-03-29T01:30:00Z", "29 Mar 2026, 03:30", "Le 29/03/2026 à 03:30"),
    ("2026-10-25T00:30:00Z", "25 Oct 2026, 02:30", "Le 25/10/2026 à 02:30"),
    ("2026-10-25T01:30:00Z", "25 Oct 2026, 02:30", "Le 25/10/2026 à 02:30"),
    ("2026-11-24T10:15:00Z", "24 Nov 2026, 11:15", "Le 24/11/2026 à 11:15"),
    ("2024-04-20T20:52:20.5931133Z", "20 Apr 2024, 22:52", "Le 20/04/2024 à 22:52"),
  ])
  func acrossDaylightSavingInParis(published: String, english: String, french: String) {
    #expect(HumanDate(language: .english, timeZone: paris).text(published, now: later) == english)
    #expect(HumanDate(language: .french, timeZone: paris).text(published, now: later) == french)
  }

  /// Every month's name and every field of the catalogue's layouts (`dateOnDay`, `dateToday`) is filled: no
  /// `{field}` is left, and English shows the months as it always has.
  @Test func everyMonthAndFieldComeFromTheCatalogue() {
    let utc = TimeZone(identifier: "UTC")!
    let english = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    for month in 1...12 {
      let two = month < 10 ? "0\(month)" : "\(month)"
      let published = "2026-\(two)-04T09:05:00Z"
      #expect(HumanDate(timeZone: utc).text(published, now: later) == "4 \(english[month - 1]) 2026, 09:05")
      #expect(
        HumanDate(language: .french, timeZone: utc).text(published, now: later) == "Le 04/\(two)/2026 à 09:05"
      )
    }
    let now = Date(timeIntervalSince1970: 1_795_987_500)  // 2026-11-29T21:25:00Z
    for language in InterfaceLanguage.allCases {
      for published in ["2026-11-29T21:25:00Z", "2026-11-29T21:00:00Z", "2026-11-29T01:00:00Z"] {
        let text = HumanDate(language: language, timeZone: utc).text(published, now: now)
        #expect(!text.contains("{") && !text.contains("}"), "\(language): \(text)")
      }
    }
  }

  @Test func theReadersTimeZoneDecidesTheDay() {
    let newYork = TimeZone(identifier: "America/New_York")!
    #expect(HumanDate(timeZone: newYork).text("2026-11-24T03:00:00Z", now: later) == "23 Nov 2026, 22:00")
  }

  @Test func todayIsRelative() {
    let now = Date(timeIntervalSince1970: 1_795_987_500)  // 2026-11-29T21:25:00Z, 22:25 in Paris
    let english = HumanDate(language: .english, timeZone: paris)
    let french = HumanDate(language: .french, timeZone: paris)
    #expect(english.text("2026-11-29T19:10:00Z", now: now) == "20:10 (2 h ago)")
    #expect(french.text("2026-11-29T19:10:00Z", now: now) == "20:10 (il y a 2 h)")
    #expect(english.text("2026-11-29T21:13:00Z", now: now) == "22:13 (12 min ago)")
    #expect(french.text("2026-11-29T21:24:30Z", now: now) == "22:24 (à l'instant)")
    // 23:30 UTC the day before is 00:30 today in Paris: today there, yesterday in UTC.
    #expect(english.text("2026-11-28T23:30:00Z", now: now) == "00:30 (21 h ago)")
    #expect(english.text("2026-11-28T22:30:00Z", now: now) == "28 Nov 2026, 23:30")
    // A date ahead of the clock (a skewed publisher) is shown as a date, not as negative minutes.
    #expect(english.text("2026-11-29T21:40:00Z", now: now) == "29 Nov 2026, 22:40")
  }

  @Test func utcForScriptsAndTextThatIsNotADate() {
    let utc = HumanDate(language: .french, timeZone: paris, utc: true)
    #expect(utc.text("2024-04-20T20:52:20.5931133Z", now: later) == "2024-04-20T20:52:20Z")
    #expect(utc.text("2026-11-29T21:24:30Z", now: later) == "2026-11-29T21:24:30Z")
    #expect(HumanDate(timeZone: paris).text("yesterday", now: later) == "yesterday")
  }

  @Test func theLocaleChoosesTheLanguage() {
    #expect(InterfaceLanguage.fromLocale(["LANG": "fr_FR.UTF-8"]) == .french)
    #expect(InterfaceLanguage.fromLocale(["LC_ALL": "en_GB.UTF-8", "LANG": "fr_FR.UTF-8"]) == .english)
    #expect(InterfaceLanguage.fromLocale(["LC_MESSAGES": "fr_CA", "LANG": "C"]) == .french)
    #expect(InterfaceLanguage.fromLocale(["LC_ALL": "", "LANG": "fr_BE"]) == .french)
    #expect(InterfaceLanguage.fromLocale([:]) == .english)
  }
}
