/// A parsed RSS 2.0, RSS 1.0 (RDF) or Atom 1.0 feed: its title and its items, in document order.
public struct Feed: Sendable, Equatable {
  /// Which of the three formats the document is.
  public enum Format: String, Sendable, Equatable {
    case rss2 = "rss"
    case rdf = "rdf"
    case atom = "atom"
  }

  public var format: Format
  /// The channel's (or Atom feed's) title as text; nil when it has none.
  public var title: String?
  /// The channel's (or feed's) own web page, resolved against the feed's URL; nil when it has none.
  public var link: String?
  /// The channel's date (RSS `pubDate`, `lastBuildDate` or `dc:date`; Atom `updated`), if it has one.
  public var published: FeedDate?
  /// Items with an http(s) link, in document order.
  public var items: [FeedItem]
  /// Items left out because they had no http or https link, even after resolving a relative one.
  public var itemsWithoutLink: Int
}

/// One item (RSS) or entry (Atom), every text reduced to plain text.
public struct FeedItem: Sendable, Equatable {
  /// The title as text (HTML in it reduced to text, entities decoded); empty when the item has none.
  public var title: String
  /// The item's web page: an absolute http(s) URL, resolved against the feed's URL and any `xml:base`.
  public var link: String
  /// The description or summary (else the full content) as text: tags dropped, entities decoded, white space
  /// collapsed; nil when the item has none.
  public var summary: String?
  /// The author: RSS `author` or `dc:creator`, Atom `author/name` (the entry's, else the feed's).
  public var author: String?
  /// RSS `pubDate` or `dc:date`, Atom `published` else `updated`; nil when missing or not a date.
  public var published: FeedDate?
  /// An image: an `enclosure` (or Atom `link rel="enclosure"`) of an image type, else `media:content` or
  /// `media:thumbnail`; resolved like the link.
  public var imageURL: String?
}

extension Feed {
  /// The feed with UTF-8 that its writer decoded twice read once more (`"informaciÃ³n"` is `"información"`), as
  /// feedparser does for a UTF-8 document: a text whose every character is below U+0100, some above U+007F, and
  /// whose characters as bytes are well-formed UTF-8 is those bytes' text. Latin-1 text almost never is (it would
  /// take pairs such as "Ã©"); a text with any other character is left as it is. For documents that were UTF-8.
  func undoubled() -> Feed {
    var feed = self
    feed.title = title.map(Self.undoubled)
    for i in feed.items.indices {
      feed.items[i].title = Self.undoubled(feed.items[i].title)
      feed.items[i].summary = feed.items[i].summary.map(Self.undoubled)
      feed.items[i].author = feed.items[i].author.map(Self.undoubled)
    }
    return feed
  }

  /// UTF-8 `bytes` read once more when they are text decoded twice (as `undoubled(_:)` says); nil when not.
  static func undoubled(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    guard bytes.contains(where: { $0 >= 0xC2 }) else { return nil }  // no character from U+0080 on
    var once: [UInt8] = []
    once.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
      let byte = bytes[i]
      if byte < 0x80 {
        once.append(byte)
        i += 1
      } else if byte == 0xC2 || byte == 0xC3, i + 1 < bytes.count, bytes[i + 1] & 0xC0 == 0x80 {
        once.append((byte & 0x03) << 6 | bytes[i + 1] & 0x3F)  // U+0080...U+00FF as its one byte
        i += 2
      } else {
        return nil  // a character from U+0100 on, or not UTF-8: not text decoded twice
      }
    }
    return String(validating: once, as: UTF8.self) != nil ? once : nil
  }

  static func undoubled(_ text: String) -> String {
    var text = text
    let once = text.withUTF8 { undoubled($0) }
    return once.map { String(decoding: $0, as: UTF8.self) } ?? text
  }
}
