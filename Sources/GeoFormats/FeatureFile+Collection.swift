import AtlasMessages

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

  /// Writes `pieces` as one GeoJSON FeatureCollection, `{"type":"FeatureCollection",MEMBERS"features":[…]}` with
  /// each feature's text as it was read (one `,\n` between two), at the start of the open file `fileDescriptor`,
  /// and returns its features read back from that file by offset, as `load` would have read them, without
  /// parsing the text again: their points, numeric properties and id hashes come from the pieces (which must
  /// share `propertyNames`). `members` (empty, or JSON members each followed by a comma) go before the
  /// features. The returned file keeps a descriptor of its own (a `dup`); `name` names it in errors.
  ///
  /// Text read by offset is read a window of a megabyte at a time, each feature's bytes taken from it: a
  /// dataset written over HTTP copies its unchanged features at the speed of the disk's cache, not a read per
  /// feature, and only its features (not the text of those removed between them).
  ///
  /// - Complexity: O(n) in the pieces' bytes.
  /// - Throws: `FormatError.input` when a read or a write fails.
  public static func collection(
    of pieces: [Piece], propertyNames: [String], members: String = "", writingTo fileDescriptor: Int32,
    name: String
  ) throws(FormatError) -> FeatureFile {
    let file = FeatureFile(naming: name, propertyNames: propertyNames, source: .memory([]))
    let width = propertyNames.count
    file.points.reserveCapacity(pieces.count)
    file.starts.reserveCapacity(pieces.count)
    file.ends.reserveCapacity(pieces.count)
    file.values.reserveCapacity(pieces.count * width)
    var idsKnown = true
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
    func append(_ text: String) {
      buffer += text.utf8
      offset += text.utf8.count
    }
    // The bytes of one descriptor last read, from `windowStart`.
    var window: [UInt8] = []
    var windowFD: Int32 = -1
    var windowStart = 0
    append(#"{"type":"FeatureCollection","# + members + #""features":["#)
    for (i, piece) in pieces.enumerated() {
      let source = piece.file
      precondition(source.propertyNames == propertyNames, "pieces of one collection share their properties")
      if i > 0 { append(",\n") }
      file.starts.append(offset)
      if let (fd, start, end) = source.place(of: piece.index) {
        if fd != windowFD || start < windowStart || end > windowStart + window.count {
          let count = max(end - start, 1 << 20)
          window = [UInt8](unsafeUninitializedCapacity: count) { bytes, initialized in
            var done = 0
            while done < count {
              let got = pread(fd, bytes.baseAddress! + done, count - done, off_t(start + done))
              if got < 0 && errno == EINTR { continue }
              if got <= 0 { break }
              done += got
            }
            initialized = done
          }
          windowFD = fd
          windowStart = start
          guard end - start <= window.count else {
            failure = EIO
            break
          }
        }
        buffer += window[(start - windowStart)..<(end - windowStart)]
        offset += end - start
      } else {
        source.withText(of: piece.index) { text in
          buffer += text
          offset += text.count
        }
      }
      file.ends.append(offset)
      file.points.append(source.points[piece.index])
      if width > 0 { file.values += source.values[(piece.index * width)..<((piece.index + 1) * width)] }
      if source.idHashes.isEmpty {
        idsKnown = false
      } else if idsKnown {
        file.idHashes.append(source.idHashes[piece.index])
      }
      if source.hasIDs { file.hasIDs = true }
      if buffer.count >= 1 << 20 { flush() }
    }
    if !idsKnown { file.idHashes = [] }
    append("]}\n")
    flush()
    guard failure == 0 else {
      throw .input(.fileCannotWrite, name, String(cString: strerror(failure)))
    }
    let own = dup(fileDescriptor)
    guard own >= 0 else { throw .input(.fileCannotReadBack, name, String(cString: strerror(errno))) }
    file.source = .file(fd: own)
    return file
  }

  /// Whether the feature's `id` member is `id`: a string id equal to it, or a number id equal to it as a number
  /// (`7` and `7.0` are the id "7").
  public func hasID(_ id: String, at index: Int) -> Bool {
    hasID(IDQuery(id), at: index)
  }

  /// Whether the feature's `id` member is the query's id; the text is read only when the feature's id hash
  /// leaves it possible.
  public func hasID(_ query: IDQuery, at index: Int) -> Bool {
    guard hasIDs else { return false }
    if !idHashes.isEmpty && !query.mayMatch(idHashes[index]) { return false }
    let id = query.id
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
    // By their bytes: Swift's `==` is canonical equivalence, under which the Kelvin sign is `K`.
    case .string(let text)?: return text.utf8.elementsEqual(id.utf8)
    // As exact decimals, never as doubles: 64-bit ids (OSM's, snowflakes) differ past 2^53.
    case .number(let text)?:
      guard let given = IDQuery.exactDecimal(id.utf8), let value = IDQuery.exactDecimal(text.utf8) else {
        return false
      }
      return given == value
    default: return false
    }
  }
}
