import GeoFormats
import GeoIndex
import NewsAtlas

/// The news map's base layer: the world's countries as GeoJSON.
public enum Basemap {
  /// A FeatureCollection with one Polygon feature per country (`code`, `name`, and `news`: whether it is one of
  /// NewsAPI's 54), its rings from Natural Earth simplified to `toleranceDegrees`, coordinates to 4 decimals,
  /// and a line break.
  public static func geoJSON(toleranceDegrees: Double) -> [UInt8] {
    let boundaries = Country.boundaries
    var rings: [Int: [[(longitude: Double, latitude: Double)]]] = [:]
    for ring in boundaries.rings(toleranceDegrees: toleranceDegrees) {
      rings[ring.country, default: []].append(ring.points)
    }
    var json = JSONWriter()
    json.object { collection in
      collection.string("type", "FeatureCollection")
      collection.array("features", rings.keys.sorted()) { json, country in
        json.object { feature in
          feature.string("type", "Feature")
          feature.object("properties") { properties(of: country, in: boundaries, to: &$0) }
          feature.object("geometry") { geometry in
            geometry.string("type", "Polygon")
            geometry.array("coordinates", rings[country]!) { json, ring in
              json.array(ring) { json, point in
                json.array([point.longitude, point.latitude]) { $0.number($1, decimals: 4) }
              }
            }
          }
        }
      }
    }
    json.bytes.append(UInt8(ascii: "\n"))
    return json.bytes
  }

  /// A country's properties in a base map feature: its code, its name and whether it is a news country.
  static func properties(of country: Int, in boundaries: CountryBoundaries, to object: inout JSONWriter.ObjectWriter) {
    let code = boundaries.codes[country]
    object.string("code", code)
    object.string("name", boundaries.names[country])
    object.value("news", .bool(Country.named(code: code) != nil))
  }
}
