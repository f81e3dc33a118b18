import GeoIndex
import HummingbirdCore
import SeededPoints
import Testing

@testable import AtlasServer

/// The service's own reading of a query string against Hummingbird's, which it stands in for.
@Suite struct QueryTests {
  /// Seeded random targets from pieces that exercise the reading: separators in every position, repeated
  /// and empty names, `=` in values, `#`, `?` in the query, and (for the fallback) `%`, `+`, spaces and
  /// non-ASCII.
  @Test(arguments: [1, 2, 3, 4, 5])
  func readsEveryQueryAsHummingbirdDoes(seed: UInt32) {
    var words = SeededSpherePoints(seed: seed)  // its mulberry32 words
    let pieces = [
      "lat", "lon", "=", "=", "&", "&", "48.85", "-2.35", "count", "x", "", "#", "?", "%41", "+", " ", "é",
      "a=b",
    ]
    var plain = 0
    for _ in 0..<2000 {
      var target = ["/v1/resolve", "/", "/a#b", "http://h/p"][Int(words.nextWord() % 4)]
      if words.nextWord() % 8 != 0 { target += "?" }
      for _ in 0..<Int(words.nextWord() % 8) {
        target += pieces[Int(words.nextWord() % UInt32(pieces.count))]
      }
      let expected = Query.hummingbirds(target).map { "\($0.name)=\($0.value)" }
      if let read = Query.plain(target) {
        plain += 1
        #expect(read.map { "\($0.name)=\($0.value)" } == expected, "seed \(seed): \(target)")
      }
      let query = Query(target: target)
      #expect(query.pairs.map { "\($0.name)=\($0.value)" } == expected, "seed \(seed): \(target)")
      // Hummingbird keeps a '+'; the service reads it as a space, as HTML forms mean it.
      let formed = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
      let spaced =
        formed.count == 2 ? formed[0] + "?" + formed[1].replacing("+", with: "%20") : target[...]
      for name in ["lat", "lon", "x", "", "nothing"] {
        let first = URI(String(spaced)).queryParameters.get(name)
        #expect(query.get(name) == first, "seed \(seed): \(target) \(name)")
      }
    }
    #expect(plain > 500, "the plain reading took \(plain) of 2000 targets")  // it is the one tested
  }

  /// A '+' in a query is a space (URLSearchParams, HTML forms and Python's urlencode write one), `%2B` a plus
  /// sign; the path before the query keeps its '+'.
  @Test func aPlusIsASpace() {
    let query = Query(target: "/a+b?q=united+states&f=a%2Bb&g=%20x+")
    #expect(query.get("q") == "united states" && query.get("f") == "a+b" && query.get("g") == " x ")
  }
}
