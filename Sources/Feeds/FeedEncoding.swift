/// A feed's bytes made what libxml2 reads: the encoding found as RFC 7303 (XML media types, section 3) orders
/// the evidence — the HTTP `charset`, then a byte order mark, then the XML declaration's `encoding`, else UTF-8
/// — and, for the encodings feeds mostly use, the bytes transcoded to UTF-8 here.
///
/// Real feeds are often wrong about themselves, so each claim is tried in that order and the first that
/// decodes the bytes wins: a feed sent as `charset=utf-8` whose bytes are UTF-16 with a BOM is read as UTF-16.
/// ISO-8859-1 and US-ASCII are read as windows-1252, as browsers read them (a feed that says ISO-8859-1 and
/// holds windows-1252's curly quotes shows quotes, not C1 control characters), except that a whole UTF-8
/// sequence in it is read as UTF-8: Latin-1 text almost never forms one (it would take pairs such as "Ã©"), while
/// feeds that say Latin-1 and hold UTF-8, in part or whole, are common (a template's declaration, text pasted
/// in); where most of the bytes are not UTF-8, only the sequences pasted UTF-8 holds (`isPasted`: "é »" stays
/// "é »", not U+983B). UTF-8 that does not decode is read the same way, so every byte is a character. Other
/// encodings (KOI8-R, Shift_JIS, GB2312, ...) are named to libxml2, which reads them with its own converters, and
/// EBCDIC (found by how `<?xm` is written in it) is left to libxml2, which reads the declaration in it.
struct FeedEncoding {
  /// The bytes to parse.
  var bytes: [UInt8]
  /// The encoding to tell libxml2, overriding the document's declaration: "UTF-8" once transcoded here, the
  /// claimed name for an encoding libxml2 converts, nil to let libxml2 read the document's own.
  var encoding: String?
  /// Whether the document was UTF-8 (not transcoded from another encoding): its text may hold UTF-8 decoded
  /// twice by whoever wrote it (`Feed.undoubled`).
  var wasUTF8 = false

  enum Kind: Equatable {
    case utf8, utf16LE, utf16BE, utf32LE, utf32BE, windows1252
    /// A name libxml2 may know.
    case other(String)
    /// An EBCDIC code page (IBM mainframes'), which libxml2 recognises and reads by the declaration in it.
    case ebcdic
  }

  /// `bytes` with `charset`, the HTTP `Content-Type`'s parameter (nil without one).
  static func decoded(_ bytes: [UInt8], charset: String?) -> FeedEncoding {
    var claims: [Kind] = []
    if let charset, let kind = kind(named: charset) { claims.append(kind) }
    let (bom, bomLength) = byteOrderMark(bytes)
    if let bom { claims.append(bom) }
    let layout = Self.sniffed(bytes)
    if let layout { claims.append(layout) }
    if let declared = declaration(bytes, as: bom ?? layout ?? .utf8).flatMap({ kind(named: $0) }) {
      claims.append(declared)
    }
    claims.append(.utf8)
    for claim in claims {
      switch claim {
      case .other(let name):
        // libxml2 converts it; a BOM for another encoding says the claim is wrong.
        if bom != nil { continue }
        return FeedEncoding(bytes: bytes, encoding: name)
      case .ebcdic:
        return FeedEncoding(bytes: bytes, encoding: nil)
      default:
        let body = bom == claim ? Array(bytes[bomLength...]) : bytes
        if let utf8 = transcoded(body, from: claim) {
          return FeedEncoding(bytes: withoutLeadingSpace(utf8), encoding: "UTF-8", wasUTF8: claim == .utf8)
        }
      }
    }
    return FeedEncoding(bytes: withoutLeadingSpace(transcoded(bytes, from: .windows1252) ?? bytes), encoding: "UTF-8")
  }

  /// `bytes` without the white space before an XML declaration (many feeds start with a line break, which XML
  /// forbids there and every reader forgives).
  static func withoutLeadingSpace(_ bytes: [UInt8]) -> [UInt8] {
    let space = bytes.prefix { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }.count
    guard space > 0, bytes[space...].starts(with: Array("<?xml".utf8)) else { return bytes }
    return Array(bytes[space...])
  }

  /// The encoding a charset or `encoding` label names, by the labels feeds use (any case, quotes and spaces
  /// ignored); nil for an empty one.
  static func kind(named label: String) -> Kind? {
    let quoted: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "'" }
    let name = String(label.drop(while: quoted).reversed().drop(while: quoted).reversed()).lowercased()
    guard !name.isEmpty, name.utf8.count <= 40 else { return nil }
    switch name {
    case "utf-8", "utf8", "unicode-1-1-utf-8": return .utf8
    case "utf-16le", "unicodefffe": return .utf16LE
    case "utf-16be", "unicodefeff": return .utf16BE
    // No byte order given: big-endian (RFC 2781), unless a BOM or the bytes say otherwise (tried first).
    case "utf-16", "utf16", "u16", "ucs-2", "iso-10646-ucs-2", "csunicode": return .utf16BE
    case "utf-32le": return .utf32LE
    case "utf-32be": return .utf32BE
    case "utf-32", "utf32", "u32", "ucs-4", "iso-10646-ucs-4": return .utf32BE
    case "iso-8859-1", "iso8859-1", "iso_8859-1", "iso_8859-1:1987", "latin1", "latin-1", "l1", "cp819",
      "ibm819", "csisolatin1", "iso-ir-100", "us-ascii", "ascii", "ansi_x3.4-1968", "iso646-us", "windows-1252",
      "cp1252", "x-cp1252", "cp-1252", "win-1252":
      return .windows1252
    default:
      guard name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
      return .other(converters[name] ?? name)
    }
  }

  /// Labels the web uses for an encoding (the WHATWG Encoding Standard's) that libxml2's first converter, glibc's
  /// iconv, reads as a narrower encoding than browsers do (`gb2312` is read as GB18030, `euc-kr` as windows-949,
  /// `shift_jis` as windows-31j, `big5` as Big5-HKSCS, ISO-8859-9 and TIS-620 as their windows code pages), or
  /// does not know (`ks_c_5601-1987`, `x-sjis`, `l9`: known only to a libxml2 built with ICU, as Debian's is):
  /// the name iconv converts with. A feed that says `gb2312` and holds GBK's characters is read whole instead of
  /// stopping at the first; one that says ISO-8859-9 shows windows-1254's `€`, not a control character.
  static let converters: [String: String] = {
    var names: [String: String] = [:]
    let groups: [(String, [String])] = [
      (
        "CP949",
        [
          "euc-kr", "cseuckr", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "ksc_5601", "korean",
          "iso-ir-149", "csksc56011987", "windows-949",
        ]
      ),
      (
        "CP932",
        ["shift_jis", "shift-jis", "x-sjis", "sjis", "ms932", "ms_kanji", "csshiftjis", "windows-31j"]
      ),
      (
        "GB18030",
        [
          "gb2312", "gb_2312", "gb_2312-80", "chinese", "csgb2312", "csiso58gb231280", "iso-ir-58", "gbk",
          "x-gbk", "cp936", "windows-936",
        ]
      ),
      ("BIG5-HKSCS", ["big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"]),
      ("EUC-JP", ["x-euc-jp", "cseucpkdfmtjapanese"]),
      ("ISO-8859-8", ["iso-8859-8-i", "csiso88598i", "logical", "visual"]),
      ("ISO-8859-15", ["l9", "csisolatin9", "latin9"]),
      ("CP874", ["tis-620", "iso-8859-11", "iso8859-11", "dos-874", "windows-874"]),
      ("CP1254", ["iso-8859-9", "iso8859-9", "iso_8859-9", "latin5", "l5", "csisolatin5", "iso-ir-148"]),
      ("CP1250", ["x-cp1250"]),
      ("CP1251", ["x-cp1251"]),
      ("KOI8-R", ["koi", "koi8", "koi8_r", "cskoi8r"]),
      ("KOI8-U", ["koi8-ru"]),
      ("MACINTOSH", ["x-mac-roman", "mac", "csmacintosh"]),
      ("MAC-CYRILLIC", ["x-mac-cyrillic", "x-mac-ukrainian"]),
    ]
    for (converter, labels) in groups { for label in labels { names[label] = converter } }
    return names
  }()

  /// The encoding a byte order mark says, and the mark's length.
  static func byteOrderMark(_ bytes: [UInt8]) -> (Kind?, Int) {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
    if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return (.utf32LE, 4) }
    if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return (.utf32BE, 4) }
    if bytes.starts(with: [0xFF, 0xFE]) { return (.utf16LE, 2) }
    if bytes.starts(with: [0xFE, 0xFF]) { return (.utf16BE, 2) }
    return (nil, 0)
  }

  /// UTF-16 or UTF-32 without a BOM, from how `<?` (or `<` then a letter) is laid out, or EBCDIC from `<?xm` in
  /// it (XML 1.0, appendix F).
  static func sniffed(_ bytes: [UInt8]) -> Kind? {
    guard bytes.count >= 4 else { return nil }
    switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
    case (0x3C, 0, 0, 0): return .utf32LE
    case (0, 0, 0, 0x3C): return .utf32BE
    case (0x3C, 0, _, 0): return .utf16LE
    case (0, 0x3C, 0, _): return .utf16BE
    case (0x4C, 0x6F, 0xA7, 0x94): return .ebcdic
    default: return nil
    }
  }

  /// The `encoding` of the XML declaration at the start (after any BOM), read in `kind`'s layout.
  static func declaration(_ bytes: [UInt8], as kind: Kind) -> String? {
    // The declaration is ASCII: take every `width`-th byte of the first 512 characters.
    let (width, offset): (Int, Int)
    switch kind {
    case .utf16LE: (width, offset) = (2, 0)
    case .utf16BE: (width, offset) = (2, 1)
    case .utf32LE: (width, offset) = (4, 0)
    case .utf32BE: (width, offset) = (4, 3)
    default: (width, offset) = (1, 0)
    }
    var ascii: [UInt8] = []
    var index = offset
    while index < bytes.count, ascii.count < 512 {
      ascii.append(bytes[index])
      index += width
    }
    if ascii.starts(with: [0xEF, 0xBB, 0xBF]) { ascii.removeFirst(3) }
    if let mark = ascii.first, mark == 0xFE || mark == 0xFF { ascii.removeFirst(min(ascii.count, 4 / width)) }
    guard ascii.starts(with: Array("<?xml".utf8)), let end = ascii.firstIndex(of: UInt8(ascii: ">")) else {
      return nil
    }
    let head = ascii[..<end]
    let word = Array("encoding".utf8)
    guard let at = head.indices.first(where: { head[$0...].starts(with: word) }) else { return nil }
    let space: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    var rest = head[(at + word.count)...].drop(while: space)
    guard rest.first == UInt8(ascii: "=") else { return nil }
    rest = rest.dropFirst().drop(while: space)
    guard let quote = rest.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
    let value = rest.dropFirst().prefix { $0 != quote }
    return value.isEmpty ? nil : String(decoding: value, as: UTF8.self)
  }

  /// `bytes` as UTF-8 from `kind`; nil when they are not that encoding (an invalid sequence, a lone surrogate).
  static func transcoded(_ bytes: [UInt8], from kind: Kind) -> [UInt8]? {
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count + bytes.count / 8)
    switch kind {
    case .utf8:
      guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
      return bytes
    case .windows1252:
      let mostlyUTF8 = Self.isMostlyUTF8(bytes)
      var i = 0
      while i < bytes.count {
        let byte = bytes[i]
        if byte < 0x80 {
          output.append(byte)
          i += 1
        } else if let length = Self.utf8Sequence(bytes, at: i),
          mostlyUTF8 || Self.isPasted(bytes, at: i, length)
        {
          output += bytes[i..<(i + length)]
          i += length
        } else {
          let mapped = byte < 0xA0 ? Self.windows1252[Int(byte - 0x80)] : 0
          let scalar = Unicode.Scalar(mapped == 0 ? UInt16(byte) : mapped) ?? "\u{FFFD}"
          UTF8.encode(scalar) { output.append($0) }
          i += 1
        }
      }
      return output
    case .utf16LE, .utf16BE:
      guard bytes.count % 2 == 0 else { return nil }
      let (high, low) = kind == .utf16BE ? (0, 1) : (1, 0)
      var units: [UInt16] = []
      units.reserveCapacity(bytes.count / 2)
      for i in stride(from: 0, to: bytes.count, by: 2) {
        units.append(UInt16(bytes[i + high]) << 8 | UInt16(bytes[i + low]))
      }
      let failed = transcode(units.makeIterator(), from: UTF16.self, to: UTF8.self, stoppingOnError: true) {
        output.append($0)
      }
      return failed ? nil : output
    case .utf32LE, .utf32BE:
      guard bytes.count % 4 == 0 else { return nil }
      let order = kind == .utf32BE ? [0, 1, 2, 3] : [3, 2, 1, 0]
      var units: [UInt32] = []
      units.reserveCapacity(bytes.count / 4)
      for i in stride(from: 0, to: bytes.count, by: 4) {
        var unit: UInt32 = 0
        for k in order { unit = unit << 8 | UInt32(bytes[i + k]) }
        units.append(unit)
      }
      let failed = transcode(units.makeIterator(), from: UTF32.self, to: UTF8.self, stoppingOnError: true) {
        output.append($0)
      }
      return failed ? nil : output
    case .other, .ebcdic:
      return nil
    }
  }

  /// The length of the whole, shortest-form UTF-8 sequence of a character beyond ASCII at `i`, if one is there.
  static func utf8Sequence(_ bytes: [UInt8], at i: Int) -> Int? {
    let lead = bytes[i]
    let (length, low, high): (Int, UInt8, UInt8)
    switch lead {
    case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
    case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
    case 0xE1...0xEC, 0xEE...0xEF: (length, low, high) = (3, 0x80, 0xBF)
    case 0xED: (length, low, high) = (3, 0x80, 0x9F)  // no surrogates
    case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
    case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
    case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
    default: return nil
    }
    guard i + length <= bytes.count, (low...high).contains(bytes[i + 1]) else { return nil }
    for k in 2..<length where !(0x80...0xBF).contains(bytes[i + k]) { return nil }
    return length
  }

  /// Whether more of the bytes beyond ASCII form whole UTF-8 sequences than not: UTF-8 with a few stray bytes,
  /// rather than Latin-1 or windows-1252 text that holds some UTF-8.
  static func isMostlyUTF8(_ bytes: [UInt8]) -> Bool {
    var (sequences, strays, i) = (0, 0, 0)
    while i < bytes.count {
      if bytes[i] < 0x80 {
        i += 1
      } else if let length = utf8Sequence(bytes, at: i) {
        (sequences, i) = (sequences + 1, i + length)
      } else {
        (strays, i) = (strays + 1, i + 1)
      }
    }
    return sequences > strays
  }

  /// Whether the UTF-8 sequence of `length` bytes at `i` is one that Latin-1 text holds when UTF-8 was pasted
  /// into it, and that Latin-1 text alone almost never forms: two bytes (accented letters, Greek, Cyrillic), the
  /// punctuation and symbols from U+2000 to U+27FF (’ “ ” … € ™) or four (emoji). Other three-byte sequences are
  /// an accented letter before punctuation as often: "é »", E9 A0 BB in Latin-1, is U+983B in UTF-8.
  static func isPasted(_ bytes: [UInt8], at i: Int, _ length: Int) -> Bool {
    length != 3 || (bytes[i] == 0xE2 && bytes[i + 1] <= 0x9F)
  }

  /// windows-1252's characters for the bytes 0x80–0x9F (0 where it has none: the byte is the C1 control).
  private static let windows1252: [UInt16] = [
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,
    0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
    0x0153, 0, 0x017E, 0x0178,
  ]
}
