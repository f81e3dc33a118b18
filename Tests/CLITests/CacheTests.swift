import Foundation
import TestSupport
import Testing

/// The on-disk cache and the quota, through the CLI against the fake NewsAPI: what is sent, what is served,
/// and what survives concurrent processes, a killed process and a corrupt file.
@Suite struct CacheTests {
  let server: LocalServer
  let scratch: ScratchDirectory
  var folder: String { scratch.path }
  var cacheFile: String { folder + "/cache/newsatlas/cache.sqlite" }
  var environment: [String: String] {
    [
      "NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": server.base,
      "XDG_CACHE_HOME": folder + "/cache", "XDG_CONFIG_HOME": folder + "/config",
    ]
  }

  init() throws {
    server = try LocalServer()
    scratch = try ScratchDirectory()
  }

  func run(_ arguments: [String], _ extra: [String: String] = [:]) throws -> CLI.Result {
    try CLI.run(arguments, environment: environment.merging(extra) { $1 })
  }

  func sent(_ fragment: String) throws -> Int { try server.log().filter { $0.contains(fragment) }.count }

  @Test func aSecondIdenticalCommandSendsNothing() throws {
    let first = try run(["headlines", "--country", "us", "--format", "json"])
    #expect(first.status == 0)
    #expect(try sent("country=us") == 1)
    let second = try run(["headlines", "--country", "us", "--format", "json"])
    #expect(second.status == 0 && second.stdout == first.stdout)
    #expect(try sent("country=us") == 1)
    _ = try run(["headlines", "--country", "us", "--refresh"])
    #expect(try sent("country=us") == 2)
  }

  /// libcurl (and the two dozen libraries it brings) is opened by the first request, not at start: a run whose
  /// answer is all in the cache never loads it. glibc's loader says which files it opens (`LD_DEBUG=files`).
  @Test func aCachedAnswerNeverLoadsLibcurl() throws {
    let loader = ["LD_DEBUG": "files"]
    let first = try run(["headlines", "--country", "us"], loader)
    #expect(first.status == 0 && first.stderr.contains("file=libcurl.so"))
    let second = try run(["headlines", "--country", "us"], loader)
    #expect(second.status == 0 && second.stdout == first.stdout)
    #expect(!second.stderr.contains("libcurl"))
    #expect(try sent("country=us") == 1)
  }

  /// A run answered from the cache reads it and writes nothing: no transaction, so no checkpoint and no fsync
  /// at close (a cached run used to rewrite the file's header each time).
  @Test func aCachedAnswerWritesNothing() throws {
    #expect(try run(["headlines", "--country", "us"]).status == 0)
    let before = try Data(contentsOf: URL(fileURLWithPath: cacheFile))
    #expect(try run(["headlines", "--country", "us"]).status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: cacheFile)) == before)
    #expect(!FileManager.default.fileExists(atPath: cacheFile + "-wal"))
    #expect(try sent("country=us") == 1)
  }

  @Test func offlineUsesOnlyTheCache() throws {
    let empty = try run(["headlines", "--country", "us", "--offline"])
    #expect(empty.status == 69 && empty.stderr.contains("Offline, and the cache has no answer"))
    #expect(try server.log().isEmpty)
    _ = try run(["headlines", "--country", "us"])
    server.stop()  // offline means offline: nothing is there to answer anyway
    let offline = try run(["headlines", "--country", "us", "--offline"])
    #expect(offline.status == 0 && offline.stdout.hasPrefix("us  United States"))
    #expect(offline.stderr.contains("Offline: the answer to top-headlines country=us is from"))
    // The warning in the reader's language (issue 31: the stale and offline warnings were English only).
    let french = try run(["headlines", "--country", "us", "--offline"], ["LANG": "fr_FR.UTF-8"])
    #expect(
      french.stderr.contains("Hors ligne : la réponse à top-headlines country=us date d'il y a "),
      "\(french.stderr)")
  }

  @Test func staleIfErrorOnARefusedConnection() throws {
    _ = try run(["config", "set", "ttl-headlines", "0"])
    _ = try run(["headlines", "--country", "us"])
    server.stop()  // the same service, now refusing connections
    let stale = try run(["headlines", "--country", "us"])
    #expect(stale.status == 0 && stale.stdout.hasPrefix("us  United States"))
    #expect(
      stale.stderr.contains("Serving the answer to top-headlines country=us")
        && stale.stderr.contains("refused"))
    let french = try run(["headlines", "--country", "us", "--lang", "fr"])
    #expect(
      french.stderr.contains("La réponse à top-headlines country=us servie date d'il y a ")
        && french.stderr.contains("a refusé la connexion ; rien n'y écoute."), "\(french.stderr)")
  }

  @Test func staleIfErrorOnTheRateLimit() throws {
    _ = try run(["config", "set", "ttl-search", "0"])
    #expect(try run(["search", "flaky429"]).status == 0)
    let stale = try run(["search", "flaky429"])  // the service now says 429
    #expect(stale.status == 0 && stale.stdout.contains("Before the limit"))
    #expect(stale.stderr.contains("quota"))
  }

  @Test func theBudgetAsksForForce() throws {
    _ = try run(["config", "set", "quota-day", "2"])
    #expect(try run(["search", "one"]).status == 0)
    #expect(try run(["search", "two"]).status == 0)
    let refused = try run(["search", "three"])
    #expect(refused.status == 75 && refused.stderr.contains("--force") && refused.stderr.contains("2 of 2"))
    #expect(try sent("q=three") == 0)
    #expect(try run(["search", "three", "--force"]).status == 0)
    let quota = try run(["quota"])
    #expect(quota.stdout.hasPrefix("3 of 2 requests in the last 24 hours"))
  }

  /// Runs `arguments` in `count` processes at once; their exit statuses.
  func runTogether(_ count: Int, _ arguments: [String]) -> [Int32] {
    let group = DispatchGroup()
    let statuses = Statuses()
    for _ in 0..<count {
      group.enter()
      // A thread each, not the global queue: on two busy cores its few threads started the processes a few at
      // a time, and a barrier that needs all of them in flight at once broke (CI, 2026-11-25).
      Thread {
        statuses.append((try? run(arguments))?.status ?? -1)
        group.leave()
      }.start()
    }
    group.wait()
    return statuses.values.sorted()
  }

  /// Processes that really overlap: the server holds each search until all of them are in flight at once (a
  /// barrier; it answers 504 if they never are, as when they run one at a time). Every request is counted in
  /// the one budget, the answer one stored is the next run's, and the budget holds across processes.
  @Test func concurrentProcessesShareTheCache() throws {
    let query = "barrier-\(UUID().uuidString.prefix(8))-6"
    #expect(runTogether(6, ["search", query, "--refresh"]) == [0, 0, 0, 0, 0, 0])
    let searches = { try self.server.log().filter { $0.hasPrefix("/v2/everything") } }
    #expect(try searches().count == 6)
    let quota = try run(["quota"])
    #expect(quota.stdout.hasPrefix("6 of 100 requests in the last 24 hours, 6 of 50"), "\(quota.stdout)")
    // Warm: the answer is in the shared cache; nothing is sent.
    #expect(try run(["search", query]).status == 0)
    #expect(try searches().count == 6)
    // The budget across processes: 8 in 12 hours leaves 2, and of 4 processes at once exactly 2 send (held
    // until both are in flight); the others send nothing: refused (75), or, once an answer is stored, served it
    // with the budget's warning (0).
    _ = try run(["config", "set", "quota-half-day", "8"])
    let spent = "barrier-\(UUID().uuidString.prefix(8))-2"
    let statuses = runTogether(4, ["search", spent, "--refresh"])
    #expect(statuses.prefix(2) == [0, 0] && statuses.allSatisfy { $0 == 0 || $0 == 75 }, "\(statuses)")
    #expect(try searches().count == 8)
    #expect(try run(["quota"]).stdout.contains("8 of 8 in the last 12 hours"))
  }

  @Test func aKilledProcessLeavesAUsableCache() throws {
    _ = try run(["config", "set", "quota-day", "100000"])
    _ = try run(["config", "set", "quota-half-day", "100000"])
    let process = Process()
    process.executableURL = CLI.executable
    process.arguments = ["headlines", "--all"]
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Kill it once it is writing: when the service has seen a good part of its requests.
    while process.isRunning, (try? server.log().count) ?? 0 < 3 { usleep(1000) }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    let after = try run(["headlines", "--country", "us"])
    #expect(after.status == 0 && after.stdout.hasPrefix("us  United States"))
    #expect(!after.stderr.contains("unreadable"))
  }

  @Test func aCorruptFileIsMovedAside() throws {
    try FileManager.default.createDirectory(
      atPath: folder + "/cache/newsatlas", withIntermediateDirectories: true)
    try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: cacheFile))
    let result = try run(["headlines", "--country", "us"])
    #expect(result.status == 0 && result.stdout.hasPrefix("us  United States"))
    #expect(result.stderr.contains("was unreadable; it was moved to"))
    let names = try FileManager.default.contentsOfDirectory(atPath: folder + "/cache/newsatlas")
    #expect(names.contains { $0.hasPrefix("cache.sqlite.broken-") })
  }

  /// A full disk, as a file-size limit: the cache cannot count the request, so nothing is sent (74).
  @Test func aFullDiskSendsNothing() throws {
    _ = try run(["search", "fill"])  // the cache file now exists and is larger than the limit below
    let sentBefore = try server.log().count
    let limited = try CLI.shell(
      "ulimit -f 1 && exec \"$0\" search \"full disk\" --refresh", environment: environment)
    let (output, errors) = (limited.stdout, limited.stderr)
    #expect(limited.status == 74, "\(errors)")
    let sentAfter = try server.log().count
    #expect(output.isEmpty && sentAfter == sentBefore)
    #expect(errors.contains("cannot be used now") && errors.contains("nothing is sent"), "\(errors)")
    #expect(!errors.contains("moved"))  // the cache itself is fine: it stays where it is
    #expect(try run(["search", "fill", "--offline"]).status == 0)  // and still answers once there is room
  }

  @Test func numbersMayBeWrittenAsTOMLIntegers() throws {
    try FileManager.default.createDirectory(
      atPath: folder + "/config/newsatlas", withIntermediateDirectories: true)
    try "ttl-search = 0\nquota-day = 500\ncountry = \"fr\"\n".write(
      toFile: folder + "/config/newsatlas/config.toml", atomically: true, encoding: .utf8)
    #expect(try run(["config", "get", "quota-day"]).stdout == "500\n")
    #expect(try run(["config", "set", "ttl-headlines", "60"]).status == 0)
    let text = try String(contentsOfFile: folder + "/config/newsatlas/config.toml", encoding: .utf8)
    #expect(text.contains("ttl-headlines = 60\n") && text.contains("country = \"fr\"\n"))
  }

  @Test func settingsForTheCacheAreValidated() throws {
    #expect(try run(["config", "set", "ttl-headlines", "-5"]).status == 64)
    #expect(try run(["config", "set", "quota-day", "0"]).status == 64)
    #expect(try run(["config", "set", "quota-half-day", "abc"]).status == 64)
  }

  final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [Int32] = []
    func append(_ value: Int32) {
      lock.lock()
      values.append(value)
      lock.unlock()
    }
  }
}
