#if canImport(Glibc)
  import Glibc
#endif

extension FeatureFile {
  /// A feature id to find (`DELETE /v1/datasets/{name}/features/{id}`), with the hashes a feature's id may
  /// have when it is that id: a string id equal to it, or a number id equal to it as a number (`7` and `7.0`
  /// are the id "7").
  ///
  /// Each feature read from GeoJSON keeps a hash of its id (`idHashes`): of a plain ASCII string's bytes, of a
  /// number's value, or a bucket for ids that need a closer look (escapes or non-ASCII bytes in a string, a
  /// feature the full parser read). A feature whose hash is none of the query's cannot have the id; the others
  /// are checked on their text (`hasID`), so the hash narrows the search and never decides it.
  public struct IDQuery {
    public let id: String
    /// The hashes that may be the id's; nil when any feature may have it (an id that is not ASCII: Swift's
    /// string equality is canonical equivalence, and `\u{212A}` (Kelvin) equals `K`).
    let hashes: (UInt64, UInt64, UInt64, UInt64)?

    /// No id.
    static let none: UInt64 = 0
    /// An id read by the full parser: always checked.
    static let unknown: UInt64 = 1
    /// A string id with escapes or non-ASCII bytes: checked for any query.
    static let unusual: UInt64 = 2

    public init(_ id: String) {
      self.id = id
      guard id.utf8.allSatisfy({ $0 < 0x80 }) else {
        hashes = nil
        return
      }
      let text = Self.hash(tag: UInt8(ascii: "s"), id.utf8)
      let number = Coordinates.number(id).map(Self.hash(number:)) ?? Self.unknown
      hashes = (Self.unknown, Self.unusual, text, number)
    }

    /// A decimal number's exact value (JSON's grammar: `-`, digits, `.` digits, `e` exponent), as its sign, its
    /// significant digits and a power of ten: `7`, `7.0` and `0.7e1` are one value, `-0` is `0`, and
    /// 9007199254740993 is not 9007199254740992 (as doubles they are one). Nil for any other text, or an
    /// exponent past ±10^9.
    static func exactDecimal(_ text: some Collection<UInt8>) -> ExactDecimal? {
      var bytes = text.makeIterator()
      var next = bytes.next()
      /// The run of digits from `next` on, consumed.
      func digitRun() -> [UInt8] {
        var run: [UInt8] = []
        while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
          run.append(byte)
          next = bytes.next()
        }
        return run
      }
      let negative = next == UInt8(ascii: "-")
      if negative { next = bytes.next() }
      var digits = digitRun()
      guard !digits.isEmpty else { return nil }
      var exponent = 0
      if next == UInt8(ascii: ".") {
        next = bytes.next()
        let fraction = digitRun()
        guard !fraction.isEmpty else { return nil }
        digits += fraction
        exponent -= fraction.count
      }
      if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
        next = bytes.next()
        let sign = next == UInt8(ascii: "-") ? -1 : 1
        if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { next = bytes.next() }
        let run = digitRun()
        let written = run.drop { $0 == UInt8(ascii: "0") }
        guard !run.isEmpty, written.count <= 10 else { return nil }
        let value = written.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard value <= 1_000_000_000 else { return nil }
        exponent += sign * value
      }
      guard next == nil else { return nil }
      // Leading zeros say nothing; trailing ones move into the exponent.
      let first = digits.firstIndex { $0 != UInt8(ascii: "0") } ?? digits.endIndex
      var significant = Array(digits[first...])
      while significant.last == UInt8(ascii: "0") {
        significant.removeLast()
        exponent += 1
      }
      if significant.isEmpty { return ExactDecimal(negative: false, digits: [], exponent: 0) }
      return ExactDecimal(negative: negative, digits: significant, exponent: exponent)
    }

    /// An exact decimal value: `digits` × 10^`exponent`, without leading or trailing zeros (zero has none).
    struct ExactDecimal: Equatable {
      let negative: Bool
      let digits: [UInt8]
      let exponent: Int
    }

    /// Whether a feature whose id hash is `hash` may have the id.
    @inline(__always)
    func mayMatch(_ hash: UInt64) -> Bool {
      guard let hashes else { return true }
      return hash == hashes.0 || hash == hashes.1 || hash == hashes.2 || hash == hashes.3
    }

    /// The hash of a feature's `id` member, its JSON text as it stands in the feature.
    static func hash(ofMember value: UnsafeBufferPointer<UInt8>) -> UInt64 {
      guard let first = value.first else { return unknown }
      if first == UInt8(ascii: "\"") {
        let inner = UnsafeBufferPointer(rebasing: value[1..<max(1, value.count - 1)])
        if inner.contains(where: { $0 == UInt8(ascii: "\\") || $0 >= 0x80 }) { return unusual }
        return hash(tag: UInt8(ascii: "s"), inner)
      }
      if first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
        return Coordinates.number(String(decoding: value, as: UTF8.self)).map(hash(number:)) ?? unknown
      }
      return none  // null, true, an object or an array: never an id that `hasID` matches
    }

    static func hash(number: Double) -> UInt64 {
      hash(tag: UInt8(ascii: "n"), withUnsafeBytes(of: (number == 0 ? 0 : number).bitPattern) { Array($0) })
    }

    /// FNV-1a (64-bit) over the tag and the bytes, kept clear of the three reserved values.
    static func hash(tag: UInt8, _ bytes: some Sequence<UInt8>) -> UInt64 {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      hash = (hash ^ UInt64(tag)) &* 0x0000_0100_0000_01B3
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
      return hash < 3 ? hash + 3 : hash
    }
  }

  /// The indices of the features whose id is `id`, ascending.
  ///
  /// - Complexity: O(n) comparisons of a hash, and the text of the features whose hash may be the id's.
  public func indices(withID id: String) -> [Int] {
    guard hasIDs else { return [] }
    let query = IDQuery(id)
    return (0..<count).filter { hasID(query, at: $0) }
  }

  /// The indices of the features whose id is one of `ids`, ascending: one pass over the features whatever the
  /// number of ids (a replica applies a table's burst of changes at once), each feature's hash looked up.
  public func indices(withAnyOf ids: [String]) -> [Int] {
    guard hasIDs, !ids.isEmpty else { return [] }
    let queries = ids.map(IDQuery.init)
    var byHash: [UInt64: [Int]] = [:]
    var anyHash: [Int] = []  // ids that are not ASCII: any feature may have them
    for (k, query) in queries.enumerated() {
      guard let hashes = query.hashes else {
        anyHash.append(k)
        continue
      }
      byHash[hashes.2, default: []].append(k)
      if hashes.3 != IDQuery.unknown { byHash[hashes.3, default: []].append(k) }
    }
    let everyQuery = Array(queries.indices)
    // Most features' hash is none of the few wanted: compared with each of them (no lookup, no allocation).
    let wanted = Array(byHash.keys)
    let few = wanted.count <= 16
    let hashes = idHashes
    var found: [Int] = []
    for i in 0..<count {
      let hash = hashes.isEmpty ? IDQuery.unknown : hashes[i]
      let candidates: [Int]
      if hash == IDQuery.unknown || hash == IDQuery.unusual {
        candidates = everyQuery
      } else if few ? wanted.contains(hash) : byHash[hash] != nil {
        candidates = byHash[hash]! + anyHash
      } else if anyHash.isEmpty {
        continue
      } else {
        candidates = anyHash
      }
      if candidates.contains(where: { hasID(queries[$0], at: i) }) { found.append(i) }
    }
    return found
  }

  /// Whether the features' text is read back from a file by offset (a GeoJSON file `load` read), so that they
  /// take a journal (`journaledCopy`).
  public var isReadByOffset: Bool {
    if case .memory = source { return false }
    return true
  }

  /// A copy of these features to change (`append(journaled:textStarts:)`, `remove(_:)`): its text is read
  /// from the same base file (a descriptor of its own) and, for features added since, from `journal` (a
  /// descriptor it owns from here). The file must be read by offset (a dataset kept by `serve`).
  public func journaledCopy(journal: Int32) -> FeatureFile {
    let base: Int32
    switch source {
    case .file(let fd): base = dup(fd)
    case .layered(let fd, _): base = dup(fd)
    case .memory: preconditionFailure("only a file read by offset takes a journal")
    }
    let copy = FeatureFile(
      naming: naming, propertyNames: propertyNames, source: .layered(base: base, journal: journal))
    copy.points = points
    copy.hasIDs = hasIDs
    copy.starts = starts
    copy.ends = ends
    copy.values = values
    copy.idHashes = idHashes
    return copy
  }

  /// Adds `added`'s features at the end, their text being in the journal at `textStarts` (one offset each,
  /// the text as long as it is in `added`).
  public func append(journaled added: FeatureFile, textStarts: [Int]) {
    precondition(textStarts.count == added.count && added.propertyNames == propertyNames)
    guard case .layered = source else { preconditionFailure("a journaled copy takes journaled features") }
    for (k, start) in textStarts.enumerated() {
      starts.append(~start)
      ends.append(~(start + added.ends[k] - added.starts[k]))
    }
    points += added.points
    values += added.values
    if !idHashes.isEmpty || count == added.count {
      idHashes +=
        added.idHashes.isEmpty ? Array(repeating: IDQuery.unknown, count: added.count) : added.idHashes
    }
    if added.hasIDs { hasIDs = true }
  }

  /// Removes the features at `indices` (ascending, each once).
  public func remove(_ indices: [Int]) {
    guard !indices.isEmpty else { return }
    let width = propertyNames.count
    var next = 0
    var kept = 0
    for i in 0..<count {
      if next < indices.count && indices[next] == i {
        next += 1
        continue
      }
      if kept != i {
        points[kept] = points[i]
        starts[kept] = starts[i]
        ends[kept] = ends[i]
        if !idHashes.isEmpty { idHashes[kept] = idHashes[i] }
        for k in 0..<width { values[kept * width + k] = values[i * width + k] }
      }
      kept += 1
    }
    points.removeLast(count - kept)
    starts.removeLast(starts.count - kept)
    ends.removeLast(ends.count - kept)
    if !idHashes.isEmpty { idHashes.removeLast(idHashes.count - kept) }
    values.removeLast(values.count - kept * width)
  }
}
