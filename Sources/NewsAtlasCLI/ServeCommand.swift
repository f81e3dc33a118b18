import ArgumentParser
import AtlasAnswers
import AtlasServer
import AtlasSettings
import Fetch
import Foundation
import GeoFormats
import GeoIndex
import Logging
import NewsAPI
import Store

#if canImport(Glibc)
  import Glibc
#endif

struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve the news map, nearest, resolve, clusters, vector tiles and headlines over HTTP.",
    discussion: """
      Loads each dataset once (the 54 markers are always there, as markers), then answers on HOST:PORT. Once \
      it listens it prints one line, 'newsatlas: serving on http://HOST:PORT', on standard output; it logs one \
      line per request on standard error. Port 0 picks a free port. /v1/headlines uses NEWSAPI_KEY (or the \
      settings' api-key) through one cache and one request budget for the whole server; --no-news turns it off. \
      Datasets written over HTTP (PUT /v1/datasets/NAME, with the write token of --write-token-file or \
      NEWSATLAS_WRITE_TOKEN) are kept in --datasets-dir and served again after a restart.
      """
  )

  @Option(help: "The address to listen on (loopback unless told otherwise).")
  var host = "127.0.0.1"

  @Option(help: "The port to listen on (0 picks a free one).")
  var port = 8080

  @Option(
    help: ArgumentHelp(
      "Serve a GeoJSON or CSV file as dataset NAME (letters, digits, '-' and '_'); repeatable.",
      valueName: "name=file"))
  var points: [String] = []

  @Option(
    name: .customLong("max-body-mb"),
    help: ArgumentHelp("The largest batch POST body taken, in MiB (bigger ones get 413).", valueName: "mib"))
  var maxBodyMegabytes = 1024

  @Option(
    name: .customLong("grace"),
    help: ArgumentHelp(
      "Seconds requests in flight get to finish after SIGINT or SIGTERM.", valueName: "seconds"))
  var graceSeconds = 10

  @OptionGroup var clustering: ClusteringOptions

  @Option(
    help: ArgumentHelp("Send Access-Control-Allow-Origin: ORIGIN with every answer.", valueName: "origin"))
  var cors: String?

  @Option(
    help: ArgumentHelp(
      "Cores that answer each batch POST's rows (default: all); the answers are the same.", valueName: "n"))
  var threads: Int = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))

  @Option(
    name: .customLong("tile-cache-mb"),
    help: ArgumentHelp(
      "Encoded tiles kept between requests, in MiB (0 keeps none); the oldest go first.", valueName: "mib"))
  var tileCacheMegabytes = 64

  @Option(
    name: .customLong("filter-cache-mb"),
    help: ArgumentHelp(
      "Filtered indexes (filter=) kept between requests, in MiB (0 keeps none); the least recently used go first.",
      valueName: "mib"))
  var filterCacheMegabytes = 256

  @Option(
    name: .customLong("max-features"),
    help: ArgumentHelp(
      "The most features one clusters, children or leaves answer holds (more: 422, ask with a bbox).",
      valueName: "n"))
  var maxFeatures = 100_000

  @Option(
    name: .customLong("idle-timeout"),
    help: ArgumentHelp(
      "Seconds a connection may wait with no request before it is closed.", valueName: "seconds"))
  var idleTimeout = ConnectionLimits().idleSeconds

  @Option(
    name: .customLong("header-timeout"),
    help: ArgumentHelp(
      "Seconds a request's head may take to arrive, from its first byte.", valueName: "seconds"))
  var headerTimeout = ConnectionLimits().headerSeconds

  @Option(
    name: .customLong("body-timeout"),
    help: ArgumentHelp("Seconds a request body may pause between two reads.", valueName: "seconds"))
  var bodyTimeout = ConnectionLimits().bodySeconds

  @Option(
    name: .customLong("send-timeout"),
    help: ArgumentHelp(
      "Seconds a client may take none of its answer before it is dropped.", valueName: "seconds"))
  var sendTimeout = ConnectionLimits().sendSeconds

  @Option(
    name: .customLong("max-connections"),
    help: ArgumentHelp(
      "Connections open at once (default: the open-file limit less 100); more are closed at once.",
      valueName: "n"))
  var maxConnections: Int?

  @Option(
    name: .customLong("write-token-file"),
    help: ArgumentHelp(
      "A file (readable by you alone) holding the token that dataset writes must send; else NEWSATLAS_WRITE_TOKEN.",
      valueName: "file"))
  var writeTokenFile: String?

  @Option(
    name: .customLong("datasets-dir"),
    help: ArgumentHelp(
      "Where datasets written over HTTP are kept and read back at start (default: XDG data home's newsatlas/datasets).",
      valueName: "dir"))
  var datasetsDirectory: String?

  @Flag(name: .customLong("no-news"), help: "Serve no headlines (/v1/headlines answers 503).")
  var noNews = false

  @Option(
    help: ArgumentHelp(
      "Where Leaflet is, for the map page at / (Debian's libjs-leaflet puts it here).", valueName: "dir"))
  var leaflet = "/usr/share/javascript/leaflet"

  func run() async throws {
    guard (0...65535).contains(port) else { throw CLIError.usage("--port is 0 to 65535, not \(port).") }
    guard (0...3600).contains(graceSeconds) else {
      throw CLIError.usage("--grace is 0 to 3600 seconds, not \(graceSeconds).")
    }
    guard (1...(1 << 20)).contains(maxBodyMegabytes) else {
      throw CLIError.usage("--max-body-mb is 1 to 1048576, not \(maxBodyMegabytes).")
    }
    guard (0...(1 << 20)).contains(tileCacheMegabytes) else {
      throw CLIError.usage("--tile-cache-mb is 0 to 1048576, not \(tileCacheMegabytes).")
    }
    guard (0...(1 << 20)).contains(filterCacheMegabytes) else {
      throw CLIError.usage("--filter-cache-mb is 0 to 1048576, not \(filterCacheMegabytes).")
    }
    guard (1...256).contains(threads) else { throw CLIError.usage("--threads is 1 to 256, not \(threads).") }
    guard (1...100_000_000).contains(maxFeatures) else {
      throw CLIError.usage("--max-features is 1 to 100000000, not \(maxFeatures).")
    }
    let openFiles = raiseOpenFileLimit()
    let maxConnections = self.maxConnections ?? max(openFiles / 2, openFiles - 100)
    guard maxConnections >= 1 else {
      throw CLIError.usage("--max-connections is 1 or more, not \(maxConnections).")
    }
    for (name, seconds) in [
      ("--idle-timeout", idleTimeout), ("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout),
      ("--send-timeout", sendTimeout),
    ] where !(1...86_400).contains(seconds) {
      throw CLIError.usage("\(name) is 1 to 86400 seconds, not \(seconds).")
    }
    let aggregations = try clustering.aggregations()
    let options = try clustering.checkedOptions()
    returnLargeBlocksWhenFreed()
    var datasets = [try Self.dataset(name: "markers", file: nil, options, aggregations)]
    for given in points {
      guard let equals = given.firstIndex(of: "="), equals != given.startIndex else {
        throw CLIError.usage("--points takes NAME=FILE (for example cafes=cafes.geojson), not '\(given)'.")
      }
      let name = String(given[..<equals])
      let path = String(given[given.index(after: equals)...])
      guard VectorLayer.isValidName(name) else {
        throw CLIError.usage("A dataset name is letters, digits, '-' and '_' (64 at most), not '\(name)'.")
      }
      guard !datasets.contains(where: { $0.name == name }) else {
        throw CLIError.usage("Two datasets are named '\(name)'; give each its own name.")
      }
      let file = try formats { () throws(FormatError) in
        try FeatureFile.load(
          path: path, propertyNames: aggregations.map(\.property), showProgress: StandardError.isTerminal)
      }
      datasets.append(try Self.dataset(name: name, file: file, options, aggregations))
    }
    let writeToken = try Self.writeToken(file: writeTokenFile)
    let directory = datasetsDirectory ?? UserFolders().data + "/datasets"
    // What was written over HTTP is newer than any file given with --points: it is served in its place.
    for kept in AtlasService.keptDatasets(
      directory: directory, options: options, aggregations: aggregations,
      warn: { StandardError.write("newsatlas: \($0)\n") })
    {
      if let given = datasets.firstIndex(where: { $0.name == kept.name }) {
        StandardError.write(
          "newsatlas: the dataset '\(kept.name)' is served as it was last written over HTTP, from "
            + "'\(directory)', not from --points.\n")
        datasets[given] = kept
      } else {
        datasets.append(kept)
      }
    }
    releaseFreedMemory()
    let log = BatchedLog()
    defer { log.close() }
    let logger = log.logger(label: "newsatlas")
    // The settings are read only for news (--no-news needs none).
    let settings = noNews ? nil : try Settings.load()
    let (news, http, newsUnavailable) = try Self.news(settings: settings)
    defer { http?.shutdown() }
    let service = AtlasService(
      datasets: datasets, corsOrigin: cors, maxBodyBytes: maxBodyMegabytes << 20, news: news,
      defaultProvider: try settings?.provider() ?? .auto, newsLanguage: settings?[.language],
      newsUnavailable: newsUnavailable,
      leafletDirectory: leaflet, batchThreads: threads,
      tileCacheBytes: tileCacheMegabytes << 20,
      connectionLimits: ConnectionLimits(
        idleSeconds: idleTimeout, headerSeconds: headerTimeout, bodySeconds: bodyTimeout,
        sendSeconds: sendTimeout, maxConnections: maxConnections),
      maxFeatures: maxFeatures, filterCacheBytes: filterCacheMegabytes << 20, writeToken: writeToken,
      datasetsDirectory: directory, clusterOptions: options, aggregations: aggregations)
    let host = self.host
    do {
      try await service.run(host: host, port: port, logger: logger, gracePeriod: .seconds(graceSeconds)) {
        bound in
        // Readiness, for people and for scripts: one line once the port is open.
        let out = OutputBuffer.standardOutput()
        out.append("newsatlas: serving on http://\(host.contains(":") ? "[\(host)]" : host):\(bound)\n")
        out.flush()
      }
    } catch {
      // The port is taken, the host is no address of this machine, or the server failed while running.
      throw CLIError(
        description: "Cannot serve on \(host):\(port): \(String(describing: error).prefix(200)).",
        exitCode: 69)
    }
  }

  /// The providers every headlines request shares (NewsAPI when a key is set, GDELT always, the feeds file's
  /// feeds; their cache, budget and pacing from the settings), or the sentence that says why there are none
  /// (no settings: `--no-news`).
  static func news(settings: Settings?) throws -> (NewsProviders?, HTTPClient?, String) {
    guard let settings else {
      return (nil, nil, "This server was started with --no-news, so it serves no headlines.")
    }
    let key = try settings.apiKey()
    let base = try settings.apiBase()
    let gdeltBase = try settings.gdeltBase()
    let feedList = try FeedList.load()
    // The cache counts every request against the budget and paces GDELT: without it the server sends none.
    let database: CacheDatabase
    do {
      database = try CacheDatabase(opening: UserFolders().cacheFile) {
        StandardError.write("newsatlas: \($0)\n")
      }
    } catch {
      StandardError.write("newsatlas: \(error.description) The server answers no headlines.\n")
      return (
        nil, nil, error.description + " Without it no request can be counted, so this server sends none."
      )
    }
    let http = HTTPClient()
    let cache = CachePolicy(database: database, settings: settings) {
      StandardError.write("newsatlas: \(printable($0))\n")
    }
    do {
      let newsAPI = try key.map { key throws(NewsAPIError) in
        try NewsAPIClient(key: key, baseURL: base, http: http, cache: cache)
      }
      let gdelt = try GDELTClient(
        baseURL: gdeltBase, http: http, cache: cache, configuration: NewsConfiguration(settings: settings))
      let feeds = FeedsProvider(client: FeedsClient(http: http, cache: cache), list: feedList)
      return (NewsProviders(newsAPI: newsAPI, gdelt: gdelt, feeds: feeds), http, "")
    } catch {
      http.shutdown()
      throw CLIError(newsAPI: error)
    }
  }

  /// The write token: the file's first line (the file must be a regular file that only its owner can read, as
  /// the settings file holding the key must), else `NEWSATLAS_WRITE_TOKEN`, else none (writes off).
  static func writeToken(
    file: String?, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(CLIError) -> String? {
    let text: String
    let origin: String
    if let file {
      let fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
      guard fd >= 0 else {
        throw .usage("Cannot read the write token file '\(file)' (\(String(cString: strerror(errno)))).")
      }
      defer { close(fd) }
      var status = stat()
      guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= 4096 else {
        throw .usage("The write token file '\(file)' is not a regular file of at most 4 KiB.")
      }
      guard status.st_mode & 0o077 == 0 else {
        throw CLIError(
          description:
            "Other users can read the write token file '\(file)', so it is not used; run: chmod 600 '\(file)'.",
          exitCode: 78)
      }
      var bytes = [UInt8](repeating: 0, count: 4097)
      let count = read(fd, &bytes, bytes.count)
      guard count >= 0 else {
        throw .usage("Cannot read the write token file '\(file)' (\(String(cString: strerror(errno)))).")
      }
      text = String(decoding: bytes[..<count], as: UTF8.self)
      origin = "The write token file '\(file)'"
    } else if let value = environment["NEWSATLAS_WRITE_TOKEN"] {
      text = value
      origin = "NEWSATLAS_WRITE_TOKEN"
    } else {
      return nil
    }
    let token = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
      .trimmingCharacters(in: .whitespaces)
    guard token.utf8.count >= 16, token.utf8.count <= 1024,
      token.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
    else {
      throw .usage(
        "\(origin) must hold a token of 16 to 1024 visible ASCII characters (for example the output of "
          + "'openssl rand -hex 32').")
    }
    return token
  }

  static func dataset(
    name: String, file: FeatureFile?, _ options: ClusterOptions, _ aggregations: [Aggregation]
  ) throws(CLIError) -> Dataset {
    do {
      return try Dataset(name: name, file: file, options: options, aggregations: aggregations)
    } catch {
      throw .usage(error.description)
    }
  }
}

/// Has glibc give large blocks (each zoom's full-width draft while an index is built, its scratch arrays)
/// back to the system as soon as they are freed, instead of raising its threshold for mapping them and keeping
/// them in its arenas, where they would add to the next ones at the peak of a start. With a 1M-point dataset:
/// 434 MB at the peak with glibc's default, 387 MB with blocks from 4 MiB mapped (1 MiB: 372 MB, but the
/// index build takes 40 % longer for the page faults; 8 MiB: 399 MB).
private func returnLargeBlocksWhenFreed() {
  #if canImport(Glibc)
    _ = glibcMallopt(-3, 4 << 20)  // M_MMAP_THRESHOLD
  #endif
}

/// Raises the soft limit of open files to the hard one (as Go's runtime does), and returns the limit: each
/// connection is a descriptor, and the default soft limit (1024) is low for a public server.
private func raiseOpenFileLimit() -> Int {
  #if canImport(Glibc)
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
    if limit.rlim_cur < limit.rlim_max {
      var raised = limit
      raised.rlim_cur = min(limit.rlim_max, 1 << 20)
      if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
    }
    return Int(min(limit.rlim_cur, 1 << 20))
  #else
    return 1024
  #endif
}

/// Hands back to the system what glibc still keeps of the memory loading freed.
private func releaseFreedMemory() {
  #if canImport(Glibc)
    _ = glibcMallocTrim(0)
  #endif
}

#if canImport(Glibc)
  /// glibc's `mallopt(3)` and `malloc_trim(3)`, which its Swift module does not export (malloc.h is not in it).
  @_silgen_name("mallopt")
  private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
  @_silgen_name("malloc_trim")
  private func glibcMallocTrim(_ pad: Int) -> Int32
#endif
