import AtlasAnswers
import GeoFormats
import GeoIndex
import NewsAtlas
import Testing

/// Each answer's shape, written in one place and used by every answer that carries it.
@Suite struct AnswerShapeTests {
  static let france = Country.named(code: "fr")!
  static let paris = GeoPoint(uncheckedLatitude: 48.8566, longitude: 2.3522)

  static func object(_ body: (inout JSONWriter.ObjectWriter) -> Void) -> String {
    var json = JSONWriter()
    json.object(body)
    return String(decoding: json.bytes, as: UTF8.self)
  }

  /// `code`, `name`, `nameFr`, in that order, for every country.
  @Test func aCountryIsNamedByCodeNameAndFrenchName() {
    #expect(
      Self.object { Self.france.writeName(to: &$0) } == #"{"code":"fr","name":"France","nameFr":"France"}"#)
    for country in Country.all {
      let members = try? JSONParser.parse(Array(Self.object { country.writeName(to: &$0) }.utf8))
      guard case .object(let pairs)? = members else {
        Issue.record("\(country.code): not an object")
        continue
      }
      #expect(pairs.map(\.key) == ["code", "name", "nameFr"])
      #expect(
        pairs.map(\.value) == [.string(country.code), .string(country.name), .string(country.nameFrench)])
    }
  }

  /// Every answer that names a country names it with `writeName`'s members, unchanged.
  @Test func everyAnswerNamesACountryTheSameWay() {
    let name = Self.object { Self.france.writeName(to: &$0) }.dropFirst().dropLast()  // the members
    #expect(Self.object { Self.france.write(to: &$0) }.hasPrefix("{" + name + ","))
    let resolution = Self.object { Country.resolve(Self.paris).write(to: &$0) }
    #expect(resolution.contains(#""country":{"# + name + "}"), "\(resolution)")
    let index = Country.all.firstIndex { $0.code == "fr" }!
    let neighbor = Country.markerIndex.nearest(to: Self.france.marker)!
    #expect(neighbor.index == index)
    let result = Self.object { NearestTarget.countries.writeResult(neighbor, from: Self.paris, to: &$0) }
    #expect(result.hasPrefix("{" + name + ","), "\(result)")
    let feature = Self.object { NearestTarget.countries.writeFeature(neighbor, from: Self.paris, to: &$0) }
    #expect(feature.contains(#""properties":{"# + name + ","), "\(feature)")
    let marker = String(decoding: FeatureFile.countries().text(of: index), as: UTF8.self)
    #expect(marker.contains(#""properties":{"# + name + "}"), "\(marker)")
  }

  @Test func theExpansionZoomAnswer() {
    let bytes = ClusterWriter.expansionZoomAnswer(clusterID: 1_234_567, zoom: 5)
    #expect(String(decoding: bytes, as: UTF8.self) == "{\"clusterId\":1234567,\"expansionZoom\":5}\n")
  }

  /// The basemap is one FeatureCollection of Polygons in the borders' order, coordinates to four decimals.
  @Test func theBasemapIsGeoJSON() throws {
    let bytes = Basemap.geoJSON(toleranceDegrees: 360.0 / (256 * 128))  // zoom 7's
    #expect(bytes.last == 0x0A)
    let collection = try JSONParser.parse(Array(bytes.dropLast()))
    #expect(collection["type"] == .string("FeatureCollection"))
    guard case .array(let features)? = collection["features"] else {
      Issue.record("no features")
      return
    }
    let codes = Country.boundaries.codes
    #expect(features.count > 200 && features.count <= codes.count)
    var news = 0
    for feature in features {
      guard case .string(let code)? = feature["properties"]?["code"] else {
        Issue.record("a feature without a code")
        continue
      }
      #expect(feature["geometry"]?["type"] == .string("Polygon"))
      if feature["properties"]?["news"] == .bool(true) { news += 1 }
      #expect((feature["properties"]?["news"] == .bool(true)) == (Country.named(code: code) != nil))
    }
    #expect(news == Country.all.count)
    let text = String(decoding: bytes, as: UTF8.self)
    // No coordinate carries a fifth decimal.
    let decimals = text.split(whereSeparator: { "[],".contains($0) }).compactMap { part -> Int? in
      guard let dot = part.firstIndex(of: "."), Double(part) != nil else { return nil }
      return part.distance(from: dot, to: part.endIndex) - 1
    }
    #expect(!decimals.isEmpty && decimals.allSatisfy { $0 <= 4 })
  }
}
