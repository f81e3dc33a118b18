import Feeds
import FuzzDriver

/// A document as a feed's server might send it, read as `headlines --provider feeds` reads it (seeded with the
/// corpus of real-world feeds, Tests/Fixtures/feeds/corpus): never a trap; every item kept has an absolute
/// http(s) link; every date is one `iso8601` writes and that reads back to the same instant; the same bytes
/// sent with a charset are read without a trap too. The input's text is also read as a date.
func fuzzFeed(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  for contentType in [nil, "application/rss+xml; charset=iso-8859-1", "text/xml; charset=utf-16"] {
    guard let feed = try? FeedParser.parse(bytes, url: "https://example.org/feeds/a.xml", contentType: contentType)
    else { continue }
    for item in feed.items {
      let scheme = item.link.prefix(8).lowercased()
      precondition(scheme.hasPrefix("http://") || scheme.hasPrefix("https://"), "a link that is not http(s)")
      if let date = item.published {
        precondition(date.iso8601.utf8.count == 20, "a date iso8601 cannot write in 20 characters")
        precondition(FeedDate.parse(date.iso8601) == date, "a date that does not read back")
      }
    }
  }
  if size <= 256, let date = FeedDate.parse(String(decoding: bytes, as: UTF8.self)) {
    precondition(FeedDate.parse(date.iso8601) == date, "a date that does not read back")
  }
  return 0
}

@main enum Main {
  static func main() { runFuzzer { data, size in fuzzFeed(data, size) } }
}
