import GeoIndex
import NewsAtlas

extension Country {
  /// The JSON members every front end uses for a country: code, names, marker, language.
  public func write(to object: inout JSONWriter.ObjectWriter) {
    object.string("code", code)
    object.string("name", name)
    object.string("nameFr", nameFrench)
    object.number("latitude", marker.latitude)
    object.number("longitude", marker.longitude)
    object.string("language", language)
  }
}

extension Resolution {
  /// `"query":{…},"country":{…},"method":…,"containing":{…}|null,"distanceKm":…`
  public func write(to object: inout JSONWriter.ObjectWriter) {
    let query = self.query
    object.object("query") {
      $0.number("latitude", query.latitude)
      $0.number("longitude", query.longitude)
    }
    let country = self.country
    object.object("country") {
      $0.string("code", country.code)
      $0.string("name", country.name)
      $0.string("nameFr", country.nameFrench)
    }
    object.string("method", method.rawValue)
    if let containing {
      object.object("containing") {
        $0.string("code", containing.code)
        $0.string("name", containing.name)
      }
    } else {
      object.value("containing", .null)
    }
    object.number("distanceKm", distanceKilometers)
  }
}
