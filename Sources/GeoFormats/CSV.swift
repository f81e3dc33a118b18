/// CSV text as rows, and the rule that finds a point file's coordinate columns.
public enum CSV {
  /// The rows of CSV text, each a list of fields, read by `CSVRecord` (quoted fields may span lines).
  public static func rows(_ text: String) -> [[String]] {
    var rows: [[String]] = []
    var text = text
    text.withUTF8 { bytes in
      var start = 0
      while start < bytes.count {
        var record = CSVRecord(UnsafeBufferPointer(rebasing: bytes[start...]))
        rows.append(record.strings())
        start += record.end
      }
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
