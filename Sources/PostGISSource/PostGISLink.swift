import AtlasMessages
import Logging
import NIOCore
import PostgresNIO
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A table served live: its rows read once in a consistent snapshot, then every change committed to it
/// followed, and features written to it. What follows the table is PostgreSQL's own machinery, installed once
/// per database and table (`installSQL`, idempotent; a DBA may run it instead):
///
/// - `newsatlas.changes`, the change log: one row per changed key (`seq`, the table, the key as JSON text);
/// - a deferred constraint trigger on the table that, at commit, takes one advisory lock, logs the keys of the
///   rows the transaction inserted, updated or deleted, and sends `NOTIFY newsatlas_changes, 'schema.table'`;
/// - a statement trigger after `TRUNCATE` (which row triggers do not see) that takes the same lock and logs the
///   truncation, after which a replica reads the table whole again.
///
/// The lock, held from the log's insert to the commit, makes change numbers follow commit order: a reader that
/// sees change N sees every change before it, so a replica's position in the log is one number (`cursor`), and
/// reading `seq > cursor` after any disconnection loses nothing and repeats nothing. A replica applies a change
/// by key (the rows of that key removed, then those the table holds now added), so the order of its features
/// is canonical — rows never changed by key, then each key by its last change — and two replicas at one cursor
/// serve the same bytes under the same ETag, as a fresh load would.
public final class PostGISLink: Sendable {
  public let table: PostGISTable
  let url: DatabaseURL
  /// The geometry column, its PostGIS type (`geometry` or `geography`) and its SRID (0 when not constrained).
  let geometry: String
  let geometryType: String
  let srid: Int
  /// The table's columns in order.
  let columns: [String]
  /// The column that identifies a row (`--id`, else the one-column primary key) and its SQL type.
  public let key: String
  let keyType: String
  /// Whether the key is the primary key (never NULL), not a column `--id` named.
  let keyIsPrimary: Bool
  /// The columns served as properties (and written from them).
  public let propertyColumns: [String]

  /// The channel change notifications come on; each one's payload is `schema.table`.
  public static let channel = "newsatlas_changes"

  /// Named in the trigger function's source: an installation without it (an earlier version's, which keeps
  /// every change) is installed again.
  static let logVersion = "change log v2"

  /// False when the table's trigger is an earlier version's that this role may not replace: the table is
  /// followed as well, but its change log keeps every change, not only each key's last.
  public let prunesLog: Bool

  /// Connects, checks the table and its columns, and installs the change log and the table's trigger unless
  /// they are there.
  ///
  /// - Throws: `.usage` for a table, a column or a key the database has not got; `.unavailable` when it cannot
  ///   be reached or refuses (the trigger's installation included: its sentence says what a DBA runs).
  public init(_ table: PostGISTable, url: DatabaseURL) async throws(PostGISError) {
    let connection = try await PostGISLoader.connect(url)
    defer { Self.close(connection) }
    let catalogue = try await PostGISLoader.catalogue(of: table, on: connection, url: url)
    geometry = catalogue.geometry
    geometryType = catalogue.columns.first { $0.name == catalogue.geometry }!.type
    srid = catalogue.columns.first { $0.name == catalogue.geometry }!.srid
    columns = catalogue.columns.map(\.name)
    var table = table
    keyIsPrimary = table.id == nil
    if table.id == nil {
      table.id = try await Self.primaryKey(of: table, on: connection, url: url)
    }
    self.table = table
    key = table.id!
    keyType = catalogue.columns.first { $0.name == table.id }!.sqlType
    propertyColumns = table.properties ?? columns.filter { $0 != catalogue.geometry && $0 != table.id }
    self.url = url
    prunesLog = try await Self.install(table, key: key, url: url, on: connection)
  }

  private static func close(_ connection: PostgresConnection) {
    Task { try? await connection.close() }
  }

  /// The table's one-column primary key, the key replicas follow rows by when `--id` names none.
  static func primaryKey(of table: PostGISTable, on connection: PostgresConnection, url: DatabaseURL)
    async throws(PostGISError) -> String
  {
    var binds = PostgresBindings()
    binds.append(PostGISTable.quoted(table.schema) + "." + PostGISTable.quoted(table.name))
    let query = PostgresQuery(
      unsafeSQL: """
        SELECT a.attname::text FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid \
        AND a.attnum = ANY(i.indkey) WHERE i.indrelid = to_regclass($1) AND i.indisprimary \
        AND i.indnatts = 1
        """, binds: binds)
    var found: [String] = []
    do {
      for try await name in try await connection.query(query, logger: PostGISLoader.quiet).decode(String.self) {
        found.append(name)
      }
    } catch {
      throw PostGISLoader.refusal(error, url)
    }
    guard let key = found.first else { throw .usage(Sentence(.postgresNoKey, table.qualifiedName)) }
    return key
  }

  private var quotedTable: String { PostGISTable.quoted(table.schema) + "." + PostGISTable.quoted(table.name) }

  /// The SQL that installs what follows the table's changes, for `serve` to run or a DBA to run once.
  public var installSQL: String { Self.installSQL(for: table, key: key) }

  /// The SQL that installs what follows `table`'s changes by the column `key`.
  public static func installSQL(for table: PostGISTable, key: String) -> String {
    let quotedTable = PostGISTable.quoted(table.schema) + "." + PostGISTable.quoted(table.name)
    return """
    CREATE SCHEMA IF NOT EXISTS newsatlas;
    CREATE TABLE IF NOT EXISTS newsatlas.changes (
      seq bigserial PRIMARY KEY, tbl text NOT NULL, key text NOT NULL,
      at timestamptz NOT NULL DEFAULT clock_timestamp(), truncated boolean NOT NULL DEFAULT false);
    CREATE INDEX IF NOT EXISTS changes_by_table ON newsatlas.changes (tbl, seq);
    CREATE INDEX IF NOT EXISTS changes_by_key ON newsatlas.changes (tbl, key, seq);
    CREATE OR REPLACE FUNCTION newsatlas.record_change() RETURNS trigger LANGUAGE plpgsql AS $f$
    DECLARE
      name text := TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME;
      old_key text;
      new_key text;
    BEGIN
      -- At commit, under one lock held to its end: change numbers follow commit order.
      PERFORM pg_advisory_xact_lock(1852139379, 1);
      IF TG_OP <> 'INSERT' THEN old_key := to_jsonb(OLD) ->> TG_ARGV[0]; END IF;
      IF TG_OP <> 'DELETE' THEN new_key := to_jsonb(NEW) ->> TG_ARGV[0]; END IF;
      -- A key's last change is all a reader needs (\(Self.logVersion)): the ones before it go.
      IF old_key IS NOT NULL THEN
        DELETE FROM newsatlas.changes WHERE tbl = name AND key = old_key AND NOT truncated;
        INSERT INTO newsatlas.changes (tbl, key) VALUES (name, old_key);
      END IF;
      IF new_key IS NOT NULL AND new_key IS DISTINCT FROM old_key THEN
        DELETE FROM newsatlas.changes WHERE tbl = name AND key = new_key AND NOT truncated;
        INSERT INTO newsatlas.changes (tbl, key) VALUES (name, new_key);
      END IF;
      PERFORM pg_notify('\(Self.channel)', name);
      RETURN NULL;
    END $f$;
    CREATE OR REPLACE FUNCTION newsatlas.record_truncate() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      -- The same lock, held from the TRUNCATE to the end: later commits are numbered after it.
      PERFORM pg_advisory_xact_lock(1852139379, 1);
      -- A reader before the TRUNCATE reads the table again: what was logged before it goes.
      DELETE FROM newsatlas.changes WHERE tbl = TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME;
      INSERT INTO newsatlas.changes (tbl, key, truncated) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, '', true);
      PERFORM pg_notify('\(Self.channel)', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME);
      RETURN NULL;
    END $f$;
    DROP TRIGGER IF EXISTS newsatlas_changes ON \(quotedTable);
    CREATE CONSTRAINT TRIGGER newsatlas_changes AFTER INSERT OR UPDATE OR DELETE ON \(quotedTable)
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION newsatlas.record_change(\(PostGISTable.literal(key)));
    DROP TRIGGER IF EXISTS newsatlas_truncate ON \(quotedTable);
    CREATE TRIGGER newsatlas_truncate AFTER TRUNCATE ON \(quotedTable)
      FOR EACH STATEMENT EXECUTE FUNCTION newsatlas.record_truncate();
    DO $f$
    BEGIN
      -- Under the writers' lock, what an earlier version kept goes: each key's changes but its last, and
      -- whatever came before a table's last TRUNCATE.
      PERFORM pg_advisory_xact_lock(1852139379, 1);
      DELETE FROM newsatlas.changes AS c WHERE NOT c.truncated AND EXISTS (SELECT 1 FROM newsatlas.changes AS d
        WHERE d.tbl = c.tbl AND d.key = c.key AND NOT d.truncated AND d.seq > c.seq);
      DELETE FROM newsatlas.changes AS c WHERE c.seq < (SELECT coalesce(max(d.seq), 0) FROM newsatlas.changes AS d
        WHERE d.tbl = c.tbl AND d.truncated);
    END $f$;
    """
  }

  /// Installs the change log and the trigger, unless the trigger is on the table already with this key and
  /// this version (a DBA's installation needs no privilege here); replicas starting together install it once,
  /// one at a time. False when an earlier version's trigger is there and cannot be replaced (it is kept).
  private static func install(
    _ table: PostGISTable, key: String, url: DatabaseURL, on connection: PostgresConnection
  ) async throws(PostGISError) -> Bool {
    var binds = PostgresBindings()
    binds.append(PostGISTable.quoted(table.schema) + "." + PostGISTable.quoted(table.name))
    binds.append(key)
    binds.append("%" + Self.logVersion + "%")
    let present = PostgresQuery(
      unsafeSQL: """
        SELECT count(*), bool_and(EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace \
        WHERE n.nspname = 'newsatlas' AND p.proname = 'record_change' AND p.prosrc LIKE $3)) \
        FROM pg_trigger WHERE tgrelid = to_regclass($1) AND (tgname = 'newsatlas_truncate' \
        OR (tgname = 'newsatlas_changes' AND tgargs = convert_to($2, 'UTF8') || '\\x00'::bytea))
        """, binds: binds)
    var installed = false
    do {
      for try await (count, current) in try await connection.query(present, logger: PostGISLoader.quiet).decode(
        (Int64, Bool?).self)
      where count == 2 {
        if current == true { return true }
        installed = true
      }
    } catch {
      throw PostGISLoader.refusal(error, url)
    }
    do {
      try await connection.run("BEGIN")
      try await connection.run("SELECT pg_advisory_xact_lock(1852139379, 2)")
      for statement in Self.statements(of: installSQL(for: table, key: key)) {
        try await connection.run(PostgresQuery(unsafeSQL: statement))
      }
      try await connection.run("COMMIT")
      return true
    } catch {
      _ = try? await connection.run("ROLLBACK")
      // An earlier version's trigger, which a DBA installed: it follows the table as well, without pruning.
      if installed { return false }
      let said: String
      if let error = error as? PSQLError, let message = error.serverInfo?[.message] {
        said = shown(message)
      } else {
        said = PostGISLoader.reason(error)
      }
      throw .unavailable(Sentence(.postgresTrigger, table.qualifiedName, said))
    }
  }

  /// `installSQL`'s statements one by one (the extended protocol takes one at a time; a function's body is one).
  private static func statements(of sql: String) -> [String] {
    var statements: [String] = []
    var current = ""
    var inBody = false
    for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
      current += line + "\n"
      if line.contains("$f$") { inBody.toggle() }
      if line.contains("$f$") && line.hasPrefix("END") { inBody = false }
      if !inBody && line.hasSuffix(";") {
        statements.append(current)
        current = ""
      }
    }
    return statements
  }

  /// What a load read, and the change it is the table as of (the cursor to follow from).
  public struct Loaded: Sendable {
    public var counts: PostGISLoader.Counts
    public var cursor: Int64
    /// Rows left out because their key (a column `--id` named) is NULL: no change to them could be followed.
    public var unkeyed = 0
  }

  /// Writes the table's points, in their canonical order, as a FeatureCollection to a new file at `path`
  /// (0600, never an existing one), read in one snapshot with the last change it holds.
  public func load(into path: String) async throws(PostGISError) -> Loaded {
    let connection = try await PostGISLoader.connect(url)
    defer { Self.close(connection) }
    var cursor: Int64 = 0
    var unkeyed = 0
    let keyed = "t." + PostGISTable.quoted(key)
    do {
      try await connection.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
      cursor = try await lastChange(on: connection)
      if !keyIsPrimary {
        let count = PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(quotedTable) AS t WHERE \(keyed) IS NULL")
        for try await rows in try await connection.query(count, logger: PostGISLoader.quiet).decode(Int64.self) {
          unkeyed = Int(rows)
        }
      }
    } catch {
      throw PostGISLoader.refusal(error, url)
    }
    let order = """
       LEFT JOIN (SELECT key, max(seq) AS seq FROM newsatlas.changes WHERE tbl = \
      \(PostGISTable.literal(table.qualifiedName)) AND NOT truncated GROUP BY key) AS c ON \(keyed) = c.key::\(keyType) \
      WHERE \(keyed) IS NOT NULL ORDER BY coalesce(c.seq, 0), \(keyed)
      """
    let counts = try await PostGISLoader.write(
      table, query: table.featureQuery(geometry: geometry, columns: columns) + order, on: connection, url: url,
      into: path)
    _ = try? await connection.run("COMMIT")
    return Loaded(counts: counts, cursor: cursor, unkeyed: unkeyed)
  }

  /// The number of the table's last change in the transaction's snapshot (0 for none).
  private func lastChange(on connection: PostgresConnection) async throws -> Int64 {
    var binds = PostgresBindings()
    binds.append(table.qualifiedName)
    let query = PostgresQuery(
      unsafeSQL: "SELECT coalesce(max(seq), 0)::int8 FROM newsatlas.changes WHERE tbl = $1", binds: binds)
    var last: Int64 = 0
    for try await seq in try await connection.query(query, logger: PostGISLoader.quiet).decode(Int64.self) {
      last = seq
    }
    return last
  }

  /// Changes read at once: the keys changed after the cursor (each once, by its last change), the features
  /// their rows are now in that order, and the cursor after them.
  public struct Changes: Sendable {
    public var cursor: Int64
    public var keys: [String]
    public var features: [String]
    /// Whether changes after these were left for the next read.
    public var more: Bool
    /// Whether the table was truncated among them: then the table is read whole again (`reload`).
    public var truncated = false
    /// A FeatureCollection file of the whole table as of `cursor`, read again after a TRUNCATE (row triggers
    /// do not see one): the dataset is replaced by it; `keys` and `features` are empty.
    public var reload: String? = nil
  }

  /// At most this many changes are read and applied at once.
  static let batch = 50_000

  /// The changes after `cursor`, read in one snapshot with the rows they left.
  func changes(after cursor: Int64, on connection: PostgresConnection) async throws -> Changes {
    try await connection.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    var binds = PostgresBindings()
    binds.append(table.qualifiedName)
    binds.append(cursor)
    let read = PostgresQuery(
      unsafeSQL: """
        SELECT seq, key, truncated FROM newsatlas.changes WHERE tbl = $1 AND seq > $2 ORDER BY seq \
        LIMIT \(Self.batch)
        """, binds: binds)
    var last = cursor
    var count = 0
    var truncated = false
    var position: [String: Int] = [:]  // each key's place: its last change's
    for try await (seq, key, emptied) in try await connection.query(read, logger: PostGISLoader.quiet).decode(
      (Int64, String, Bool).self)
    {
      last = seq
      count += 1
      if emptied {
        truncated = true
      } else {
        position[key] = count
      }
    }
    if truncated {
      try await connection.run("COMMIT")
      return Changes(cursor: last, keys: [], features: [], more: false, truncated: true)
    }
    let keys = position.sorted { $0.value < $1.value }.map(\.key)
    var features: [(Int, String)] = []
    if !keys.isEmpty {
      for (rowKey, feature) in try await rows(keys, on: connection) {
        features.append((position[rowKey] ?? 0, feature))
      }
    }
    try await connection.run("COMMIT")
    features.sort { $0.0 < $1.0 }
    return Changes(cursor: last, keys: keys, features: features.map(\.1), more: count == Self.batch)
  }

  /// The rows of `keys` now, as (key, Feature text) (a row without a point has none).
  private func rows(_ keys: [String], on connection: PostgresConnection) async throws -> [(String, String)] {
    var binds = PostgresBindings()
    binds.append(keys)
    let keyed = "t." + PostGISTable.quoted(key)
    let selected = PostgresQuery(
      unsafeSQL: """
        SELECT to_jsonb(\(keyed)) #>> '{}', \(table.featureExpression(geometry: geometry, columns: columns)) \
        FROM \(quotedTable) AS t CROSS JOIN LATERAL (SELECT t.\(PostGISTable.quoted(geometry))::geometry AS g) AS p \
        WHERE \(keyed) = ANY($1::text[]::\(keyType)[])
        """, binds: binds)
    var found: [(String, String)] = []
    for try await (rowKey, feature) in try await connection.query(selected, logger: PostGISLoader.quiet)
      .decode((String, String?).self)
    {
      if let feature { found.append((rowKey, feature)) }
    }
    return found
  }

  /// What following hears.
  public enum Event: Sendable {
    /// Connected and listening (again, after a failure): changes are read from the cursor on.
    case connected
    /// Every change committed when it last read is applied.
    case caughtUp(Int64)
    /// The connection failed or could not be made; it is tried again after `retry`.
    case disconnected(reason: String, retry: Duration)
  }

  /// Follows the table's changes after `cursor` until the task is cancelled: each read of them is handed to
  /// `apply` (which answers whether it was applied: if not, it is read again after a back-off), on each
  /// notification and every `poll` without one; a failed connection is made again with back-off (0.1 s,
  /// doubled to 5 s), from the last change applied.
  public func follow(
    from cursor: Int64, poll: Duration = .seconds(5),
    apply: @escaping @Sendable (Changes) async -> Bool, events: @escaping @Sendable (Event) -> Void
  ) async {
    var cursor = cursor
    var delay = Duration.milliseconds(100)
    while !Task.isCancelled {
      do {
        let connection = try await PostGISLoader.connect(url)
        defer { Self.close(connection) }
        // The first read of rows on a connection loads what it calls (PostGIS's library, the table's
        // catalogue entries: 15-50 ms here), which the first change would otherwise wait for.
        _ = try await Self.within(.seconds(60)) { try await self.rows([], on: connection) }
        let name = table.qualifiedName
        try await connection.listen(on: Self.channel) { notifications in
          events(.connected)
          delay = .milliseconds(100)
          let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
          try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
              defer { wake.finish() }  // the connection is gone: reading ends
              for try await notification in notifications where notification.payload == name { wake.yield() }
            }
            group.addTask {
              while true {
                try await Task.sleep(for: poll)
                wake.yield()
              }
            }
            wake.yield()  // catch up first
            for await _ in wakes {
              while true {
                // A query written to a connection already closed is never answered (PostgresNIO drops it with
                // the channel's handlers): a closed connection is not asked, and no read waits past a minute.
                guard !connection.isClosed else { throw PostGISError.unavailable(Sentence(.postgresConnectionLost)) }
                let from = cursor
                let changes = try await Self.within(.seconds(60)) {
                  try await self.changes(after: from, on: connection)
                }
                if changes.truncated {
                  // Read whole again, as of a change at or after the TRUNCATE: what was changed since the
                  // cursor is in that read.
                  let folder = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
                  let path = folder + "/newsatlas-\(getpid())-\(self.table.name)-reload.geojson"
                  defer { unlink(path) }
                  let loaded = try await self.load(into: path)
                  guard
                    await apply(
                      Changes(cursor: loaded.cursor, keys: [], features: [], more: false, reload: path))
                  else { throw PostGISError.unavailable(Sentence(.postgresApplyFailed)) }
                  cursor = loaded.cursor
                  continue
                }
                if changes.keys.isEmpty {
                  cursor = changes.cursor
                  break
                }
                guard await apply(changes) else { throw PostGISError.unavailable(Sentence(.postgresApplyFailed)) }
                cursor = changes.cursor
                if !changes.more { break }
              }
              events(.caughtUp(cursor))
            }
            group.cancelAll()
            throw PostGISError.unavailable(Sentence(.postgresConnectionLost))
          }
        }
      } catch {
        if Task.isCancelled { return }
        events(.disconnected(reason: Self.said(error, url), retry: delay))
        try? await Task.sleep(for: delay)
        delay = min(delay * 2, .seconds(5))
      }
    }
  }

  /// `work`'s result, or a lost connection after `limit` (the work, left waiting on a dead connection, is
  /// abandoned: it holds no lock and writes nothing).
  static func within<Value: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> Value)
    async throws -> Value
  {
    let answered = Once()
    return try await withCheckedThrowingContinuation { answer in
      let worker = Task {
        let result: Result<Value, any Error>
        do {
          result = .success(try await work())
        } catch {
          result = .failure(error)
        }
        if answered.claim() { answer.resume(with: result) }
      }
      let timer = Task {
        try? await Task.sleep(for: limit)
        if answered.claim() {
          worker.cancel()
          answer.resume(throwing: PostGISError.unavailable(Sentence(.postgresConnectionLost)))
        }
      }
      Task {  // the timer goes once the work is done
        _ = await worker.result
        timer.cancel()
      }
    }
  }

  static func said(_ error: any Error, _ url: DatabaseURL) -> String {
    if let error = error as? PostGISError { return error.sentence.text(in: .english) }
    return PostGISLoader.refusal(error, url).sentence.text(in: .english)
  }

  // MARK: Writes

  /// Why a write to the table was not made.
  public enum WriteError: Error, Sendable {
    /// The features do not fit the table (a property that is no column, a value of another type, a key taken).
    case refused(Sentence)
    /// The database could not be reached or failed.
    case unavailable(Sentence)
  }

  /// Inserts `features` (a JSON array of GeoJSON Features, each with a Point) in one transaction: each one's
  /// `id` in the key column (every feature has one, or none does and the column's default gives it), its
  /// properties in the columns of their names, its point in the geometry column (transformed to the column's
  /// SRID); answers, once it is committed, the number of the table's last change, which holds it.
  public func insert(features: String) async throws(WriteError) -> Int64 {
    let object = "(CASE jsonb_typeof(f->'properties') WHEN 'object' THEN f->'properties' ELSE '{}' END)"
    var binds = PostgresBindings()
    binds.append(features)
    let used = PostgresQuery(
      unsafeSQL: "SELECT DISTINCT k FROM jsonb_array_elements($1::jsonb) AS f, jsonb_object_keys(\(object)) AS k",
      binds: binds)
    let identified = PostgresQuery(
      unsafeSQL: """
        SELECT (count(*) FILTER (WHERE coalesce(f->'id', 'null') <> 'null'))::int8, count(*)::int8 \
        FROM jsonb_array_elements($1::jsonb) AS f
        """, binds: binds)
    var point = "ST_SetSRID(ST_GeomFromGeoJSON(f->'geometry'), 4326)"
    if geometryType == "geography" {
      point += "::geography"
    } else if srid != 0 && srid != 4326 {
      point = "ST_Transform(\(point), \(srid))"
    }
    let withKey = object + " || jsonb_build_object(\(PostGISTable.literal(key)), f->'id')"
    do {
      return try await transaction { connection throws in
        var hasIDs = false
        for try await (withIDs, all) in try await connection.query(identified, logger: PostGISLoader.quiet)
          .decode((Int64, Int64).self)
        {
          guard withIDs == 0 || withIDs == all else {
            throw WriteError.refused(Sentence(.postgresSomeIDs, table.qualifiedName, key))
          }
          hasIDs = withIDs > 0
        }
        var names: [String] = []
        for try await column in try await connection.query(used, logger: PostGISLoader.quiet).decode(String.self) {
          names.append(column)
        }
        // Nothing the user gave is dropped: a property no column holds refuses the write.
        if let unknown = names.first(where: { !propertyColumns.contains($0) }) {
          throw WriteError.refused(Sentence(.postgresNotAColumn, table.qualifiedName, shown(unknown)))
        }
        let set = propertyColumns.filter { names.contains($0) } + (hasIDs ? [key] : [])
        let insert = PostgresQuery(
          unsafeSQL: """
            INSERT INTO \(quotedTable) (\((set + [geometry]).map(PostGISTable.quoted).joined(separator: ", "))) \
            SELECT \((set.map { "r." + PostGISTable.quoted($0) } + [point]).joined(separator: ", ")) \
            FROM jsonb_array_elements($1::jsonb) AS f \
            CROSS JOIN LATERAL jsonb_populate_record(NULL::\(quotedTable), \(hasIDs ? withKey : object)) AS r
            """, binds: binds)
        try await connection.run(insert)
      }
    } catch {
      if case .notAValue(let sentence) = error { throw .refused(sentence) }
      throw error.public
    }
  }

  /// Deletes the rows whose key is `id` in one transaction: the number of the table's last change once it is
  /// committed, or nil when no row has that key.
  public func delete(id: String) async throws(WriteError) -> Int64? {
    var binds = PostgresBindings()
    binds.append(id)
    let delete = PostgresQuery(
      unsafeSQL: """
        DELETE FROM \(quotedTable) WHERE \(PostGISTable.quoted(key)) = $1::text::\(keyType) RETURNING 1
        """, binds: binds)
    var deleted = 0
    do {
      let last = try await transaction { connection throws in
        for try await _ in try await connection.query(delete, logger: PostGISLoader.quiet).decode(Int32.self) {
          deleted += 1
        }
      }
      return deleted == 0 ? nil : last
    } catch {
      // An id that is no value of the key's type is no row's.
      if case .notAValue = error { return nil }
      throw error.public
    }
  }

  /// A failed transaction: a write's error, or a value of the wrong type for its column (SQLSTATE class 22).
  private enum TransactionError: Error {
    case write(WriteError)
    case notAValue(Sentence)

    var `public`: WriteError {
      switch self {
      case .write(let error): error
      case .notAValue(let sentence): .refused(sentence)
      }
    }
  }

  /// Runs `body` in a transaction on a connection of its own and commits it; answers the table's last change
  /// number once committed.
  private func transaction(_ body: (PostgresConnection) async throws -> Void) async throws(TransactionError)
    -> Int64
  {
    let connection: PostgresConnection
    do {
      connection = try await PostGISLoader.connect(url)
    } catch {
      throw .write(.unavailable(error.sentence))
    }
    defer { Self.close(connection) }
    do {
      try await connection.run("BEGIN")
      try await body(connection)
      try await connection.run("COMMIT")
      return try await lastChange(on: connection)
    } catch let error as WriteError {
      throw .write(error)
    } catch {
      if let error = error as? PSQLError, let message = error.serverInfo?[.message] {
        let sentence = Sentence(.postgresWriteRefused, table.qualifiedName, shown(message))
        let state = error.serverInfo?[.sqlState] ?? ""
        if state.hasPrefix("22") { throw .notAValue(sentence) }
        // The database, not the features: a connection ended (the server shutting down), resources, a
        // conflict with another transaction, a privilege this role lacks. Asked again later, it may pass.
        if ["08", "40", "53", "57", "58"].contains(state.prefix(2)) || state == "42501" {
          throw .write(.unavailable(sentence))
        }
        throw .write(.refused(sentence))
      }
      throw .write(.unavailable(PostGISLoader.refusal(error, url).sentence))
    }
  }
}

/// A flag the first of two racers claims.
private final class Once: Sendable {
  private let done = Mutex(false)

  /// Whether this call is the first.
  func claim() -> Bool {
    done.withLock { done in
      defer { done = true }
      return !done
    }
  }
}
