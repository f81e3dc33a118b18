import Fetch
import Testing

/// The URL rules the client applies before sending, the one redaction of `user:password@`, and the printable
/// form of text from elsewhere.
@Suite struct HTTPURLTests {
  @Test(arguments: [
    ("https://newsapi.org", "https://newsapi.org:443", ""),
    ("HTTP://Example.ORG:8080/base/", "http://example.org:8080", "/base/"),
    ("http://user:pw@127.0.0.1:9/x", "http://127.0.0.1:9", "/x"),
    ("http://[::1]:8080/v2", "http://[::1]:8080", "/v2"),
    ("http://[::1]", "http://[::1]:80", ""),
  ])
  func parses(text: String, origin: String, path: String) throws {
    let url = try #require(HTTPURL(text))
    #expect(url.origin == origin && url.path == path)
  }

  @Test(arguments: [
    "", "http://", "https://", "http:///x", "ftp://example.org", "example.org", "http://user@/x",
    "http://example.org:/", "http://example.org:0", "http://example.org:99999", "http://exa mple.org",
    "http://example.org/\r\nX-Injected: 1", "http://example.org/\u{1B}", "http://exämple.org", "http://a,b/",
    "http://[::1", "http://[zz]/", "http://[::1]x/", "http://a%0d%0ab/",
  ])
  func refuses(text: String) {
    #expect(HTTPURL(text) == nil)
  }

  @Test func httpsAndHTTPAreDifferentOrigins() throws {
    #expect(
      try #require(HTTPURL("https://a.org")).origin != (try #require(HTTPURL("http://a.org:443"))).origin)
    #expect(
      try #require(HTTPURL("http://a.org")).origin == (try #require(HTTPURL("http://A.org:80/x"))).origin)
  }

  @Test(arguments: [
    ("http://user:pass@127.0.0.1:9/v2?q=1", "http://127.0.0.1:9/v2?q=1"),
    ("https://user@host/", "https://host/"),
    ("https://a:b@c@host/x@y", "https://host/x@y"),
    ("http://host/path@x", "http://host/path@x"),
    ("not a url", "not a url"),
    ("http://user:pass@", "http://"),
  ])
  func redacts(text: String, shown: String) {
    #expect(HTTPURL.redacted(text) == shown)
  }

  @Test func printableTextHasNoControlCharacters() {
    #expect(printable("plain, é, 中文") == "plain, é, 中文")
    #expect(printable("a\u{1B}[2Jb\u{9B}c\u{7F}d\u{0}") == "a\u{FFFD}[2Jb\u{FFFD}c\u{FFFD}d\u{FFFD}")
    #expect(printable("line\r\nforged\tcolumn") == "line  forged column")
  }
}
