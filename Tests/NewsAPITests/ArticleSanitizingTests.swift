import Fetch
import Foundation
import NewsAPI
import NewsAtlas
import Store
import TestSupport
import Testing

/// One sanitiser for every provider's articles (issue 43, item 8): links that are not http(s), controls and
/// bidirectional controls never reach JSON, `/v1/headlines` or a terminal.
@Suite struct ArticleSanitizingTests {
  func article(title: String = "A title", url: String = "https://example.org/a", image: String? = nil) -> Article {
    Article(
      source: .init(id: nil, name: "Example\u{202E}moc.elpmaxe"), author: "An\u{1B}[31m author", title: title,
      description: "Line one\nline\u{9B}31m two\u{85}", url: url, urlToImage: image,
      publishedAt: "2026-11-28T10:00:00Z", content: "\u{2066}isolated\u{2069}")
  }

  @Test(arguments: [
    "javascript:alert(1)", "JAVASCRIPT:alert(1)", "data:text/html,<script>", "https://example.org/a\u{0}b",
    "https://exa mple.org/", "https:///path", "https://example.org/\u{202E}", "//example.org/a", "",
    "https://example.org/\u{85}",
  ])
  func aLinkThatIsNotTheWebDropsTheArticle(url: String) {
    #expect(article(url: url).sanitized() == nil, "\(url.debugDescription)")
  }

  @Test func textLosesItsControlsAndAnImageItsBadURL() throws {
    let clean = try #require(article(title: "Mind\u{202E}the gap\u{0}", image: "javascript:alert(1)").sanitized())
    #expect(clean.title == "Mindthe gap ")
    #expect(clean.source.name == "Examplemoc.elpmaxe")
    #expect(clean.author == "An [31m author")
    #expect(clean.description == "Line one line 31m two ")
    #expect(clean.content == "isolated")
    #expect(clean.urlToImage == nil)
    #expect(article(image: "https://example.org/i.jpg").sanitized()?.urlToImage == "https://example.org/i.jpg")
    // Text without anything to remove is the same text.
    #expect(article(title: "Élection à Paris — 2026").sanitized()?.title == "Élection à Paris — 2026")
  }

  /// NewsAPI's answers pass through it as they are decoded.
  @Test func newsAPIAnswersAreSanitized() throws {
    let body = #"""
      {"status":"ok","totalResults":2,"articles":[
      {"source":{"id":null,"name":"S"},"author":null,"title":"Bad","description":null,"url":"javascript:alert(1)",
       "urlToImage":null,"publishedAt":"2026-11-28T10:00:00Z","content":null},
      {"source":{"id":null,"name":"S"},"author":null,"title":"Good\u202e","description":null,
       "url":"https://example.org/g","urlToImage":"data:image/png;base64,AA","publishedAt":"2026-11-28T10:00:00Z",
       "content":null}]}
      """#
    let response = HTTPResponse(
      status: 200, rawHeaders: Array("Content-Type: application/json\r\n".utf8), body: Array(body.utf8))
    guard case .success(let page) = NewsAPIClient.decodeArticles(response) else {
      Issue.record("the page did not decode")
      return
    }
    #expect(page.articles.map(\.title) == ["Good"])
    #expect(page.articles.first?.urlToImage == nil)
  }

  /// GDELT's too, through the client: a javascript: link and a NUL in one are left out, a bidi control and a
  /// C1 control in a title removed and made a space, a javascript: image dropped.
  @Test func gdeltAnswersAreSanitized() async throws {
    let items = [
      ("javascript:alert(1)", "Script link", ""), (#"https://fr.example/a\u0000b"#, "NUL link", ""),
      ("https://fr.example/ok", #"Good\u202e \u009b31m"#, "javascript:alert(2)"),
    ].map { url, title, image in
      #"{"url":"\#(url)","url_mobile":"","title":"\#(title)","seendate":"20261128T100000Z","socialimage":"\#(image)","#
        + #""domain":"fr.example","language":"French","sourcecountry":"France"}"#
    }
    let body = #"{"articles":["# + items.joined(separator: ",") + "]}"
    let transport = FakeTransport { _, _ in
      HTTPResponse(status: 200, rawHeaders: Array("Content-Type: application/json\r\n".utf8), body: Array(body.utf8))
    }
    var configuration = NewsConfiguration()
    configuration.gdeltSpacing = 0
    let client = try GDELTClient(
      baseURL: "http://127.0.0.1:9", http: transport,
      cache: CachePolicy(database: InMemoryResponseStore()) { _ in }, configuration: configuration)
    let france = try #require(Country.named(code: "fr"))
    let results = try await client.headlines([HeadlinesJob(country: france)], options: HeadlinesOptions())
    let articles = try #require(results.first?.articles)
    #expect(articles.map(\.url) == ["https://fr.example/ok"])
    #expect(articles.first?.title == "Good  31m")
    #expect(articles.first?.urlToImage == nil)
  }
}
