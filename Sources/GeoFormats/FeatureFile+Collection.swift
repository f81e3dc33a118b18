#if canImport(Glibc)
  import Glibc
#endif

extension FeatureFile {
  /// One feature of a file: what a dataset written over HTTP is made of, whichever file each came from.
  public struct Piece {
    public let file: FeatureFile
    public let index: Int
    public init(_ file: FeatureFile, _ index: Int) {
      self.file = file
      self.index = index
    }
  }

  /// Every feature of this file, in order.
  public var pieces: [Piece] { (0..<count).map { Piece(self, $0) } }

  /// Writes `pieces` as one GeoJSON FeatureCollection, `{"type":"FeatureCollection","features":[…]}` with each
  /// feature's text as it was read, at the start of the open file `fileDescriptor`, and returns its features
  /// read back from that file by offset, as `load` would have read them, without parsing the text again: their
  /// points and numeric properties come from the pieces (which must share `propertyNames`). The returned file
  /// keeps a descriptor of its own (a `dup`); `name` names it in errors.
  ///
  /// - Complexity: O(n) in the pieces' bytes.
  /// - Throws: `FormatError.input` when a write fails.
  public static func collection(
    of pieces: [Piece], propertyNames: [String], writingTo fileDescriptor: Int32, name: String
  ) throws(FormatError) -> FeatureFile {
    let file = FeatureFile(path: name, propertyNames: propertyNames, source: .memory([]))
    let width = propertyNames.count
    file.points.reserveCapacity(pieces.count)
    file.starts.reserveCapacity(pieces.count)
    file.ends.reserveCapacity(pieces.count)
    file.values.reserveCapacity(pieces.count * width)
    var buffer: [UInt8] = []
    buffer.reserveCapacity(1 << 20)
    var offset = 0
    var failure: Int32 = 0
    func flush() {
      guard failure == 0 else { return }
      var written = 0
      while written < buffer.count {
        let count = buffer[written...].withUnsafeBytes {
          Glibc.write(fileDescriptor, $0.baseAddress, $0.count)
        }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else {
          failure = errno == 0 ? EIO : errno
          return
        }
        written += count
      }
      buffer.removeAll(keepingCapacity: true)
    }
    func append(_ text: StaticString) {
      text.withUTF8Buffer { buffer += $0 }
      offset += text.utf8CodeUnitCount
    }
    append(#"{"type":"FeatureCollection","features":["#)
    var i = 0
    while i < pieces.count {
      let piece = pieces[i]
      let source = piece.file
      precondition(source.propertyNames == propertyNames, "pieces of one collection share their properties")
      if i > 0 { append(",\n") }
      // A run of consecutive features of a file read by offset is copied as one range, separators and all (a
      // GeoJSON file's features are apart by white space and one comma): a dataset written over HTTP copies
      // its unchanged features at the speed of the disk's cache, not a read per feature.
      var last = i
      if case .file(let fd) = source.source {
        while last + 1 < pieces.count, pieces[last + 1].file === source,
          pieces[last + 1].index == pieces[last].index + 1
        {
          last += 1
        }
        let first = piece.index
        let final = first + last - i
        let base = source.starts[first]
        for k in first...final {
          file.starts.append(offset + source.starts[k] - base)
          file.ends.append(offset + source.ends[k] - base)
        }
        var position = base
        let end = source.ends[final]
        while position < end && failure == 0 {
          let count = min(end - position, 1 << 20)
          let old = buffer.count
          buffer.append(contentsOf: repeatElement(0, count: count))
          let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + old, count, off_t(position)) }
          guard got == count else {
            failure = got < 0 ? errno : EIO
            break
          }
          position += count
          offset += count
          flush()
        }
        file.points += source.points[first...final]
        if width > 0 { file.values += source.values[(first * width)..<((final + 1) * width)] }
      } else {
        source.withText(of: piece.index) { text in
          file.starts.append(offset)
          buffer += text
          offset += text.count
          file.ends.append(offset)
        }
        file.points.append(source.points[piece.index])
        if width > 0 { file.values += source.values[(piece.index * width)..<((piece.index + 1) * width)] }
      }
      if source.hasIDs { file.hasIDs = true }
      if buffer.count >= 1 << 20 { flush() }
      i = last + 1
    }
    append("]}\n")
    flush()
    guard failure == 0 else {
      throw .input("Cannot write '\(name)': \(String(cString: strerror(failure))).")
    }
    let own = dup(fileDescriptor)
    guard own >= 0 else { throw .input("Cannot read '\(name)' back: \(String(cString: strerror(errno))).") }
    file.source = .file(fd: own)
    return file
  }

  /// Whether the feature's `id` member is `id`: a string id equal to it, or a number id equal to it as a number
  /// (`7` and `7.0` are the id "7").
  public func hasID(_ id: String, at index: Int) -> Bool {
    guard hasIDs else { return false }
    let member = withText(of: index) { text -> JSONValue? in
      var found: [UInt8]? = nil
      let plain = JSONScan.members(of: text) { key, value in
        if found == nil && JSONScan.equals(key, "id") { found = Array(value) }
        return true
      }
      if plain { return found.flatMap { try? JSONParser.parse($0) } }
      return (try? JSONParser.parse(Array(text)))?["id"]  // escapes in a key: the full parser
    }
    switch member {
    case .string(let text)?: return text == id
    case .number(let text)?:
      guard let given = Coordinates.number(id), let value = Coordinates.number(text) else { return false }
      return given == value
    default: return false
    }
  }
}
