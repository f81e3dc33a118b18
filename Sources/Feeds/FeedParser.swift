import CLibXML2

/// Reads RSS 0.9x and 2.0, RSS 1.0 (RDF) and Atom 0.3 and 1.0 documents with libxml2, as the web writes them.
///
/// Safe on hostile input: a document that declares any entity is refused at the declaration (no entity is ever
/// expanded, no external entity or DTD is read, nothing is fetched: `XML_PARSE_NONET`, and neither
/// `XML_PARSE_NOENT` nor `XML_PARSE_DTDLOAD`), and libxml2's default limits (no `XML_PARSE_HUGE`) bound depth
/// and text sizes. Forgiving where real feeds need it, never where safety does: the encoding is found as RFC 7303
/// orders the evidence (`FeedEncoding`), HTML's named entities used undeclared are read (`HTMLEntities`), items
/// outside `<channel>` count, and Dublin Core's title, description and dates stand in for missing ones; a feed
/// that is not well-formed is read again with libxml2's recovery, as feedparser's loose parser reads it, under the
/// same rules. Links are resolved against the feed's URL (or the `Content-Location` it was sent with) and any
/// `xml:base`.
public enum FeedParser {
  static let namespaces = (
    atom: "http://www.w3.org/2005/Atom",
    rss1: "http://purl.org/rss/1.0/",
    rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    dc: "http://purl.org/dc/elements/1.1/",
    content: "http://purl.org/rss/1.0/modules/content/",
    media: "http://search.yahoo.com/mrss/",
    itunes: "http://www.itunes.com/dtds/podcast-1.0.dtd",
    atom03: "http://purl.org/atom/ns#",
    rss090: "http://my.netscape.com/rdf/simple/0.9/",
    dcterms: "http://purl.org/dc/terms/",
    xhtml: "http://www.w3.org/1999/xhtml"
  )

  /// Parses `bytes`, a feed fetched from `url`, sent with the HTTP `contentType` (its `charset` is the first
  /// word on the encoding) and `contentLocation` (the base of relative links when given, else `url`).
  ///
  /// - Complexity: O(n) in the document's size.
  /// - Throws: `FeedError` when the document is not well-formed (and not a feed once recovered), declares an
  ///   entity, or is not a feed, or when libxml2 cannot be loaded (it is opened by the first parse, and set up
  ///   once before any thread parses).
  public static func parse(
    _ bytes: [UInt8], url: String, contentType: String? = nil, contentLocation: String? = nil
  ) throws(FeedError) -> Feed {
    var detail: UnsafePointer<CChar>? = nil
    var loader: UnsafePointer<CChar>? = nil
    switch Int(cxml_load(&detail, &loader)) {
    case 0: break
    case Int(CXML_LOAD_CANNOT_OPEN):
      throw .libraryUnavailable(
        library: detail.map { String(cString: $0) } ?? "", loader: loader.map { String(cString: $0) } ?? "")
    default: throw .libraryLacks(function: detail.map { String(cString: $0) } ?? "")
    }
    guard bytes.count <= Int(Int32.max) / 2 else { throw .tooLarge(bytes: bytes.count) }
    let base = contentLocation.flatMap { resolved($0, against: url) } ?? url
    var decoded = FeedEncoding.decoded(bytes, charset: contentType.flatMap(charset(of:)))
    guard decoded.bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0 })
    else { throw .empty }
    var (document, context) = try read(decoded, base: base)
    // Whether the bytes are known to be UTF-8 (checked, or transcoded here), which the recovery below needs:
    // libxml2's converters stop at a byte not in their encoding, and a recovered reading would end there.
    var checked = decoded.encoding == "UTF-8"
    if document == nil, decoded.encoding != "UTF-8", cxml_ctxt_stopped_by_user(context) == 0 {
      // An encoding libxml2 does not know (or bytes that are not in it): read as UTF-8, else windows-1252.
      cxml_xmlFreeParserCtxt(context)
      let utf8 = FeedEncoding.transcoded(bytes, from: .utf8)
      decoded = FeedEncoding(
        bytes: utf8 ?? FeedEncoding.transcoded(bytes, from: .windows1252)!, encoding: "UTF-8",
        wasUTF8: utf8 != nil)
      // (Bytes read as windows-1252 after their own encoding failed are a guess, not recovered.)
      checked = utf8 != nil
      (document, context) = try read(decoded, base: base)
    }
    // Not well-formed: read again as feedparser's loose parser reads it, and kept only when that is a feed.
    var malformed: FeedError? = nil
    if cxml_ctxt_stopped_by_user(context) == 0, document == nil || context.pointee.wellFormed == 0 {
      var line: Int32 = 0
      let message = cxml_ctxt_last_error(context, &line).map { String(cString: $0) }
      let error = FeedError.malformed(line: Int(line), reason: message)
      cxml_xmlFreeParserCtxt(context)
      if let document { cxml_xmlFreeDoc(document) }
      guard checked else { throw error }
      malformed = error
      (document, context) = try read(decoded, base: base, recovering: true)
    }
    defer {
      cxml_xmlFreeParserCtxt(context)
      if let document { cxml_xmlFreeDoc(document) }
    }
    if cxml_ctxt_stopped_by_user(context) != 0 { throw .declaresEntity }
    guard let document, let root = cxml_xmlDocGetRootElement(document) else { throw malformed ?? .empty }
    let feed: Feed
    do {
      let reader = Reader(document: document, undoubles: decoded.wasUTF8)
      feed = try Self.feed(root: root, reader: reader, recovered: malformed != nil)
    } catch {
      throw malformed ?? error
    }
    return decoded.wasUTF8 ? feed.undoubled() : feed
  }

  /// The feed of the document whose root element is `root`: RSS 2.0, RSS 1.0 or 0.90, or Atom 1.0 or 0.3 (a
  /// feed, or a lone entry), or one of those feeds in the `body` of an XHTML page.
  /// A `recovered` document (not well-formed, read with libxml2's recovery) has its items wherever they are,
  /// as a loose parser finds them: an element left open (`<itunes:category>`) holds those that follow it.
  private static func feed(
    root: xmlNodePtr, reader: Reader, recovered: Bool = false
  ) throws(FeedError) -> Feed {
    let rootElement = Element(root)
    switch (rootElement.namespace, rootElement.name) {
    case (let space, "rss"):
      // RSS 2.0 has no namespace; a few feeds give it Userland's or Harvard's, which its children share.
      let channel = rootElement.children.first { $0.is("channel", in: space) }
      // Items belong in the channel; some feeds put them beside it, which readers take too.
      let items =
        recovered
        ? rootElement.descendants("item", in: space)
        : (channel?.children.filter { $0.is("item", in: space) } ?? [])
          + rootElement.children.filter { $0.is("item", in: space) }
      return reader.rss(channel: channel, items: items, format: .rss2, space: space)
    case (namespaces.rdf, "RDF"):
      // RSS 1.0, or Netscape's RSS 0.90 (the same shape in its own namespace).
      let space =
        rootElement.children.contains { $0.namespace == namespaces.rss090 } ? namespaces.rss090 : namespaces.rss1
      let channel = rootElement.children.first { $0.is("channel", in: space) }
      let items =
        recovered
        ? rootElement.descendants("item", in: space)
        : rootElement.children.filter { $0.is("item", in: space) }
          + (channel?.children.filter { $0.is("item", in: space) } ?? [])
      return reader.rss(channel: channel, items: items, format: .rdf, space: space)
    case (namespaces.atom, "feed"), (namespaces.atom03, "feed"), (nil, "feed"):
      // (A `feed` without a namespace is Atom written carelessly; read as 1.0.)
      let space = rootElement.namespace
      let entries =
        recovered
        ? rootElement.descendants("entry", in: space)
        : rootElement.children.filter { $0.is("entry", in: space) }
      return reader.atom(feed: rootElement, entries: entries, space: space)
    case (namespaces.atom, "entry"), (namespaces.atom03, "entry"):
      // An Atom Entry Document (RFC 4287, 4.1.2): a feed of that one entry, with no title of its own.
      var feed = reader.atom(feed: rootElement, entries: [rootElement], space: rootElement.namespace)
      (feed.title, feed.link, feed.published) = (nil, nil, nil)
      return feed
    case (namespaces.xhtml, "html"):
      // A feed saved inside an XHTML page, as a child of its `body`: the feed is read (as feedparser reads it).
      let body = rootElement.children.first { $0.is("body", in: namespaces.xhtml) }
      if let inner = body?.children.first(where: {
        $0.is("feed", in: namespaces.atom) || $0.is("feed", in: namespaces.atom03) || $0.name == "rss"
          || $0.is("RDF", in: namespaces.rdf)
      }) {
        return try feed(root: inner.node, reader: reader, recovered: recovered)
      }
      fallthrough
    default:
      let prefix = root.pointee.ns?.pointee.prefix.map { String(cString: $0) + ":" } ?? ""
      throw .notAFeed(root: prefix + rootElement.name)
    }
  }

  /// Parses `decoded` in a new context (returned, to be freed by the caller, with the document if any), with
  /// libxml2's recovery when `recovering`.
  private static func read(
    _ decoded: FeedEncoding, base: String, recovering: Bool = false
  ) throws(FeedError) -> (xmlDocPtr?, xmlParserCtxtPtr) {
    guard let context = cxml_new_parser_ctxt_refusing_entities() else { throw .parserUnavailable }
    let body = HTMLEntities.numbered(decoded.bytes) ?? decoded.bytes
    var options = recovering ? cxml_feed_recovery_options() : cxml_feed_options()
    // Transcoded here: the declaration's `encoding` no longer describes the bytes.
    if decoded.encoding == "UTF-8" { options |= Int32(XML_PARSE_IGNORE_ENC.rawValue) }
    let document = body.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) {
        cxml_xmlCtxtReadMemory(context, $0.baseAddress, Int32($0.count), base, decoded.encoding, options)
      }
    }
    return (document, context)
  }

  /// The `charset` parameter of a `Content-Type` (`application/rss+xml; charset="ISO-8859-1"`), if any.
  static func charset(of contentType: String) -> String? {
    for parameter in contentType.split(separator: ";").dropFirst() {
      let pair = parameter.split(separator: "=", maxSplits: 1)
      guard pair.count == 2,
        pair[0].lowercased().filter({ $0 != " " && $0 != "\t" }) == "charset"
      else { continue }
      let value = pair[1].filter { $0 != " " && $0 != "\t" && $0 != "\"" && $0 != "'" }
      return value.isEmpty ? nil : String(value)
    }
    return nil
  }

  /// `reference` with what a URL cannot hold as written percent-encoded, as browsers send it: bytes beyond ASCII
  /// (`記事1のURL`), spaces and the characters RFC 3986 excludes, brackets outside an IPv6 host, and a `#` in the
  /// fragment (`#a#ref=rss` is `#a%23ref=rss`); libxml2 refuses to resolve such a reference, and the item was
  /// dropped or took its guid.
  static func escaped(_ reference: String) -> String {
    let keepBrackets = reference.hasPrefix("//[") || reference.contains("://[")
    var output: [UInt8] = []
    var changed = false
    var inFragment = false
    let hex: StaticString = "0123456789ABCDEF"
    for byte in reference.utf8 {
      let excluded: Bool
      switch byte {
      case 0x23:  // #
        excluded = inFragment
        inFragment = true
      case 0x22, 0x3C, 0x3E, 0x5C, 0x5E, 0x60, 0x7B, 0x7C, 0x7D: excluded = true  // " < > \ ^ ` { | }
      case 0x5B, 0x5D: excluded = !keepBrackets  // [ ]
      default: excluded = byte >= 0x80 || byte <= 0x20
      }
      if excluded {
        output += [0x25, hex.utf8Start[Int(byte >> 4)], hex.utf8Start[Int(byte & 15)]]
        changed = true
      } else {
        output.append(byte)
      }
    }
    return changed ? String(decoding: output, as: UTF8.self) : reference
  }

  /// `reference` resolved against `base` when the result is an absolute http(s) URL.
  static func resolved(_ reference: String, against base: String) -> String? {
    let reference = reference.trimmingSpaces()
    guard !reference.isEmpty, reference.utf8.count < 4096, let built = cxml_xmlBuildURI(escaped(reference), base)
    else {
      return nil
    }
    defer { cxml_xmlFree(built) }
    let absolute = String(cString: built)
    let lowered = absolute.prefix(8).lowercased()
    return lowered.hasPrefix("http://") || lowered.hasPrefix("https://") ? absolute : nil
  }
}

/// An element of a parsed document, valid while its document lives.
struct Element {
  let node: xmlNodePtr

  init(_ node: xmlNodePtr) { self.node = node }

  var name: String { String(cString: node.pointee.name) }
  var namespace: String? { node.pointee.ns?.pointee.href.map { String(cString: $0) } }

  /// Whether it is `name` in `namespace` (none: in no namespace), compared on libxml2's strings, no String built.
  func `is`(_ name: String, in namespace: String? = nil) -> Bool {
    guard cxml_xmlStrEqual(node.pointee.name, name) != 0 else { return false }
    guard let href = node.pointee.ns?.pointee.href else { return namespace == nil }
    guard let namespace else { return false }
    return cxml_xmlStrEqual(href, namespace) != 0
  }

  /// The child elements, in order.
  var children: [Element] {
    var result: [Element] = []
    var child = node.pointee.children
    while let current = child {
      if current.pointee.type == XML_ELEMENT_NODE { result.append(Element(current)) }
      child = current.pointee.next
    }
    return result
  }

  /// The elements named `name` in `namespace` below this one, in document order, none inside another (an
  /// item's own elements are not looked into), walked without recursion.
  func descendants(_ name: String, in namespace: String?) -> [Element] {
    var result: [Element] = []
    var pending: [xmlNodePtr] = []
    var next = node.pointee.children
    while true {
      if let current = next {
        next = current.pointee.next
        guard current.pointee.type == XML_ELEMENT_NODE else { continue }
        if Element(current).is(name, in: namespace) {
          result.append(Element(current))
        } else if let first = current.pointee.children {
          if let after = next { pending.append(after) }
          next = first
        }
      } else if let resumed = pending.popLast() {
        next = resumed
      } else {
        return result
      }
    }
  }

  func child(_ name: String, in namespace: String? = nil) -> Element? {
    var child = node.pointee.children
    while let current = child {
      if current.pointee.type == XML_ELEMENT_NODE, Element(current).is(name, in: namespace) {
        return Element(current)
      }
      child = current.pointee.next
    }
    return nil
  }

  /// Every text and CDATA inside, in order (no entity references exist: a declared entity stops the parse).
  var text: String { withText { String(decoding: UnsafeBufferPointer(start: $0, count: $1), as: UTF8.self) } }

  /// Calls `body` with the text inside as UTF-8 bytes (a start and a count), valid only within it.
  func withText<T>(_ body: (UnsafePointer<UInt8>, Int) -> T) -> T {
    guard let content = cxml_xmlNodeGetContent(node) else {
      return [UInt8(0)].withUnsafeBufferPointer { body($0.baseAddress!, 0) }
    }
    defer { cxml_xmlFree(content) }
    return body(content, Int(cxml_xmlStrlen(content)))
  }

  /// Whether it holds an element, or text other than white space (looked at without copying it).
  var hasText: Bool {
    var child = node.pointee.children
    while let current = child {
      switch current.pointee.type {
      case XML_ELEMENT_NODE: return true
      case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
        var byte = current.pointee.content
        while let at = byte, at.pointee != 0 {
          if at.pointee != 0x20, at.pointee != 0x09, at.pointee != 0x0A, at.pointee != 0x0D { return true }
          byte = at + 1
        }
      default: break
      }
      child = current.pointee.next
    }
    return false
  }

  /// An attribute without a namespace, or in `namespace`.
  func attribute(_ name: String, in namespace: String? = nil) -> String? {
    let value = namespace.map { cxml_xmlGetNsProp(node, name, $0) } ?? cxml_xmlGetNoNsProp(node, name)
    guard let value else { return nil }
    defer { cxml_xmlFree(value) }
    return String(cString: value)
  }
}

/// Reads the items of one parsed document.
struct Reader {
  let document: xmlDocPtr
  /// Whether text is read again as UTF-8 where its writer decoded it twice (`Feed.undoubled`), before white
  /// space is collapsed (which would break the sequences: `Â` and a no-break space): for a UTF-8 document.
  var undoubles = false
  private typealias Spaces = (
    atom: String, rss1: String, rdf: String, dc: String, content: String, media: String, itunes: String,
    atom03: String,
    rss090: String, dcterms: String, xhtml: String
  )
  private var ns: Spaces { FeedParser.namespaces }

  /// `reference` resolved against the element's base (its `xml:base`, its ancestors', the feed's URL), kept
  /// only when it is an absolute http or https URL.
  func resolve(_ reference: String?, at element: Element) -> String? {
    guard let reference = reference?.trimmingSpaces(), !reference.isEmpty, reference.utf8.count < 8192 else {
      return nil
    }
    let base = cxml_xmlNodeGetBase(document, element.node)
    defer { if let base { cxml_xmlFree(base) } }
    guard let resolved = cxml_xmlBuildURI(FeedParser.escaped(reference), base) else { return nil }
    defer { cxml_xmlFree(resolved) }
    let absolute = String(cString: resolved)
    let lowered = absolute.prefix(8).lowercased()
    guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
    return absolute
  }

  /// An element's text; HTML (RSS titles and descriptions, Atom `type="html"`) reduced to text. An Atom text
  /// construct says what it holds: 1.0's `type` (`text`, `html`, `xhtml`, or a media type, whose content is
  /// base64 unless it is XML or text), 0.3's `type` and `mode` (`xml`, `escaped`, `base64`).
  func plainText(_ element: Element?, html: Bool) -> String? {
    guard let element else { return nil }
    var html = html
    var base64 = false
    if element.namespace == ns.atom || element.namespace == ns.atom03 {
      let type = (element.attribute("type") ?? (element.namespace == ns.atom ? "text" : "text/plain")).lowercased()
      let mode = element.namespace == ns.atom03 ? (element.attribute("mode") ?? "xml").lowercased() : nil
      switch type {
      case "xhtml", "application/xhtml+xml" where mode == nil || mode == "xml":
        let text = HTMLText.text(ofXHTML: element.node)
        return text.isEmpty ? nil : text
      case "html", "text/html": html = true
      case "text", "text/plain": html = false
      default:
        // Another media type: XML and text are inline (read as text), anything else is base64 (RFC 4287, 4.1.3.3).
        // In 0.3 the mode says so, whatever the type.
        html = false
        base64 = mode == nil && !(type.hasPrefix("text/") || type.hasSuffix("/xml") || type.hasSuffix("+xml"))
      }
      if mode == "base64" { base64 = true }
      // 0.3's `xml` mode holds markup inline: its text is what a reader sees.
      if mode == "xml", html, element.children.contains(where: { _ in true }) {
        let text = HTMLText.text(ofXHTML: element.node)
        return text.isEmpty ? nil : text
      }
    }
    let text = element.withText { start, count -> String in
      if undoubles, !base64, let once = Feed.undoubled(UnsafeBufferPointer(start: start, count: count)) {
        return once.withUnsafeBufferPointer { buffer in
          guard let start = buffer.baseAddress else { return "" }
          if html { return HTMLText.text(ofHTML: start, count: buffer.count) }
          var text = CollapsedText()
          text.append(start, count: buffer.count)
          return text.string
        }
      }
      if base64 {
        guard let decoded = Base64.decoded(UnsafeBufferPointer(start: start, count: count)) else { return "" }
        return decoded.withUnsafeBufferPointer { buffer in
          guard let start = buffer.baseAddress, String(validating: buffer, as: UTF8.self) != nil else { return "" }
          if html { return HTMLText.text(ofHTML: start, count: buffer.count) }
          var text = CollapsedText()
          text.append(start, count: buffer.count)
          return text.string
        }
      }
      if html { return HTMLText.text(ofHTML: start, count: count) }
      var text = CollapsedText()
      text.append(start, count: count)
      return text.string
    }
    return text.isEmpty ? nil : text
  }

  /// The first of `elements` that has text.
  func firstText(_ elements: Element?..., html: Bool) -> String? {
    for element in elements { if let text = plainText(element, html: html) { return text } }
    return nil
  }

  /// The first of `elements` that has text.
  func firstText(_ elements: [Element], html: Bool) -> String? {
    for element in elements { if let text = plainText(element, html: html) { return text } }
    return nil
  }

  /// An item's summaries and contents with text (`summaries` and `contents`: names and namespaces), the one
  /// feedparser takes as its summary first, then the rest in document order (read when it has no text).
  ///
  /// feedparser reads them in document order, `media:description` inside `media:group` and `media:content` too:
  /// the first summary is the summary, and a second is taken as content; once the item has content (a content
  /// element, or that second summary), each later summary replaces the summary, unless it is nested deeper than
  /// the one it would replace; a content element is the summary when there is none yet. So `description`,
  /// `media:description` is the description; `content:encoded`, `media:description` is the media description.
  func summaries(
    of item: Element, summaries: [(String, String?)], contents: [(String, String?)]
  ) -> [Element] {
    var found: [Element] = []
    var summary: (element: Element, depth: Int?)? = nil
    var hasContent = false
    var pending: [(element: Element, depth: Int)] = item.children.reversed().map { ($0, 1) }
    while let (element, depth) = pending.popLast() {
      if depth < 3, element.is("group", in: ns.media) || element.is("content", in: ns.media) {
        pending += element.children.reversed().map { ($0, depth + 1) }
        continue
      }
      let isSummary = summaries.contains { element.is($0.0, in: $0.1) }
      let isContent = !isSummary && contents.contains { element.is($0.0, in: $0.1) }
      guard isSummary || isContent, element.hasText else { continue }
      found.append(element)
      if isContent {
        hasContent = true
        if summary == nil { summary = (element, nil) }
      } else if summary != nil, !hasContent {
        hasContent = true
      } else if let kept = summary?.depth, depth > kept {
        continue
      } else {
        summary = (element, depth)
      }
    }
    guard let chosen = summary?.element else { return found }
    return [chosen] + found.filter { $0.node != chosen.node }
  }

  /// The first of `elements` that holds a date.
  func firstDate(_ elements: Element?...) -> FeedDate? {
    for element in elements { if let date = date(element) { return date } }
    return nil
  }

  /// An item's date as feedparser takes it: its publication date, else its update's, else its creation's, each
  /// the last of its kind (elements named in `published`, `updated`, `created`) that holds a date.
  func date(
    of item: Element, published: [(String, String?)], updated: [(String, String?)],
    created: [(String, String?)]
  ) -> FeedDate? {
    let children = item.children
    for kind in [published, updated, created] {
      for element in children.reversed() where kind.contains(where: { element.is($0.0, in: $0.1) }) {
        if let date = date(element) { return date }
      }
    }
    return nil
  }

  func date(_ element: Element?) -> FeedDate? { element.flatMap { FeedDate.parse($0.text) } }

  /// An RSS 0.9x/2.0 or 1.0 channel and its items, their elements in `space` (none for RSS 2.0; RSS 1.0's or
  /// 0.90's namespace), with Dublin Core and Atom elements standing in where the item's own are missing.
  func rss(channel: Element?, items: [Element], format: Feed.Format, space: String?) -> Feed {
    var feed = Feed(
      format: format,
      title: firstText(channel?.child("title", in: space), channel?.child("title", in: ns.dc), html: true),
      link: channel.flatMap { resolve($0.child("link", in: space)?.text, at: $0) },
      published: channel.flatMap {
        firstDate(
          $0.child("pubDate", in: space), $0.child("lastBuildDate", in: space), $0.child("date", in: ns.dc),
          $0.child("modified", in: ns.dcterms), $0.child("updated", in: ns.atom))
      },
      items: [], itemsWithoutLink: 0)
    for item in items {
      var link = link(of: item, in: space)
      if link == nil, let guid = item.child("guid", in: space), guid.attribute("isPermaLink") != "false" {
        link = resolve(guid.text, at: item)
      }
      if link == nil, format == .rdf { link = resolve(item.attribute("about", in: ns.rdf), at: item) }
      guard let link else {
        feed.itemsWithoutLink += 1
        continue
      }
      let summary = firstText(
        summaries(
          of: item,
          summaries: [
            ("description", space), ("description", ns.dc), ("summary", space), ("summary", ns.atom),
            ("description", ns.media), ("summary", ns.itunes),
          ],
          contents: [("encoded", ns.content), ("body", ns.xhtml), ("body", space), ("content", ns.atom)]),
        html: true)
      let author = firstText(
        item.child("author", in: space), item.child("creator", in: ns.dc),
        item.child("author", in: ns.atom)?.child("name", in: ns.atom), html: false)
      feed.items.append(
        FeedItem(
          title: firstText(item.child("title", in: space), item.child("title", in: ns.dc), html: true) ?? "",
          link: link, summary: summary, author: author,
          published: date(
            of: item,
            published: [("pubDate", space), ("issued", ns.dcterms), ("published", ns.atom)],
            updated: [("date", ns.dc), ("modified", ns.dcterms), ("updated", ns.atom)],
            created: [("created", ns.dcterms)]),
          imageURL: image(of: item)))
    }
    return feed
  }

  /// An image enclosure, else `media:content` of an image (or of no stated kind), else `media:thumbnail`.
  private func image(of item: Element) -> String? {
    for child in item.children {
      if child.is("enclosure") || (child.is("link", in: ns.atom) && child.attribute("rel") == "enclosure"),
        child.attribute("type")?.lowercased().hasPrefix("image/") == true,
        let url = resolve(child.attribute("url") ?? child.attribute("href"), at: child)
      {
        return url
      }
    }
    for child in item.children where child.is("content", in: ns.media) {
      let medium = child.attribute("medium")
      let type = child.attribute("type")?.lowercased()
      // An image says so (medium, type), or says nothing at all (Le Monde's media:content has url and size only).
      if medium == "image" || type?.hasPrefix("image/") == true || (medium == nil && type == nil),
        let url = resolve(child.attribute("url"), at: child)
      {
        return url
      }
    }
    return item.child("thumbnail", in: ns.media).flatMap { resolve($0.attribute("url"), at: $0) }
  }

  /// An Atom 1.0 feed and its `entries`, or a 0.3 one (`space`: its namespace; 0.3 dates entries with `issued`,
  /// `modified` and `created`, and says how its text is written with `mode`).
  func atom(feed element: Element, entries: [Element], space: String?) -> Feed {
    let feedAuthor = element.child("author", in: space).flatMap {
      plainText($0.child("name", in: space), html: false)
    }
    var feed = Feed(
      format: .atom, title: plainText(element.child("title", in: space), html: false),
      link: alternate(of: element, in: space),
      published: firstDate(element.child("updated", in: space), element.child("modified", in: space)), items: [],
      itemsWithoutLink: 0)
    for entry in entries {
      // No alternate link: an `id` that is itself a web address stands in (as readers take it).
      guard let link = alternate(of: entry, in: space) ?? resolve(entry.child("id", in: space)?.text, at: entry)
      else {
        feed.itemsWithoutLink += 1
        continue
      }
      let author =
        entry.child("author", in: space).flatMap { plainText($0.child("name", in: space), html: false) }
        ?? feedAuthor
      feed.items.append(
        FeedItem(
          title: firstText(entry.child("title", in: space), entry.child("title", in: ns.dc), html: false) ?? "",
          link: link,
          summary: firstText(
            summaries(
              of: entry,
              summaries: [
                ("summary", space), ("description", ns.dc), ("description", ns.media), ("summary", ns.itunes),
              ],
              contents: [("content", space)]),
            html: false),
          author: author,
          published: date(
            of: entry,
            published: [("published", space), ("issued", space), ("issued", ns.dcterms)],
            updated: [("updated", space), ("modified", space), ("date", ns.dc), ("modified", ns.dcterms)],
            created: [("created", space), ("created", ns.dcterms)]),
          imageURL: image(of: entry)))
    }
    return feed
  }

  /// An RSS item's link as feedparser takes it: the last of its `link`s in `space` (the text, or an `href` as
  /// Atom writes it) and Atom `link`s that name a web page, so `<link>a</link><link>b</link>` is `b`.
  private func link(of item: Element, in space: String?) -> String? {
    for link in item.children.reversed() {
      let own = link.is("link", in: space)
      guard own || link.is("link", in: ns.atom) else { continue }
      let url =
        link.attribute("href") != nil
        ? (isPage(link) ? resolve(link.attribute("href"), at: link) : nil)
        : (own ? resolve(link.text, at: link) : nil)
      if let url { return url }
    }
    return nil
  }

  /// An element's Atom `link rel="alternate"` (or with no `rel`) in `space`, resolved: the last that names a
  /// web page (HTML or XHTML, or no type), as feedparser takes it, else the last of any type.
  private func alternate(of element: Element, in space: String?) -> String? {
    var other: String? = nil
    for link in element.children.reversed() where link.is("link", in: space) {
      guard (link.attribute("rel") ?? "alternate") == "alternate",
        let url = resolve(link.attribute("href"), at: link)
      else { continue }
      if isPage(link) { return url }
      if other == nil { other = url }
    }
    return other
  }

  /// Whether a `link` with an `href` is an alternate (no `rel` is one) whose `type` is HTML or XHTML, or none.
  private func isPage(_ link: Element) -> Bool {
    guard (link.attribute("rel") ?? "alternate") == "alternate" else { return false }
    guard let type = link.attribute("type")?.lowercased().trimmingSpaces() else { return true }
    return ["text/html", "html", "application/xhtml+xml", "xhtml"].contains(type)
  }
}
