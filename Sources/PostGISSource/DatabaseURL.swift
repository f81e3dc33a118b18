import AtlasMessages

/// A PostgreSQL connection URL, as libpq reads one: `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=MODE`
/// (`postgresql://` too), the user, password and database percent-decoded; `host=/run/postgresql` in the query
/// names a Unix socket's folder (libpq's form), as does a host that is a path. The password is kept for the
/// connection alone: `description` never shows it.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
  public enum TLSMode: String, Sendable, Equatable {
    /// No TLS (libpq's `disable`; the default for a Unix socket).
    case disable
    /// TLS when the server offers it (libpq's default, `prefer`).
    case prefer
    /// TLS or nothing (`require`; `verify-ca` and `verify-full` are refused: no certificate is checked here).
    case require
  }

  public var user: String
  public var password: String?
  /// A host name or address, or nil for a Unix socket.
  public var host: String?
  public var port: Int
  /// The folder of the Unix socket (`.s.PGSQL.PORT` in it), when there is no host.
  public var socketFolder: String?
  public var database: String
  public var tls: TLSMode

  /// Where it connects, with no secret: `postgres://USER@HOST:PORT/DATABASE` (or the socket's folder).
  public var description: String {
    let place =
      host.map { $0.contains(":") ? "[\($0)]:\(port)" : "\($0):\(port)" } ?? (socketFolder ?? "") + ":\(port)"
    return "postgres://\(user)@\(place)/\(database)"
  }

  /// The socket's path, for a socket.
  public var socketPath: String? { socketFolder.map { "\($0)/.s.PGSQL.\(port)" } }

  /// - Throws: `.usage`, with a sentence that never repeats the URL (it may hold a password).
  public init(_ text: String) throws(PostGISError) {
    var rest = Substring(text)
    guard let scheme = ["postgresql://", "postgres://"].first(where: { rest.hasPrefix($0) }) else {
      throw .usage(Sentence(.postgresURLShape))
    }
    rest = rest.dropFirst(scheme.count)
    var query: Substring = ""
    if let mark = rest.firstIndex(of: "?") {
      query = rest[rest.index(after: mark)...]
      rest = rest[..<mark]
    }
    var path: Substring = ""
    if let slash = rest.firstIndex(of: "/") {
      path = rest[rest.index(after: slash)...]
      rest = rest[..<slash]
    }
    var authority = rest
    var user = "postgres"
    var password: String?
    if let at = authority.lastIndex(of: "@") {
      let info = authority[..<at]
      authority = authority[authority.index(after: at)...]
      if let colon = info.firstIndex(of: ":") {
        user = try Self.decoded(info[..<colon])
        password = try Self.decoded(info[info.index(after: colon)...])
      } else {
        user = try Self.decoded(info)
      }
    }
    var host: String? = nil
    var port = 5432
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { throw .usage(Sentence(.postgresURLShape)) }
      host = String(authority[authority.index(after: authority.startIndex)..<close])
      authority = authority[authority.index(after: close)...]
      if authority.hasPrefix(":") {
        port = try Self.port(authority.dropFirst())
      } else if !authority.isEmpty {
        throw .usage(Sentence(.postgresURLShape))
      }
    } else if let colon = authority.firstIndex(of: ":") {
      host = String(authority[..<colon])
      port = try Self.port(authority[authority.index(after: colon)...])
    } else if !authority.isEmpty {
      host = try Self.decoded(authority)
    }
    var tls: TLSMode? = nil
    var socketFolder: String? = nil
    for pair in query.split(separator: "&") where !pair.isEmpty {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = parts[0]
      let value = parts.count > 1 ? try Self.decoded(parts[1]) : ""
      switch name {
      case "sslmode":
        guard let mode = TLSMode(rawValue: value) else {
          throw .usage(Sentence(.postgresSSLMode, shown(value)))
        }
        tls = mode
      case "host":
        if value.hasPrefix("/") { socketFolder = value } else { host = value }
      case "port":
        port = try Self.port(Substring(value))
      case "user": user = value
      case "password": password = value
      case "dbname": path = Substring(value)
      case "application_name", "connect_timeout": break
      default:
        throw .usage(Sentence(.postgresURLParameter, shown(String(name))))
      }
    }
    if let named = host, named.hasPrefix("/") {
      socketFolder = named
      host = nil
    }
    if host?.isEmpty == true { host = nil }
    if host == nil && socketFolder == nil { socketFolder = "/var/run/postgresql" }
    let database = try Self.decoded(path)
    guard !user.isEmpty, user.utf8.count <= 63, !user.contains("\0") else {
      throw .usage(Sentence(.postgresURLShape))
    }
    self.user = user
    self.password = password
    self.host = host
    self.port = port
    self.socketFolder = host == nil ? socketFolder : nil
    self.database = database.isEmpty ? user : database
    self.tls = tls ?? (host == nil ? .disable : .prefer)
  }

  private static func port(_ text: Substring) throws(PostGISError) -> Int {
    guard let value = Int(text), (1...65535).contains(value) else {
      throw .usage(Sentence(.postgresURLShape))
    }
    return value
  }

  /// Percent-decoded UTF-8; a broken escape or a NUL is refused.
  private static func decoded(_ text: Substring) throws(PostGISError) -> String {
    var bytes: [UInt8] = []
    var utf8 = text.utf8.makeIterator()
    while let byte = utf8.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = utf8.next().flatMap(hex), let low = utf8.next().flatMap(hex) else {
        throw .usage(Sentence(.postgresURLShape))
      }
      bytes.append(high << 4 | low)
    }
    guard !bytes.contains(0), let decoded = String(validating: bytes, as: UTF8.self) else {
      throw .usage(Sentence(.postgresURLShape))
    }
    return decoded
  }

  private static func hex(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
