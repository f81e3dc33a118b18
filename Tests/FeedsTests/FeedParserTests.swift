import Feeds
import Foundation
import Testing

/// The feeds in `Tests/Fixtures/feeds`, shaped like real ones (Le Monde's RSS 2.0 with CDATA and media:content,
/// an RDF feed with Dublin Core, an Atom feed with xml:base), and hostile ones.
enum FeedFixtures {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/feeds")

  static func bytes(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: folder.appendingPathComponent(name)))
  }
}

@Suite struct FeedParserTests {
  @Test func rss2WithCDATAEntitiesAndHTML() throws {
    let feed = try FeedParser.parse(
      try FeedFixtures.bytes("rss2-cdata.xml"), url: "https://www.quotidien.example/rss/une.xml")
    #expect(feed.format == .rss2)
    #expect(feed.title == "Le Quotidien : Actualités et infos en France et dans le monde")
    #expect(feed.link == "https://www.quotidien.example/")
    #expect(feed.published?.iso8601 == "2026-11-25T14:04:12Z")
    #expect(feed.items.count == 3)
    #expect(feed.itemsWithoutLink == 1)
    let first = feed.items[0]
    #expect(first.title == "Budget 2027 : le Sénat adopte la « partie recettes » & renvoie le texte")
    #expect(first.summary == "Les sénateurs ont voté l\u{2019}article 1 après un débat houleux. Suite & fin.")
    #expect(
      first.link
        == "https://www.quotidien.example/politique/article/2026/11/25/budget-2027_6512345_823448.html")
    #expect(first.published?.iso8601 == "2026-11-25T13:02:11Z")
    #expect(first.imageURL == "https://img.quotidien.example/2026/11/25/0/0/4000/2666/644/322/60/0/4b1f.jpg")
    #expect(first.author == nil)
    let second = feed.items[1]
    // Entities XML-escaped twice (&amp;amp;) and HTML escaped inside the XML text: decoded to text.
    #expect(second.title == "Climat : l\u{2019}accord de Belém « en bonne voie » & signé")
    #expect(second.summary == "La COP31 sépare ses travaux.")
    #expect(second.link == "https://www.quotidien.example/planete/article/2026/11/25/cop31_6512346_3244.html")
    #expect(second.imageURL == "https://www.quotidien.example/images/cop31.jpg")
    #expect(second.author == "Service Planète")
    #expect(second.published?.iso8601 == "2026-11-25T13:30:00Z")
    let third = feed.items[2]
    #expect(third.link == "https://www.quotidien.example/international/article/2026/11/24/guid-only.html")
    #expect(third.summary == "Texte complet sur deux lignes.")
    #expect(third.published?.iso8601 == "2026-11-25T04:59:59Z")
  }

  @Test func latin1DeclaredInTheXMLDeclaration() throws {
    let bytes = try FeedFixtures.bytes("latin1.xml")
    #expect(bytes.contains(0xF1) && String(validating: bytes, as: UTF8.self) == nil)  // ñ as Latin-1, not UTF-8
    let feed = try FeedParser.parse(bytes, url: "https://www.diario.example/rss")
    #expect(feed.title == "El Diario - Última hora")
    #expect(feed.items.map(\.title) == ["Señales de recuperación en la economía española"])
    #expect(
      feed.items[0].summary == "El PIB crece un 0,8 % según el INE; «buenas noticias», dice la ministra.")
    #expect(feed.items[0].author == "redaccion@diario.example (Redacción)")
    #expect(feed.items[0].published?.iso8601 == "2026-11-25T08:00:00Z")
  }

  @Test func rdfWithDublinCore() throws {
    let feed = try FeedParser.parse(try FeedFixtures.bytes("rdf.xml"), url: "https://www.zeitung.example/rss")
    #expect(feed.format == .rdf)
    #expect(feed.title == "Die Zeitung – Nachrichten")
    #expect(feed.published?.iso8601 == "2026-11-25T09:00:00Z")
    #expect(feed.items.map(\.title) == ["Koalition einigt sich über Haushalt", "DAX schließt im Plus"])
    #expect(feed.items[0].summary == "Nach langen Verhandlungen steht der Entwurf.")
    #expect(feed.items[0].author == "Anna Müller")
    #expect(feed.items[0].published?.iso8601 == "2026-11-25T08:30:00Z")
    // No <link>: the item's rdf:about; a date-only dc:date is midnight UTC.
    #expect(feed.items[1].link == "https://www.zeitung.example/wirtschaft/2026-11-25/dax.html")
    #expect(feed.items[1].published?.iso8601 == "2026-11-25T00:00:00Z")
  }

  @Test func atomWithRelativeLinksAndXMLBase() throws {
    let feed = try FeedParser.parse(
      try FeedFixtures.bytes("atom-relative.xml"), url: "https://feeds.example.org/top.atom")
    #expect(feed.format == .atom)
    #expect(feed.title == "Example Times: Top Stories")
    #expect(feed.link == "https://blog.example.org/news/")
    #expect(feed.items.count == 2)
    #expect(feed.itemsWithoutLink == 1)  // only rel="self"
    let first = feed.items[0]
    #expect(first.link == "https://blog.example.org/news/2026/11/25/markets-rally")
    #expect(first.imageURL == "https://blog.example.org/img/markets.png")
    #expect(first.title == "Markets rally as rates & yields fall")
    #expect(first.summary == "Stocks rose sharply on Wednesday\u{2026}")
    #expect(first.published?.iso8601 == "2026-11-25T16:45:30Z")  // published wins over updated
    #expect(first.author == "J. Doe")
    let second = feed.items[1]
    #expect(second.link == "https://blog.example.org/archive/storm.html")  // the entry's own xml:base
    #expect(second.summary == "Gusts of 120 km/h expected. Stay indoors.")
    #expect(second.author == "Example Times Newsroom")  // the feed's author
    #expect(second.published?.iso8601 == "2026-11-25T08:00:00Z")
  }

  @Test func relativeLinksWithoutXMLBaseResolveAgainstTheFeedURL() throws {
    let atom = """
      <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
      <entry><title>a</title><link href="../story?id=1"/></entry>
      <entry><title>b</title><link href="javascript:alert(1)"/></entry></feed>
      """
    let feed = try FeedParser.parse(Array(atom.utf8), url: "http://127.0.0.1:8080/feeds/news/top.atom")
    #expect(feed.items.map(\.link) == ["http://127.0.0.1:8080/feeds/story?id=1"])
    #expect(feed.itemsWithoutLink == 1)  // not http(s)
  }

  @Test func malformedIsAnErrorWithTheLine() throws {
    #expect {
      try FeedParser.parse(try FeedFixtures.bytes("malformed.xml"), url: "https://broken.example/rss")
    } throws: { error in
      guard case .malformed(let line, let reason) = error as? FeedError else { return false }
      return line == 8 && reason?.contains("mismatch") == true
        && "\(error)".hasPrefix("The feed is not well-formed XML (line 8: Opening and ending tag mismatch")
    }
  }

  @Test(arguments: ["billion-laughs.xml", "xxe.xml", "xxe-parameter.xml"])
  func entityDeclarationsAreRefused(_ name: String) throws {
    #expect(throws: FeedError.declaresEntity) {
      try FeedParser.parse(try FeedFixtures.bytes(name), url: "https://hostile.example/rss")
    }
  }

  @Test func notAFeed() throws {
    #expect(throws: FeedError.notAFeed(root: "html")) {
      try FeedParser.parse(Array("<html><body>Not found</body></html>".utf8), url: "https://a.example/")
    }
    #expect(throws: FeedError.notAFeed(root: "rdf:Description")) {
      try FeedParser.parse(
        Array("<rdf:Description xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'/>".utf8),
        url: "https://a.example/")
    }
    #expect(throws: FeedError.empty) { try FeedParser.parse(Array(" \n".utf8), url: "https://a.example/") }
    // An XHTML page is a feed only when its body holds one; other markup in it (SVG here) is not.
    let page = """
      <html xmlns="http://www.w3.org/1999/xhtml"><body><p>Hi</p>\
      <svg xmlns="http://www.w3.org/2000/svg"><title>t</title></svg></body></html>
      """
    #expect(throws: FeedError.notAFeed(root: "html")) {
      try FeedParser.parse(Array(page.utf8), url: "https://a.example/")
    }
  }

  /// A feed saved inside an XHTML page (feedjira's DuplicateContentAtomFeed.xml has the shape): the feed in its
  /// body is read, Atom or RSS.
  @Test func aFeedInsideAnXHTMLPageIsRead() throws {
    let atom = """
      <?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body>\
      <feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title>\
      <entry><title>Down time</title><link href="https://blog.example/down"/>\
      <updated>2014-07-21T21:14:39+02:00</updated></entry></feed></body></html>
      """
    let feed = try FeedParser.parse(Array(atom.utf8), url: "https://blog.example/atom.xml")
    #expect(feed.title == "Blog")
    #expect(feed.items.map(\.title) == ["Down time"])
    #expect(feed.items.first?.published?.iso8601 == "2014-07-21T19:14:39Z")
    let rss = """
      <html xmlns="http://www.w3.org/1999/xhtml"><body><rss version="2.0"><channel><title>News</title>\
      <item><title>One</title><link>https://news.example/1</link></item></channel></rss></body></html>
      """
    let items = try FeedParser.parse(Array(rss.utf8), url: "https://news.example/").items
    #expect(items.map(\.link) == ["https://news.example/1"])
  }

  /// An external DTD is neither loaded nor fetched (no XML_PARSE_DTDLOAD, XML_PARSE_NONET): RSS 0.91's DOCTYPE
  /// still parses.
  @Test func anExternalDTDIsNotLoaded() throws {
    let rss = """
      <?xml version="1.0"?>
      <!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "file:///etc/passwd">
      <rss version="0.91"><channel><title>Old</title><item><title>x</title><link>https://old.example/1</link>
      </item></channel></rss>
      """
    let feed = try FeedParser.parse(Array(rss.utf8), url: "https://old.example/rss")
    #expect(feed.items.map(\.title) == ["x"])
  }
}
