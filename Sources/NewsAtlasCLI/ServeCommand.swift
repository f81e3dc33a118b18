import ArgumentParser
import AtlasAnswers
import AtlasMessages
import AtlasServer
import AtlasSettings
import Fetch
import Foundation
import GeoFormats
import GeoIndex
import Logging
import NewsAPI
import NewsAtlas
import PostGISSource
import Store

#if canImport(Glibc)
  import Glibc
#endif

struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: Message.serveAbstract(),
    discussion: helpDiscussion(Message.serveDiscussion())
  )

  @Option(help: ArgumentHelp(Message.serveHostHelp()))
  var host = "127.0.0.1"

  @Option(help: ArgumentHelp(Message.servePortHelp()))
  var port = 8080

  @Option(
    help: ArgumentHelp(
      Message.servePointsHelp(), valueName: "name=file"))
  var points: [String] = []

  @Option(help: ArgumentHelp(Message.servePostgresHelp(), valueName: "url"))
  var postgres: String?

  @Option(help: ArgumentHelp(Message.serveTableHelp(), valueName: "schema.table"))
  var table: [String] = []

  @Option(help: ArgumentHelp(Message.serveGeometryHelp(), valueName: "column"))
  var geometry: String?

  @Option(name: .customLong("id"), help: ArgumentHelp(Message.serveIdHelp(), valueName: "column"))
  var idColumn: String?

  @Option(help: ArgumentHelp(Message.servePropertiesHelp(), valueName: "a,b,c"))
  var properties: String?

  @Option(
    name: .customLong("max-body-mb"),
    help: ArgumentHelp(Message.serveMaxBodyHelp(), valueName: "mib"))
  var maxBodyMegabytes = 1024

  @Option(
    name: .customLong("grace"),
    help: ArgumentHelp(
      Message.serveGraceHelp(), valueName: "seconds"))
  var graceSeconds = 10

  @OptionGroup var clustering: ClusteringOptions

  @OptionGroup var interface: InterfaceOptions

  @Option(
    help: ArgumentHelp(Message.serveCorsHelp(), valueName: "origin"))
  var cors: String?

  @Option(
    name: .customLong("threads"),
    help: ArgumentHelp(
      Message.serveThreadsHelp(), valueName: "n"))
  var requestedThreads: Int?

  /// The cores asked for, else all of this machine's (not a default in the help, which would show this one's and
  /// say it twice: the help says "all").
  var threads: Int { requestedThreads ?? Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

  @Option(
    name: .customLong("tile-cache-mb"),
    help: ArgumentHelp(
      Message.serveTileCacheHelp(), valueName: "mib"))
  var tileCacheMegabytes = 64

  @Option(
    name: .customLong("filter-cache-mb"),
    help: ArgumentHelp(
      Message.serveFilterCacheHelp(), valueName: "mib"))
  var filterCacheMegabytes = 256

  @Option(
    name: .customLong("filter-builds"),
    help: ArgumentHelp(Message.serveFilterBuildsHelp(), valueName: "n"))
  var requestedFilterBuilds: Int?

  /// Filtered indexes built at once: as asked, else half the cores (one at least).
  var filterBuilds: Int { requestedFilterBuilds ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) / 2) }

  @Option(
    name: .customLong("filter-queue"),
    help: ArgumentHelp(Message.serveFilterQueueHelp(), valueName: "n"))
  var filterQueue = 16

  @Option(
    name: .customLong("max-features"),
    help: ArgumentHelp(
      Message.serveMaxFeaturesHelp(), valueName: "n"))
  var maxFeatures = 100_000

  @Option(
    name: .customLong("idle-timeout"),
    help: ArgumentHelp(
      Message.serveIdleTimeoutHelp(), valueName: "seconds"))
  var idleTimeout = ConnectionLimits().idleSeconds

  @Option(
    name: .customLong("header-timeout"),
    help: ArgumentHelp(
      Message.serveHeaderTimeoutHelp(), valueName: "seconds"))
  var headerTimeout = ConnectionLimits().headerSeconds

  @Option(
    name: .customLong("body-timeout"),
    help: ArgumentHelp(Message.serveBodyTimeoutHelp(), valueName: "seconds"))
  var bodyTimeout = ConnectionLimits().bodySeconds

  @Option(
    name: .customLong("send-timeout"),
    help: ArgumentHelp(
      Message.serveSendTimeoutHelp(), valueName: "seconds"))
  var sendTimeout = ConnectionLimits().sendSeconds

  @Option(
    name: .customLong("max-connections"),
    help: ArgumentHelp(
      Message.serveMaxConnectionsHelp(), valueName: "n"))
  var maxConnections: Int?

  @Option(
    name: .customLong("write-token-file"),
    help: ArgumentHelp(Message.serveWriteTokenFileHelp(), valueName: "file"))
  var writeTokenFile: String?

  @Option(
    name: .customLong("datasets-dir"),
    help: ArgumentHelp(Message.serveDatasetsDirHelp(), valueName: "dir"))
  var datasetsDirectory: String?

  @Flag(name: .customLong("no-news"), help: ArgumentHelp(Message.serveNoNewsHelp()))
  var noNews = false

  @Option(
    help: ArgumentHelp(
      Message.serveLeafletHelp(), valueName: "dir"))
  var leaflet = "/usr/share/javascript/leaflet"

  func run() async throws {
    guard (0...65535).contains(port) else {
      throw CLIError.usage(Message.serveRange("--port", 0, 65535, port))
    }
    guard (0...3600).contains(graceSeconds) else {
      throw CLIError.usage(Message.serveSecondsRange("--grace", 0, 3600, graceSeconds))
    }
    guard (1...(1 << 20)).contains(maxBodyMegabytes) else {
      throw CLIError.usage(Message.serveRange("--max-body-mb", 1, 1_048_576, maxBodyMegabytes))
    }
    guard (0...(1 << 20)).contains(tileCacheMegabytes) else {
      throw CLIError.usage(Message.serveRange("--tile-cache-mb", 0, 1_048_576, tileCacheMegabytes))
    }
    guard (0...(1 << 20)).contains(filterCacheMegabytes) else {
      throw CLIError.usage(Message.serveRange("--filter-cache-mb", 0, 1_048_576, filterCacheMegabytes))
    }
    guard (1...256).contains(filterBuilds) else {
      throw CLIError.usage(Message.serveRange("--filter-builds", 1, 256, filterBuilds))
    }
    guard (0...10_000).contains(filterQueue) else {
      throw CLIError.usage(Message.serveRange("--filter-queue", 0, 10_000, filterQueue))
    }
    guard (1...256).contains(threads) else { throw CLIError.usage(Message.threadsRange(threads)) }
    guard (1...100_000_000).contains(maxFeatures) else {
      throw CLIError.usage(Message.serveRange("--max-features", 1, 100_000_000, maxFeatures))
    }
    let openFiles = raiseOpenFileLimit()
    let maxConnections = self.maxConnections ?? max(openFiles / 2, openFiles - 100)
    guard maxConnections >= 1 else {
      throw CLIError.usage(Message.serveMaxConnectionsRange(maxConnections))
    }
    for (name, seconds) in [
      ("--idle-timeout", idleTimeout), ("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout),
      ("--send-timeout", sendTimeout),
    ] where !(1...86_400).contains(seconds) {
      throw CLIError.usage(Message.serveSecondsRange(name, 1, 86400, seconds))
    }
    let aggregations = try clustering.aggregations()
    let options = try clustering.checkedOptions()
    returnLargeBlocksWhenFreed()
    // The tables named, the write token and the datasets folder before any file or table is read: a refusal
    // costs nothing then.
    let tableList = try postgresTables()
    let writeToken = try Self.writeToken(file: writeTokenFile)
    let directory = datasetsDirectory ?? UserFolders().data + "/datasets"
    // A server that writes claims its folder (made if missing, refused if another server writes there); one that
    // only reads what was kept needs it to be a folder, if anything.
    let folderLock: Int32?
    do throws(DatasetsFolder.Refusal) {
      folderLock = writeToken == nil ? try DatasetsFolder.check(directory) : try DatasetsFolder.claim(directory)
    } catch {
      let code: Int32 =
        switch error {
        case .locked: 69
        case .notAFolder: CLIError.usage
        case .unusable: 73
        }
      throw CLIError(description: error.sentence.description, exitCode: code)
    }
    defer { withExtendedLifetime(folderLock) {} }
    var datasets = [try Self.dataset(name: "markers", file: nil, options, aggregations)]
    for given in points {
      guard let equals = given.firstIndex(of: "="), equals != given.startIndex else {
        throw CLIError.usage(Message.servePointsShape(given))
      }
      let name = String(given[..<equals])
      let path = String(given[given.index(after: equals)...])
      guard VectorLayer.isValidName(name) else {
        throw CLIError.usage(Message.serveDatasetName(name))
      }
      guard !datasets.contains(where: { $0.name == name }) else {
        throw CLIError.usage(Message.serveDatasetTwice(name))
      }
      let file = try formats { () throws(FormatError) in
        try AtlasService.features(
          path: path, aggregations: aggregations, showProgress: StandardError.isTerminal)
      }
      datasets.append(try Self.dataset(name: name, file: file, options, aggregations))
    }
    // PostGIS tables, each a dataset named after it, read before the port opens and followed from there.
    var tables: [String: TableDataset] = [:]
    for (table, url) in tableList {
      guard VectorLayer.isValidName(table.name) else {
        throw CLIError.usage(Message.serveDatasetName(table.name))
      }
      guard !datasets.contains(where: { $0.name == table.name }) else {
        throw CLIError.usage(Message.serveDatasetTwice(table.name))
      }
      let started = ProgressLine.clock()
      let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
        "newsatlas-\(getpid())-\(table.name).geojson"
      ).path
      defer { unlink(scratch) }
      let link: PostGISLink
      let loaded: PostGISLink.Loaded
      do {
        link = try await PostGISLink(table, url: url)
        loaded = try await link.load(into: scratch)
      } catch {
        throw CLIError(
          description: error.sentence.text(in: .current),
          exitCode: { if case .usage = error { return CLIError.usage } else { return 69 } }())
      }
      if loaded.counts.skipped > 0 {
        StandardError.write(
          "newsatlas: " + Message.postgresSkipped(table.qualifiedName, loaded.counts.skipped) + "\n")
      }
      if !link.prunesLog {
        StandardError.write("newsatlas: " + Message.postgresLogNotPruned(table.qualifiedName) + "\n")
      }
      if loaded.unkeyed > 0 {
        StandardError.write(
          "newsatlas: " + Message.postgresUnkeyed(table.qualifiedName, loaded.unkeyed, link.key) + "\n")
      }
      let file = try formats { () throws(FormatError) in
        try AtlasService.features(path: scratch, aggregations: aggregations, name: table.qualifiedName)
      }
      unlink(scratch)  // read back through the open descriptor, as long as the dataset is served
      let dataset: Dataset
      do {
        dataset = try Dataset(
          name: table.name, file: file, options: options, aggregations: aggregations,
          table: table.qualifiedName, change: loaded.cursor)
      } catch {
        throw CLIError.usage(error.text(in: .current))
      }
      dataset.index.buildDeferredTrees()  // before serving: no request waits for a tree
      datasets.append(dataset)
      tables[table.name] = TableDataset(link: PostgresTable(link: link), cursor: loaded.cursor)
      StandardError.write(
        "newsatlas: "
          + Message.postgresLoaded(
            table.name, loaded.counts.features, ProgressLine.seconds(ProgressLine.clock() - started)) + "\n")
      StandardError.write(
        "newsatlas: " + Message.postgresFollowing(table.name, table.qualifiedName, "id " + link.key) + "\n")
    }
    // What was written over HTTP is newer than any file given with --points: it is served in its place.
    for kept in AtlasService.keptDatasets(
      directory: directory, options: options, aggregations: aggregations,
      warn: { StandardError.write("newsatlas: \($0)\n") })
    {
      if let table = tables[kept.name] {
        StandardError.write(
          "newsatlas: " + Message.postgresKeptHidden(kept.name, directory, table.link.qualifiedName) + "\n")
      } else if let given = datasets.firstIndex(where: { $0.name == kept.name }) {
        StandardError.write("newsatlas: " + Message.serveDatasetKept(kept.name, directory) + "\n")
        datasets[given] = kept
      } else {
        datasets.append(kept)
      }
    }
    releaseFreedMemory()
    keepFreedBlocksForBuilds()
    let log = BatchedLog()
    defer { log.close() }
    let logger = log.logger(label: "newsatlas")
    // The settings are read only for news (--no-news needs none).
    let settings = noNews ? nil : try LaunchSettings.load()
    let (news, http, newsUnavailable) = try Self.news(settings: settings)
    defer { http?.shutdown() }
    let service = AtlasService(
      datasets: datasets, corsOrigin: cors, maxBodyBytes: maxBodyMegabytes << 20, news: news,
      defaultProvider: try settings?.provider() ?? .auto, newsLanguage: settings?[.language],
      favouriteSources: try settings?[.sources].map { try Settings.Key.sourceIDs($0) } ?? [],
      newsUnavailable: newsUnavailable,
      leafletDirectory: leaflet, batchThreads: threads,
      tileCacheBytes: tileCacheMegabytes << 20,
      connectionLimits: ConnectionLimits(
        idleSeconds: idleTimeout, headerSeconds: headerTimeout, bodySeconds: bodyTimeout,
        sendSeconds: sendTimeout, maxConnections: maxConnections),
      maxFeatures: maxFeatures, filterCacheBytes: filterCacheMegabytes << 20, filterBuilds: filterBuilds,
      filterQueue: filterQueue, writeToken: writeToken,
      datasetsDirectory: directory, clusterOptions: options, aggregations: aggregations, tables: tables)
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
      let reason: String
      switch AtlasService.systemErrorNumber(of: error) {
      case EADDRINUSE?: reason = Message.serveAddressInUse()
      case EADDRNOTAVAIL?: reason = Message.serveNotAnAddressHere()
      case let code?: reason = String(cString: strerror(code))
      case nil where AtlasService.isUnknownHost(error): reason = Message.serveNoSuchHost()
      case nil: reason = String(String(describing: error).prefix(200))
      }
      throw CLIError(
        description: Message.serveCannotServe(host, port, reason),
        exitCode: 69)
    }
  }

  /// The providers every headlines request shares (NewsAPI when a key is set, GDELT always, the feeds file's
  /// feeds; their cache, budget and pacing from the settings), or the sentence that says why there are none
  /// (no settings: `--no-news`).
  static func news(settings: Settings?) throws -> (NewsProviders?, HTTPClient?, Sentence) {
    guard let settings else {
      return (nil, nil, Sentence(.serviceNoNews))
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
      StandardError.write("newsatlas: \(Message.serveNoCacheWarning(error.text(in: .current)))\n")
      return (nil, nil, Sentence(.serviceNoCache, error.sentence))
    }
    let http = HTTPClient()
    let cache = CachePolicy(database: database, settings: settings) {
      StandardError.write("newsatlas: \(printable($0))\n")
    }
    do {
      let newsAPI = try key.map { key throws(NewsAPIError) in
        try NewsAPIClient(key: key, baseURL: base, http: http, cache: cache)
      }
      // A burst of requests is told when GDELT's turn comes rather than held past its clients' patience.
      var configuration = NewsConfiguration(settings: settings)
      configuration.gdeltWaitLimit = NewsConfiguration.serviceGDELTWait
      let gdelt = try GDELTClient(baseURL: gdeltBase, http: http, cache: cache, configuration: configuration)
      let feeds = FeedsProvider(client: FeedsClient(http: http, cache: cache), list: feedList)
      return (NewsProviders(newsAPI: newsAPI, gdelt: gdelt, feeds: feeds), http, Sentence(.serviceNoNews))
    } catch {
      http.shutdown()
      throw CLIError(newsAPI: error)
    }
  }

  /// The tables `--table` names, each with the database: `--postgres`, else `DATABASE_URL`; the column options
  /// go with them.
  func postgresTables(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIError)
    -> [(PostGISTable, DatabaseURL)]
  {
    guard !table.isEmpty else {
      if postgres != nil || geometry != nil || idColumn != nil || properties != nil {
        throw .usage(Message.postgresOptionsWithoutTable())
      }
      return []
    }
    guard let text = postgres ?? environment["DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 }) else {
      throw .usage(Message.postgresNoURL())
    }
    do throws(PostGISError) {
      let url = try DatabaseURL(text)
      let kept = properties.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
      return try table.map { name throws(PostGISError) in
        (try PostGISTable(name, geometry: geometry, id: idColumn, properties: kept), url)
      }
    } catch {
      throw .usage(error.sentence.text(in: .current))
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
        throw .usage(Message.serveTokenUnreadable(file, String(cString: strerror(errno))))
      }
      defer { close(fd) }
      var status = stat()
      guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= 4096 else {
        throw .usage(Message.serveTokenNotRegular(file))
      }
      guard status.st_mode & 0o077 == 0 else {
        throw CLIError(description: Message.serveTokenReadable(file), exitCode: 78)
      }
      var bytes = [UInt8](repeating: 0, count: 4097)
      let count = read(fd, &bytes, bytes.count)
      guard count >= 0 else {
        throw .usage(Message.serveTokenUnreadable(file, String(cString: strerror(errno))))
      }
      text = String(decoding: bytes[..<count], as: UTF8.self)
      origin = Message.serveTokenFileOrigin(file)
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
      throw .usage(Message.serveTokenShape(origin))
    }
    return token
  }

  static func dataset(
    name: String, file: FeatureFile?, _ options: ClusterOptions, _ aggregations: [Aggregation]
  ) throws(CLIError) -> Dataset {
    do {
      let dataset = try Dataset(name: name, file: file, options: options, aggregations: aggregations)
      dataset.index.buildDeferredTrees()  // before serving: no request waits for a tree
      return dataset
    } catch {
      throw .usage(error.text(in: .current))
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

/// Once the datasets given at start are built, has glibc keep what a build frees for the next one: a write, a
/// PUT or a filter builds an index again, and blocks given back to the system as soon as they were freed (as
/// above, for the start's peak) are faulted in page by page at the next build (at 1M points, 55,000-95,000 page
/// faults and about 300 ms a write). Blocks up to 32 MiB (glibc's largest threshold) come from its arenas, and
/// it gives memory back when 64 MiB or more are free at the top of one. Resident memory stays near a build's
/// peak between writes (Benchmarks/README.md, issue 30).
private func keepFreedBlocksForBuilds() {
  #if canImport(Glibc)
    _ = glibcMallopt(-3, 32 << 20)  // M_MMAP_THRESHOLD
    _ = glibcMallopt(-1, 64 << 20)  // M_TRIM_THRESHOLD
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
