import AtlasMessages
import Fetch
import NewsAPI
import TestSupport
import Testing

/// What the news library refuses before any request, as a library user meets it (the CLI and `serve` check the
/// same settings earlier): catalogue sentences said in the reader's language (issue 31 item 3), where English
/// was passed through verbatim.
@Suite struct LibrarySentencesTests {
  static func unreached(_ url: String, _ headers: [(String, String)]) throws(HTTPError) -> HTTPResponse {
    throw .shutDown
  }

  /// The sentence of the `.invalidRequest` that `body` throws.
  func refusal(_ body: () throws(NewsAPIError) -> Void) -> Sentence? {
    do throws(NewsAPIError) {
      try body()
    } catch {
      if case .invalidRequest(let sentence) = error { return sentence }
    }
    return nil
  }

  /// A source id the sources list does not hold is an error holding the id and the nearest ids, a refusal
  /// before sending as `invalidRequest` is, worded by each front end: the command line sends the reader to
  /// `newsatlas sources NAME`, the service to its /v1/sources (it sent HTTP clients to the command line).
  @Test func anUnknownSourceIsWordedByEachFrontEnd() {
    let near = NewsAPIError.unknownSource(id: "bbc-nwes", nearest: ["bbc-news", "cbc-news"])
    #expect(near.isInvalidRequest && near.kind == "request")
    #expect(
      near.description
        == "'bbc-nwes' is not a NewsAPI source id; the nearest are bbc-news, cbc-news ('newsatlas sources NAME' "
        + "finds one by name).")
    let service = NewsAPIError.unknownSourceSentence("bbc-nwes", nearest: ["bbc-news"], service: true)
    #expect(
      service.text(in: .english)
        == "'bbc-nwes' is not a NewsAPI source id; the nearest are bbc-news (/v1/sources lists the sources this "
        + "server offers).")
    #expect(
      service.text(in: .french)
        == "'bbc-nwes' n'est pas un identifiant de source NewsAPI ; les plus proches sont bbc-news (/v1/sources "
        + "liste les sources que ce serveur propose).")
    // An empty sources list has no nearest id.
    let none = NewsAPIError.unknownSource(id: "x", nearest: [])
    #expect(none.description == "'x' is not a NewsAPI source id; 'newsatlas sources NAME' finds one by name.")
    #expect(
      NewsAPIError.unknownSourceSentence("x", nearest: [], service: true).text(in: .french)
        == "'x' n'est pas un identifiant de source NewsAPI ; /v1/sources liste les sources que ce serveur "
        + "propose.")
  }

  /// A search's refusals call a parameter as the front end does: NewsAPI's name by default (a library user's,
  /// who sets `searchIn`), the front end's when it names them (the command line's `--search-in`).
  @Test func aSearchRefusalNamesTheParameterAsTheFrontEndDoes() throws {
    var query = SearchQuery(q: "climat")
    query.searchIn = ["body"]
    let wire = try #require(refusal { () throws(NewsAPIError) in try NewsAPIClient.check(query) })
    #expect(wire.text(in: .english) == "searchIn takes title, description and content, not 'body'.")
    let flag = try #require(
      refusal { () throws(NewsAPIError) in try NewsAPIClient.check(query, naming: { "--" + $0.rawValue }) })
    #expect(flag.text(in: .french) == "--searchIn prend title, description et content, pas 'body'.")
    query.searchIn = []
    (query.from, query.to) = ("2026-11-02", "2026-11-01")
    let dates = try #require(refusal { () throws(NewsAPIError) in try NewsAPIClient.check(query) })
    #expect(dates.text(in: .english) == "The from date 2026-11-02 is after the to date 2026-11-01.")
    (query.from, query.to, query.pageSize) = (nil, nil, 0)
    let size = try #require(refusal { () throws(NewsAPIError) in try NewsAPIClient.check(query) })
    #expect(size.text(in: .english) == "pageSize must be 1 to 100, not 0.")
  }

  @Test func gdeltRefusesABaseAndATimespanInTheReadersLanguage() throws {
    let http = FakeTransport(answer: Self.unreached)
    let base = try #require(
      refusal { () throws(NewsAPIError) in _ = try GDELTClient(baseURL: "ftp://example.org", http: http) })
    #expect(base.text(in: .english).hasPrefix("The GDELT base 'ftp://example.org' is not an http"), "\(base)")
    #expect(
      base.text(in: .french).hasPrefix("La base de GDELT 'ftp://example.org' n'est pas une URL"), "\(base)")
    var configuration = NewsConfiguration()
    configuration.gdeltTimespan = "1 day"
    let timespan = try #require(
      refusal { () throws(NewsAPIError) in _ = try GDELTClient(http: http, configuration: configuration) })
    #expect(timespan.text(in: .english) == "'1 day' is not a GDELT timespan, such as 1d.")
    #expect(timespan.text(in: .french) == "'1 day' n'est pas une durée GDELT, comme 1d.")
    #expect(http.requests.isEmpty)
  }

  @Test func newsAPIRefusesAKeyAndABaseInTheReadersLanguage() throws {
    let http = FakeTransport(answer: Self.unreached)
    let key = try #require(
      refusal { () throws(NewsAPIError) in _ = try NewsAPIClient(key: "a\tb", http: http) })
    #expect(key.text(in: .english).hasPrefix("The API key holds a control character"), "\(key)")
    #expect(key.text(in: .french).hasPrefix("La clé d'API contient un caractère de contrôle"), "\(key)")
    let base = try #require(
      refusal { () throws(NewsAPIError) in _ = try NewsAPIClient(key: "k", baseURL: "newsapi.org", http: http)
      })
    #expect(base.text(in: .english).hasPrefix("The API base 'newsapi.org' is not an http"), "\(base)")
    #expect(base.text(in: .french).hasPrefix("La base de l'API 'newsapi.org' n'est pas une URL"), "\(base)")
    #expect(http.requests.isEmpty)
  }
}
