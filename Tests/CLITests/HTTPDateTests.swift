import Foundation
import GeoIndex
import SeededPoints
import Testing

@testable import AtlasServer

/// The `Date` header the direct lane writes, against Foundation's formatting of the same second.
@Suite struct HTTPDateTests {
  @Test func formatsEverySecondAsFoundationDoes() {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    var words = SeededSpherePoints(seed: 11)  // its mulberry32 words
    // The epoch, a leap day, the ends of years and months, and seeded seconds from 1970 to 2106.
    var seconds = [0, 951_782_400, 1_798_761_599, 1_798_761_600, 1_800_000_000, 4_102_444_799]
    for _ in 0..<2000 { seconds.append(Int(words.nextWord())) }
    for second in seconds {
      let expected = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(second)))
      #expect(HTTPDate.text(second: second) == expected, "second \(second)")
    }
    #expect(HTTPDate().text().hasSuffix(" GMT"))
  }
}
