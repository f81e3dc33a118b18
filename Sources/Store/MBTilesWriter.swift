import AtlasMessages
import CSQLite
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writes an MBTiles 1.3 file (SQLite: `metadata` and `tiles` tables, TMS row order), built beside its final
/// path and moved there only when complete, so a failed or interrupted export never leaves a partial file
/// under the name asked for.
public final class MBTilesWriter {
  private var db: OpaquePointer?
  private var insert: OpaquePointer?
  public let path: String
  private let partial: String

  /// Why the file cannot be written, in one sentence (SQLite's and the system's words quoted as they are).
  public struct WriteError: Error, CustomStringConvertible {
    public let sentence: Sentence
    init(_ message: Message, _ arguments: any CustomStringConvertible...) {
      sentence = Sentence(message, arguments: arguments)
    }
    /// The sentence in English.
    public var description: String { sentence.description }
    public func text(in language: InterfaceLanguage) -> String { sentence.text(in: language) }
  }

  /// Creates the partial file beside `path` (`PATH.partial-PID`, mode 0644 less the umask, never through a
  /// symbolic link) and starts the tables.
  public init(path: String) throws(WriteError) {
    self.path = path
    partial = path + ".partial-\(getpid())"
    unlink(partial)  // one of an earlier run of this pid (a link there is removed, not followed)
    // Named for the signal handler before the file exists: a signal between the two would leave it behind.
    Self.partialForSignals = strdup(partial)
    let created = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard created >= 0 else {
      throw WriteError(.mbtilesCannotCreate, partial, String(cString: strerror(errno)))
    }
    close(created)
    guard
      sqlite3_open_v2(partial, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, nil) == SQLITE_OK
    else {
      let reason =
        db.map { Sentence(verbatim: String(cString: sqlite3_errmsg($0))) } ?? Sentence(.outOfMemory)
      sqlite3_close_v2(db)
      db = nil
      throw WriteError(.mbtilesCannotCreate, path, reason)
    }
    try execute(
      """
      PRAGMA journal_mode=OFF;
      PRAGMA synchronous=OFF;
      PRAGMA page_size=4096;
      CREATE TABLE metadata (name TEXT, value TEXT);
      CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
      BEGIN;
      """)
    guard
      sqlite3_prepare_v2(
        db, "INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)", -1,
        &insert, nil) == SQLITE_OK
    else { throw failure(Sentence(.mbtilesStepPrepare)) }
  }

  deinit {
    sqlite3_finalize(insert)
    sqlite3_close_v2(db)
    unlink(partial)  // nothing once finished (it was renamed); the partial file after a failure
    Self.partialForSignals = nil  // the string is left (one a writer): a handler may be reading it
  }

  /// The partial file of the writer alive (an MBTiles or PMTiles writer), for the handler of
  /// `removePartialFileOnSignals`.
  nonisolated(unsafe) static var partialForSignals: UnsafeMutablePointer<CChar>?
  /// The PMTiles writer's scratch file of tiles, removed by the same handler.
  nonisolated(unsafe) static var scratchForSignals: UnsafeMutablePointer<CChar>?

  /// Makes SIGINT and SIGTERM remove the partial (and scratch) file of the writer alive and end the process with
  /// 128 plus
  /// the signal (130, 143), as a shell reports it: a run stopped by Ctrl-C or `kill` leaves nothing. For a
  /// command whose work is writing the file; a library's host keeps its own handlers.
  /// The two are unblocked too: a parent may have started us with them blocked (threads of Dispatch block
  /// them, and a child inherits the mask), and the run could then not be stopped at all.
  public static func removePartialFileOnSignals() {
    var set = sigset_t()
    sigemptyset(&set)
    for signal in [SIGINT, SIGTERM] {
      sigaddset(&set, signal)
      _ = Glibc.signal(signal) { received in
        if let partial = MBTilesWriter.partialForSignals { unlink(partial) }  // unlink and _exit are
        if let scratch = MBTilesWriter.scratchForSignals { unlink(scratch) }
        _exit(128 + received)  // async-signal-safe
      }
    }
    pthread_sigmask(SIG_UNBLOCK, &set, nil)  // this thread's, which the export's threads inherit
  }

  /// Refuses to write at `path` when it is something other than a regular file (a device such as /dev/null,
  /// a FIFO, a symbolic link, a folder), which the finished file's rename would replace, or when it is the
  /// file `input` (also through a link: the same device and inode).
  public static func checkDestination(_ path: String, input: String?) throws(WriteError) {
    var target = stat()
    guard lstat(path, &target) == 0 else { return }  // absent: created
    guard target.st_mode & S_IFMT == S_IFREG else {
      let what: Message =
        switch target.st_mode & S_IFMT {
        case S_IFLNK: .mbtilesASymbolicLink
        case S_IFDIR: .mbtilesAFolder
        case S_IFIFO: .mbtilesAFIFO
        case S_IFCHR, S_IFBLK: .mbtilesADevice
        default: .mbtilesNotRegular
        }
      throw WriteError(.mbtilesNotAFile, path, Sentence(what))
    }
    var source = stat()
    if let input, input != "-", stat(input, &source) == 0, source.st_dev == target.st_dev,
      source.st_ino == target.st_ino
    {
      throw WriteError(.mbtilesIsTheInput, path, input)
    }
  }

  /// One metadata row (`name`, `format`, `bounds`, `json`, ...).
  public func metadata(_ name: String, _ value: String) throws(WriteError) {
    var statement: OpaquePointer?
    guard
      sqlite3_prepare_v2(db, "INSERT INTO metadata (name, value) VALUES (?, ?)", -1, &statement, nil)
        == SQLITE_OK
    else { throw failure(Sentence(.mbtilesStepMetadata)) }
    defer { sqlite3_finalize(statement) }
    sqlite3_bind_text(statement, 1, name, -1, csqlite_transient())
    sqlite3_bind_text(statement, 2, value, -1, csqlite_transient())
    guard sqlite3_step(statement) == SQLITE_DONE else { throw failure(Sentence(.mbtilesStepMetadata)) }
  }

  /// One tile at XYZ address `z/x/y` (stored with the TMS row, `2^z - 1 - y`, as MBTiles wants).
  public func tile(zoom z: Int, x: Int, y: Int, data: [UInt8]) throws(WriteError) {
    sqlite3_reset(insert)
    sqlite3_bind_int(insert, 1, Int32(z))
    sqlite3_bind_int(insert, 2, Int32(x))
    sqlite3_bind_int(insert, 3, Int32((1 << z) - 1 - y))
    _ = data.withUnsafeBytes {
      sqlite3_bind_blob(insert, 4, $0.baseAddress, Int32($0.count), csqlite_transient())
    }
    guard sqlite3_step(insert) == SQLITE_DONE else {
      throw failure(Sentence(.mbtilesStepTile, "\(z)/\(x)/\(y)"))
    }
  }

  /// Commits, adds the spec's unique tile index, and moves the file to `path` (replacing what was there).
  public func finish() throws(WriteError) {
    try execute(
      """
      COMMIT;
      CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
      CREATE UNIQUE INDEX name ON metadata (name);
      """)
    sqlite3_finalize(insert)
    insert = nil
    sqlite3_close_v2(db)
    db = nil
    try Self.checkDestination(path, input: nil)  // again: the path may have changed during the export
    guard rename(partial, path) == 0 else {
      throw WriteError(.mbtilesCannotMove, path, String(cString: strerror(errno)))
    }
  }

  private func execute(_ sql: String) throws(WriteError) {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
      throw failure(Sentence(.mbtilesStepSetUp))
    }
  }

  private func failure(_ what: Sentence) -> WriteError {
    let reason =
      db.map { Sentence(verbatim: String(cString: sqlite3_errmsg($0))) } ?? Sentence(.mbtilesNoDatabase)
    return WriteError(.mbtilesFailed, what, path, reason)
  }
}
