import GeoFormats

/// The vector tile layer of a dataset's clusters, as TileJSON (`serve`'s `/tiles/{name}.json`) and the
/// MBTiles metadata (`newsatlas tiles`) both describe it.
public enum VectorLayer {
  /// Whether `name` can name a layer (and a dataset): 1 to 64 ASCII letters, digits, `-` and `_`.
  public static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.count <= 64
      && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
  }

  /// How many features `fields(of:aggregations:)` reads, from the first.
  public static var fieldSample: Int { 1000 }

  /// The layer's fields and their TileJSON types: the cluster properties, the aggregates, and the input
  /// properties seen in the first thousand features (`fieldSample`).
  public static func fields(of file: FeatureFile, aggregations: [Aggregation]) -> [(
    name: String, type: String
  )] {
    var fields: [(name: String, type: String)] = [
      ("cluster", "Boolean"), ("cluster_id", "Number"), ("point_count", "Number"),
      ("point_count_abbreviated", "Number or String"),
    ]
    for aggregation in aggregations { fields.append((aggregation.property, "Number")) }
    var seen = Set(fields.map(\.name))
    for index in 0..<min(file.count, fieldSample) {
      guard case .object(let members)? = file.feature(index)["properties"] else { continue }
      for member in members where seen.insert(member.key).inserted {
        switch member.value {
        case .number: fields.append((member.key, "Number"))
        case .bool: fields.append((member.key, "Boolean"))
        default: fields.append((member.key, "String"))
        }
      }
    }
    return fields
  }
}
