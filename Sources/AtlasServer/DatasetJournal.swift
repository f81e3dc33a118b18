import GeoFormats

#if canImport(Glibc)
  import Glibc
#endif

/// The journal of a kept dataset (`NAME.journal` beside `NAME.geojson`): the changes written since the base
/// file, each appended as one record and synced before its write is answered, replayed over the base at start.
///
/// The first line names the base it goes on from, `newsatlas-journal 1 NONCE BASEVERSION`; a journal that names
/// another base (a PUT or a compaction put a new base in place and the server stopped before the old journal was
/// removed) is stale and dropped. Then records, each a header line `add|remove VERSION BYTES HASH`, BYTES of
/// payload and a line feed; HASH is FNV-1a (64-bit) of the payload in hexadecimal. An add's payload is a
/// FeatureCollection of the added features, their text as received, `,\n` between two; a removal's payload is
/// the id. A record cut short (a crash while it was written, before its write was answered) or whose hash does
/// not match ends the journal: it and anything after it are dropped whole, and the file is cut back to the last
/// whole record.
enum DatasetJournal {
  static let collectionStart = Array(#"{"type":"FeatureCollection","features":["#.utf8)

  /// The journal's first line, for the base `nonce` and `baseVersion`.
  static func header(nonce: UInt64, baseVersion: Int) -> [UInt8] {
    Array("newsatlas-journal 1 \(hex(nonce)) \(baseVersion)\n".utf8)
  }

  /// An add record for `features`, and each feature's text offset from the record's first byte.
  static func addRecord(_ features: FeatureFile, version: Int) -> (bytes: [UInt8], textStarts: [Int]) {
    var payload = collectionStart
    var starts: [Int] = []
    starts.reserveCapacity(features.count)
    for i in 0..<features.count {
      if i > 0 { payload += [UInt8(ascii: ","), 0x0A] }
      starts.append(payload.count)
      features.withText(of: i) { payload += $0 }
    }
    payload += Array("]}".utf8)
    let head = Array("add \(version) \(payload.count) \(hex(hash(payload)))\n".utf8)
    return (head + payload + [0x0A], starts.map { $0 + head.count })
  }

  /// A record of the removal of the features whose id is `id`.
  static func removeRecord(id: String, version: Int) -> [UInt8] {
    let payload = Array(id.utf8)
    return Array("remove \(version) \(payload.count) \(hex(hash(payload)))\n".utf8) + payload + [0x0A]
  }

  /// What a replay made: the features with the journal's changes, the version of the last change, and the
  /// bytes of the journal's whole records.
  struct Replayed {
    let file: FeatureFile
    let version: Int
    let journalBytes: Int
  }

  /// Applies the journal at `fd` (a descriptor the result owns from here) to `base`'s features; nil when the
  /// journal is empty or names another base (the caller removes it). A record cut short or damaged is dropped
  /// with everything after it, and the file cut back to the whole records before it.
  static func replay(_ fd: Int32, over base: FeatureFile, nonce: UInt64, baseVersion: Int, name: String)
    -> Replayed?
  {
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_size > 0 else {
      close(fd)
      return nil
    }
    let size = Int(info.st_size)
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
      var done = 0
      while done < size {
        let got = pread(fd, buffer.baseAddress! + done, size - done, off_t(done))
        if got < 0 && errno == EINTR { continue }
        if got <= 0 { break }
        done += got
      }
      initialized = done
    }
    let head = header(nonce: nonce, baseVersion: baseVersion)
    guard bytes.starts(with: head) else {
      close(fd)
      return nil
    }
    let file = base.journaledCopy(journal: fd)
    var version = baseVersion
    var position = head.count
    records: while position < bytes.count {
      // A record's version follows the base's and never goes down (one batch shares one); any other is damaged,
      // like one out of any range a server reaches (the next write adds one to it).
      guard let record = wholeRecord(in: bytes, at: position), record.version > baseVersion,
        record.version >= version, record.version < 1 << 52
      else { break }
      switch record.kind {
      case "add":
        let payload = Array(bytes[record.payload])
        guard let added = try? FeatureFile.parse(payload, name: name, propertyNames: file.propertyNames)
        else {
          break records
        }
        // The parser read back the texts the writer put there, `,\n` between two: checked, as the texts are
        // served from these offsets (a record in another layout, its checksum whole, is damaged).
        guard bytes[record.payload].starts(with: collectionStart) else { break records }
        var starts: [Int] = []
        var offset = record.payload.lowerBound + collectionStart.count
        for i in 0..<added.count {
          let text = added.text(of: i)
          let end = offset + text.count
          guard end + (i + 1 < added.count ? 2 : 0) <= record.payload.upperBound,
            bytes[offset..<end].elementsEqual(text),
            i + 1 == added.count || (bytes[end] == UInt8(ascii: ",") && bytes[end + 1] == 0x0A)
          else { break records }
          starts.append(offset)
          offset = end + 2
        }
        file.append(journaled: added, textStarts: starts)
      default:
        file.remove(file.indices(withID: String(decoding: bytes[record.payload], as: UTF8.self)))
      }
      version = record.version
      position = record.end
    }
    if position < bytes.count {
      // A record cut short or damaged: dropped whole, with what follows.
      if ftruncate(fd, off_t(position)) == 0 { _ = fsync(fd) }
    }
    return Replayed(file: file, version: version, journalBytes: position)
  }

  /// The whole record at `position`, or nil when it is cut short or damaged.
  private static func wholeRecord(in bytes: [UInt8], at position: Int) -> (
    kind: String, version: Int, payload: Range<Int>, end: Int
  )? {
    guard let lineEnd = bytes[position..<min(bytes.count, position + 128)].firstIndex(of: 0x0A) else {
      return nil
    }
    let fields = String(decoding: bytes[position..<lineEnd], as: UTF8.self).split(separator: " ")
    guard fields.count == 4, fields[0] == "add" || fields[0] == "remove", let version = Int(fields[1]),
      let length = Int(fields[2]), length >= 0, let expected = UInt64(fields[3], radix: 16)
    else { return nil }
    let start = lineEnd + 1
    guard length <= bytes.count - start - 1, bytes[start + length] == 0x0A,
      hash(bytes[start..<(start + length)]) == expected
    else { return nil }
    return (String(fields[0]), version, start..<(start + length), start + length + 1)
  }

  static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    return hash
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
        of: /\{"type":"FeatureCollection","newsatlas":\{"version":([0-9]{1,18}),"nonce":"([0-9a-f]{16})"\},/),
      let version = Int(match.1), let nonce = UInt64(match.2, radix: 16)
    else { return nil }
    return (version, nonce)
  }
}
