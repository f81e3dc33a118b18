import Foundation
import TestSupport
import Testing

/// `newsatlas headlines` from feeds, end to end: the binary, the feed server on 127.0.0.1, a scratch settings
/// folder and cache.
@Suite(.serialized) struct FeedsHeadlinesTests {
  let server: LocalServer
  let scratch: ScratchDirectory
  var environment: [String: String] {
    ["XDG_CONFIG_HOME": scratch.path + "/config", "XDG_CACHE_HOME": scratch.path + "/cache"]
  }

  init() throws {
    server = try LocalServer(script: "feed_server.py")
    scratch = try ScratchDirectory()
  }

  func run(_ arguments: [String]) throws -> CLI.Result { try CLI.run(arguments, environment: environment) }

  /// The feeds file's feeds answer their country under auto, with no key; the JSON names the provider.
  @Test func autoTakesTheCountrysFeedsWithNoKey() throws {
    // Unread (--no-check): the requests counted below are the headlines' alone.
    #expect(try run(["feeds", "add", "fr", server.base + "/feeds/rss2-cdata.xml", "--no-check"]).status == 0)
    #expect(try run(["feeds", "add", "fr", server.base + "/feeds/latin1.xml", "--no-check"]).status == 0)
    let result = try run(["headlines", "--country", "fr", "--page-size", "3", "--format", "json"])
    #expect(result.status == 0, "\(result.stderr)")
    let first = (result.json?["results"] as? [[String: Any]])?.first
    #expect(first?["provider"] as? String == "feeds")
    #expect(first?["strategy"] as? String == "feeds")
    let articles = first?["articles"] as? [[String: Any]] ?? []
    #expect(
      articles.map { $0["publishedAt"] as? String } == [
        "2026-11-25T13:30:00Z", "2026-11-25T13:02:11Z", "2026-11-25T08:00:00Z",
      ])
    #expect(
      articles.first?["url"] as? String == server.base + "/planete/article/2026/11/25/cop31_6512346_3244.html"
    )
    #expect((articles.last?["source"] as? [String: Any])?["name"] as? String == "El Diario - Última hora")
    // Warm: nothing sent; --refresh asks again with the validators, and the 304s keep the articles.
    #expect(try run(["headlines", "--country", "fr", "--format", "json"]).status == 0)
    #expect(try server.log().count == 2)
    let refreshed = try run([
      "headlines", "--country", "fr", "--page-size", "3", "--format", "json", "--refresh",
    ])
    #expect(refreshed.stdout == result.stdout)
    let log = try server.log()
    #expect(log.count == 4)
    #expect(log.suffix(2).allSatisfy { $0.contains("if-none-match=\"") })
    // The dry run names each feed and whether the cache answers it.
    let plan = try run(["headlines", "--country", "fr", "--dry-run"])
    #expect(plan.stdout.contains("cached  feeds \(server.base)/feeds/rss2-cdata.xml"), "\(plan.stdout)")
  }

  /// `--feed` for one run, and hostile feeds through the whole command: an error object, nothing of the file.
  /// An item whose date is missing or cannot be read has no date (`publishedAt` null; "date unknown" in text),
  /// never the channel's or the time it was read, which showed an old article as new; dated items come first.
  /// libxml2 says a failed encoding conversion on standard error whatever the parser's options (it has no
  /// parser context then): a feed with bytes its encoding cannot hold reads what it can, and standard error
  /// stays NewsAtlas's own.
  @Test func libxml2WritesNothingOfItsOwn() throws {
    let json = try run([
      "headlines", "--country", "fr", "--feed", server.base + "/feeds/shift-jis-bad-bytes.xml", "--format", "json",
    ])
    #expect(json.status == 0 && json.stdout.contains("http://example.com/a"), "\(json.stdout)")
    #expect(json.stderr.isEmpty, "\(json.stderr)")
  }

  @Test func anUndatedItemKeepsNoDate() throws {
    let url = server.base + "/feeds/undated.xml"
    let json = try run(["headlines", "--country", "fr", "--feed", url, "--format", "json"])
    #expect(json.status == 0, "\(json.stderr)")
    let articles = ((json.json?["results"] as? [[String: Any]])?.first?["articles"] as? [[String: Any]]) ?? []
    #expect(articles.map { $0["title"] as? String } == ["Caf\u{E9} \u{AB}dated\u{BB}", "No date at all", "A date nobody reads"])
    #expect(articles.first?["publishedAt"] as? String == "2004-07-08T23:56:58Z")
    #expect(articles.dropFirst().allSatisfy { $0["publishedAt"] is NSNull }, "\(articles)")
    #expect((articles.first?["source"] as? [String: Any])?["name"] as? String == "Sans date \u{2014} Undated")
    let text = try run(["headlines", "--country", "fr", "--feed", url, "--utc"])
    #expect(text.status == 0 && text.stdout.components(separatedBy: "date unknown").count == 3, "\(text.stdout)")
    let french = try run(["headlines", "--country", "fr", "--feed", url, "--lang", "fr"])
    #expect(french.stdout.contains("date inconnue"), "\(french.stdout)")
  }

  @Test func oneOffFeedsAndHostileOnes() throws {
    let atom = try run(["headlines", "--country", "jp", "--feed", server.base + "/feeds/atom-relative.xml"])
    #expect(atom.status == 0, "\(atom.stderr)")
    #expect(atom.stdout.contains("Markets rally as rates & yields fall"))
    for name in ["billion-laughs.xml", "xxe.xml"] {
      let result = try run(
        ["headlines", "--country", "jp", "--feed", server.base + "/feeds/" + name, "--format", "json"])
      #expect(result.status != 0)
      let error = ((result.json?["results"] as? [[String: Any]])?.first?["error"]) as? [String: Any]
      #expect(error?["kind"] as? String == "decoding")
      #expect((error?["message"] as? String)?.contains("declares an XML entity") == true)
      #expect(!result.stdout.contains("root:") && !result.stderr.contains("root:"))
    }
    let refused = try run(["headlines", "--country", "jp", "--feed", "file:///etc/passwd"])
    #expect(refused.status == 64 && refused.stderr.contains("is not a feed URL"))
    let mismatch = try run(
      ["headlines", "--country", "jp", "--provider", "gdelt", "--feed", server.base + "/feeds/rdf.xml"])
    #expect(mismatch.status == 64 && mismatch.stderr.contains("--feed is read by the feeds provider"))
  }

  /// libxml2 is opened by the first feed parsed, not at start: `resolve` and `nearest` never map it (nor
  /// libcurl), a feed read does (the dynamic loader's own account, LD_DEBUG=libs).
  @Test func libxml2OpensAtTheFirstFeed() throws {
    var traced = environment
    traced["LD_DEBUG"] = "libs"
    for arguments in [["resolve", "48.85", "2.35"], ["nearest", "48.85", "2.35"]] {
      let local = try CLI.run(arguments, environment: traced)
      #expect(local.status == 0, "\(local.stderr)")
      #expect(local.stderr.contains("find library="), "LD_DEBUG traced nothing: \(local.stderr)")
      #expect(!local.stderr.contains("libxml2.so") && !local.stderr.contains("libcurl.so"), "\(local.stderr)")
    }
    let feed = try CLI.run(
      ["headlines", "--country", "jp", "--feed", server.base + "/feeds/atom-relative.xml"],
      environment: traced)
    #expect(feed.status == 0)
    #expect(feed.stderr.contains("find library=libxml2.so.2"))
  }

  /// Without libxml2, reading a feed fails with one sentence and everything else runs (the library named here
  /// does not exist, or is not libxml2).
  @Test(arguments: ["/nonexistent/libxml2.so.2", "libz.so.1"])
  func withoutLibxml2OnlyFeedsFail(library: String) throws {
    var environment = environment
    environment["NEWSATLAS_LIBXML2"] = library
    let feed = try CLI.run(
      ["headlines", "--country", "jp", "--feed", server.base + "/feeds/atom-relative.xml"],
      environment: environment)
    #expect(feed.status != 0 && !feed.stdout.contains("Markets rally"))
    #expect(
      feed.stderr.contains(
        library.hasPrefix("/")
          ? "\(library) could not be loaded (\(library): cannot open shared object file: No such file or "
            + "directory); install libxml2" : "libxml2 loaded lacks xmlInitParser"),
      "\(feed.stderr)")
    let local = try CLI.run(["nearest", "48.85", "2.35"], environment: environment)
    #expect(local.status == 0 && local.stdout.hasPrefix("fr  France"), "\(local.stderr)")
  }
}
