import GeoIndex
import NewsAtlas

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The user's points as features: each one's position, its text kept where it can be read back, and the
/// numeric properties a command asked for.
///
/// GeoJSON is read in a stream, one feature at a time: only the features' positions stay in memory, and their
/// text is read back from the file (by offset) when it is printed, so a million features never sit in memory
/// as text and as a parsed tree at once. Text from standard input or from CSV rows is kept in memory.
final class FeatureFile {
  /// One slot per feature of the collection; nil where a feature has no Point geometry.
  private(set) var points: [GeoPoint?] = []
  /// Each feature's text: its byte range in `source`.
  private var starts: [Int] = []
  private var ends: [Int] = []
  /// The numeric properties asked for, `properties.count` values per feature (NaN when absent).
  private(set) var values: [Double] = []
  let propertyNames: [String]
  private var source: Source
  let path: String

  private enum Source {
    case file(fd: Int32)
    case memory([UInt8])
  }

  deinit {
    if case .file(let fd) = source { close(fd) }
  }

  private init(path: String, propertyNames: [String], source: Source) {
    self.path = path
    self.propertyNames = propertyNames
    self.source = source
  }

  var count: Int { points.count }

  /// The 54 news countries as Point features with `code`, `name` and `nameFr` properties.
  static func countries(propertyNames: [String]) -> FeatureFile {
    var text: [UInt8] = []
    let file = FeatureFile(path: "the 54 countries", propertyNames: propertyNames, source: .memory([]))
    for country in Country.all {
      var json = JSONWriter()
      json.object { feature in
        feature.string("type", "Feature")
        feature.object("properties") {
          $0.string("code", country.code)
          $0.string("name", country.name)
          $0.string("nameFr", country.nameFrench)
        }
        feature.pointGeometry(country.marker)
      }
      file.starts.append(text.count)
      text += json.bytes
      file.ends.append(text.count)
      file.points.append(country.marker)
      file.values += propertyNames.map { _ in Double.nan }
    }
    file.source = .memory(text)
    return file
  }

  /// Reads a GeoJSON FeatureCollection or a CSV file (or standard input for "-").
  static func load(path: String, propertyNames: [String]) throws(CLIError) -> FeatureFile {
    let fd = path == "-" ? 0 : open(path, O_RDONLY)
    if fd < 0 { throw .usage("Cannot open '\(path)': \(String(cString: strerror(errno))).") }
    var reader = ByteReader(fd: fd, path: path)
    do {
      try reader.fill(atLeast: 1)
      reader.skipByteOrderMark()
      reader.skipWhitespace()
      let isJSON = reader.peek == UInt8(ascii: "{")
      let file = FeatureFile(path: path, propertyNames: propertyNames, source: .memory([]))
      if isJSON {
        try file.readGeoJSON(&reader, keepText: fd == 0)
        // From here the file owns the descriptor: features are read back from it, and it closes it.
        if fd != 0 { file.source = .file(fd: fd) }
      } else {
        try file.readCSV(&reader)
        if fd != 0 { close(fd) }
      }
      reader.finishProgress()
      if file.points.allSatisfy({ $0 == nil }) && !isJSON {
        throw CLIError.data("'\(path)' holds no points; give GeoJSON or CSV with latitude,longitude columns.")
      }
      return file
    } catch let error as CLIError {
      if fd > 0 { close(fd) }
      throw error
    } catch {
      if fd > 0 { close(fd) }
      throw .data("Cannot read '\(path)': \(error).")
    }
  }

  // MARK: - GeoJSON

  private func readGeoJSON(_ reader: inout ByteReader, keepText: Bool) throws(CLIError) {
    var memory: [UInt8] = []
    var sawType = false
    var sawFeatures = false
    try reader.expect(UInt8(ascii: "{"), "a GeoJSON FeatureCollection starts with '{'")
    reader.skipWhitespace()
    if try reader.peekByte() == UInt8(ascii: "}") {
      throw reader.error("this object has no \"features\"; give a GeoJSON FeatureCollection")
    }
    while true {
      reader.skipWhitespace()
      let key = try reader.readString()
      reader.skipWhitespace()
      try reader.expect(UInt8(ascii: ":"), "expected ':' after a member name")
      reader.skipWhitespace()
      switch key {
      case "type":
        let type = try reader.readValue()
        guard case .string("FeatureCollection") = type else {
          throw CLIError.data(
            "'\(path)' is not a GeoJSON FeatureCollection (its type is not \"FeatureCollection\").")
        }
        sawType = true
      case "features":
        sawFeatures = true
        try reader.expect(UInt8(ascii: "["), "\"features\" must be an array")
        reader.skipWhitespace()
        if try reader.peekByte() == UInt8(ascii: "]") {
          reader.advance()
        } else {
          while true {
            reader.skipWhitespace()
            let (start, end) = try reader.valueExtent()
            if !reader.withBytes(start: start, end: end, { scan(feature: $0) }) {
              // Anything the fast scan does not expect gets the full parser, and its exact error.
              try add(feature: try reader.parse(start: start, end: end), index: points.count)
            }
            if keepText {
              starts.append(memory.count)
              memory += reader.bytes(start: start, end: end)
              ends.append(memory.count)
            } else {
              starts.append(reader.absolute(start))
              ends.append(reader.absolute(end))
            }
            reader.consume(to: end)
            reader.skipWhitespace()
            let separator = try reader.peekByte()
            reader.advance()
            if separator == UInt8(ascii: "]") { break }
            guard separator == UInt8(ascii: ",") else {
              reader.retreat()
              throw reader.error("expected ',' or ']' between features")
            }
          }
        }
      default:
        let (_, end) = try reader.valueExtent()
        reader.consume(to: end)
      }
      reader.skipWhitespace()
      let separator = try reader.peekByte()
      reader.advance()
      if separator == UInt8(ascii: "}") { break }
      guard separator == UInt8(ascii: ",") else {
        reader.retreat()
        throw reader.error("expected ',' or '}' in the FeatureCollection")
      }
    }
    reader.skipWhitespace()
    if !reader.atEnd { throw reader.error("unexpected text after the FeatureCollection") }
    guard sawType, sawFeatures else {
      throw CLIError.data("'\(path)' is not a GeoJSON FeatureCollection; it needs \"type\" and \"features\".")
    }
    if keepText { source = .memory(memory) }
  }

  /// Reads a feature's position (and the properties asked for) without building its tree; false when the
  /// feature is anything but a plain object, so that the full parser can take over.
  private func scan(feature bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard JSONScan.isValid(bytes) else { return false }
    var geometry: UnsafeBufferPointer<UInt8>? = nil
    var properties: UnsafeBufferPointer<UInt8>? = nil
    let wellFormed = JSONScan.members(of: bytes) { key, value in
      if JSONScan.equals(key, "geometry") { geometry = value }
      if JSONScan.equals(key, "properties") { properties = value }
      return true
    }
    guard wellFormed else { return false }
    var point: GeoPoint? = nil
    if let geometry, !JSONScan.equals(geometry, "null") {
      var isPoint = false
      var coordinates: UnsafeBufferPointer<UInt8>? = nil
      guard
        JSONScan.members(
          of: geometry,
          { key, value in
            if JSONScan.equals(key, "type") { isPoint = JSONScan.equals(value, "\"Point\"") }
            if JSONScan.equals(key, "coordinates") { coordinates = value }
            return true
          })
      else { return false }
      if isPoint {
        guard let coordinates, let pair = JSONScan.numberPair(coordinates),
          (-90.0...90.0).contains(pair.1), (-180.0...180.0).contains(pair.0)
        else { return false }  // the full parser says what is wrong
        point = GeoPoint(uncheckedLatitude: pair.1, longitude: pair.0)
      }
    }
    if !propertyNames.isEmpty {
      let parsed = properties.flatMap { try? JSONParser.parse(Array($0)) }
      for name in propertyNames { values.append(parsed?[name]?.doubleValue ?? .nan) }
    }
    points.append(point)
    return true
  }

  private func add(feature: JSONValue, index: Int) throws(CLIError) {
    guard case .object = feature else {
      throw CLIError.data("Feature \(index) in '\(path)' is not an object.")
    }
    var point: GeoPoint? = nil
    if let geometry = feature["geometry"], case .string("Point")? = geometry["type"] {
      guard case .array(let coordinates)? = geometry["coordinates"], coordinates.count >= 2,
        let longitude = coordinates[0].doubleValue, let latitude = coordinates[1].doubleValue
      else {
        throw CLIError.data(
          "Feature \(index) in '\(path)' has a Point without numeric [longitude, latitude] coordinates.")
      }
      do {
        point = try GeoPoint(latitude: latitude, longitude: longitude)
      } catch {
        throw CLIError.data("Feature \(index) in '\(path)': \(error)")
      }
    }
    points.append(point)
    let properties = feature["properties"]
    for name in propertyNames { values.append(properties?[name]?.doubleValue ?? .nan) }
  }

  // MARK: - CSV

  private func readCSV(_ reader: inout ByteReader) throws(CLIError) {
    var memory: [UInt8] = []
    var header: [String] = []
    var columns = (latitude: 0, longitude: 1)
    var lineNumber = 0
    while let line = try reader.readLine() {
      lineNumber += 1
      guard let text = String(validating: line, as: UTF8.self) else {
        throw CLIError.data("Line \(lineNumber) of '\(path)' is not UTF-8 text.")
      }
      if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
      let fields = CSV.rows(text).first ?? []
      if lineNumber == 1 && !(fields.first?.trimmingSpaces.isNumber ?? false) {
        header = fields
        guard let found = CSV.coordinateColumns(header) else {
          throw CLIError.data(
            "'\(path)' has no latitude and longitude columns in its header; name them latitude and longitude."
          )
        }
        columns = found
        continue
      }
      guard fields.count > max(columns.latitude, columns.longitude) else {
        throw CLIError.data(
          "Line \(lineNumber) of '\(path)' has \(fields.count) fields; latitude and longitude are missing.")
      }
      let point = try NearestCommand.csvPoint(
        latitude: fields[columns.latitude], longitude: fields[columns.longitude], line: lineNumber, path: path
      )
      var properties: [(key: String, value: JSONValue)] = []
      for (i, field) in fields.enumerated() where i != columns.latitude && i != columns.longitude {
        properties.append((i < header.count ? header[i] : "column\(i + 1)", .string(field)))
      }
      var json = JSONWriter()
      json.object { feature in
        feature.string("type", "Feature")
        feature.value("properties", .object(properties))
        feature.pointGeometry(point)
      }
      starts.append(memory.count)
      memory += json.bytes
      ends.append(memory.count)
      points.append(point)
      for name in propertyNames {
        let value = properties.first { $0.key == name }.flatMap { member -> Double? in
          if case .string(let text) = member.value { return Double(text.trimmingSpaces) }
          return nil
        }
        values.append(value ?? .nan)
      }
    }
    source = .memory(memory)
  }

  // MARK: - Reading features back

  /// The feature's text, exactly as it was read (or as it was built from a CSV row).
  func text(of index: Int) -> [UInt8] {
    let start = starts[index]
    let end = ends[index]
    switch source {
    case .memory(let bytes):
      return Array(bytes[start..<end])
    case .file(let fd):
      var buffer = [UInt8](repeating: 0, count: end - start)
      var done = 0
      while done < buffer.count {
        let got = buffer.withUnsafeMutableBytes {
          pread(fd, $0.baseAddress! + done, $0.count - done, off_t(start + done))
        }
        if got <= 0 { break }
        done += got
      }
      return buffer
    }
  }

  /// The feature, parsed (it parsed once already, so this cannot fail short of the file changing under us).
  func feature(_ index: Int) -> JSONValue {
    (try? JSONParser.parse(text(of: index))) ?? .null
  }
}

/// Buffered reading of a file for the streaming parsers, with absolute positions for error messages.
struct ByteReader {
  private let fd: Int32
  private let path: String
  private var buffer: [UInt8] = []
  private var position = 0
  /// The absolute offset of `buffer[0]`, and the line it is on.
  private var base = 0
  private var baseLine = 1
  /// Bytes between the last line break before `buffer[0]` and `buffer[0]`.
  private var baseColumn = 0
  private var eof = false
  private var progress: Progress
  /// Where each read lands before it joins `buffer`.
  private var chunk = [UInt8](repeating: 0, count: 1 << 20)

  init(fd: Int32, path: String) {
    self.fd = fd
    self.path = path
    var status = stat()
    let size = fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : 0
    progress = Progress(totalBytes: size, enabled: size > 0 && StandardError.isTerminal)
    buffer.reserveCapacity(1 << 21)
  }

  var atEnd: Bool {
    mutating get {
      if position < buffer.count { return false }
      _ = try? fill(atLeast: 1)
      return position >= buffer.count
    }
  }

  var peek: UInt8? { position < buffer.count ? buffer[position] : nil }

  func absolute(_ index: Int) -> Int { base + index }

  /// Makes at least `count` bytes available from `position`, unless the file ends first.
  mutating func fill(atLeast count: Int) throws(CLIError) {
    while buffer.count - position < count && !eof {
      if position > 0 && position >= buffer.count / 2 { discardConsumed() }
      let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
      if got < 0 {
        if errno == EINTR { continue }
        throw .usage("Cannot read '\(path)': \(String(cString: strerror(errno))).")
      }
      buffer.append(contentsOf: chunk[0..<got])
      if got == 0 { eof = true }
      progress.update(bytes: base + buffer.count, rows: 0)
    }
  }

  /// Drops the bytes before `position`, keeping line numbers right.
  private mutating func discardConsumed() {
    if let lastBreak = buffer[0..<position].lastIndex(of: 0x0A) {
      for byte in buffer[0..<position] where byte == 0x0A { baseLine += 1 }
      baseColumn = position - lastBreak - 1
    } else {
      baseColumn += position
    }
    base += position
    buffer.removeSubrange(0..<position)
    position = 0
  }

  mutating func finishProgress() { progress.finish() }

  mutating func peekByte() throws(CLIError) -> UInt8 {
    try fill(atLeast: 1)
    guard position < buffer.count else { throw error("the text ends too early") }
    return buffer[position]
  }

  mutating func advance() { position += 1 }
  mutating func retreat() { position -= 1 }
  mutating func consume(to end: Int) { position = end }

  mutating func skipByteOrderMark() {
    if buffer.count - position >= 3 && buffer[position] == 0xEF && buffer[position + 1] == 0xBB
      && buffer[position + 2] == 0xBF
    {
      position += 3
    }
  }

  mutating func skipWhitespace() {
    while true {
      while position < buffer.count {
        switch buffer[position] {
        case 0x20, 0x0A, 0x0D, 0x09: position += 1
        default: return
        }
      }
      if eof { return }
      do { try fill(atLeast: 1) } catch { return }
      if position >= buffer.count { return }
    }
  }

  mutating func expect(_ byte: UInt8, _ message: String) throws(CLIError) {
    skipWhitespace()
    guard try peekByte() == byte else { throw error(message) }
    position += 1
  }

  func bytes(start: Int, end: Int) -> ArraySlice<UInt8> { buffer[start..<end] }

  func withBytes<T>(start: Int, end: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
    buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
  }

  /// The buffer range of the JSON value at `position`, found by scanning brackets and strings, reading more of
  /// the file as needed. Indices stay valid until the next call that reads.
  mutating func valueExtent() throws(CLIError) -> (Int, Int) {
    while true {
      if let end = scanValue(from: position) { return (position, end) }
      if eof { throw error("the text ends inside a value") }
      let before = buffer.count - position
      try fill(atLeast: before + 1)
    }
  }

  /// The end of the value starting at `start`, or nil when the buffer ends first.
  private func scanValue(from start: Int) -> Int? {
    let end = buffer.withUnsafeBufferPointer { JSONScan.valueEnd($0, start) }
    // A value that runs to the end of the buffer may go on in the part of the file not read yet.
    guard let end, end < buffer.count || eof else { return nil }
    return end > start ? end : nil
  }

  /// Parses `buffer[start..<end]`, reporting errors at their absolute position.
  func parse(start: Int, end: Int) throws(CLIError) -> JSONValue {
    do {
      return try JSONParser.parse(Array(buffer[start..<end]))
    } catch {
      let at = start + error.offset
      throw self.error("\(error.reason)", at: at)
    }
  }

  mutating func readValue() throws(CLIError) -> JSONValue {
    let (start, end) = try valueExtent()
    let value = try parse(start: start, end: end)
    position = end
    return value
  }

  mutating func readString() throws(CLIError) -> String {
    guard try peekByte() == UInt8(ascii: "\"") else { throw error("expected a quoted member name") }
    guard case .string(let text) = try readValue() else { throw error("expected a quoted member name") }
    return text
  }

  /// The next line without its line break, or nil at the end.
  mutating func readLine() throws(CLIError) -> ArraySlice<UInt8>? {
    while true {
      if let newline = buffer[position...].firstIndex(of: 0x0A) {
        var end = newline
        if end > position && buffer[end - 1] == 0x0D { end -= 1 }
        let line = buffer[position..<end]
        position = newline + 1
        return line
      }
      if eof {
        guard position < buffer.count else { return nil }
        let line = buffer[position...]
        position = buffer.count
        return line.last == 0x0D ? line.dropLast() : line
      }
      try fill(atLeast: buffer.count - position + 1)
    }
  }

  /// A data error at `index` (default: the current position), naming line, column and byte offset.
  func error(_ reason: String, at index: Int? = nil) -> CLIError {
    let at = min(index ?? position, buffer.count)
    var line = baseLine
    var lineStart = -baseColumn
    for i in 0..<at where buffer[i] == 0x0A {
      line += 1
      lineStart = i + 1
    }
    let column = at - lineStart + 1
    return .data(
      "'\(path)' is not valid GeoJSON at line \(line), column \(column) (byte \(base + at)): \(reason).")
  }
}

/// Quick structural scans of JSON text that is already known to be one balanced value.
enum JSONScan {
  /// Calls `body` with each member's key (without quotes) and value text of an object; false when the text is
  /// not a plain object (or a key has escapes), so that a full parse can take over.
  static func members(
    of text: UnsafeBufferPointer<UInt8>,
    _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool
  ) -> Bool {
    var i = skip(text, 0)
    guard i < text.count, text[i] == UInt8(ascii: "{") else { return false }
    i = skip(text, i + 1)
    if i < text.count && text[i] == UInt8(ascii: "}") { return skip(text, i + 1) == text.count }
    while true {
      guard i < text.count, text[i] == UInt8(ascii: "\"") else { return false }
      var keyEnd = i + 1
      while keyEnd < text.count && text[keyEnd] != UInt8(ascii: "\"") {
        if text[keyEnd] == UInt8(ascii: "\\") { return false }
        keyEnd += 1
      }
      guard keyEnd < text.count else { return false }
      let key = UnsafeBufferPointer(rebasing: text[(i + 1)..<keyEnd])
      i = skip(text, keyEnd + 1)
      guard i < text.count, text[i] == UInt8(ascii: ":") else { return false }
      i = skip(text, i + 1)
      guard let valueEnd = valueEnd(text, i) else { return false }
      guard body(key, UnsafeBufferPointer(rebasing: text[i..<valueEnd])) else { return false }
      i = skip(text, valueEnd)
      guard i < text.count else { return false }
      if text[i] == UInt8(ascii: "}") { return skip(text, i + 1) == text.count }
      guard text[i] == UInt8(ascii: ",") else { return false }
      i = skip(text, i + 1)
    }
  }

  /// `[number, number, …]` as its first two numbers.
  static func numberPair(_ text: UnsafeBufferPointer<UInt8>) -> (Double, Double)? {
    var i = skip(text, 0)
    guard i < text.count, text[i] == UInt8(ascii: "[") else { return nil }
    var numbers: [Double] = []
    i = skip(text, i + 1)
    while numbers.count < 2 {
      var end = i
      while end < text.count
        && ![UInt8(ascii: ","), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09].contains(text[end])
      {
        end += 1
      }
      guard end > i, let value = NumberParser.parse(UnsafeBufferPointer(rebasing: text[i..<end])) else {
        return nil
      }
      numbers.append(value)
      i = skip(text, end)
      guard i < text.count else { return nil }
      if text[i] == UInt8(ascii: "]") { break }
      guard text[i] == UInt8(ascii: ",") else { return nil }
      i = skip(text, i + 1)
    }
    return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
  }

  /// Whether the text is exactly one valid JSON value (RFC 8259), checked without allocating.
  static func isValid(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    guard value(text, &i, depth: 0) else { return false }
    return skip(text, i) == text.count
  }

  private static func value(_ t: UnsafeBufferPointer<UInt8>, _ i: inout Int, depth: Int) -> Bool {
    i = skip(t, i)
    guard i < t.count, depth < 512 else { return false }
    switch t[i] {
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      let close = t[i] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
      let isObject = close == UInt8(ascii: "}")
      i = skip(t, i + 1)
      if i < t.count && t[i] == close {
        i += 1
        return true
      }
      while true {
        if isObject {
          guard i < t.count, t[i] == UInt8(ascii: "\""), string(t, &i) else { return false }
          i = skip(t, i)
          guard i < t.count, t[i] == UInt8(ascii: ":") else { return false }
          i += 1
        }
        guard value(t, &i, depth: depth + 1) else { return false }
        i = skip(t, i)
        guard i < t.count else { return false }
        if t[i] == close {
          i += 1
          return true
        }
        guard t[i] == UInt8(ascii: ",") else { return false }
        i = skip(t, i + 1)
      }
    case UInt8(ascii: "\""): return string(t, &i)
    case UInt8(ascii: "t"): return literal(t, &i, "true")
    case UInt8(ascii: "f"): return literal(t, &i, "false")
    case UInt8(ascii: "n"): return literal(t, &i, "null")
    default: return number(t, &i)
    }
  }

  private static func literal(_ t: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ word: StaticString) -> Bool {
    let n = word.utf8CodeUnitCount
    guard i + n <= t.count, (0..<n).allSatisfy({ t[i + $0] == word.utf8Start[$0] }) else { return false }
    i += n
    return true
  }

  private static func string(_ t: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Bool {
    i += 1
    while i < t.count {
      let byte = t[i]
      if byte == UInt8(ascii: "\"") {
        i += 1
        return true
      }
      if byte < 0x20 { return false }
      if byte == UInt8(ascii: "\\") {
        guard i + 1 < t.count else { return false }
        switch t[i + 1] {
        case UInt8(ascii: "u"):
          guard i + 5 < t.count,
            (2...5).allSatisfy({ k in
              let c = t[i + k] | 0x20
              return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66)
            })
          else { return false }
          i += 6
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
          UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
          i += 2
        default: return false
        }
        continue
      }
      i += 1
    }
    return false
  }

  private static func number(_ t: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Bool {
    func digits(_ i: inout Int) -> Int {
      let start = i
      while i < t.count && t[i] >= 0x30 && t[i] <= 0x39 { i += 1 }
      return i - start
    }
    if i < t.count && t[i] == UInt8(ascii: "-") { i += 1 }
    let first = i
    let count = digits(&i)
    guard count > 0, count == 1 || t[first] != 0x30 else { return false }
    if i < t.count && t[i] == UInt8(ascii: ".") {
      i += 1
      guard digits(&i) > 0 else { return false }
    }
    if i < t.count && (t[i] | 0x20) == UInt8(ascii: "e") {
      i += 1
      if i < t.count && (t[i] == UInt8(ascii: "+") || t[i] == UInt8(ascii: "-")) { i += 1 }
      guard digits(&i) > 0 else { return false }
    }
    return true
  }

  static func equals(_ text: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
    text.count == word.utf8CodeUnitCount && (0..<text.count).allSatisfy { text[$0] == word.utf8Start[$0] }
  }

  private static func skip(_ text: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
    var i = start
    while i < text.count && (text[i] == 0x20 || text[i] == 0x0A || text[i] == 0x0D || text[i] == 0x09) {
      i += 1
    }
    return i
  }

  /// The end of the value starting at `start`: brackets balanced, strings skipped.
  static func valueEnd(_ text: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
    var i = start
    var depth = 0
    var inString = false
    while i < text.count {
      let byte = text[i]
      if inString {
        if byte == UInt8(ascii: "\\") {
          i += 2
          continue
        }
        if byte == UInt8(ascii: "\"") {
          inString = false
          if depth == 0 { return i + 1 }
        }
      } else {
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          if depth == 0 { return i }
          depth -= 1
          if depth == 0 { return i + 1 }
        case UInt8(ascii: ","), 0x20, 0x0A, 0x0D, 0x09:
          if depth == 0 { return i }
        default: break
        }
      }
      i += 1
    }
    return depth == 0 && !inString ? i : nil
  }
}
