import CLibXML2

/// HTML reduced to the text a reader sees: libxml2's HTML parser decodes the entities (`&eacute;`, `&#8217;`)
/// and drops the tags; scripts, styles and applets are left out, as are comments and a browser's bogus ones
/// (`<![CDATA[ ... ]]>`, `<!x>`), block elements and `<br>` separate words, and white space is collapsed.
enum HTMLText {
  /// Elements whose content is not text a reader sees (an applet's is its parameters, which feedparser's
  /// sanitizer drops with scripts and styles).
  private static let hidden: Set<String> = [
    "script", "style", "noscript", "template", "head", "title", "applet",
  ]
  /// Elements that end a run of text (so `a<br>b` is `a b`, not `ab`).
  private static let breaking: Set<String> = [
    "br", "p", "div", "li", "ul", "ol", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
    "pre", "hr", "table", "section", "article", "figure", "figcaption", "img", "dd", "dt",
  ]

  /// The text of an HTML fragment given as `count` bytes of UTF-8 (already unescaped once from the XML it was
  /// in). Without libxml2 (`cxml_load` failed) the bytes are kept as they are.
  static func text(ofHTML start: UnsafePointer<UInt8>, count: Int) -> String {
    var text = CollapsedText()
    // Most titles and many descriptions hold neither a tag nor an entity: no parser needed.
    let buffer = UnsafeBufferPointer(start: start, count: count)
    guard buffer.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") }),
      count <= Int(Int32.max), cxml_load(nil, nil) == 0
    else {
      text.append(start, count: count)
      return text.string
    }
    // Legacy references without their `;` (`&quot `) as browsers read them, not left as text.
    if let numbered = HTMLEntities.legacyNumbered(buffer) {
      return numbered.withUnsafeBufferPointer { Self.text(ofHTML: $0.baseAddress!, count: $0.count) }
    }
    if let cleaned = withoutBogusComments(buffer) {
      return cleaned.withUnsafeBufferPointer { Self.text(ofHTML: $0.baseAddress!, count: $0.count) }
    }
    let document = start.withMemoryRebound(to: CChar.self, capacity: count) {
      cxml_htmlReadMemory($0, Int32(count), nil, "UTF-8", cxml_html_options())
    }
    guard let document else {
      text.append(start, count: count)
      return text.string
    }
    defer { cxml_xmlFreeDoc(document) }
    append(from: document.pointee.children, under: UnsafeRawPointer(document), to: &text)
    return text.string
  }

  /// `bytes` without the markup a browser reads as a bogus comment and hides, which libxml2 shows as text:
  /// `<!` followed by neither `--` nor `DOCTYPE`, to the first `>` (so `<![CDATA[ a ]]>`, written twice over
  /// by a feed's generator, shows nothing, as in a browser and feedparser); nil when there is none.
  ///
  /// - Complexity: O(n).
  static func withoutBogusComments(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    var output: [UInt8] = []
    var copied = 0  // bytes[..<copied] is in output (once anything changed)
    var i = 0
    let count = bytes.count
    while i + 1 < count {
      guard bytes[i] == UInt8(ascii: "<"), bytes[i + 1] == UInt8(ascii: "!") else {
        i += 1
        continue
      }
      let rest = UnsafeBufferPointer(rebasing: bytes[(i + 2)...])
      if rest.starts(with: "--".utf8)
        || (rest.count >= 7 && rest.prefix(7).map { $0 | 0x20 }.elementsEqual("doctype".utf8))
      {
        i += 2
        continue
      }
      let end = bytes[(i + 2)...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? count
      output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<i]))
      (i, copied) = (end, end)
    }
    guard copied > 0 else { return nil }
    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<count]))
    return output
  }

  /// The text of an HTML fragment.
  static func text(ofHTML html: String) -> String {
    var html = html
    return html.withUTF8 { buffer in
      guard let base = buffer.baseAddress else { return "" }
      return text(ofHTML: base, count: buffer.count)
    }
  }

  /// The text of an Atom `type="xhtml"` element (its `div` and what is in it).
  static func text(ofXHTML element: xmlNodePtr) -> String {
    var text = CollapsedText()
    append(from: element.pointee.children, under: UnsafeRawPointer(element), to: &text)
    return text.string
  }

  /// Appends the text of `first`, its siblings and everything under them (the children of `container`), in
  /// document order, walked without recursion (a deeply nested document cannot exhaust a task's stack).
  private static func append(
    from first: xmlNodePtr?, under container: UnsafeRawPointer, to text: inout CollapsedText
  ) {
    var next = first
    while let node = next {
      switch node.pointee.type {
      case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
        if let content = node.pointee.content { text.append(cString: content) }
      case XML_ELEMENT_NODE:
        let name = String(cString: node.pointee.name)
        if !hidden.contains(name) {
          if breaking.contains(name) { text.separate() }
          if let first = node.pointee.children {
            next = first
            continue
          }
        }
      default: break
      }
      // Done with `node`: its next sibling, else the next sibling of the nearest ancestor that has one.
      var done = node
      next = nil
      while true {
        if let sibling = done.pointee.next {
          next = sibling
          break
        }
        guard let parent = done.pointee.parent, UnsafeRawPointer(parent) != container else { break }
        if breaking.contains(String(cString: parent.pointee.name)) { text.separate() }
        done = parent
      }
    }
  }
}
