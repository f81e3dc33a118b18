import AtlasMessages
import CSQLite
import Foundation

/// The on-disk cache and request log: one SQLite file, shared safely by concurrent processes.
///
/// WAL journaling and a busy timeout let several processes read and write at once; a process killed mid-write
/// leaves the last committed state (SQLite's journal). A file that is not a usable database (corrupt, foreign)
/// is moved aside with a warning and a fresh one is made. A failed write (a full disk, say) is a warning, never
/// the command's failure: the cache only ever saves work.
// @unchecked: it holds SQLite's connection (a C pointer), used only under `lock`.
public final class CacheDatabase: ResponseStore, @unchecked Sendable {
  private var db: OpaquePointer?
  private let lock = NSLock()
  public let path: String
  private let warn: @Sendable (String) -> Void

  /// Why the cache cannot be used: one sentence (`text(in:)`; `description` is its English), and whether
  /// waiting may help (another process holds a lock).
  public struct Unavailable: Error, Sendable, CustomStringConvertible {
    public let sentence: Sentence
    public var description: String { sentence.description }
    public func text(in language: InterfaceLanguage) -> String { sentence.text(in: language) }
    /// Another process holds the file locked: waiting may help.
    public let isTemporary: Bool
    /// A read or a write failed (a full disk, an I/O error).
    public var isIOError = false
  }

  /// Opens (or creates) the cache; nil, with a warning, only if no cache can be had at all.
  public convenience init?(
    path: String, warn: @escaping @Sendable (String) -> Void
  ) {
    do {
      try self.init(opening: path, warn: warn)
    } catch {
      warn(error.text(in: .current))
      return nil
    }
  }

  /// Opens (or creates) the cache, or says in one sentence why there can be none. A file that is another
  /// program's SQLite database is refused and left exactly as it is.
  public init(opening path: String, warn: @escaping @Sendable (String) -> Void) throws(Unavailable) {
    self.path = path
    self.warn = warn
    let folder = (path as NSString).deletingLastPathComponent
    if !FileManager.default.fileExists(atPath: folder) {
      // The cache holds what the service answered: readable by its owner alone.
      try? FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
    switch open() {
    case .ready:
      return
    case .foreign:
      throw Unavailable(sentence: Sentence(.cacheForeign, path), isTemporary: false)
    case .unavailable(let reason, let busy, let io):
      // A full disk, a lock or a permission problem: the file may be fine, so it stays where it is.
      throw Unavailable(
        sentence: Sentence(.cacheCannotUse, path, reason), isTemporary: busy, isIOError: io)
    case .damaged:
      // Not a database we can use: keep it for inspection, start again.
      let aside = path + ".broken-\(Int(Date().timeIntervalSince1970))"
      try? FileManager.default.moveItem(atPath: path, toPath: aside)
      for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
      warn(Message.cacheMovedAside(path, aside))
      guard case .ready = open() else {
        throw Unavailable(sentence: Sentence(.cacheNoneMade, path), isTemporary: false)
      }
    }
  }

  deinit { sqlite3_close_v2(db) }

  private enum Opening {
    case ready
    /// The file is not a database, or a damaged one.
    case damaged
    /// A database, but another program's: never changed.
    case foreign
    /// Something else went wrong (no space, no permission, a lock held too long): the file is not to blame.
    case unavailable(String, busy: Bool, io: Bool)
  }

  /// Whether a failure means the file itself is bad.
  private func classify(_ code: Int32) -> Opening {
    switch code & 0xFF {
    case SQLITE_NOTADB, SQLITE_CORRUPT: return .damaged
    default:
      return .unavailable(
        String(cString: sqlite3_errstr(code)),
        busy: code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED,
        io: code & 0xFF == SQLITE_IOERR || code & 0xFF == SQLITE_FULL)
    }
  }

  /// `PRAGMA application_id` of a newsatlas cache ("NATL"); files made before it was set hold only our two
  /// tables and an id of 0, and are adopted.
  static let applicationID: Int32 = 0x4E41_544C

  private func open() -> Opening {
    sqlite3_close_v2(db)
    db = nil
    let opened = sqlite3_open_v2(
      path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
    guard opened == SQLITE_OK else { return classify(opened) }
    sqlite3_busy_timeout(db, 5000)
    // Another program's database is refused before anything is written to it.
    var id: Int32 = 0
    var tables: [String] = []
    let readID = query("PRAGMA application_id", []) { id = sqlite3_column_int($0, 0) }
    let readTables = query("SELECT name FROM sqlite_master WHERE type = 'table'", []) {
      tables.append(String(cString: sqlite3_column_text($0, 0)))
    }
    guard readID, readTables else { return classify(sqlite3_errcode(db)) }
    let ours =
      id == Self.applicationID || (id == 0 && tables.allSatisfy { ["responses", "requests"].contains($0) })
    guard ours else { return .foreign }
    // Written only when it is not yet ours: a write here would make every run, a cached one too, commit a
    // transaction and checkpoint it (fsyncs) at close.
    let claim = id == Self.applicationID ? "" : "PRAGMA application_id=\(Self.applicationID);"
    let setup = """
      \(claim)
      PRAGMA journal_mode=WAL;
      PRAGMA synchronous=NORMAL;
      CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, kind TEXT NOT NULL, body BLOB NOT NULL, stored_at REAL NOT NULL);
      CREATE TABLE IF NOT EXISTS requests (sent_at REAL NOT NULL, service TEXT NOT NULL DEFAULT 'newsapi');
      CREATE INDEX IF NOT EXISTS requests_sent_at ON requests (sent_at);
      """
    let prepared = sqlite3_exec(db, setup, nil, nil, nil)
    guard prepared == SQLITE_OK else { return classify(prepared) }
    // Caches made before the request log named its service hold NewsAPI's requests only.
    var columns: [String] = []
    _ = query("PRAGMA table_info(requests)", []) {
      columns.append(String(cString: sqlite3_column_text($0, 1)))
    }
    if !columns.contains("service") {
      let added = sqlite3_exec(
        db, "ALTER TABLE requests ADD COLUMN service TEXT NOT NULL DEFAULT 'newsapi'", nil, nil, nil)
      // Another process may have added it at the same moment.
      if added != SQLITE_OK && !String(cString: sqlite3_errmsg(db)).contains("duplicate column") {
        return classify(added)
      }
    }
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

  public func store(_ key: String, kind: String, body: [UInt8], at date: Date) {
    if !execute(
      "INSERT OR REPLACE INTO responses (key, kind, body, stored_at) VALUES (?, ?, ?, ?)",
      [.text(key), .text(kind), .blob(body), .real(date.timeIntervalSince1970)])
    {
      warn(Message.cacheNotSaved(lastError))
    }
  }

  /// What `reserveRequest` decided.
  public typealias Reservation = RequestReservation

  /// Counts one request to `service` about to be sent, in one transaction with the check that each rolling
  /// window (`seconds`, `limit`) has room for it and, with a `spacing`, with the choice of its send time (no
  /// sooner than `spacing` after the service's last one), so that concurrent processes sharing the file can
  /// never together go past a limit or closer than the spacing. No windows: counted whatever the use
  /// (`--force`). A turn later than `notAfter` is `tooLate`, and not counted.
  public func reserveRequest(
    service: String, at date: Date, windows: [(seconds: Double, limit: Int)], spacing: Double, notAfter: Date?
  ) -> Reservation {
    lock.lock()
    defer { lock.unlock() }
    guard let db else { return .failed("no database") }
    func fail() -> Reservation {
      let reason = String(cString: sqlite3_errmsg(db))
      sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
      return .failed(reason)
    }
    guard sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK else {
      return .failed(String(cString: sqlite3_errmsg(db)))
    }
    for window in windows {
      var count = 0
      guard
        unlockedQuery(
          "SELECT count(*) FROM requests WHERE service = ? AND sent_at > ?",
          [.text(service), .real(date.timeIntervalSince1970 - window.seconds)],
          { count = Int(sqlite3_column_int64($0, 0)) })
      else { return fail() }
      if count >= window.limit {
        sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
        return .overBudget
      }
    }
    var slot = date.timeIntervalSince1970
    if spacing > 0 {
      var last: Double? = nil
      guard
        unlockedQuery(
          "SELECT max(sent_at) FROM requests WHERE service = ?", [.text(service)],
          {
            if sqlite3_column_type($0, 0) != SQLITE_NULL { last = sqlite3_column_double($0, 0) }
          })
      else { return fail() }
      if let last { slot = max(slot, last + spacing) }
    }
    if let notAfter, slot > notAfter.timeIntervalSince1970 {
      sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
      return .tooLate(sendAt: Date(timeIntervalSince1970: slot))
    }
    guard
      unlockedQuery(
        "INSERT INTO requests (sent_at, service) VALUES (?, ?)", [.real(slot), .text(service)], { _ in }),
      sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK
    else { return fail() }
    return .reserved(sendAt: Date(timeIntervalSince1970: slot))
  }

  /// Notes a request sent to the service, for the quota.
  public func recordRequest(at date: Date = Date()) {
    if !execute("INSERT INTO requests (sent_at) VALUES (?)", [.real(date.timeIntervalSince1970)]) {
      warn(Message.cacheNotCounted(lastError))
    }
  }

  /// Requests to `service` counted since `date`, oldest first.
  public func requests(service: String, since date: Date) -> [Date] {
    var dates: [Date] = []
    _ = query(
      "SELECT sent_at FROM requests WHERE service = ? AND sent_at > ? ORDER BY sent_at",
      [.text(service), .real(date.timeIntervalSince1970)]
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
    return unlockedQuery(sql, values, row)
  }

  /// `query`, for a caller that holds the lock.
  private func unlockedQuery(_ sql: String, _ values: [Value], _ row: (OpaquePointer) -> Void) -> Bool {
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
