import AtlasMessages
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

#if canImport(Glibc)
  import Glibc
#endif

/// The connection, the catalogue and the streaming read behind `PostGISLink`: a table's points go to a GeoJSON
/// file, the form every dataset is read from, through one query whose rows (each its Feature's text, built by
/// PostgreSQL) stream in with back-pressure and go to the file as they come, so a million rows are never held
/// in memory. The password goes to the server alone: no sentence, log line or file holds it.
public enum PostGISLoader {
  /// What a load read: features written, and rows left out for want of a Point (NULL, empty, another type).
  public struct Counts: Sendable, Equatable {
    public var features = 0
    public var skipped = 0
  }

  static let quiet = Logger(label: "newsatlas.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

  static func connect(_ url: DatabaseURL) async throws(PostGISError) -> PostgresConnection {
    var configuration: PostgresConnection.Configuration
    if let host = url.host {
      let tls: PostgresConnection.Configuration.TLS
      switch url.tls {
      case .disable: tls = .disable
      case .prefer, .require:
        // libpq's prefer and require encrypt without checking the certificate: the same here.
        var client = TLSConfiguration.makeClientConfiguration()
        client.certificateVerification = .none
        do {
          let context = try NIOSSLContext(configuration: client)
          tls = url.tls == .require ? .require(context) : .prefer(context)
        } catch {
          throw .unavailable(Sentence(.postgresConnect, url.description, String(describing: error)))
        }
      }
      configuration = .init(
        host: host, port: url.port, username: url.user, password: url.password, database: url.database,
        tls: tls)
    } else {
      configuration = .init(
        unixSocketPath: url.socketPath ?? "", username: url.user, password: url.password,
        database: url.database)
    }
    configuration.options.connectTimeout = .seconds(10)
    do {
      return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: quiet)
    } catch {
      throw refusal(error, url)
    }
  }

  /// The server's own words for a refusal (an authentication failure, a missing relation), else the network's.
  static func refusal(_ error: any Error, _ url: DatabaseURL) -> PostGISError {
    if let error = error as? PSQLError {
      if let message = error.serverInfo?[.message] {
        return .unavailable(Sentence(.postgresRefused, url.description, shown(message)))
      }
      if let underlying = error.underlying {
        return .unavailable(Sentence(.postgresConnect, url.description, reason(underlying)))
      }
      return .unavailable(Sentence(.postgresConnect, url.description, shown(error.code.description)))
    }
    return .unavailable(Sentence(.postgresConnect, url.description, reason(error)))
  }

  /// The network's reason in words: the system's for a failed call (`Connection refused`), the first attempt's
  /// for a name with several addresses, a timeout as such.
  static func reason(_ error: any Error) -> String {
    if let failed = error as? NIOConnectionError {
      if let first = failed.connectionErrors.first { return reason(first.error) }
      if let dns = failed.dnsAError ?? failed.dnsAAAAError { return reason(dns) }
    }
    if let failed = error as? IOError { return String(cString: strerror(failed.errnoCode)) }
    if let failed = error as? ChannelError, case .connectTimeout = failed { return "no answer in 10 seconds" }
    return shown(String(describing: error))
  }

  /// A table's columns as the catalogue has them: name, type name (`geometry`, `int4`, …), the type as SQL
  /// writes it (`integer`, `character varying(20)`) and, for a PostGIS column, its SRID (0 when unconstrained).
  struct Column {
    let name: String
    let type: String
    let sqlType: String
    let srid: Int
  }

  /// The table's geometry column (the one named, checked, or its first geometry or geography column) and its
  /// columns in order; the id and property columns named checked too.
  static func catalogue(of table: PostGISTable, on connection: PostgresConnection, url: DatabaseURL)
    async throws(PostGISError) -> (geometry: String, columns: [Column])
  {
    var binds = PostgresBindings()
    binds.append(PostGISTable.quoted(table.schema) + "." + PostGISTable.quoted(table.name))
    let query = PostgresQuery(
      unsafeSQL: """
        SELECT a.attname::text, t.typname::text, format_type(a.atttypid, a.atttypmod), a.atttypmod \
        FROM pg_attribute a JOIN pg_type t ON a.atttypid = t.oid \
        WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
        """, binds: binds)
    var columns: [Column] = []
    do {
      for try await (name, type, sqlType, typmod) in try await connection.query(query, logger: quiet).decode(
        (String, String, String, Int32).self)
      {
        // PostGIS keeps a column's SRID in bits 8-28 of its type modifier (-1: none).
        let srid = typmod >= 0 && (type == "geometry" || type == "geography") ? Int((typmod & 0x0FFF_FF00) >> 8) : 0
        columns.append(Column(name: name, type: type, sqlType: sqlType, srid: srid))
      }
    } catch {
      throw refusal(error, url)
    }
    guard !columns.isEmpty else {
      throw .usage(Sentence(.postgresNoTable, url.description, table.qualifiedName))
    }
    let spatial = columns.filter { $0.type == "geometry" || $0.type == "geography" }.map(\.name)
    for column in [table.id].compactMap({ $0 }) + (table.properties ?? [])
    where !columns.contains(where: { $0.name == column }) {
      throw .usage(Sentence(.postgresNoColumn, table.qualifiedName, column))
    }
    if let named = table.geometry {
      guard spatial.contains(named) else {
        throw .usage(Sentence(.postgresNotGeometry, table.qualifiedName, named))
      }
      return (named, columns)
    }
    guard let first = spatial.first else { throw .usage(Sentence(.postgresNoGeometry, table.qualifiedName)) }
    return (first, columns)
  }

  static func write(
    _ table: PostGISTable, query: String, on connection: PostgresConnection, url: DatabaseURL,
    into path: String
  ) async throws(PostGISError) -> Counts {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw .unavailable(Sentence(.postgresScratch, path, String(cString: strerror(errno))))
    }
    defer { close(fd) }
    var buffer: [UInt8] = Array(#"{"type":"FeatureCollection","features":["#.utf8)
    buffer.reserveCapacity(1 << 20)
    var counts = Counts()
    func flush() throws(PostGISError) {
      var offset = 0
      while offset < buffer.count {
        let written = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else {
          throw .unavailable(Sentence(.postgresScratch, path, String(cString: strerror(errno))))
        }
        offset += written
      }
      buffer.removeAll(keepingCapacity: true)
    }
    do {
      let rows = try await connection.query(
        PostgresQuery(unsafeSQL: query), logger: quiet)
      for try await row in rows {
        guard let text = try row.decode(String?.self) else {
          counts.skipped += 1
          continue
        }
        if counts.features > 0 { buffer.append(UInt8(ascii: ",")) }
        buffer.append(contentsOf: text.utf8)
        counts.features += 1
        if buffer.count >= 1 << 20 { try flush() }
      }
    } catch let error as PostGISError {
      throw error
    } catch {
      throw refusal(error, url)
    }
    buffer.append(contentsOf: "]}".utf8)
    try flush()
    return counts
  }
}

extension PostgresConnection {
  /// Runs `query` to its end. PostgresNIO answers `query(_:logger:)` once the statement is under way, and an
  /// error in its execution (a duplicate key, a value of the wrong type) comes with its rows: unread, it is lost,
  /// and the COMMIT that follows rolls the transaction back without a word. Here the rows are read, so the error
  /// is thrown.
  func run(_ query: PostgresQuery) async throws {
    for try await _ in try await self.query(query, logger: PostGISLoader.quiet) {}
  }
}
