/// Why a document is not a feed NewsAtlas reads, in one sentence.
public enum FeedError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The document declares an entity (`<!ENTITY ...>`): refused at the declaration, so no entity is expanded
  /// (billion laughs) and nothing the declaration points to is read (XXE).
  case declaresEntity
  /// Not well-formed XML, or in an encoding libxml2 cannot read: libxml2's message and the line.
  case malformed(line: Int, reason: String)
  /// Well-formed, but its root is none of `rss`, `rdf:RDF` and Atom's `feed`.
  case notAFeed(root: String)
  /// Nothing but white space, or no bytes at all.
  case empty
  /// Larger than the parser accepts (2 GiB, libxml2's `int` sizes).
  case tooLarge(bytes: Int)
  /// libxml2 could not make a parser (out of memory).
  case parserUnavailable
  /// libxml2 could not be opened, or lacks a function NewsAtlas calls: the loader's sentence.
  case libraryUnavailable(reason: String)

  public var description: String {
    switch self {
    case .declaresEntity:
      return
        "The feed declares an XML entity (<!ENTITY ...>); such feeds are refused, so no entity is expanded "
        + "and nothing it points to is read."
    case .malformed(let line, let reason):
      // libxml2's messages end with a line break; no other control character is kept.
      let shown = String(
        String.UnicodeScalarView(reason.unicodeScalars.prefix(200).filter { $0.value >= 0x20 }))
      return "The feed is not well-formed XML (line \(line): \(shown.trimmingSpaces()))."
    case .notAFeed(let root):
      return
        "The document's root element is <\(root.prefix(64))>, not RSS 2.0's <rss>, "
        + "RSS 1.0's <rdf:RDF> or Atom's <feed>."
    case .empty: return "The feed is empty."
    case .tooLarge(let bytes): return "The feed's \(bytes) bytes are more than the parser accepts (2 GiB)."
    case .parserUnavailable: return "libxml2 could not make a parser (out of memory)."
    case .libraryUnavailable(let reason): return reason
    }
  }
}
