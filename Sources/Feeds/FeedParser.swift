import CLibXML2

/// Reads RSS 2.0, RSS 1.0 (RDF) and Atom 1.0 documents with libxml2.
///
/// Safe on hostile input: a document that declares any entity is refused at the declaration (no entity is ever
/// expanded, no external entity or DTD is read, nothing is fetched: `XML_PARSE_NONET`, and neither
/// `XML_PARSE_NOENT` nor `XML_PARSE_DTDLOAD`), and libxml2's default limits (no `XML_PARSE_HUGE`) bound depth
/// and text sizes. The encoding is the document's own (its BOM or XML declaration; UTF-8 by default), so a
/// Latin-1 feed that says so reads right. Links are resolved against the feed's URL and any `xml:base`.
public enum FeedParser {
  static let namespaces = (
    atom: "http://www.w3.org/2005/Atom",
    rss1: "http://purl.org/rss/1.0/",
    rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    dc: "http://purl.org/dc/elements/1.1/",
    content: "http://purl.org/rss/1.0/modules/content/",
    media: "http://search.yahoo.com/mrss/"
  )

  /// Parses `bytes`, a feed fetched from `url` (the base of its relative links).
  ///
  /// - Complexity: O(n) in the document's size.
  /// - Throws: `FeedError` when the document is not well-formed, declares an entity, or is not a feed, or when
  ///   libxml2 cannot be loaded (it is opened by the first parse, and set up once before any thread parses).
  public static func parse(_ bytes: [UInt8], url: String) throws(FeedError) -> Feed {
    var detail: UnsafePointer<CChar>? = nil
    var loader: UnsafePointer<CChar>? = nil
    switch Int(cxml_load(&detail, &loader)) {
    case 0: break
    case Int(CXML_LOAD_CANNOT_OPEN):
      throw .libraryUnavailable(
        library: detail.map { String(cString: $0) } ?? "", loader: loader.map { String(cString: $0) } ?? "")
    default: throw .libraryLacks(function: detail.map { String(cString: $0) } ?? "")
    }
    guard bytes.count <= Int(Int32.max) else { throw .tooLarge(bytes: bytes.count) }
    guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else {
      throw .empty
    }
    guard let context = cxml_new_parser_ctxt_refusing_entities() else { throw .parserUnavailable }
    defer { cxml_xmlFreeParserCtxt(context) }
    let document = bytes.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) {
        cxml_xmlCtxtReadMemory(context, $0.baseAddress, Int32($0.count), url, nil, cxml_feed_options())
      }
    }
    defer { if let document { cxml_xmlFreeDoc(document) } }
    if cxml_ctxt_stopped_by_user(context) != 0 { throw .declaresEntity }
    guard let document, context.pointee.wellFormed != 0 else {
      var line: Int32 = 0
      let message = cxml_ctxt_last_error(context, &line).map { String(cString: $0) }
      throw .malformed(line: Int(line), reason: message)
    }
    guard let root = cxml_xmlDocGetRootElement(document) else { throw .empty }
    let reader = Reader(document: document)
    let rootElement = Element(root)
    switch (rootElement.namespace, rootElement.name) {
    case (nil, "rss"):
      guard let channel = rootElement.children.first(where: { $0.is("channel") }) else {
        return Feed(format: .rss2, title: nil, link: nil, published: nil, items: [], itemsWithoutLink: 0)
      }
      return reader.rss(channel: channel, items: channel.children.filter { $0.is("item") }, format: .rss2)
    case (namespaces.rdf, "RDF"):
      let channel = rootElement.children.first { $0.is("channel", in: namespaces.rss1) }
      let items = rootElement.children.filter { $0.is("item", in: namespaces.rss1) }
      return reader.rss(channel: channel, items: items, format: .rdf)
    case (namespaces.atom, "feed"):
      return reader.atom(feed: rootElement)
    default:
      let prefix = root.pointee.ns?.pointee.prefix.map { String(cString: $0) + ":" } ?? ""
      throw .notAFeed(root: prefix + rootElement.name)
    }
  }
}

/// An element of a parsed document, valid while its document lives.
struct Element {
  let node: xmlNodePtr

  init(_ node: xmlNodePtr) { self.node = node }

  var name: String { String(cString: node.pointee.name) }
  var namespace: String? { node.pointee.ns?.pointee.href.map { String(cString: $0) } }

  func `is`(_ name: String, in namespace: String? = nil) -> Bool {
    self.namespace == namespace && cxml_xmlStrEqual(node.pointee.name, name) != 0
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
  private typealias Spaces = (
    atom: String, rss1: String, rdf: String, dc: String, content: String, media: String
  )
  private var ns: Spaces { FeedParser.namespaces }

  /// `reference` resolved against the element's base (its `xml:base`, its ancestors', the feed's URL), kept
  /// only when it is an absolute http or https URL.
  func resolve(_ reference: String?, at element: Element) -> String? {
    guard let reference = reference?.trimmingSpaces(), !reference.isEmpty else { return nil }
    let base = cxml_xmlNodeGetBase(document, element.node)
    defer { if let base { cxml_xmlFree(base) } }
    guard let resolved = cxml_xmlBuildURI(reference, base) else { return nil }
    defer { cxml_xmlFree(resolved) }
    let absolute = String(cString: resolved)
    let lowered = absolute.prefix(8).lowercased()
    guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
    return absolute
  }

  /// An element's text; HTML (RSS titles and descriptions, Atom `type="html"`) reduced to text.
  func plainText(_ element: Element?, html: Bool) -> String? {
    guard let element else { return nil }
    var html = html
    if element.namespace == ns.atom {
      switch element.attribute("type") ?? "text" {
      case "xhtml":
        let text = HTMLText.text(ofXHTML: element.node)
        return text.isEmpty ? nil : text
      case "html", "text/html": html = true
      default: html = false
      }
    }
    let text = element.withText { start, count in
      if html { return HTMLText.text(ofHTML: start, count: count) }
      var text = CollapsedText()
      text.append(start, count: count)
      return text.string
    }
    return text.isEmpty ? nil : text
  }

  func date(_ element: Element?) -> FeedDate? { element.flatMap { FeedDate.parse($0.text) } }

  func rss(channel: Element?, items: [Element], format: Feed.Format) -> Feed {
    var feed = Feed(
      format: format, title: plainText(channel?.child("title", in: itemSpace(format)), html: true),
      link: channel.flatMap { resolve($0.child("link", in: itemSpace(format))?.text, at: $0) },
      published: channel.flatMap {
        date($0.child("pubDate")) ?? date($0.child("lastBuildDate")) ?? date($0.child("date", in: ns.dc))
      },
      items: [], itemsWithoutLink: 0)
    for item in items {
      let space = itemSpace(format)
      var link = resolve(item.child("link", in: space)?.text, at: item)
      if link == nil, let guid = item.child("guid"), guid.attribute("isPermaLink") != "false" {
        link = resolve(guid.text, at: item)
      }
      if link == nil, format == .rdf { link = resolve(item.attribute("about", in: ns.rdf), at: item) }
      guard let link else {
        feed.itemsWithoutLink += 1
        continue
      }
      let summary =
        plainText(item.child("description", in: space), html: true)
        ?? plainText(item.child("encoded", in: ns.content), html: true)
      let author =
        plainText(item.child("author"), html: false)
        ?? plainText(item.child("creator", in: ns.dc), html: false)
      feed.items.append(
        FeedItem(
          title: plainText(item.child("title", in: space), html: true) ?? "", link: link, summary: summary,
          author: author,
          published: date(item.child("pubDate")) ?? date(item.child("date", in: ns.dc)),
          imageURL: image(of: item)))
    }
    return feed
  }

  private func itemSpace(_ format: Feed.Format) -> String? { format == .rdf ? ns.rss1 : nil }

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

  func atom(feed element: Element) -> Feed {
    let feedAuthor = element.child("author", in: ns.atom).flatMap {
      plainText($0.child("name", in: ns.atom), html: false)
    }
    var feed = Feed(
      format: .atom, title: plainText(element.child("title", in: ns.atom), html: false),
      link: alternate(of: element), published: date(element.child("updated", in: ns.atom)), items: [],
      itemsWithoutLink: 0)
    for entry in element.children where entry.is("entry", in: ns.atom) {
      guard let link = alternate(of: entry) else {
        feed.itemsWithoutLink += 1
        continue
      }
      let author =
        entry.child("author", in: ns.atom).flatMap { plainText($0.child("name", in: ns.atom), html: false) }
        ?? feedAuthor
      feed.items.append(
        FeedItem(
          title: plainText(entry.child("title", in: ns.atom), html: false) ?? "", link: link,
          summary: plainText(entry.child("summary", in: ns.atom), html: false)
            ?? plainText(entry.child("content", in: ns.atom), html: false),
          author: author,
          published: date(entry.child("published", in: ns.atom)) ?? date(entry.child("updated", in: ns.atom)),
          imageURL: image(of: entry)))
    }
    return feed
  }

  /// An Atom element's `link rel="alternate"` (or with no `rel`), resolved; the first such link.
  private func alternate(of element: Element) -> String? {
    for link in element.children where link.is("link", in: ns.atom) {
      let relation = link.attribute("rel") ?? "alternate"
      if relation == "alternate", let url = resolve(link.attribute("href"), at: link) { return url }
    }
    return nil
  }
}
