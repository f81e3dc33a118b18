import AtlasMessages

/// A table to serve as a dataset: `TABLE` or `SCHEMA.TABLE` (the schema `public` when not named), each name as
/// the catalogue stores it (an unquoted `CREATE TABLE Places` is stored `places`). Its geometry column is found
/// when not named (the table's first `geometry` or `geography` column); `id` is the column whose value becomes
/// each feature's GeoJSON id; `properties` the columns kept as properties (every column but the geometry and
/// the id when nil).
public struct PostGISTable: Sendable, Equatable {
  public let schema: String
  public let name: String
  public var geometry: String?
  public var id: String?
  public var properties: [String]?

  public init(_ text: String, geometry: String? = nil, id: String? = nil, properties: [String]? = nil)
    throws(PostGISError)
  {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard (1...2).contains(parts.count), parts.allSatisfy(Self.isIdentifier) else {
      throw .usage(Sentence(.postgresTableShape, shown(text)))
    }
    schema = parts.count == 2 ? parts[0] : "public"
    name = parts[parts.count - 1]
    for column in [geometry, id].compactMap({ $0 }) + (properties ?? []) where !Self.isIdentifier(column) {
      throw .usage(Sentence(.postgresColumnShape, shown(column)))
    }
    self.geometry = geometry
    self.id = id
    self.properties = properties
  }

  /// `schema.name`, as people write it.
  public var qualifiedName: String { "\(schema).\(name)" }

  /// A name PostgreSQL stores: a letter or `_`, then letters, digits, `_` or `$`, at most 63 bytes.
  static func isIdentifier(_ text: String) -> Bool {
    guard let first = text.unicodeScalars.first, text.utf8.count <= 63 else { return false }
    return (first.properties.isAlphabetic || first == "_")
      && text.unicodeScalars.allSatisfy {
        $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "$"
      }
  }

  /// An identifier quoted for SQL (its characters are checked: no quote can be in it, but it is doubled anyway).
  static func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// A string literal for SQL.
  static func literal(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
  }

  /// The query that gives one row a feature: its GeoJSON Feature text, or NULL for a row without a Point (NULL,
  /// empty, another type), in the table's order. Positions in SRID 4326 (0, unknown, read as 4326), others
  /// transformed by PostGIS; a geography column read as geometry. `columns` are the table's, in order: the
  /// properties are those named, else every one but the geometry and the id, built as `json` by `row_to_json`
  /// (any number of columns; `jsonb`, or `to_jsonb` of the whole row, took 8 times as long at 1M rows).
  func featureQuery(geometry: String, columns: [String]) -> String {
    """
    SELECT \(featureExpression(geometry: geometry, columns: columns)) \
    FROM \(Self.quoted(schema)).\(Self.quoted(name)) AS t CROSS JOIN LATERAL (SELECT t.\(Self.quoted(geometry))::geometry AS g) AS p
    """
  }

  /// `featureQuery`'s one column: a row's Feature text, or NULL (the table as `t`, its geometry as `p.g`).
  func featureExpression(geometry: String, columns: [String]) -> String {
    let g = "p.g"
    let kept = properties ?? columns.filter { $0 != geometry && $0 != id }
    let selected = kept.map { "t." + Self.quoted($0) }.joined(separator: ", ")
    let props = kept.isEmpty ? "'{}'::json" : "(SELECT row_to_json(r) FROM (SELECT \(selected)) AS r)"
    let position =
      "ST_AsGeoJSON(CASE WHEN ST_SRID(\(g)) IN (0, 4326) THEN \(g) ELSE ST_Transform(\(g), 4326) END, 15)::json"
    func feature(id: String?) -> String {
      "json_build_object('type', 'Feature', \(id.map { "'id', \($0), " } ?? "")'geometry', \(position), 'properties', \(props))::text"
    }
    let built =
      id.map { column in
        let value = "t." + Self.quoted(column)
        return "CASE WHEN \(value) IS NULL THEN \(feature(id: nil)) ELSE \(feature(id: value)) END"
      } ?? feature(id: nil)
    return "CASE WHEN \(g) IS NULL OR ST_IsEmpty(\(g)) OR GeometryType(\(g)) <> 'POINT' THEN NULL ELSE \(built) END"
  }
}
