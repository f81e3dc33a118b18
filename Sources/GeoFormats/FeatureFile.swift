import AtlasMessages
import GeoIndex

#if canImport(Glibc)
  import Glibc
#endif

/// The user's points as features: each one's position, its text kept where it can be read back, and the
/// numeric properties a command asked for.
///
/// GeoJSON is read in a stream, one feature at a time: only the features' positions stay in memory, and their
/// text is read back from the file (by offset) when it is printed, so a million features never sit in memory
/// as text and as a parsed tree at once. Text from standard input or from CSV rows is kept in memory.
public final class FeatureFile {
  /// One slot per feature of the collection; nil where a feature has no Point geometry.
  public internal(set) var points: [GeoPoint?] = []
  /// Whether any feature has an `id` member (a tile then reads each point feature's whole text for it).
  public internal(set) var hasIDs = false
  /// Each feature's text: its byte range in `source`.
  var starts: [Int] = []
  var ends: [Int] = []
  /// Per feature, a hash of its GeoJSON `id` (`FeatureFile.IDQuery`), so that finding a feature by its id
  /// reads the text of the few that may have it; empty when not known (features made in memory).
  var idHashes: [UInt64] = []
  /// The numeric properties asked for, `properties.count` values per feature (NaN when absent).
  public internal(set) var values: [Double] = []
  public let propertyNames: [String]
  var source: Source
  /// How errors name the input: its path, or a description (a `Sentence`, said in the reader's language).
  public let naming: any CustomStringConvertible & Sendable

  enum Source {
    case file(fd: Int32)
    case memory([UInt8])
    /// Text in two files read by offset: a feature whose offsets are negative (`~offset`) is in `journal`
    /// (a dataset written over HTTP: its base file and the journal of its changes since).
    case layered(base: Int32, journal: Int32)
  }

  deinit {
    switch source {
    case .file(let fd): close(fd)
    case .layered(let base, let journal):
      close(base)
      close(journal)
    case .memory: break
    }
  }

  init(naming: any CustomStringConvertible & Sendable, propertyNames: [String], source: Source) {
    self.naming = naming
    self.propertyNames = propertyNames
    self.source = source
  }

  /// How many features (with or without a Point).
  public var count: Int { points.count }

  /// Features made in memory, each its GeoJSON text and its point; `name` names them in errors. Their numeric
  /// properties are `values` (`propertyNames.count` a feature) when given, else not read: NaN for each.
  public static func features(
    _ features: [(text: [UInt8], point: GeoPoint?)], name: any CustomStringConvertible & Sendable,
    propertyNames: [String] = [], values: [Double]? = nil, hasIDs: Bool = false
  ) -> FeatureFile {
    var text: [UInt8] = []
    let file = FeatureFile(naming: name, propertyNames: propertyNames, source: .memory([]))
    for feature in features {
      file.starts.append(text.count)
      text += feature.text
      file.ends.append(text.count)
      file.points.append(feature.point)
    }
    file.values = values ?? Array(repeating: .nan, count: features.count * propertyNames.count)
    file.hasIDs = hasIDs
    file.source = .memory(text)
    return file
  }

  /// Points with nothing but a position (no properties, no id), as a caller holding only coordinates has them
  /// (the Python package); `name` names them in errors. Every feature's text is the one
  /// `{"type":"Feature","properties":{}}`, kept once, so a million points cost their positions and offsets;
  /// the positions are `points`, not written back into the text. A tile or a cluster writer treats them as a
  /// GeoJSON file of bare points.
  public static func positions(_ points: [GeoPoint?], name: String) -> FeatureFile {
    let text = Array(#"{"type":"Feature","properties":{}}"#.utf8)
    let file = FeatureFile(naming: name, propertyNames: [], source: .memory(text))
    file.points = points
    file.starts = [Int](repeating: 0, count: points.count)
    file.ends = [Int](repeating: text.count, count: points.count)
    return file
  }

  /// How a CSV row's fields become its feature's properties.
  public enum CSVFields: Sendable {
    /// Each a string, as written; a numeric property asked for is read from the string (`Coordinates.number`).
    case strings
    /// A field that is a JSON number as written (`12`, `-0.5`, `1e3`) a number, any other a string; a numeric
    /// property asked for is that number, NaN for a string: what the features' GeoJSON text reads back as (the
    /// datasets `serve` keeps, whose values must not change when their base file is read again).
    case jsonNumbers
  }

  /// Reads a GeoJSON FeatureCollection or a CSV file (or standard input for "-").
  ///
  /// - Parameters:
  ///   - propertyNames: numeric properties to keep per feature, in `values` (NaN where absent).
  ///   - showProgress: a progress line on standard error while a large regular file is read.
  ///   - name: how errors name the input (default: its path), when the path is not the user's to see: a
  ///     `Sentence` is said in the reader's language.
  ///   - csvFields: how a CSV file's fields become properties.
  /// - Throws: `FormatError` with `.input` when the file cannot be read, `.data` when it is malformed (naming
  ///   line, column and byte for GeoJSON, the line for CSV).
  public static func load(
    path: String, propertyNames: [String] = [], showProgress: Bool = false,
    name: (any CustomStringConvertible & Sendable)? = nil,
    csvFields: CSVFields = .strings
  ) throws(FormatError) -> FeatureFile {
    let input = try InputFile(path: path)
    var reader = ByteReader(input: input, showProgress: showProgress, name: name)
    let file = FeatureFile(naming: name ?? path, propertyNames: propertyNames, source: .memory([]))
    do {
      // A file that can be read again by offset keeps only positions; anything else keeps the text.
      let isJSON = try file.read(&reader, keepText: !input.isRegular, csvFields: csvFields)
      if isJSON && input.isRegular {
        file.source = .file(fd: input.fileDescriptor)  // from here the file owns the descriptor
      } else {
        input.close()
      }
      return file
    } catch {
      input.close()
      throw error
    }
  }

  /// Reads a GeoJSON FeatureCollection or CSV text held in memory; `name` names it in errors.
  public static func parse(
    _ bytes: [UInt8], name: any CustomStringConvertible & Sendable = Sentence(.theInput),
    propertyNames: [String] = [],
    csvFields: CSVFields = .strings
  ) throws(FormatError) -> FeatureFile {
    var reader = ByteReader(bytes: bytes, name: name)
    let file = FeatureFile(naming: name, propertyNames: propertyNames, source: .memory([]))
    _ = try file.read(&reader, keepText: true, csvFields: csvFields)
    return file
  }

  /// Reads either format; true for GeoJSON.
  private func read(_ reader: inout ByteReader, keepText: Bool, csvFields: CSVFields) throws(FormatError)
    -> Bool
  {
    // A Parquet file (it starts with PAR1): read through pyarrow, in the Python package (issue 45).
    if try reader.startsWith(Array("PAR1".utf8)) { throw .data(.featuresParquet, naming) }
    try reader.fill(atLeast: 3)
    reader.skipByteOrderMark()
    reader.skipWhitespace()
    let isJSON = reader.peek == UInt8(ascii: "{")
    if reader.peek == UInt8(ascii: "[") {
      throw .data(.featuresJSONArray, naming)
    }
    if isJSON {
      try readGeoJSON(&reader, keepText: keepText)
    } else {
      try readCSV(&reader, fields: csvFields)
    }
    reader.finishProgress()
    if !isJSON && points.allSatisfy({ $0 == nil }) {
      throw .data(.featuresNoPoints, naming)
    }
    return isJSON
  }

  // MARK: - GeoJSON

  private func readGeoJSON(_ reader: inout ByteReader, keepText: Bool) throws(FormatError) {
    var memory: [UInt8] = []
    var sawType = false
    var sawFeatures = false
    try reader.expect(UInt8(ascii: "{"), Sentence(.formatCollectionStart, "'{'"))
    reader.skipWhitespace()
    if try reader.peekByte() == UInt8(ascii: "}") {
      throw reader.error(Sentence(.formatNoFeaturesMember))
    }
    while true {
      reader.skipWhitespace()
      let key = try reader.readString()
      reader.skipWhitespace()
      try reader.expect(UInt8(ascii: ":"), Sentence(.formatExpectedColon))
      reader.skipWhitespace()
      switch key {
      case "type":
        let type = try reader.readValue()
        guard case .string("FeatureCollection") = type else {
          throw FormatError.data(.featuresWrongType, naming)
        }
        sawType = true
      case "features":
        sawFeatures = true
        try reader.expect(UInt8(ascii: "["), Sentence(.formatFeaturesArray))
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
              throw reader.error(Sentence(.formatBetweenFeatures))
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
        throw reader.error(Sentence(.formatBetweenMembers))
      }
    }
    reader.skipWhitespace()
    if !reader.atEnd { throw reader.error(Sentence(.formatTextAfterCollection)) }
    guard sawType, sawFeatures else {
      throw FormatError.data(.featuresNotCollection, naming)
    }
    if keepText { source = .memory(memory) }
  }

  /// Reads a feature's position (and the properties asked for) without building its tree; false when the
  /// feature is anything but a plain object, so that the full parser can take over.
  private func scan(feature bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard JSONScan.isValid(bytes) else { return false }
    var geometry: UnsafeBufferPointer<UInt8>? = nil
    var properties: UnsafeBufferPointer<UInt8>? = nil
    var id: UnsafeBufferPointer<UInt8>? = nil
    var twoIDs = false
    // A repeated member counts once, the first time, as the full parser reads it.
    let wellFormed = JSONScan.members(of: bytes) { key, value in
      if geometry == nil && JSONScan.equals(key, "geometry") { geometry = value }
      if properties == nil && JSONScan.equals(key, "properties") { properties = value }
      if JSONScan.equals(key, "id") {
        hasIDs = true
        if id == nil { id = value } else { twoIDs = true }
      }
      return true
    }
    // Two ids: the full parser refuses the feature (which one a DELETE names would be a guess).
    guard wellFormed, !twoIDs else { return false }
    var point: GeoPoint? = nil
    if let geometry, !JSONScan.equals(geometry, "null") {
      var type: UnsafeBufferPointer<UInt8>? = nil
      var coordinates: UnsafeBufferPointer<UInt8>? = nil
      guard
        JSONScan.members(
          of: geometry,
          { key, value in
            if type == nil && JSONScan.equals(key, "type") { type = value }
            if coordinates == nil && JSONScan.equals(key, "coordinates") { coordinates = value }
            return true
          })
      else { return false }
      // A type written with escapes ("\u0050oint") is left to the full parser, which decodes them.
      if let type, type.contains(UInt8(ascii: "\\")) { return false }
      let isPoint = type.map { JSONScan.equals($0, "\"Point\"") } ?? false
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
    idHashes.append(id.map(IDQuery.hash(ofMember:)) ?? IDQuery.none)
    return true
  }

  private func add(feature: JSONValue, index: Int) throws(FormatError) {
    guard case .object(let members) = feature else {
      throw FormatError.data(.featureNotObject, index, naming)
    }
    // A feature is indexed by its first id and echoed with all of them: two would leave clients unable to
    // name it (keys compared by their bytes, as ids are).
    guard members.lazy.filter({ $0.key.utf8.elementsEqual("id".utf8) }).count < 2 else {
      throw FormatError.data(.featureTwoIDs, index, naming)
    }
    var point: GeoPoint? = nil
    if let geometry = feature["geometry"], case .string("Point")? = geometry["type"] {
      guard case .array(let coordinates)? = geometry["coordinates"], coordinates.count >= 2,
        let longitude = coordinates[0].doubleValue, let latitude = coordinates[1].doubleValue
      else {
        throw FormatError.data(.featurePointNotNumeric, index, naming)
      }
      do {
        point = try GeoPoint(latitude: latitude, longitude: longitude)
      } catch {
        throw FormatError.data(.featureBadPoint, index, naming, error.sentence)
      }
    }
    points.append(point)
    if feature["id"] != nil { hasIDs = true }
    idHashes.append(IDQuery.unknown)  // read by the full parser: always asked
    let properties = feature["properties"]
    for name in propertyNames { values.append(properties?[name]?.doubleValue ?? .nan) }
  }

  // MARK: - CSV

  private func readCSV(_ reader: inout ByteReader, fields kind: CSVFields) throws(FormatError) {
    var memory: [UInt8] = []
    var header: [String] = []
    var columns = (latitude: 0, longitude: 1)
    var lineNumber = 0
    var sawFirstLine = false
    while let line = try reader.readLine() {
      lineNumber += 1
      guard let text = String(validating: line, as: UTF8.self) else {
        throw FormatError.data(.csvLineNotUTF8, lineNumber, naming)
      }
      if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
      // Batch rows' rule (`BatchRows`): lines end with LF or CRLF; the first non-blank line is a header when
      // it names a latitude and a longitude column, and any other first line is data.
      if line.contains(0x0D) {
        throw FormatError.data(.csvLoneCarriageReturn, lineNumber, naming)
      }
      let fields = line.withUnsafeBufferPointer { bytes in
        var record = CSVRecord(bytes)
        return record.strings()
      }
      if !sawFirstLine {
        sawFirstLine = true
        if let found = CSV.coordinateColumns(fields) {
          header = fields
          columns = found
          continue
        }
        if Coordinates.number(fields.first ?? "") == nil {
          throw FormatError.data(.csvNoColumns, naming)
        }
      }
      guard fields.count > max(columns.latitude, columns.longitude) else {
        throw FormatError.data(.csvTooFewFields, lineNumber, naming, fields.count)
      }
      let point = try csvPoint(
        latitude: fields[columns.latitude], longitude: fields[columns.longitude], line: lineNumber)
      var properties: [(key: String, value: JSONValue)] = []
      for (i, field) in fields.enumerated() where i != columns.latitude && i != columns.longitude {
        let value: JSONValue =
          kind == .jsonNumbers && Self.isJSONNumber(field) ? .number(field) : .string(field)
        properties.append((i < header.count ? header[i] : "column\(i + 1)", value))
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
      idHashes.append(IDQuery.none)
      for name in propertyNames {
        let value = properties.first { $0.key == name }.flatMap { member -> Double? in
          switch member.value {
          case .string(let text): kind == .strings ? Coordinates.number(text) : nil
          case .number: member.value.doubleValue  // as the GeoJSON reader reads it
          default: nil
          }
        }
        values.append(value ?? .nan)
      }
    }
    source = .memory(memory)
  }

  /// Whether a CSV field is a JSON number as it is written (no space around it).
  private static func isJSONNumber(_ field: String) -> Bool {
    var field = field
    return field.withUTF8 { bytes in
      guard let first = bytes.first, let last = bytes.last,
        first == UInt8(ascii: "-") || (0x30...0x39).contains(first), (0x30...0x39).contains(last)
      else { return false }
      return JSONScan.isValid(bytes)
    }
  }

  /// A point from a CSV row, or a data error naming the line.
  private func csvPoint(latitude: String, longitude: String, line: Int) throws(FormatError) -> GeoPoint {
    let latitudeText = latitude.trimmingSpaces
    let longitudeText = longitude.trimmingSpaces
    guard let latitudeValue = Coordinates.number(latitudeText) else {
      throw .data(.csvLatitudeNotNumber, line, naming, latitudeText)
    }
    guard let longitudeValue = Coordinates.number(longitudeText) else {
      throw .data(.csvLongitudeNotNumber, line, naming, longitudeText)
    }
    if let problem = Coordinates.rangeProblem(
      latitude: latitudeValue, latitudeText, longitude: longitudeValue, longitudeText)
    {
      throw .data(.csvOutside, line, naming, problem)
    }
    return GeoPoint(uncheckedLatitude: latitudeValue, longitude: longitudeValue)
  }

  /// The bytes of feature text held in memory (0 when the text is read back from a file).
  public var textBytesInMemory: Int {
    if case .memory(let bytes) = source { return bytes.count }
    return 0
  }

  /// The bytes the features hold in memory as allocated: their text when it is held (not read back from a file),
  /// and each one's point, text offsets, id hash and numeric properties: each array's capacity, which appending
  /// leaves up to twice its count.
  public var bytesInMemory: Int {
    var text = 0
    if case .memory(let bytes) = source { text = bytes.capacity }
    let offsets = starts.capacity + ends.capacity + idHashes.capacity + values.capacity
    return text + points.capacity * MemoryLayout<GeoPoint?>.stride + offsets * MemoryLayout<Int>.stride
  }

  /// Where the feature's text is: a descriptor and its byte range there, or nil when it is in memory.
  @inline(__always)
  func place(of index: Int) -> (fd: Int32, start: Int, end: Int)? {
    switch source {
    case .memory: return nil
    case .file(let fd): return (fd, starts[index], ends[index])
    case .layered(let base, let journal):
      let start = starts[index]
      return start >= 0 ? (base, start, ends[index]) : (journal, ~start, ~ends[index])
    }
  }

  /// A fingerprint of the bytes the features were read from, for cache validators: the file's size and
  /// modification time (as HTTP servers make ETags for files), or a hash of bytes held in memory.
  public var sourceFingerprint: UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix(_ value: UInt64) {
      for shift in stride(from: 0, to: 64, by: 8) {
        hash = (hash ^ ((value >> UInt64(shift)) & 0xFF)) &* 0x0000_0100_0000_01B3
      }
    }
    switch source {
    case .memory(let bytes):
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    case .file(let fd):
      mixStatus(fd)
    case .layered(let base, let journal):
      mixStatus(base)
      mixStatus(journal)
    }
    func mixStatus(_ fd: Int32) {
      var info = stat()
      if fstat(fd, &info) == 0 {
        mix(UInt64(truncatingIfNeeded: info.st_size))
        mix(UInt64(truncatingIfNeeded: info.st_mtim.tv_sec))
        mix(UInt64(truncatingIfNeeded: info.st_mtim.tv_nsec))
        mix(UInt64(truncatingIfNeeded: info.st_ino))
      }
    }
    return hash
  }

  // MARK: - Reading features back

  /// The feature's text, exactly as it was read (or as it was built from a CSV row).
  public func text(of index: Int) -> [UInt8] { withText(of: index) { Array($0) } }

  /// Calls `body` with the feature's text, in place when the bytes are in memory (no copy), else read into
  /// scratch memory (on the stack when small: a tile reads every point's text, and need not allocate and
  /// zero-fill an array for each; `perf` put malloc, free and the copy at about 3 % of a served tile).
  public func withText<R>(of index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if case .memory(let bytes) = source {
      let start = starts[index]
      let end = ends[index]
      return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }
    do {
      let (fd, start, end) = place(of: index)!
      return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: end - start) { scratch in
        var done = 0
        while done < scratch.count {
          let got = pread(fd, scratch.baseAddress! + done, scratch.count - done, off_t(start + done))
          if got <= 0 { break }
          done += got
        }
        return body(UnsafeBufferPointer(rebasing: scratch[0..<done]))
      }
    }
  }

  /// The feature, parsed (it parsed once already, so this cannot fail short of the file changing under us).
  public func feature(_ index: Int) -> JSONValue {
    (try? JSONParser.parse(text(of: index))) ?? .null
  }
}
