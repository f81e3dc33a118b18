import GeoFormats
import GeoIndex
import NewsAtlas

extension Country {
  /// The members that name a country in every answer, in their order: `code`, `name` and `nameFr`.
  public enum NameKey: String, CodingKey, CaseIterable, Sendable {
    case code, name, nameFr
  }

  /// The country's value for one of the naming members.
  public func value(of key: NameKey) -> String {
    switch key {
    case .code: return code
    case .name: return name
    case .nameFr: return nameFrench
    }
  }

  /// `"code":…,"name":…,"nameFr":…`: a country as every answer names it (the one place this is written; the
  /// headlines' Encodable answers read `NameKey` and `value(of:)`).
  public func writeName(to object: inout JSONWriter.ObjectWriter) {
    for key in NameKey.allCases { object.string(key.stringValue, value(of: key)) }
  }

  /// The JSON members every front end uses for a country: its name members, marker, language.
  public func write(to object: inout JSONWriter.ObjectWriter) {
    writeName(to: &object)
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
    object.object("country") { country.writeName(to: &$0) }
    object.string("method", method.rawValue)
    if let containing {
      object.object("containing") {
        $0.string("code", containing.code)
        $0.string("name", containing.name)
        $0.string("nameFr", containing.nameFrench)
      }
    } else {
      object.value("containing", .null)
    }
    object.number("distanceKm", distanceKilometers)
  }
}

extension FeatureFile {
  /// The 54 news countries as Point features at their markers, named as every answer names them
  /// (`writeName`): the points clusters and tiles show when the user gives none.
  public static func countries(propertyNames: [String] = []) -> FeatureFile {
    let features = Country.all.map { country in
      var json = JSONWriter()
      json.object { feature in
        feature.string("type", "Feature")
        feature.object("properties") { country.writeName(to: &$0) }
        feature.pointGeometry(country.marker)
      }
      return (text: json.bytes, point: Optional(country.marker))
    }
    return .features(features, name: "the 54 countries", propertyNames: propertyNames)
  }
}
