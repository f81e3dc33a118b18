import Fetch
import Foundation
import TestSupport
import Testing

/// What the news commands send, and may never send: a timeout that bounds the whole request, retries counted
/// against the budget, no sending without a cache that counts, cache keys that cannot be forged, NewsAPI's
/// errors never cached as empty answers, and another program's database left alone.
@Suite struct BudgetTests {
  let server: LocalServer
  let scratch: ScratchDirectory
  var cacheFile: String { scratch.path + "/cache/newsatlas/cache.sqlite" }
  var environment: [String: String] {
    [
      "NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": server.base,
      "XDG_CACHE_HOME": scratch.path + "/cache", "XDG_CONFIG_HOME": scratch.path + "/config",
    ]
  }

  init() throws {
    server = try LocalServer()
    scratch = try ScratchDirectory()
  }

  func run(_ arguments: [String]) throws -> CLI.Result { try CLI.run(arguments, environment: environment) }

  func sent(_ fragment: String) throws -> Int { try server.log().filter { $0.contains(fragment) }.count }

  @Test func theTimeoutBoundsTheWholeRequestRetryIncluded() throws {
    let slow = try run(["search", "slow", "--timeout", "1"])
    #expect(slow.status == 69 && slow.stderr.contains("within 1.0 seconds"), "\(slow.stderr)")
    // The timed-out attempt left no time for a retry, so none was sent (there were two before).
    #expect(try sent("q=slow") == 1)
  }

  @Test func retriesAreCountedAgainstTheBudgetAndNeverPassIt() throws {
    #expect(try run(["config", "set", "quota-half-day", "1"]).status == 0)
    let failing = try run(["search", "always500"])
    // The first attempt took the budget's one request: its retry was not sent, and the failure it had is said.
    #expect(failing.status == 69 && failing.stderr.contains("our fault"), "\(failing.stderr)")
    #expect(try sent("q=always500") == 1)
    #expect(try run(["quota"]).stdout.contains("1 of 50 in the last 12 hours") == false)
    #expect(try run(["quota"]).stdout.contains("1 of 1 in the last 12 hours"))
    #expect(try run(["config", "set", "quota-half-day", "3"]).status == 0)
    _ = try run(["search", "always500"])
    _ = try run(["search", "always500", "--refresh"])
    #expect(try sent("q=always500") == 3)
    #expect(try run(["quota"]).stdout.contains("3 of 3 in the last 12 hours"))
  }

  @Test func noCacheMeansNoSending() throws {
    // A folder where the cache file should be: it cannot be opened.
    try FileManager.default.createDirectory(atPath: cacheFile, withIntermediateDirectories: true)
    let refused = try run(["search", "anything"])
    #expect(refused.status == 73 && refused.stderr.contains("so nothing is sent"), "\(refused.stderr)")
    #expect(refused.stderrLines.count == 1)
    #expect(try server.log().isEmpty)
    // A dry run sends nothing, so it goes on (and says the cache is missing).
    #expect(try run(["headlines", "--country", "fr", "--dry-run"]).status == 0)
  }

  @Test func aLockedCacheSendsNothing() throws {
    #expect(try run(["search", "first"]).status == 0)
    // Another process holds the cache's write lock for longer than the busy timeout.
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    holder.arguments = [
      "python3", "-c",
      "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
        + "c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); sys.stdin.read()",
      cacheFile,
    ]
    let input = Pipe()
    let output = Pipe()
    holder.standardInput = input
    holder.standardOutput = output
    try holder.run()
    defer {
      try? input.fileHandleForWriting.close()
      holder.waitUntilExit()
    }
    #expect(output.fileHandleForReading.readReadinessLine() == "locked")
    let locked = try run(["search", "second"])
    #expect(locked.status == 75, "\(locked.stderr)")
    #expect(try sent("q=second") == 0)
  }

  @Test func searchWordsCannotForgeAnotherRequestsCacheKey() throws {
    #expect(try run(["search", "x&sortBy=popularity"]).status == 0)
    let sorted = try run(["search", "x", "--sort-by", "popularity", "--format", "json"])
    #expect(sorted.status == 0)
    // Sent, not answered from the first search's cache entry.
    #expect(try sent("sortBy=popularity") == 1)
    #expect(sorted.stdout.contains("About x\""))
  }

  @Test func anErrorBodyWithA200IsAnErrorAndIsNotCached() throws {
    let first = try run(["search", "okerror"])
    #expect(
      first.status == 69 && first.stderr.contains("Something went wrong on our side"), "\(first.stderr)")
    #expect(!first.stdout.contains("0 of 0"))
    _ = try run(["search", "okerror"])
    #expect(try sent("q=okerror") >= 2)  // asked again: nothing was cached
  }

  @Test func aMalformedArticleIsLeftOutAndCounted() throws {
    let page = try run(["search", "nulltitle", "--format", "json"])
    #expect(page.status == 0, "\(page.stderr)")
    #expect(page.stdout.contains("Good one") && page.stdout.contains("Good two"))
    #expect(page.stderr.contains("1 malformed article"), "\(page.stderr)")
  }

  @Test func aNegativeRetryAfterIsNotBelieved() throws {
    let limited = try run(["search", "negativeretry"])
    #expect(limited.status == 75)
    #expect(!limited.stderr.contains("-5") && limited.stderr.contains("try again later"), "\(limited.stderr)")
  }

  @Test func anotherProgramsDatabaseIsNeverChanged() throws {
    try FileManager.default.createDirectory(
      atPath: (cacheFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let made = try CLI.shell(
      "python3 -c \"import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE mine (x)'); "
        + "c.execute('INSERT INTO mine VALUES (1)'); c.commit()\" \"$1\"", [cacheFile])
    #expect(made.status == 0, "\(made.stderr)")
    let before = try Data(contentsOf: URL(fileURLWithPath: cacheFile))
    let refused = try run(["search", "anything"])
    #expect(refused.status == 73 && refused.stderr.contains("another program's SQLite database"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: cacheFile)) == before)
    #expect(!FileManager.default.fileExists(atPath: cacheFile + "-wal"))
    #expect(try server.log().isEmpty)
  }
}

/// The budget and the service: concurrent identical questions share one upstream request, and a client
/// refused by the budget is told when to come back, not a command-line flag.
@Suite struct ServeBudgetTests {
  let client = HTTPClient()

  @Test func concurrentIdenticalQuestionsShareOneUpstreamRequest() async throws {
    let news = try LocalServer()
    let served = try Served(
      [], environment: ["NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": news.base])
    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<20 {
        group.addTask { try await client.get(served.base + "/v1/headlines?country=fr").status }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(statuses == Array(repeating: 200, count: 20))
    let log = try news.log()
    // Cold: the sources list once and France's sources once, whatever the number of clients (26 before).
    #expect(log.filter { $0.hasPrefix("/v2/top-headlines/sources") }.count == 1, "\(log)")
    #expect(log.filter { $0.contains("top-headlines?sources=") }.count == 1, "\(log)")
  }

  @Test func theBudgetTellsHTTPClientsWhenToComeBack() async throws {
    let news = try LocalServer()
    let scratch = try ScratchDirectory()
    let environment = [
      "NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": news.base,
      "XDG_CONFIG_HOME": scratch.path + "/config",
    ]
    #expect(try CLI.run(["config", "set", "quota-half-day", "1"], environment: environment).status == 0)
    let served = try Served([], environment: environment)
    let started = Date()
    #expect(try await client.get(served.base + "/v1/headlines?country=us").status == 200)
    let refused = try await client.get(served.base + "/v1/headlines?country=fr")
    // The one request of the 12-hour window leaves it 43,200 s after it was sent: what is left of that when
    // the refusal is written, whatever this machine's pace between the two requests.
    let elapsed = Int(Date().timeIntervalSince(started).rounded(.up))
    let body = String(decoding: refused.body, as: UTF8.self)
    #expect(refused.status == 429, "\(body)")
    let wait = try #require(refused.header("retry-after").flatMap { Int($0) })
    #expect((43_200 - elapsed - 1...43_200).contains(wait), "\(wait) s, \(elapsed) s after the first request")
    #expect(body.contains("budget") && !body.contains("--"), "\(body)")
    #expect(try news.log().count == 1)
  }
}
