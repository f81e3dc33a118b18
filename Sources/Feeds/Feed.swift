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
