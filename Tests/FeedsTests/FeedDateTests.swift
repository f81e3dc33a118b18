import Feeds
import Testing

@Suite struct FeedDateTests {
  @Test(arguments: [
    ("Wed, 25 Nov 2026 14:02:11 +0100", "2026-11-25T13:02:11Z"),
    ("Wed, 25 Nov 2026 14:02:11 GMT", "2026-11-25T14:02:11Z"),
    ("25 Nov 2026 14:02 -0330", "2026-11-25T17:32:00Z"),
    ("Tue, 24 Nov 26 23:59:59 PST", "2026-11-25T07:59:59Z"),
    ("Sat, 01 Jan 99 00:00:00 Z", "1999-01-01T00:00:00Z"),
    ("Thu, 29 Feb 2024 12:00:00 +0000", "2024-02-29T12:00:00Z"),
    ("Thursday, 31 December 2026 23:00:00 -0200", "2027-01-01T01:00:00Z"),
    ("Wed, 25 Nov 2026 14:02:11", "2026-11-25T14:02:11Z"),
    ("2026-11-25T14:02:11+01:00", "2026-11-25T13:02:11Z"),
    ("2026-11-25T14:02:11.987654Z", "2026-11-25T14:02:11Z"),
    ("2026-11-25t14:02:11-00:30", "2026-11-25T14:32:11Z"),
    ("2026-11-25T14:02Z", "2026-11-25T14:02:00Z"),
    ("2026-11-25", "2026-11-25T00:00:00Z"),
    ("1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"),
    (" 2000-02-29T00:00:00Z\n", "2000-02-29T00:00:00Z"),
  ])
  func parsesToUTC(_ text: String, _ expected: String) {
    #expect(FeedDate.parse(text)?.iso8601 == expected)
  }

  @Test(arguments: [
    "", "yesterday", "Wed, 30 Feb 2026 10:00:00 GMT", "Wed, 25 Nov 2026 24:00:00 GMT",
    "Wed, 25 Foo 2026 10:00:00",
    "2026-13-01T00:00:00Z", "2026-11-25T10:00:00", "2026-11-25T10:00:00+1", "2100-02-29",
    "25 Nov 2026 10:00:00 +01",
    "2026-11-25T10:00:00Zjunk",
  ])
  func refusesWhatIsNotADate(_ text: String) {
    #expect(FeedDate.parse(text) == nil)
  }

  /// The day arithmetic against a day-by-day walk over 1900–2100 (the oracle: count days, month by month).
  @Test func daysAgreeWithADayByDayWalk() {
    var days = FeedDate(secondsSince1970: 0).secondsSince1970 / 86400 - 25567  // 1900-01-01 is day -25567
    for year in 1900...2100 {
      for month in 1...12 {
        let count = [
          31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31,
          30, 31, 30, 31,
        ][month - 1]
        for day in 1...count {
          let text = "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
          let date = FeedDate.parse(text)
          #expect(date?.secondsSince1970 == days * 86400, "\(text)")
          #expect(date?.iso8601 == text + "T00:00:00Z")
          days += 1
        }
      }
    }
  }
}
