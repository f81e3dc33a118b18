import AtlasMessages

/// Why a document is not a feed NewsAtlas reads, in one sentence.
public enum FeedError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The document declares an entity (`<!ENTITY ...>`): refused at the declaration, so no entity is expanded
  /// (billion laughs) and nothing the declaration points to is read (XXE).
  case declaresEntity
  /// Not well-formed XML, or in an encoding libxml2 cannot read: libxml2's message (nil when it gave none) and
  /// the line.
  case malformed(line: Int, reason: String?)
  /// Well-formed, but its root is none of `rss`, `rdf:RDF` and Atom's `feed` (or a lone Atom `entry`).
  case notAFeed(root: String)
  /// Nothing but white space, or no bytes at all.
  case empty
  /// Larger than the parser accepts (2 GiB, libxml2's `int` sizes).
  case tooLarge(bytes: Int)
  /// libxml2 could not make a parser (out of memory).
  case parserUnavailable
  /// libxml2 could not be opened: the library as named (`NEWSATLAS_LIBXML2`, else libxml2.so.2) and the
  /// loader's reason (dlerror's words).
  case libraryUnavailable(library: String, loader: String)
  /// The libxml2 opened lacks a function NewsAtlas calls.
  case libraryLacks(function: String)

  /// The sentence in English.
  public var description: String { sentence.description }

  /// The sentence, to be said in the reader's language (libxml2's own words quoted as it gives them).
  public var sentence: Sentence {
    switch self {
    case .declaresEntity: Sentence(.feedDeclaresEntity)
    case .malformed(let line, let reason):
      // libxml2's messages end with a line break; no other control character is kept.
      Sentence(
        .feedNotWellFormed, line,
        reason.map {
          Sentence(
            verbatim: String(
              String.UnicodeScalarView($0.unicodeScalars.prefix(200).filter { $0.value >= 0x20 })
            )
            .trimmingSpaces())
        } ?? Sentence(.feedNoReason))
    case .notAFeed(let root): Sentence(.feedNotAFeed, root.prefix(64))
    case .empty: Sentence(.feedEmpty)
    case .tooLarge(let bytes): Sentence(.feedTooLarge, bytes)
    case .parserUnavailable: Sentence(.feedNoParser)
    case .libraryUnavailable(let library, let loader):
      Sentence(.xmlCannotLoad, shown(library, 200), shown(loader, 300))
    case .libraryLacks(let function): Sentence(.xmlLacks, shown(function, 64))
    }
  }
}

/// A library's, or its loader's, words as a sentence quotes them: at most `limit` characters, no control
/// character.
private func shown(_ text: String, _ limit: Int) -> String {
  String(
    String.UnicodeScalarView(
      text.unicodeScalars.prefix(limit).filter { $0.value >= 0x20 && $0.value != 0x7F }))
}
