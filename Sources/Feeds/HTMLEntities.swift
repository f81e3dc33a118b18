/// The HTML named character references (`&aacute;`, `&nbsp;`, `&hellip;`) that feeds use without declaring
/// them, which XML calls undefined and a conforming parser refuses: 252 of a peer's ~950 real-world cases, all
/// refused before this. They are made numeric references (`&#xE1;`) before the document is parsed, from the
/// HTML Standard's table (`HTMLEntities+Table.swift`, generated); no entity is declared or expanded, so a
/// document that declares one (`<!ENTITY ...>`) is still refused at its declaration.
enum HTMLEntities {
  /// Each name (without `&` and `;`) and the code points it stands for.
  static let byName: [String: [UInt32]] = {
    var names: [String: [UInt32]] = [:]
    names.reserveCapacity(2125)
    for line in table.split(separator: "\n") {
      let fields = line.split(separator: "\t")
      guard fields.count == 2 else { continue }
      names[String(fields[0])] = fields[1].split(separator: " ").compactMap { UInt32($0, radix: 16) }
    }
    return names
  }()

  /// XML's own five, left as they are.
  private static let predefined: Set<String> = ["amp", "lt", "gt", "quot", "apos"]

  /// `bytes` (UTF-8, or any encoding in which ASCII bytes are ASCII) with every reference to an HTML name that
  /// XML does not predefine written as numeric references, and every `&` that starts no reference (a bare one,
  /// as in `Q&A`, or an unknown name) written `&amp;`, so that it reads as the text it was meant as, outside
  /// CDATA sections and comments (where `&` is text); nil when nothing changed. Numeric references are left for
  /// the parser, which checks them.
  ///
  /// - Complexity: O(n): each byte is looked at once or twice.
  static func numbered(_ bytes: [UInt8]) -> [UInt8]? {
    guard bytes.contains(0x26) else { return nil }  // no `&` at all: the common case, one pass
    return bytes.withUnsafeBufferPointer { input -> [UInt8]? in
      var output: [UInt8] = []
      var copied = 0  // input[..<copied] is in output (once anything changed)
      var changed = false
      var i = 0
      let count = input.count
      func starts(_ text: StaticString, at index: Int) -> Bool {
        let length = text.utf8CodeUnitCount
        guard index + length <= count else { return false }
        for k in 0..<length where input[index + k] != text.utf8Start[k] { return false }
        return true
      }
      /// The index just past `end` searched from `index`, or the end of the input.
      func past(_ end: StaticString, from index: Int) -> Int {
        var j = index
        while j < count {
          if input[j] == end.utf8Start[0], starts(end, at: j) { return j + end.utf8CodeUnitCount }
          j += 1
        }
        return count
      }
      while i < count {
        let byte = input[i]
        if byte == 0x3C {  // <
          if starts("<![CDATA[", at: i) {
            i = past("]]>", from: i + 9)
            continue
          }
          if starts("<!--", at: i) {
            i = past("-->", from: i + 4)
            continue
          }
          i += 1
          continue
        }
        guard byte == 0x26 else {  // &
          i += 1
          continue
        }
        if i + 1 < count, input[i + 1] == 0x23 {  // &#: a numeric reference, the parser's to check
          i += 1
          continue
        }
        var j = i + 1
        while j < count, j - i <= 32, Self.isNameByte(input[j], first: j == i + 1) { j += 1 }
        let isReference = j < count && input[j] == 0x3B && j > i + 1
        let name =
          isReference
          ? String(decoding: UnsafeBufferPointer(rebasing: input[(i + 1)..<j]), as: UTF8.self) : ""
        if isReference, predefined.contains(name) {
          i = j + 1
          continue
        }
        if !changed {
          output.reserveCapacity(count + count / 16)
          changed = true
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: input[copied..<i]))
        if isReference, let scalars = byName[name] {
          for scalar in scalars { output.append(contentsOf: Array("&#x\(String(scalar, radix: 16));".utf8)) }
          i = j + 1
        } else {
          output.append(contentsOf: Array("&amp;".utf8))  // the `&` alone: what follows is text as written
          i += 1
        }
        copied = i
      }
      guard changed else { return nil }
      output.append(contentsOf: UnsafeBufferPointer(rebasing: input[copied..<count]))
      return output
    }
  }

  /// The HTML Standard's legacy names, which HTML reads without their `;` too (`&copy 2024`): 106 of the
  /// table's, standing for what they stand for with it (CPython's `html.entities.html5`, its names without
  /// `;`).
  static let legacy: Set<String> = [
    "AElig", "AMP", "Aacute", "Acirc", "Agrave", "Aring", "Atilde", "Auml", "COPY", "Ccedil", "ETH", "Eacute",
    "Ecirc", "Egrave", "Euml", "GT", "Iacute", "Icirc", "Igrave", "Iuml", "LT", "Ntilde", "Oacute", "Ocirc",
    "Ograve", "Oslash", "Otilde", "Ouml", "QUOT", "REG", "THORN", "Uacute", "Ucirc", "Ugrave", "Uuml",
    "Yacute", "aacute", "acirc", "acute", "aelig", "agrave", "amp", "aring", "atilde", "auml", "brvbar",
    "ccedil", "cedil", "cent", "copy", "curren", "deg", "divide", "eacute", "ecirc", "egrave", "eth", "euml",
    "frac12", "frac14", "frac34", "gt", "iacute", "icirc", "iexcl", "igrave", "iquest", "iuml", "laquo", "lt",
    "macr", "micro", "middot", "nbsp", "not", "ntilde", "oacute", "ocirc", "ograve", "ordf", "ordm", "oslash",
    "otilde", "ouml", "para", "plusmn", "pound", "quot", "raquo", "reg", "sect", "shy", "sup1", "sup2",
    "sup3", "szlig", "thorn", "times", "uacute", "ucirc", "ugrave", "uml", "uuml", "yacute", "yen", "yuml",
  ]

  /// The HTML `bytes` with each legacy reference written without its `;` (`&quot `, `&copy 2024`) made a
  /// numeric reference, which libxml2's HTML parser otherwise leaves as text; nil when there is none. Only
  /// where browsers and feedparser agree: the whole name (its letters and digits) is one of `legacy`, and the
  /// byte after it continues no name, entity or attribute (not a letter, digit, `-`, `.`, `=` or `;`). So
  /// `&quot;`, `&quotes`, `&region=us` and `&hellip ` (a name HTML reads only with its `;`) are left alone.
  ///
  /// - Complexity: O(n).
  static func legacyNumbered(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    var output: [UInt8] = []
    var copied = 0  // bytes[..<copied] is in output (once anything changed)
    var i = 0
    let count = bytes.count
    while i < count {
      guard bytes[i] == 0x26 else {  // &
        i += 1
        continue
      }
      var j = i + 1
      while j < count, j - i <= 8, Self.isNameByte(bytes[j], first: j == i + 1) { j += 1 }
      guard j > i + 1, j < count, !Self.isNameByte(bytes[j], first: false),
        ![UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "="), UInt8(ascii: ";")].contains(bytes[j])
      else {
        i += 1
        continue
      }
      let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[(i + 1)..<j]), as: UTF8.self)
      guard legacy.contains(name), let scalars = byName[name] else {
        i = j
        continue
      }
      if output.isEmpty { output.reserveCapacity(count + 16) }
      output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<i]))
      for scalar in scalars { output.append(contentsOf: Array("&#x\(String(scalar, radix: 16));".utf8)) }
      i = j
      copied = j
    }
    guard copied > 0 else { return nil }
    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<count]))
    return output
  }

  /// ASCII letters, and digits after the first: every name in the table is made of them.
  private static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
      || (!first && byte >= 0x30 && byte <= 0x39)
  }
}
