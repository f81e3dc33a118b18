import AtlasMessages
import Foundation
import PostGISSource
import Testing

/// `serve --postgres URL` as libpq reads URLs, and never a password in what is said. The server itself is
/// Tests/PostGIS/postgis_test.py's (a real PostgreSQL with PostGIS, against the release binary in CI).
@Suite struct DatabaseURLTests {
  @Test func theFormsLibpqTakes() throws {
    let full = try DatabaseURL("postgres://atlas:p%40ss%3Aw%2Frd@db.example:6543/maps?sslmode=require")
    #expect(full.user == "atlas" && full.password == "p@ss:w/rd" && full.host == "db.example")
    #expect(full.port == 6543 && full.database == "maps" && full.tls == .require && full.socketPath == nil)
    #expect(full.description == "postgres://atlas@db.example:6543/maps")

    let socket = try DatabaseURL("postgresql:///maps?host=/tmp/pg&port=5433&user=me")
    #expect(socket.host == nil && socket.socketPath == "/tmp/pg/.s.PGSQL.5433" && socket.user == "me")
    #expect(socket.tls == .disable && socket.database == "maps")

    let bare = try DatabaseURL("postgres://127.0.0.1")
    #expect(
      bare.user == "postgres" && bare.database == "postgres" && bare.port == 5432 && bare.tls == .prefer)
    let six = try DatabaseURL("postgres://u:p@[::1]:5999/d")
    #expect(six.host == "::1" && six.port == 5999 && six.description == "postgres://u@[::1]:5999/d")
    let local = try DatabaseURL("postgres://u@/d")
    #expect(local.host == nil && local.socketPath == "/var/run/postgresql/.s.PGSQL.5432")
  }

  @Test(arguments: [
    "mysql://u:hunter22@h/d", "postgres://u:hunter22@h:0/d", "postgres://u:hunter22@h:99999/d",
    "postgres://u:hunter22@h:x/d", "postgres://u:hunter2%2@h/d", "postgres://u:hunter2%00@h/d",
    "postgres://u:hunter22@[::1/d", "postgres://:hunter22@h/d",
  ])
  func aBadURLIsRefusedWithoutRepeatingIt(text: String) {
    #expect(throws: PostGISError.usage(Sentence(.postgresURLShape))) { try DatabaseURL(text) }
    #expect(!Sentence(.postgresURLShape).text(in: .english).contains("hunter2"))
  }

  @Test func parametersAndModesItDoesNotTakeAreNamed() {
    #expect(throws: PostGISError.usage(Sentence(.postgresSSLMode, "verify-full"))) {
      try DatabaseURL("postgres://u:hunter22@h/d?sslmode=verify-full")
    }
    #expect(throws: PostGISError.usage(Sentence(.postgresURLParameter, "options"))) {
      try DatabaseURL("postgres://u:hunter22@h/d?options=-c%20x")
    }
  }

  @Test func tableAndColumnNamesAreIdentifiers() throws {
    let table = try PostGISTable("gis.Places_2$", geometry: "geom", id: "id", properties: ["name", "été"])
    #expect(table.schema == "gis" && table.name == "Places_2$" && table.qualifiedName == "gis.Places_2$")
    #expect(try PostGISTable("places").schema == "public")
    for bad in [
      "", "a.b.c", "places;drop", "1places", "\"places\"", ".places", String(repeating: "x", count: 64),
    ] {
      #expect(throws: PostGISError.self, "\(bad)") { try PostGISTable(bad) }
    }
    #expect(throws: PostGISError.usage(Sentence(.postgresColumnShape, "a b"))) {
      try PostGISTable("places", properties: ["a b"])
    }
  }
}

/// What a DBA reads in Documentation/HTTP.md to install the change trigger is what `serve` runs.
@Suite struct InstallSQLTests {
  @Test func theDocumentedSQLIsWhatServeRuns() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let documentation = try String(
      contentsOf: root.appendingPathComponent("Documentation/HTTP.md"), encoding: .utf8)
    let sql = PostGISLink.installSQL(for: try PostGISTable("places"), key: "id")
    #expect(sql.contains(#"ON "public"."places""#) && sql.contains("record_change('id')"))
    #expect(documentation.contains(sql.trimmingCharacters(in: .whitespacesAndNewlines)))
  }
}
