import GeoFormats
import Testing

@Suite struct NumberParserTests {
  @Test(arguments: ["nan", "inf", "-inf", "infinity", "1e309", "0x1p3", "", " ", "+", "-", ".", "1e", "--5", "1_0"])
  func refusesWhatIsNotADecimal(_ text: String) {
    #expect(Coordinates.number(text) == nil, "'\(text)'")
  }
}
