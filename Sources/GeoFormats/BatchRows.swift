import GeoIndex
import NewsAtlas

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Streams `latitude,longitude` lines to one answer line each, in order, at millions of rows a second.
///
/// A bad row becomes an error row (with its line number) and the run goes on. A first line whose first field is
/// not a number is a header: it may name the columns (latitude/lat, longitude/lon/lng) in any order.
struct BatchNearest {
  let target: Target
  let format: OutputFormat
  let count: Int
  let maxKilometers: Double
  /// Resolve each row (the country it is in, else the nearest) instead of finding its nearest markers.
  var resolve = false

  struct Failures {
    var rows = 0
    var total = 0
    var firstLine = 0
  }

  /// Runs over `path` and turns failed rows into one summary sentence and the status 65.
  func runReportingFailures(path: String) throws(CLIError) {
    let failed = try run(path: path)
    if failed.rows > 0 {
      throw .data(
        "\(failed.rows) of \(failed.total) rows failed (the first on line \(failed.firstLine)); "
          + "their \(format == .csv ? "error column" : "\"error\" member") says why.")
    }
  }

  /// The batch format for `--input`, csv by default, or a usage error.
  static func format(_ format: OutputFormat?) throws(CLIError) -> OutputFormat {
    let format = format ?? .csv
    guard format == .csv || format == .jsonl else {
      throw .usage("With --input the format is csv or jsonl, not \(format.rawValue).")
    }
    return format
  }

  func run(path: String) throws(CLIError) -> Failures {
    let fd = path == "-" ? 0 : open(path, O_RDONLY)
    if fd < 0 { throw .usage("Cannot open '\(path)': \(String(cString: strerror(errno))).") }
    defer { if fd != 0 { close(fd) } }
    var status = stat()
    let fileSize = fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : 0
    var progress = Progress(totalBytes: fileSize, enabled: fileSize > 0 && StandardError.isTerminal)

    var state = State(batch: self)
    if format == .csv {
      state.out.append(
        resolve
          ? "line,latitude,longitude,code,name,method,containing,distance_km,error\n"
          : target.isCountries
            ? "line,latitude,longitude,code,name,distance_km,bearing_deg,error\n"
            : "line,latitude,longitude,index,distance_km,bearing_deg,error\n")
    }
    let chunkSize = 1 << 22
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkSize * 2 + 1)
    defer { buffer.deallocate() }
    var capacity = chunkSize * 2
    var storage = buffer
    var filled = 0
    var consumedBytes = 0
    var atEnd = false
    while !atEnd {
      if capacity - filled < chunkSize / 2 {
        // A single line longer than the buffer: grow it rather than cut the line.
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2 + 1)
        bigger.update(from: storage, count: filled)
        if storage != buffer { storage.deallocate() }
        storage = bigger
        capacity *= 2
      }
      let got = read(fd, storage + filled, capacity - filled)
      if got < 0 {
        if errno == EINTR { continue }
        throw .usage("Cannot read '\(path)': \(String(cString: strerror(errno))).")
      }
      if got == 0 { atEnd = true } else { filled += got }
      var start = 0
      var cursor = 0
      while true {
        let newline = memchr(storage + cursor, 0x0A, filled - cursor)
        let end: Int
        if let newline {
          end = storage.distance(to: newline.assumingMemoryBound(to: UInt8.self))
        } else if atEnd && start < filled {
          end = filled
        } else {
          break
        }
        state.line(storage, start, end)
        start = end + 1
        cursor = start
        if start >= filled { break }
      }
      consumedBytes += min(start, filled)
      if start < filled {
        memmove(storage, storage + start, filled - start)
        filled -= start
      } else {
        filled = 0
      }
      progress.update(bytes: consumedBytes, rows: state.failures.total)
    }
    if storage != buffer { storage.deallocate() }
    progress.finish()
    state.out.flush()
    return state.failures
  }

  /// Everything one run carries between lines.
  struct State {
    let batch: BatchNearest
    let tree: SphericalKDTree
    let countryColumns: [[UInt8]]
    /// Each news country's offset in `Country.all`, by code.
    let countryOffsets: [String: Int]
    let countryMembers: [[UInt8]]
    let out = OutputBuffer()
    var failures = Failures()
    var lineNumber = 0
    var sawFirstLine = false
    var columns = (latitude: 0, longitude: 1)

    init(batch: BatchNearest) {
      self.batch = batch
      self.tree = batch.target.tree
      countryColumns = Country.all.map { Array("\($0.code),\(csvField($0.name)),".utf8) }
      countryOffsets = Dictionary(uniqueKeysWithValues: Country.all.enumerated().map { ($1.code, $0) })
      countryMembers = Country.all.map { country in
        var json = JSONWriter()
        json.object { country.write(to: &$0) }
        return Array(json.bytes.dropFirst().dropLast())
      }
    }

    mutating func line(_ base: UnsafeMutablePointer<UInt8>, _ start: Int, _ rawEnd: Int) {
      lineNumber += 1
      var end = rawEnd
      if end > start && base[end - 1] == 0x0D { end -= 1 }
      let text = UnsafeBufferPointer(start: base + start, count: end - start)
      if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }  // blank lines are not rows
      let fields = Fields(text)
      if !sawFirstLine {
        sawFirstLine = true
        if fields.count > 0 && NumberParser.parse(fields[0]) == nil && !fields[0].isEmpty
          && fields[0].contains(where: { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A })
          && !["nan", "inf", "infinity", "-nan", "-inf"].contains(fields.string(0).lowercased())
        {
          if let found = CSV.coordinateColumns((0..<fields.count).map { fields.string($0) }) {
            columns = found
          }
          return
        }
      }
      failures.total += 1
      guard fields.count > max(columns.latitude, columns.longitude) else {
        fail(
          fields, "expected latitude,longitude but found \(fields.count) field\(fields.count == 1 ? "" : "s")"
        )
        return
      }
      let latitudeText = fields[columns.latitude]
      let longitudeText = fields[columns.longitude]
      guard let latitude = NumberParser.parse(latitudeText) else {
        fail(fields, "the latitude '\(fields.string(columns.latitude))' is not a number")
        return
      }
      guard let longitude = NumberParser.parse(longitudeText) else {
        fail(fields, "the longitude '\(fields.string(columns.longitude))' is not a number")
        return
      }
      if !(-90.0...90.0).contains(latitude) || !(-180.0...180.0).contains(longitude),
        let problem = rangeProblem(
          latitude: latitude, fields.string(columns.latitude), longitude: longitude,
          fields.string(columns.longitude))
      {
        fail(fields, problem)
        return
      }
      let query = GeoPoint(uncheckedLatitude: latitude, longitude: longitude)
      if batch.resolve {
        resolveRow(latitudeText, longitudeText, Country.resolve(query))
        return
      }
      if batch.format == .csv {
        let neighbor: Neighbor?
        if batch.maxKilometers.isInfinite {
          neighbor = tree.nearest(to: query)
        } else {
          neighbor = tree.neighbors(of: query, count: 1, maxDistanceKilometers: batch.maxKilometers).first
        }
        csvRow(latitudeText, longitudeText, query, neighbor)
      } else {
        jsonlRow(
          query, tree.neighbors(of: query, count: batch.count, maxDistanceKilometers: batch.maxKilometers))
      }
    }

    /// `line,latitude,longitude,` with the coordinates as the user wrote them.
    func echoInput(_ latitudeText: UnsafeBufferPointer<UInt8>, _ longitudeText: UnsafeBufferPointer<UInt8>) {
      out.append(integer: lineNumber)
      out.append(byte: 0x2C)
      out.appendBytes(Fields.unquoted(latitudeText))
      out.append(byte: 0x2C)
      out.appendBytes(Fields.unquoted(longitudeText))
      out.append(byte: 0x2C)
    }

    mutating func csvRow(
      _ latitudeText: UnsafeBufferPointer<UInt8>, _ longitudeText: UnsafeBufferPointer<UInt8>,
      _ query: GeoPoint,
      _ neighbor: Neighbor?
    ) {
      echoInput(latitudeText, longitudeText)
      if let neighbor {
        switch batch.target {
        case .countries: out.append(countryColumns[neighbor.index])
        case .userPoints:
          out.append(integer: batch.target.featureIndex(neighbor))
          out.append(byte: 0x2C)
        }
        out.append(sixDecimals: neighbor.distanceKilometers)
        out.append(byte: 0x2C)
        out.append(
          sixDecimals: GreatCircle.initialBearingDegrees(from: query, to: batch.target.location(neighbor)))
        out.append(byte: 0x2C)
        out.append(byte: 0x0A)
      } else {
        out.append(batch.target.isCountries ? ",,,,\n" : ",,,\n")
      }
      out.flushIfFull()
    }

    mutating func resolveRow(
      _ latitudeText: UnsafeBufferPointer<UInt8>, _ longitudeText: UnsafeBufferPointer<UInt8>,
      _ resolution: Resolution
    ) {
      if batch.format == .csv {
        echoInput(latitudeText, longitudeText)
        out.append(countryColumns[countryOffsets[resolution.country.code]!])
        out.append(resolution.method.rawValue)
        out.append(byte: 0x2C)
        if let containing = resolution.containing { out.append(containing.code) }
        out.append(byte: 0x2C)
        out.append(sixDecimals: resolution.distanceKilometers)
        out.append(",\n")
      } else {
        var json = JSONWriter()
        json.object { object in
          object.number("line", Double(lineNumber))
          resolution.write(to: &object)
        }
        json.bytes.append(0x0A)
        out.append(json.bytes)
      }
      out.flushIfFull()
    }

    mutating func jsonlRow(_ query: GeoPoint, _ found: [Neighbor]) {
      var json = JSONWriter()
      let target = batch.target
      json.object { object in
        object.number("line", Double(lineNumber))
        object.object("query") {
          $0.number("latitude", query.latitude)
          $0.number("longitude", query.longitude)
        }
        object.array("results", found) { json, neighbor in
          json.object { target.writeResult(neighbor, from: query, to: &$0) }
        }
      }
      json.bytes.append(0x0A)
      out.append(json.bytes)
    }

    mutating func fail(_ fields: Fields, _ reason: String) {
      failures.rows += 1
      if failures.firstLine == 0 { failures.firstLine = lineNumber }
      let message = "line \(lineNumber): \(reason)."
      if batch.format == .csv {
        let latitude = fields.count > columns.latitude ? fields.string(columns.latitude) : ""
        let longitude = fields.count > columns.longitude ? fields.string(columns.longitude) : ""
        let empty = batch.resolve ? ",,,,," : batch.target.isCountries ? ",,,," : ",,,"
        out.append("\(lineNumber),\(csvField(latitude)),\(csvField(longitude))\(empty)\(csvField(message))\n")
      } else {
        var json = JSONWriter()
        json.object { object in
          object.number("line", Double(lineNumber))
          object.string("error", message)
        }
        json.bytes.append(0x0A)
        out.append(json.bytes)
      }
      out.flushIfFull()
    }
  }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
func csvField(_ text: String) -> String {
  guard text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else {
    return text
  }
  return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
}

extension String {
  func replacingAll(_ target: Character, with replacement: String) -> String {
    var result = ""
    for character in self {
      if character == target { result += replacement } else { result.append(character) }
    }
    return result
  }
}

/// The comma-separated fields of one line, trimmed of spaces, without copying or allocating (the first 16).
struct Fields {
  private var starts = InlineArray<16, Int>(repeating: 0)
  private var ends = InlineArray<16, Int>(repeating: 0)
  private(set) var count = 0
  private let line: UnsafeBufferPointer<UInt8>

  init(_ line: UnsafeBufferPointer<UInt8>) {
    self.line = line
    var start = 0
    var i = 0
    while count < 16 {
      while i < line.count && line[i] != 0x2C { i += 1 }
      var s = start
      var e = i
      while s < e && (line[s] == 0x20 || line[s] == 0x09) { s += 1 }
      while e > s && (line[e - 1] == 0x20 || line[e - 1] == 0x09) { e -= 1 }
      starts[count] = s
      ends[count] = e
      count += 1
      if i >= line.count { break }
      i += 1
      start = i
    }
  }

  subscript(i: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: line[starts[i]..<ends[i]])
  }

  func string(_ i: Int) -> String { String(decoding: self[i], as: UTF8.self) }

  /// A field without the double quotes around it, if it has them.
  static func unquoted(_ field: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    if field.count >= 2 && field.first == 0x22 && field.last == 0x22 {
      return UnsafeBufferPointer(rebasing: field[1..<(field.count - 1)])
    }
    return field
  }
}

/// Decimal numbers from bytes: plain decimals exactly by Clinger's fast path, anything else via the standard
/// library's correctly rounded parser. Rejects NaN, infinities and hexadecimal.
enum NumberParser {
  /// 10^0 ... 10^22, every one exactly representable.
  private static let powersOfTen: InlineArray<23, Double> = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    1e19, 1e20, 1e21, 1e22,
  ]

  static func parse(_ raw: UnsafeBufferPointer<UInt8>) -> Double? {
    let field = Fields.unquoted(raw)
    guard !field.isEmpty else { return nil }
    var i = 0
    var negative = false
    if field[0] == 0x2D || field[0] == 0x2B {
      negative = field[0] == 0x2D
      i = 1
    }
    var mantissa: UInt64 = 0
    var digits = 0
    var fractionDigits = 0
    var seenPoint = false
    var simple = true
    var hasDigit = false
    while i < field.count {
      let c = field[i]
      if c >= 0x30 && c <= 0x39 {
        hasDigit = true
        if digits < 19 {
          mantissa = mantissa &* 10 &+ UInt64(c - 0x30)
          if mantissa != 0 || digits > 0 { digits += 1 }
          if seenPoint { fractionDigits += 1 }
        } else {
          simple = false
        }
      } else if c == 0x2E && !seenPoint {
        seenPoint = true
      } else if c == 0x65 || c == 0x45 || c == 0x2B || c == 0x2D {
        simple = false
      } else {
        return nil
      }
      i += 1
    }
    guard hasDigit else { return nil }
    if simple && mantissa < (1 << 53) && fractionDigits <= 22 {
      let value = Double(mantissa) / powersOfTen[fractionDigits]
      return negative ? -value : value
    }
    guard let value = Double(String(decoding: field, as: UTF8.self)), value.isFinite else { return nil }
    return value
  }
}

/// A progress line on a terminal's standard error, refreshed at most four times a second.
struct Progress {
  let totalBytes: Int
  let enabled: Bool
  private var last = Progress.now()
  private var shown = false

  init(totalBytes: Int, enabled: Bool) {
    self.totalBytes = totalBytes
    self.enabled = enabled
  }

  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
  }

  mutating func update(bytes: Int, rows: Int) {
    guard enabled else { return }
    let time = Progress.now()
    guard time - last >= 0.25 else { return }
    last = time
    shown = true
    let percent = totalBytes > 0 ? min(100, bytes * 100 / totalBytes) : 0
    StandardError.write("\rnewsatlas: \(percent)% (\(rows) rows)")
  }

  func finish() {
    if shown { StandardError.write("\r\u{1B}[K") }
  }
}
