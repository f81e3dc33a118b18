/// Just enough RFC 4180 for point files: quoted fields, doubled quotes, CRLF.
public enum CSV {
  /// The rows of CSV text, each a list of fields.
  public static func rows(_ text: String) -> [[String]] {
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
            if next == "\"" {
              field.unicodeScalars.append("\"")
            } else {
              quoted = false
              pending = next
            }
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
      case ",":
        row.append(field)
        field = ""
      case "\r": continue
      case "\n":
        row.append(field)
        rows.append(row)
        row = []
        field = ""
      default: field.unicodeScalars.append(c)
      }
    }
    if !field.isEmpty || !row.isEmpty {
      row.append(field)
      rows.append(row)
    }
    return rows
  }

  /// The latitude and longitude columns of a header, by the names people use for them.
  public static func coordinateColumns(_ header: [String]) -> (latitude: Int, longitude: Int)? {
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
