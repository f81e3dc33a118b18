import GeoIndex

/// A user's point: where it is, its position in the file, and the properties to echo back.
struct UserPoint {
  /// The feature's offset in the FeatureCollection (features without a Point keep their slot), or the CSV
  /// data row's offset.
  let index: Int
  let point: GeoPoint
  let properties: JSONValue
}

/// Reads the user's own points: a GeoJSON FeatureCollection of Points, or CSV with latitude and longitude.
enum PointsFile {
  static func load(path: String) throws(CLIError) -> [UserPoint] {
    let bytes = try readAll(path: path)
    let firstSignificant = bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
    if firstSignificant == UInt8(ascii: "{") {
      return try geoJSON(bytes, path: path)
    }
    return try csv(bytes, path: path)
  }

  static func geoJSON(_ bytes: [UInt8], path: String) throws(CLIError) -> [UserPoint] {
    let document: JSONValue
    do {
      document = try JSONParser.parse(Array(bytes.drop { [0xEF, 0xBB, 0xBF].contains($0) }))
    } catch {
      throw .data("'\(path)' is not valid JSON: \(error).")
    }
    guard case .string("FeatureCollection")? = document["type"], case .array(let features)? = document["features"]
    else {
      throw .data("'\(path)' is not a GeoJSON FeatureCollection; give one whose features have Point geometries.")
    }
    var points: [UserPoint] = []
    for (index, feature) in features.enumerated() {
      guard let geometry = feature["geometry"], case .string("Point")? = geometry["type"] else { continue }
      guard case .array(let coordinates)? = geometry["coordinates"], coordinates.count >= 2,
        let longitude = coordinates[0].doubleValue, let latitude = coordinates[1].doubleValue
      else {
        throw .data("Feature \(index) in '\(path)' has a Point without numeric [longitude, latitude] coordinates.")
      }
      let point: GeoPoint
      do {
        point = try GeoPoint(latitude: latitude, longitude: longitude)
      } catch {
        throw .data("Feature \(index) in '\(path)': \(error)")
      }
      points.append(UserPoint(index: index, point: point, properties: feature["properties"] ?? .null))
    }
    return points
  }

  static func csv(_ bytes: [UInt8], path: String) throws(CLIError) -> [UserPoint] {
    guard let text = String(validating: bytes.drop { [0xEF, 0xBB, 0xBF].contains($0) }, as: UTF8.self) else {
      throw .data("'\(path)' is neither GeoJSON nor UTF-8 CSV text.")
    }
    var rows = CSV.rows(text)
    while let last = rows.last, last.allSatisfy(\.isEmpty) { rows.removeLast() }
    guard let first = rows.first else {
      throw .data("'\(path)' holds no points; give GeoJSON or CSV with latitude,longitude columns.")
    }
    var header: [String] = []
    var columns = (latitude: 0, longitude: 1)
    var dataLineOffset = 1
    if Double(first[0].trimmingSpaces) == nil {
      header = first
      guard let found = CSV.coordinateColumns(header) else {
        throw .data(
          "'\(path)' has no latitude and longitude columns in its header; name them latitude and longitude.")
      }
      columns = found
      rows.removeFirst()
      dataLineOffset = 2
    }
    var points: [UserPoint] = []
    for (row, fields) in rows.enumerated() {
      let line = row + dataLineOffset
      guard fields.count > max(columns.latitude, columns.longitude) else {
        throw .data("Line \(line) of '\(path)' has \(fields.count) fields; latitude and longitude are missing.")
      }
      let latitudeText = fields[columns.latitude].trimmingSpaces
      let longitudeText = fields[columns.longitude].trimmingSpaces
      guard let latitude = Double(latitudeText) else {
        throw .data("Line \(line) of '\(path)': the latitude '\(latitudeText)' is not a number.")
      }
      guard let longitude = Double(longitudeText) else {
        throw .data("Line \(line) of '\(path)': the longitude '\(longitudeText)' is not a number.")
      }
      let point: GeoPoint
      do {
        point = try GeoPoint(latitude: latitude, longitude: longitude)
      } catch {
        throw .data("Line \(line) of '\(path)': \(error)")
      }
      var properties: [(key: String, value: JSONValue)] = []
      for (i, field) in fields.enumerated() where i != columns.latitude && i != columns.longitude {
        properties.append((i < header.count ? header[i] : "column\(i + 1)", .string(field)))
      }
      points.append(UserPoint(index: row, point: point, properties: .object(properties)))
    }
    return points
  }
}

/// Just enough RFC 4180 for point files: quoted fields, doubled quotes, CRLF.
enum CSV {
  static func rows(_ text: String) -> [[String]] {
    var rows: [[String]] = []
    var row: [String] = []
    var field = ""
    var quoted = false
    var iterator = text.unicodeScalars.makeIterator()
    var pending: Unicode.Scalar? = nil
    while let c = pending ?? iterator.next() {
      pending = nil
      if quoted {
        if c == "\"" {
          if let next = iterator.next() {
            if next == "\"" { field.unicodeScalars.append("\"") } else { quoted = false; pending = next }
          } else {
            quoted = false
          }
        } else {
          field.unicodeScalars.append(c)
        }
        continue
      }
      switch c {
      case "\"" where field.isEmpty: quoted = true
      case ",": row.append(field); field = ""
      case "\r": continue
      case "\n": row.append(field); rows.append(row); row = []; field = ""
      default: field.unicodeScalars.append(c)
      }
    }
    if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
    return rows
  }

  /// The latitude and longitude columns of a header, by the names people use for them.
  static func coordinateColumns(_ header: [String]) -> (latitude: Int, longitude: Int)? {
    let names = header.map { $0.trimmingSpaces.lowercased() }
    guard let latitude = names.firstIndex(where: { ["latitude", "lat", "y"].contains($0) }),
      let longitude = names.firstIndex(where: { ["longitude", "lon", "lng", "long", "x"].contains($0) })
    else { return nil }
    return (latitude, longitude)
  }
}

extension String {
  var trimmingSpaces: String {
    var scalars = Substring(self).unicodeScalars[...]
    while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
    while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
    return String(scalars)
  }
}
