import AtlasMessages
import Testing

@Suite struct SuggestionsTests {
  /// The choice itself: within a third of the word (two edits at least), the nearest, a tie broken by the longer
  /// shared start, and none for the word itself or a tie that stays one.
  @Test func theLikelyWord() {
    #expect(Suggestions.likely("neares", in: ["nearest", "resolve"]) == "nearest")
    #expect(Suggestions.likely("--cout", in: ["--count", "--out"]) == "--count")
    #expect(Suggestions.likely("ab", in: ["ac", "ad"]) == nil)
    #expect(Suggestions.likely("nearest", in: ["nearest"]) == nil)
    #expect(Suggestions.likely("xyzxyzxyz", in: ["nearest", "resolve"]) == nil)
    #expect(Suggestions.nearest(to: "bbc-nwes", in: ["bbc-news", "cbc-news", "bbc-sport", "abc-news"]) == [
      "bbc-news", "abc-news", "cbc-news",
    ])
  }
}
