import GeoFormats
import Testing

/// MapLibre filter expressions on feature properties: the semantics of the style specification, refusals with a
/// reason, and one canonical text per filter.
@Suite struct FeatureFilterTests {
  let properties = try! JSONParser.parse(
    Array(#"{"category":"sports","rank":3,"score":2.5,"tags":"a,b","flag":true,"none":null}"#.utf8))

  func passes(_ expression: String) throws -> Bool { try FeatureFilter(json: expression).matches(properties) }

  @Test(arguments: [
    (#"["==", ["get", "category"], "sports"]"#, true),
    (#"["==", ["get", "category"], "news"]"#, false),
    (#"["!=", ["get", "category"], "news"]"#, true),
    (#"["==", ["get", "rank"], 3.0]"#, true),  // numbers by value
    (#"["==", ["get", "rank"], "3"]"#, false),  // a number is never a string
    (#"["<", ["get", "rank"], 10]"#, true),
    (#"["<=", ["get", "rank"], 3]"#, true),
    (#"[">", ["get", "score"], 2.5]"#, false),
    (#"[">=", ["get", "score"], 2.5]"#, true),
    (#"["<", ["get", "category"], "tennis"]"#, true),  // strings by code points
    (#"["<", ["get", "category"], 5]"#, false),  // a failed comparison drops the feature
    (#"["<", ["get", "missing"], 5]"#, false),
    (#"["==", ["get", "missing"], null]"#, true),
    (#"["==", ["get", "none"], null]"#, true),
    (#"["has", "none"]"#, true),
    (#"["has", "missing"]"#, false),
    (#"["!", ["has", "missing"]]"#, true),
    (#"["in", ["get", "category"], ["literal", ["news", "sports"]]]"#, true),
    (#"["in", ["get", "rank"], ["literal", [1, 2]]]"#, false),
    (#"["in", "b", ["get", "tags"]]"#, true),  // a substring
    (#"["all", ["has", "rank"], ["==", ["get", "flag"], true]]"#, true),
    (#"["all"]"#, true),
    (#"["any"]"#, false),
    (#"["any", ["==", ["get", "rank"], 1], ["<", ["get", "score"], 3]]"#, true),
    ("true", true),
    ("false", false),
  ])
  func semantics(expression: String, expected: Bool) throws {
    #expect(try passes(expression) == expected, "\(expression)")
  }

  /// `in` on strings finds code points, as JavaScript's `indexOf` does: never by canonical equivalence.
  @Test func substringsAreCodePoints() throws {
    let kelvin = try JSONParser.parse(Array(#"{"unit":"\u212A","word":"caf\u00e9"}"#.utf8))
    #expect(try !FeatureFilter(json: #"["in", "K", ["get", "unit"]]"#).matches(kelvin))
    #expect(try FeatureFilter(json: #"["in", "\u212A", ["get", "unit"]]"#).matches(kelvin))
    #expect(try !FeatureFilter(json: #"["in", "cafe\u0301", ["get", "word"]]"#).matches(kelvin))
    #expect(try FeatureFilter(json: #"["in", "", ["get", "word"]]"#).matches(kelvin))
    #expect(try FeatureFilter(json: #"["in", "af", ["get", "word"]]"#).matches(kelvin))
  }

  /// Each expression, byte compared and array item searched is a step; past the steps given, `OverBudget`.
  @Test func evaluationIsMetered() throws {
    let long = String(repeating: "x", count: 10_000)
    let filter = try FeatureFilter(json: #"["in", ["get", "category"], "\#(long)"]"#)
    var steps = 5_000
    #expect(throws: FeatureFilter.OverBudget.self) { try filter.matches(properties, steps: &steps) }
    steps = 100_000
    #expect(try !filter.matches(properties, steps: &steps))
    // Three expressions, and 9,995 places "sports" could start in 10,000 bytes, none starting with "s".
    #expect(steps == 100_000 - 3 - 9_995)
    let cheap = try FeatureFilter(json: #"["==", ["get", "category"], "sports"]"#)
    steps = 10
    #expect(try cheap.matches(properties, steps: &steps))
    #expect(steps == 10 - 3 - 6)  // three expressions, six bytes compared
  }

  @Test func aFeatureWithoutPropertiesHasNothing() throws {
    let filter = try FeatureFilter(json: #"["!", ["has", "category"]]"#)
    #expect(filter.matches(nil))
    #expect(filter.matches(.null))
  }

  @Test(arguments: [
    (#"["nope", 1]"#, "'nope' is not a filter operator"),
    (#"["==", ["get", "a"]]"#, "'==' takes 2 arguments, not 1"),
    (#"["get", "category"]"#, "A filter must be a test"),
    (#"["all", ["get", "a"]]"#, "Each argument of 'all' must be a test"),
    (#"["has", 3]"#, "'has' takes a property name as a string"),
    (#"["in", 1, [1, 2]]"#, "starts with an operator"),
    (#"{"==": 1}"#, "must be written [\"literal\", {…}]"),
    (#"["==", "a""#, "The filter is not JSON"),
    (String(repeating: #"["!", "#, count: 70) + "true" + String(repeating: "]", count: 70), "deeper than 64"),
  ])
  func refusedWithAReason(expression: String, mentions: String) {
    #expect(throws: FormatError.self) { try FeatureFilter(json: expression) }
    do {
      _ = try FeatureFilter(json: expression)
    } catch {
      #expect(error.description.contains(mentions), "\(error.description)")
    }
  }

  @Test func oneCanonicalTextPerFilter() throws {
    let a = try FeatureFilter(json: #"[ "==" , [ "get","rank" ], 3.0 ]"#)
    let b = try FeatureFilter(json: #"["==",["get","rank"],3e0]"#)
    #expect(a.canonical == b.canonical)
    #expect(a.canonical == #"["==",["get","rank"],3]"#)
    let list = try FeatureFilter(json: #"["in", ["get", "c"], ["literal", ["x", 1.50]]]"#)
    #expect(list.canonical == #"["in",["get","c"],["literal",["x",1.5]]]"#)
    #expect(try FeatureFilter(json: list.canonical).canonical == list.canonical)
  }
}
