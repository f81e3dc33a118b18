import GeoFormats
import Testing

/// JSON laid out for people (`clusters` on a terminal): the same document, one member or element a line.
@Suite struct JSONIndentTests {
  @Test(arguments: [
    #"{"a":[1,-2.5e3,true,false,null,"x,{}[]:\"\\"],"b":{"c":{}},"":[],"d":[[],{}]}"#,
    #"[1.50,0,-0,1E+2,1e-2]"#, #""a string, alone: {x}""#, "  {\"k\" : 1 }  ", "[]", "{}",
  ])
  func readsBackAsTheSameDocument(_ text: String) throws {
    let laidOut = JSONIndent.indented(Array(text.utf8))
    #expect(try JSONParser.parse(laidOut) == (try JSONParser.parse(Array(text.utf8))))
  }

  @Test func oneMemberALineEmptiesKept() {
    let text = #"{"type":"Feature","properties":{},"geometry":{"coordinates":[1,2],"s":"a,b"}}"#
    let laidOut = String(decoding: JSONIndent.indented(Array(text.utf8)), as: UTF8.self)
    #expect(
      laidOut == """
        {
          "type": "Feature",
          "properties": {},
          "geometry": {
            "coordinates": [
              1,
              2
            ],
            "s": "a,b"
          }
        }
        """)
  }
}
