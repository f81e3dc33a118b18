import CLibXML2

/// The feeds a web page names for itself: `<link rel="alternate" type="application/rss+xml" href="...">` (or
/// Atom's, or RSS 1.0's `application/rdf+xml`), as browsers and feed readers find a site's feed from its home
/// page. The page is read with libxml2's HTML parser (no network, no script), its `<base href>` honoured.
public enum FeedDiscovery {
  /// A feed a page names: its absolute http(s) URL, the title the link gives (if any) and its media type.
  public struct Link: Sendable, Equatable {
    public let url: String
    public let title: String?
    public let type: String
  }

  private static let feedTypes: Set<String> = [
    "application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/rss", "application/atom",
  ]

  /// Whether `bytes` (sent with `contentType`) are a web page rather than a feed: an HTML media type, else an
  /// HTML document's start (`<!DOCTYPE html`, `<html`, after any BOM and white space).
  public static func isPage(_ bytes: [UInt8], contentType: String?) -> Bool {
    let type = contentType?.split(separator: ";").first?.lowercased().filter { $0 != " " } ?? ""
    if type == "text/html" || type == "application/xhtml+xml" { return true }
    var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
    let head = String(decoding: bytes[start..<min(bytes.count, start + 15)], as: UTF8.self).lowercased()
    return head.hasPrefix("<!doctype html") || head.hasPrefix("<html")
  }

  /// The feeds the page at `url` names, in document order, each once; none when libxml2 cannot be opened.
  public static func links(inPage bytes: [UInt8], url: String, contentType: String? = nil) -> [Link] {
    guard !bytes.isEmpty, bytes.count <= Int(Int32.max), cxml_load(nil, nil) == 0 else { return [] }
    let charset = contentType.flatMap(FeedParser.charset(of:))
    let document = bytes.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) {
        cxml_htmlReadMemory($0.baseAddress, Int32($0.count), url, charset, cxml_html_options())
      }
    }
    guard let document else { return [] }
    defer { cxml_xmlFreeDoc(document) }
    var base = url
    var links: [Link] = []
    // Walked without recursion: a page's nesting cannot exhaust the stack.
    var node = document.pointee.children
    while let current = node {
      if current.pointee.type == XML_ELEMENT_NODE {
        let element = Element(current)
        let name = element.name.lowercased()
        if name == "base", let href = element.attribute("href"),
          let resolved = FeedParser.resolved(href, against: url)
        {
          base = resolved
        } else if name == "link",
          let rel = element.attribute("rel")?.lowercased(),
          rel.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).contains("alternate"),
          let type = element.attribute("type")?.lowercased().split(separator: ";").first.map({
            String($0.filter { $0 != " " })
          }),
          feedTypes.contains(type), let href = element.attribute("href"),
          let resolved = FeedParser.resolved(href, against: base), !links.contains(where: { $0.url == resolved })
        {
          let title = element.attribute("title").map { CollapsedText.collapsed($0) }
          links.append(Link(url: resolved, title: title?.isEmpty == false ? title : nil, type: type))
        }
        if let child = current.pointee.children {
          node = child
          continue
        }
      }
      // Next in document order: a sibling, else the nearest ancestor's sibling.
      var climb: xmlNodePtr? = current
      node = nil
      while let at = climb {
        if let next = at.pointee.next {
          node = next
          break
        }
        climb = at.pointee.parent
        if climb.map({ UnsafeRawPointer($0) == UnsafeRawPointer(document) }) ?? true { break }
      }
    }
    return links
  }
}
