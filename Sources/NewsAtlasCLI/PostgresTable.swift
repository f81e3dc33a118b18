import AtlasServer
import PostGISSource

/// A PostGIS table as the service follows and writes it: `PostGISLink` behind the service's `TableLink`.
struct PostgresTable: TableLink {
  let link: PostGISLink

  var qualifiedName: String { link.table.qualifiedName }

  func follow(
    from cursor: Int64, apply: @escaping @Sendable (TableChanges) async -> Bool,
    events: @escaping @Sendable (TableEvent) -> Void
  ) async {
    await link.follow(
      from: cursor,
      apply: {
        await apply(TableChanges(cursor: $0.cursor, keys: $0.keys, features: $0.features, reload: $0.reload))
      },
      events: { event in
        switch event {
        case .connected: events(.connected)
        case .caughtUp(let cursor): events(.caughtUp(cursor))
        case .disconnected(let reason, _): events(.disconnected(reason: reason))
        }
      })
  }

  func insert(features: String) async throws(TableWriteError) -> Int64 {
    do {
      return try await link.insert(features: features)
    } catch {
      throw Self.served(error)
    }
  }

  func delete(id: String) async throws(TableWriteError) -> Int64? {
    do {
      return try await link.delete(id: id)
    } catch {
      throw Self.served(error)
    }
  }

  private static func served(_ error: PostGISLink.WriteError) -> TableWriteError {
    switch error {
    case .refused(let sentence): .refused(sentence)
    case .unavailable(let sentence): .unavailable(sentence)
    }
  }
}
