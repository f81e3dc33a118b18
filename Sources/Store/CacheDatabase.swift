import CSQLite
import Foundation

/// The on-disk cache and request log: one SQLite file, shared safely by concurrent processes.
///
/// WAL journaling and a busy timeout let several processes read and write at once; a process killed mid-write
/// leaves the last committed state (SQLite's journal). A file that is not a usable database (corrupt, foreign)
/// is moved aside with a warning and a fresh one is made. A failed write (a full disk, say) is a warning, never
/// the command's failure: the cache only ever saves work.
public final class CacheDatabase: @unchecked Sendable {
  private var db: OpaquePointer?
  private let lock = NSLock()
  public let path: String
  private let warn: @Sendable (String) -> Void

  /// `$XDG_CACHE_HOME/newsatlas/cache.sqlite`, default `~/.cache/newsatlas/cache.sqlite`.
  public static var defaultPath: String {
    let environment = ProcessInfo.processInfo.environment
    let base =
      environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.cache")
    return base + "/newsatlas/cache.sqlite"
  }

  /// Opens (or creates) the cache; nil, with a warning, only if no cache can be had at all.
  public init?(path: String = CacheDatabase.defaultPath, warn: @escaping @Sendable (String) -> Void) {
    self.path = path
    self.warn = warn
    try? FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    switch open() {
    case .ready:
      return
    case .unavailable(let reason):
      // A full disk or a permission problem: the file may be fine, so it stays where it is.
      warn("The cache at \(path) cannot be used now (\(reason)); going on without it.")
      return nil
    case .damaged:
      // Not a database we can use: keep it for inspection, start again.
      let aside = path + ".broken-\(Int(Date().timeIntervalSince1970))"
      try? FileManager.default.moveItem(atPath: path, toPath: aside)
      for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
      warn("The cache at \(path) was unreadable; it was moved to \(aside) and a new one started.")
      guard case .ready = open() else {
        warn("No cache could be made at \(path); going on without one.")
        return nil
      }
    }
  }

  deinit { sqlite3_close_v2(db) }

  private enum Opening {
    case ready
    /// The file is not a database, or a damaged one.
    case damaged
    /// Something else went wrong (no space, no permission): the file is not to blame.
    case unavailable(String)
  }

  /// Whether a failure means the file itself is bad.
  private func classify(_ code: Int32) -> Opening {
    switch code & 0xFF {
    case SQLITE_NOTADB, SQLITE_CORRUPT: return .damaged
    default: return .unavailable(String(cString: sqlite3_errstr(code)))
    }
  }

  private func open() -> Opening {
    sqlite3_close_v2(db)
    db = nil
    let opened = sqlite3_open_v2(
      path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
    guard opened == SQLITE_OK else { return classify(opened) }
    sqlite3_busy_timeout(db, 5000)
    let setup = """
      PRAGMA journal_mode=WAL;
      PRAGMA synchronous=NORMAL;
      CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, kind TEXT NOT NULL, body BLOB NOT NULL, stored_at REAL NOT NULL);
      CREATE TABLE IF NOT EXISTS requests (sent_at REAL NOT NULL);
      CREATE INDEX IF NOT EXISTS requests_sent_at ON requests (sent_at);
      """
    let prepared = sqlite3_exec(db, setup, nil, nil, nil)
    guard prepared == SQLITE_OK else { return classify(prepared) }
    // A header that parses can still hide damage: check the pages before trusting them.
    var ok = false
    _ = query("PRAGMA quick_check", []) { statement in
      ok = String(cString: sqlite3_column_text(statement, 0)) == "ok"
    }
    return ok ? .ready : .damaged
  }

  /// A cached body and when it was stored.
  public func lookup(_ key: String) -> (body: [UInt8], storedAt: Date)? {
    var found: (body: [UInt8], storedAt: Date)? = nil
    _ = query("SELECT body, stored_at FROM responses WHERE key = ?", [.text(key)]) { statement in
      let count = Int(sqlite3_column_bytes(statement, 0))
      let bytes =
        sqlite3_column_blob(statement, 0).map {
          Array(UnsafeBufferPointer(start: $0.assumingMemoryBound(to: UInt8.self), count: count))
        } ?? []
      found = (bytes, Date(timeIntervalSince1970: sqlite3_column_double(statement, 1)))
    }
    return found
  }

  public func store(_ key: String, kind: String, body: [UInt8], at date: Date = Date()) {
    if !execute(
      "INSERT OR REPLACE INTO responses (key, kind, body, stored_at) VALUES (?, ?, ?, ?)",
      [.text(key), .text(kind), .blob(body), .real(date.timeIntervalSince1970)])
    {
      warn("The answer could not be saved in the cache (\(lastError)); the command goes on without it.")
    }
  }

  /// Notes a request sent to the service, for the quota.
  public func recordRequest(at date: Date = Date()) {
    if !execute("INSERT INTO requests (sent_at) VALUES (?)", [.real(date.timeIntervalSince1970)]) {
      warn("The request could not be counted in the cache (\(lastError)).")
    }
  }

  /// Requests sent since `date`, oldest first.
  public func requests(since date: Date) -> [Date] {
    var dates: [Date] = []
    _ = query(
      "SELECT sent_at FROM requests WHERE sent_at > ? ORDER BY sent_at", [.real(date.timeIntervalSince1970)]
    ) { dates.append(Date(timeIntervalSince1970: sqlite3_column_double($0, 0))) }
    return dates
  }

  // MARK: - SQLite

  public enum Value {
    case text(String)
    case blob([UInt8])
    case real(Double)
  }

  private var lastError: String { db.map { String(cString: sqlite3_errmsg($0)) } ?? "no database" }

  private func execute(_ sql: String, _ values: [Value]) -> Bool {
    query(sql, values) { _ in }
  }

  /// Runs one statement, calling `row` for each result row; false on any SQLite error.
  @discardableResult
  private func query(_ sql: String, _ values: [Value], _ row: (OpaquePointer) -> Void) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    guard let db else { return false }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return false }
    defer { sqlite3_finalize(statement) }
    for (i, value) in values.enumerated() {
      let index = Int32(i + 1)
      switch value {
      case .text(let text): sqlite3_bind_text(statement, index, text, -1, csqlite_transient())
      case .blob(let bytes):
        _ = bytes.withUnsafeBytes {
          sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), csqlite_transient())
        }
      case .real(let number): sqlite3_bind_double(statement, index, number)
      }
    }
    while true {
      let result = sqlite3_step(statement)
      if result == SQLITE_ROW {
        row(statement)
        continue
      }
      return result == SQLITE_DONE
    }
  }
}
