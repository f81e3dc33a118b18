import GeoFormats
import GeoIndex
import NewsAtlas

/// What a nearest query searches: the 54 news countries or the user's own points.
public enum NearestTarget {
  case countries
  /// The user's features, the tree over those with a Point, and each tree point's feature index (empty when
  /// every feature has a Point: the tree's offsets are then the features' own).
  case userPoints(FeatureFile, SphericalKDTree, [Int])

  /// A target over the features that have a Point (the others keep their index but are never found).
  public static func features(_ file: FeatureFile) -> NearestTarget {
    let slots = file.points.indices.filter { file.points[$0] != nil }
    let tree = SphericalKDTree(points: slots.lazy.map { file.points[$0]! })
    return .userPoints(file, tree, slots.count == file.points.count ? [] : slots)
  }

  /// The feature index of the tree's point `i`.
  private static func feature(_ i: Int, _ slots: [Int]) -> Int { slots.isEmpty ? i : slots[i] }

  public var tree: SphericalKDTree {
    switch self {
    case .countries: return Country.markerIndex
    case .userPoints(_, let tree, _): return tree
    }
  }

  public var isCountries: Bool {
    if case .countries = self { return true }
    return false
  }

  /// The feature index of a neighbour found in `tree`.
  public func featureIndex(_ neighbor: Neighbor) -> Int {
    switch self {
    case .countries: return neighbor.index
    case .userPoints(_, _, let slots): return Self.feature(neighbor.index, slots)
    }
  }

  public func location(_ neighbor: Neighbor) -> GeoPoint {
    switch self {
    case .countries: return Country.all[neighbor.index].marker
    case .userPoints(let file, _, let slots): return file.points[Self.feature(neighbor.index, slots)]!
    }
  }

  /// The neighbour's input properties (null for a country).
  public func properties(_ neighbor: Neighbor) -> JSONValue {
    switch self {
    case .countries: return .null
    case .userPoints(let file, _, let slots):
      return file.feature(Self.feature(neighbor.index, slots))["properties"] ?? .null
    }
  }

  /// One result's members: the country (or the feature's index and properties), position, distance, bearing.
  public func writeResult(
    _ neighbor: Neighbor, from query: GeoPoint, to object: inout JSONWriter.ObjectWriter
  ) {
    let location = location(neighbor)
    switch self {
    case .countries:
      Country.all[neighbor.index].writeName(to: &object)
    case .userPoints:
      object.number("index", Double(featureIndex(neighbor)))
      object.value("properties", properties(neighbor))
    }
    object.number("latitude", location.latitude)
    object.number("longitude", location.longitude)
    object.number("distanceKm", neighbor.distanceKilometers)
    object.number("bearingDegrees", GreatCircle.initialBearingDegrees(from: query, to: location))
  }

  /// One result as a GeoJSON Feature whose properties add `distanceKm` and `bearingDegrees`.
  public func writeFeature(
    _ neighbor: Neighbor, from query: GeoPoint, to object: inout JSONWriter.ObjectWriter
  ) {
    let location = location(neighbor)
    object.string("type", "Feature")
    if !isCountries { object.number("id", Double(featureIndex(neighbor))) }
    object.pointGeometry(location)
    object.object("properties") { properties in
      switch self {
      case .countries:
        Country.all[neighbor.index].writeName(to: &properties)
      case .userPoints:
        if case .object(let members) = self.properties(neighbor) {
          for member in members where member.key != "distanceKm" && member.key != "bearingDegrees" {
            properties.value(member.key, member.value)
          }
        }
      }
      properties.number("distanceKm", neighbor.distanceKilometers)
      properties.number("bearingDegrees", GreatCircle.initialBearingDegrees(from: query, to: location))
    }
  }

  /// `{"query":{…},"results":[…]}`: a nearest answer as JSON.
  public func answerJSON(_ found: [Neighbor], from query: GeoPoint) -> [UInt8] {
    var json = JSONWriter()
    json.object { object in
      object.object("query") {
        $0.number("latitude", query.latitude)
        $0.number("longitude", query.longitude)
      }
      object.array("results", found) { json, neighbor in
        json.object { writeResult(neighbor, from: query, to: &$0) }
      }
    }
    return json.bytes
  }

  /// A nearest answer as a GeoJSON FeatureCollection.
  public func answerGeoJSON(_ found: [Neighbor], from query: GeoPoint) -> [UInt8] {
    var json = JSONWriter()
    json.object { object in
      object.string("type", "FeatureCollection")
      object.array("features", found) { json, neighbor in
        json.object { writeFeature(neighbor, from: query, to: &$0) }
      }
    }
    return json.bytes
  }
}
