import GeoFormats

#if canImport(Glibc)
  import Glibc
#endif

/// The journal of a kept dataset (`NAME.journal` beside `NAME.geojson`): the changes written since the base
/// file, each appended as one record and synced before its write is answered, replayed over the base at start.
///
/// The first line names the base it goes on from, `newsatlas-journal FORMAT NONCE BASEVERSION`; a journal that
/// names a base before this one (a PUT or a compaction put a new base in place and the server stopped before the
/// old journal was removed) is stale and dropped; any other first line is left, and the dataset not served. Then
/// records, each a header line `RS add|remove VERSION BYTES HASH` (RS the byte 0x1E, which no payload holds: a
/// JSON text has no raw control character, and a removal's id is written in hexadecimal), BYTES of payload and a
/// line feed; HASH is FNV-1a (64-bit), in hexadecimal, of the header's `add|remove VERSION BYTES ` and the
/// payload, so a flipped digit of a version is damage like one of a feature. An add's payload is a
/// FeatureCollection of the added features, their text as received, `,\n` between two; a removal's payload is
/// the id's UTF-8 bytes in hexadecimal. Format 1 (before) had no RS, hashed the payload alone and kept a removal's
/// id as it is: such a journal is replayed, and its dataset's next change writes a whole base. A record cut
/// short or damaged where a crash's tail can be (part of the batch written when it came, none of it answered)
/// ends the journal: it and anything after it are dropped, and the file is cut back to the last whole record;
/// other damage, or a failed read, keeps the dataset from being served (`replay`). Records are read one at a
/// time, so a start needs the memory of the largest, not of the journal.
enum DatasetJournal {
  static let collectionStart = Array(#"{"type":"FeatureCollection","features":["#.utf8)

  /// The format this server writes; format 1 (payload-only hashes) is still replayed.
  static let format = 2
  /// The first byte of a record of format 2 (ASCII's record separator), which no payload holds.
  static let recordStart: UInt8 = 0x1E

  /// The journal's first line, for the base `nonce` and `baseVersion`.
  static func header(nonce: UInt64, baseVersion: Int, format: Int = format) -> [UInt8] {
    Array("newsatlas-journal \(format) \(hex(nonce)) \(baseVersion)\n".utf8)
  }

  /// An add record for `features`, each feature's text offset from the record's first byte, and the record's
  /// hash.
  static func addRecord(_ features: FeatureFile, version: Int, format: Int = format) -> (
    bytes: [UInt8], textStarts: [Int], hash: UInt64
  ) {
    var payload = collectionStart
    var starts: [Int] = []
    starts.reserveCapacity(features.count)
    for i in 0..<features.count {
      if i > 0 { payload += [UInt8(ascii: ","), 0x0A] }
      starts.append(payload.count)
      features.withText(of: i) { payload += $0 }
    }
    payload += Array("]}".utf8)
    let (head, hash) = recordHead("add", version: version, payload: payload, format: format)
    return (head + payload + [0x0A], starts.map { $0 + head.count }, hash)
  }

  /// A record of the removal of the features whose id is `id`, and its hash.
  static func removeRecord(id: String, version: Int, format: Int = format) -> (bytes: [UInt8], hash: UInt64) {
    let payload = format == 1 ? Array(id.utf8) : Array(id.utf8.map(hexByte).joined().utf8)
    let (head, hash) = recordHead("remove", version: version, payload: payload, format: format)
    return (head + payload + [0x0A], hash)
  }

  /// A record's header line for `payload`, and the record's hash.
  private static func recordHead(_ kind: String, version: Int, payload: [UInt8], format: Int) -> (
    [UInt8], UInt64
  ) {
    let fields = "\(kind) \(version) \(payload.count) "
    guard format != 1 else {
      let hash = hash(payload)
      return (Array((fields + hex(hash) + "\n").utf8), hash)
    }
    let hash = hash(payload, after: hash(fields.utf8))
    return ([recordStart] + Array((fields + hex(hash) + "\n").utf8), hash)
  }

  /// What a replay made: the features with the journal's changes, the version of the last change, and the
  /// bytes of the journal's whole records.
  struct Replayed {
    let file: FeatureFile
    let version: Int
    let journalBytes: Int
    /// The journal's format (an older one is not appended to).
    let format: Int
    /// The base's nonce with the hash of each record applied chained in (format 2; format 1's, as it was served,
    /// is the nonce).
    let identity: UInt64
  }

  /// What a start does with a journal.
  enum Replay {
    /// Empty, torn before any of it was whole, or naming a base before this one: removed.
    case stale
    /// A first line that is not this base's (damaged with whole records after it, another format, a base after
    /// this one): the dataset is not served and the file is left as it is.
    case foreign
    /// Its records applied (a damaged tail cut away first).
    case replayed(Replayed)
    /// Damaged at `offset` where a crash's tail cannot be (a whole record of another change after it): the
    /// dataset is not served and the file is left as it is (neither the changes after the damage nor those
    /// before alone are the dataset that was answered).
    case damaged(offset: Int)
    /// Reading it failed at `offset` (the system's `code`): not damage, so the file is left as it is and the
    /// dataset is not served.
    case unreadable(offset: Int, code: Int32)
  }

  /// Applies the journal at `fd` (a descriptor the result owns from here, closed unless replayed) to `base`'s
  /// features, reading one record at a time (the memory of the largest record, not of the journal);
  /// `readFault` injects read failures in tests (the error number for a range read, or nil to read it).
  ///
  /// A batch's records share one version and are written, then synced once before any is answered, so a crash
  /// leaves part of the batch it was writing, none of it answered, after the last answered batch. A record cut
  /// short or damaged (its hash, its version, its features) at version W after records up to version V is such
  /// a tail when W is V (the rest of the last batch applied) or V + 1 (a new batch) and every whole record after
  /// it (`Reader.onlyVersion`) has version W; when its header cannot be read, when every whole record
  /// after it has version V (none after it is a new batch, whose records would be whole only if answered). A tail
  /// is handed to `tail` (the journal, the tail's bytes, the version served), which keeps it aside, then the
  /// file is cut back to the whole records before it; any other damage is in the middle of answered changes:
  /// `.damaged`. A failed read is not damage: `.unreadable`, nothing cut.
  static func replay(
    _ fd: Int32, over base: FeatureFile, nonce: UInt64, baseVersion: Int, name: String,
    readFault: (@Sendable (Range<Int>) -> Int32?)? = nil,
    tail: (_ journal: Int32, _ bytes: Range<Int>, _ version: Int) -> Void = { _, _, _ in }
  ) -> Replay {
    var reader: Reader
    var headBytes = 0
    do throws(ReadFailure) {
      reader = try Reader(fd: fd, fault: readFault)
      for format in [Self.format, 1] {
        let head = header(nonce: nonce, baseVersion: baseVersion, format: format)
        if reader.size > 0, try reader.read(0..<min(reader.size, head.count)) == head {
          (reader.format, headBytes) = (format, head.count)
          break
        }
      }
      if headBytes == 0 {
        let named = try reader.baseNamed()
        // Another base of this dataset, before this one (a PUT or a compaction put this one in place and the
        // server stopped before the journal went), or the first write of a journal that a crash tore (nothing
        // of it whole in either format, so nothing answered): dropped. Anything else (a first line damaged with
        // records whole after it, an unknown format, a base after this one) is left, and the dataset not served.
        var older = reader
        older.format = 1
        var stale = false
        if let named {
          // Of format 2, only another base's nonce (a PUT's is random, a compaction's the identity its records
          // chained): this nonce at a lower version is a damaged line. Format 1's compaction kept the nonce.
          stale =
            [1, Self.format].contains(named.format) && named.baseVersion < baseVersion
            && (named.format == 1 || named.nonce != nonce)
        } else if try reader.onlyVersion(-1, after: 0) {
          // Nothing whole in format 2; a journal holding no RS may be of format 1.
          stale = try reader.count(recordStart, from: 0, upTo: 1) > 0
          if !stale { stale = try older.onlyVersion(-1, after: 0) }
        }
        guard stale else {
          close(fd)
          return .foreign
        }
        close(fd)
        return .stale
      }
    } catch {
      close(fd)
      return .unreadable(offset: error.offset, code: error.code)
    }
    let file = base.journaledCopy(journal: fd)
    var version = baseVersion
    var identity = nonce
    var position = headBytes
    do throws(ReadFailure) {
      while position < reader.size, let record = try reader.record(at: position),
        try apply(record, reader, to: file, after: version, baseVersion: baseVersion, name: name)
      {
        version = record.version
        position = record.end
        if reader.format != 1 { identity = chained(identity, record.hash) }
      }
      if position < reader.size {
        let damaged = try reader.headerVersion(at: position)
        if let damaged, damaged <= baseVersion || (damaged != version && damaged != version + 1) {
          return .damaged(offset: position)
        }
        guard try reader.onlyVersion(damaged ?? version, after: position) else {
          return .damaged(offset: position)
        }
        // A crash's tail: handed to `tail` (which keeps it aside), then cut away with what follows.
        tail(fd, position..<reader.size, version)
        if ftruncate(fd, off_t(position)) == 0 { _ = fsync(fd) }
      }
    } catch {
      return .unreadable(offset: error.offset, code: error.code)
    }
    return .replayed(
      Replayed(
        file: file, version: version, journalBytes: position, format: reader.format, identity: identity))
  }

  /// Applies `record` to `file`; false when it is damaged (nothing applied).
  private static func apply(
    _ record: Record, _ reader: Reader, to file: FeatureFile, after version: Int, baseVersion: Int,
    name: String
  ) throws(ReadFailure) -> Bool {
    // A record's version follows the base's and never goes down (one batch shares one); any other is damaged,
    // like one out of any range a server reaches (the next write adds one to it).
    guard record.version > baseVersion, record.version >= version, record.version <= maxVersion,
      let bytes = try reader.read(record.payload)
    else { return false }
    guard record.kind == "add" else {
      guard let id = reader.format == 1 ? bytes : unhex(bytes) else { return false }
      file.remove(file.indices(withID: String(decoding: id, as: UTF8.self)))
      return true
    }
    guard let added = try? FeatureFile.parse(bytes, name: name, propertyNames: file.propertyNames) else {
      return false
    }
    // The parser read back the texts the writer put there, `,\n` between two: checked, as the texts are served
    // from these offsets (a record in another layout, its checksum whole, is damaged).
    guard bytes.starts(with: collectionStart) else { return false }
    var starts: [Int] = []
    var offset = collectionStart.count
    for i in 0..<added.count {
      let text = added.text(of: i)
      let end = offset + text.count
      guard end + (i + 1 < added.count ? 2 : 0) <= bytes.count, bytes[offset..<end].elementsEqual(text),
        i + 1 == added.count || (bytes[end] == UInt8(ascii: ",") && bytes[end + 1] == 0x0A)
      else { return false }
      starts.append(record.payload.lowerBound + offset)
      offset = end + 2
    }
    file.append(journaled: added, textStarts: starts)
    return true
  }

  /// A record's header and where its payload is.
  struct Record {
    let kind: String
    let version: Int
    let payload: Range<Int>
    /// Its hash (the whole record's in format 2).
    let hash: UInt64
    var end: Int { payload.upperBound + 1 }
  }

  /// A read of the journal that failed: where, and the system's error number.
  struct ReadFailure: Error {
    let offset: Int
    let code: Int32
  }

  /// Reads a journal by offset; a failed read throws (it is no damage of the file).
  struct Reader {
    let fd: Int32
    let size: Int
    /// The format its records are read in.
    var format = DatasetJournal.format
    let fault: (@Sendable (Range<Int>) -> Int32?)?
    /// The most bytes hashes and scans read at a time.
    static let window = 1 << 20

    init(fd: Int32, fault: (@Sendable (Range<Int>) -> Int32?)? = nil) throws(ReadFailure) {
      self.fd = fd
      self.fault = fault
      var info = stat()
      guard fstat(fd, &info) == 0 else { throw ReadFailure(offset: 0, code: errno) }
      size = Int(info.st_size)
    }

    /// The bytes of `range`, nil when the file is shorter.
    func read(_ range: Range<Int>) throws(ReadFailure) -> [UInt8]? {
      guard range.upperBound <= size else { return nil }
      if let code = fault?(range) { throw ReadFailure(offset: range.lowerBound, code: code) }
      var done = 0
      var code: Int32 = 0
      let bytes = [UInt8](unsafeUninitializedCapacity: range.count) { buffer, initialized in
        while done < range.count {
          let got = pread(fd, buffer.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
          if got < 0 && errno == EINTR { continue }
          if got < 0 { code = errno }
          // The file is shorter than its size a moment ago: no damage a read can tell, so a failure too.
          if got == 0 { code = EIO }
          if got <= 0 { break }
          done += got
        }
        initialized = done
      }
      guard code == 0 else { throw ReadFailure(offset: range.lowerBound + done, code: code) }
      return bytes
    }

    /// The header line at `position`: its kind, version, payload length and hash, or nil when it is not one.
    private func header(at position: Int, before limit: Int) throws(ReadFailure) -> (
      kind: String, version: Int, start: Int, length: Int, hash: UInt64, seed: UInt64
    )? {
      guard let line = try read(position..<min(size, position + 128, max(position, limit))),
        let lineEnd = line.firstIndex(of: 0x0A)
      else { return nil }
      let first = format == 1 ? 0 : 1
      guard format == 1 || line.first == DatasetJournal.recordStart else { return nil }
      let fields = line[first..<lineEnd].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
      guard fields.count == 4, fields[0] == "add" || fields[0] == "remove", let version = Int(fields[1]),
        let length = Int(fields[2]), length >= 0, fields[3].count == 16,
        let expected = UInt64(fields[3], radix: 16)
      else { return nil }
      // Format 2 hashes the header's fields before the hash too (so a version is covered).
      let hashed = line[first..<(lineEnd - 16)]
      let seed = format == 1 ? DatasetJournal.hash([]) : DatasetJournal.hash(hashed)
      guard format == 1 || !hashed.contains(DatasetJournal.recordStart) else { return nil }
      return (fields[0], version, position + lineEnd + 1, length, expected, seed)
    }

    /// What the journal's first line says (`newsatlas-journal FORMAT NONCE BASEVERSION`), nil when it is not
    /// such a line.
    func baseNamed() throws(ReadFailure) -> (format: Int, nonce: UInt64, baseVersion: Int)? {
      guard let line = try read(0..<min(size, 128)), let lineEnd = line.firstIndex(of: 0x0A) else {
        return nil
      }
      let fields = String(decoding: line[..<lineEnd], as: UTF8.self).split(
        separator: " ", omittingEmptySubsequences: false)
      guard fields.count == 4, fields[0] == "newsatlas-journal", let format = Int(fields[1]),
        fields[2].count == 16,
        let nonce = UInt64(fields[2], radix: 16), let baseVersion = Int(fields[3]), baseVersion >= 0
      else { return nil }
      return (format, nonce, baseVersion)
    }

    /// The version in the header line at `position` (unchecked: read from a record whose hash did not match),
    /// nil when it is not a header.
    func headerVersion(at position: Int) throws(ReadFailure) -> Int? {
      try header(at: position, before: size)?.version
    }

    /// The whole record at `position` that ends by `limit` (its hash checked, a window at a time), or nil when
    /// it is cut short or its header or hash is damaged; no byte from `limit` on is read.
    func record(at position: Int, before limit: Int? = nil) throws(ReadFailure) -> Record? {
      let limit = min(limit ?? size, size)
      guard let head = try header(at: position, before: limit) else { return nil }
      let (start, length) = (head.start, head.length)
      guard length <= limit - start - 1, try read(start + length..<start + length + 1) == [0x0A] else {
        return nil
      }
      var hash = head.seed
      var at = start
      while at < start + length {
        guard let bytes = try read(at..<min(start + length, at + Self.window)) else { return nil }
        // No payload of format 2 holds a record's first byte: one there is where another record starts.
        if format != 1 && bytes.contains(DatasetJournal.recordStart) { return nil }
        hash = DatasetJournal.hash(bytes, after: hash)
        at += bytes.count
      }
      guard hash == head.hash else { return nil }
      return Record(kind: head.kind, version: head.version, payload: start..<start + length, hash: hash)
    }

    /// Whether every whole record after `position` has version `version`, in time linear in the journal's
    /// bytes however it was made. Format 2: a record can start only at an RS after `position`, and a whole one
    /// holds no other, so each RS is checked as a record ending before the next one (every byte is read by the
    /// scan once and by one check). Format 1, whose records may start at any line (a payload may hold lines
    /// that are records, so every candidate up to its claimed end would be hashed): only when no whole record
    /// can follow (fewer than three line feeds from `position` on: a record after it starts after one and holds
    /// two), so other damage in such a journal is not cut but left.
    func onlyVersion(_ version: Int, after position: Int) throws(ReadFailure) -> Bool {
      guard format != 1 else { return try count(0x0A, from: position, upTo: 3) < 3 }
      var starts = Scan(of: self, for: DatasetJournal.recordStart, from: position + 1)
      var next = try starts.next()
      while let start = next {
        next = try starts.next()
        if let record = try record(at: start, before: next ?? size), record.version != version {
          return false
        }
      }
      return true
    }

    /// How many `byte`s are from `position` on, counted up to `most`.
    func count(_ byte: UInt8, from position: Int, upTo most: Int) throws(ReadFailure) -> Int {
      var scan = Scan(of: self, for: byte, from: position)
      var found = 0
      while found < most, try scan.next() != nil { found += 1 }
      return found
    }

    /// The offsets of one byte in the journal from an offset on, in order, read a window at a time (each byte
    /// once).
    struct Scan {
      let reader: Reader
      let byte: UInt8
      private var window: [UInt8] = []
      private var windowStart: Int
      private var at: Int

      init(of reader: Reader, for byte: UInt8, from position: Int) {
        self.reader = reader
        self.byte = byte
        windowStart = position
        at = position
      }

      mutating func next() throws(ReadFailure) -> Int? {
        while at < reader.size {
          if at >= windowStart + window.count {
            windowStart = at
            window = try reader.read(at..<min(reader.size, at + Reader.window)) ?? []
            if window.isEmpty { return nil }
          }
          let found = window[(at - windowStart)...].firstIndex(of: byte)
          guard let found else {
            at = windowStart + window.count
            continue
          }
          at = windowStart + found + 1
          return windowStart + found
        }
        return nil
      }
    }
  }

  /// FNV-1a (64-bit) of `bytes`, going on from `hash` (the offset basis: the hash of no bytes).
  static func hash(_ bytes: some Sequence<UInt8>, after hash: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
    var hash = hash
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    return hash
  }

  /// A dataset's identity after a record of hash `recordHash` (`Dataset.Kept.identity`): FNV-1a of the two.
  static func chained(_ identity: UInt64, _ recordHash: UInt64) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for value in [identity, recordHash] {
      for shift in stride(from: 0, to: 64, by: 8) {
        hash = (hash ^ ((value >> UInt64(shift)) & 0xFF)) &* 0x0000_0100_0000_01B3
      }
    }
    return hash
  }

  /// A byte in two lowercase hexadecimal digits.
  static func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
  }

  /// The bytes written in hexadecimal by `hexByte`, nil when `text` is not such.
  static func unhex(_ text: [UInt8]) -> [UInt8]? {
    guard text.count % 2 == 0 else { return nil }
    func digit(_ c: UInt8) -> UInt8? {
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
      default: nil
      }
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.count / 2)
    for i in stride(from: 0, to: text.count, by: 2) {
      guard let high = digit(text[i]), let low = digit(text[i + 1]) else { return nil }
      bytes.append(high << 4 | low)
    }
    return bytes
  }

  static func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// The members a kept base file carries before its features: its version and nonce.
  static func baseMembers(nonce: UInt64, version: Int) -> String {
    #""newsatlas":{"version":\#(version),"nonce":"\#(hex(nonce))"},"#
  }

  /// The version and nonce a kept base file carries (as `baseMembers` wrote them), read from its first bytes;
  /// nil for a file without them (kept before versions were).
  /// The highest version a base or a record may have: far past any count of writes (a base's version is at
  /// most 19 digits, and read as an integer, never as a double).
  static let maxVersion = 1 << 62

  static func baseFacts(_ path: String) -> (version: Int, nonce: UInt64)? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var head = [UInt8](repeating: 0, count: 160)
    let got = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    guard got > 0 else { return nil }
    let text = String(decoding: head[..<got], as: UTF8.self)
    guard
      let match = text.prefixMatch(
        of: /\{"type":"FeatureCollection","newsatlas":\{"version":([0-9]{1,19}),"nonce":"([0-9a-f]{16})"\},/),
      let version = Int(match.1), version <= maxVersion, let nonce = UInt64(match.2, radix: 16)
    else { return nil }
    return (version, nonce)
  }
}
