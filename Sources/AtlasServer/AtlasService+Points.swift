import AtlasAnswers
import AtlasMessages
import GeoFormats
import GeoIndex
import NewsAtlas

extension AtlasService {
  /// `GET /healthz`: up, with each followed table's state; with `maxLag=S`, 503 while a table is more than S
  /// seconds behind (or not connected that long), for a balancer to take the replica out until it catches up.
  func healthz(_ target: String) throws -> Reply {
    let parameters = try allow(target, ["maxLag"])
    let maxLag = try decimal(parameters, "maxLag")
    if let maxLag, maxLag < 0 { throw Problem.said(Problem.badParameter, .serviceMaxLagNegative, maxLag) }
    var writer = JSONWriter()
    writer.raw("{\"datasets\":\(names.count),\"news\":\(news != nil)")
    var behind = false
    if let followers {
      writer.raw(",\"tables\":{")
      for (k, table) in followers.report().enumerated() {
        if k > 0 { writer.raw(",") }
        writer.string(table.name)
        writer.raw(":{\"table\":")
        writer.string(table.table)
        writer.raw(
          ",\"connected\":\(table.follow.connected),\"change\":\(table.follow.cursor),\"lagSeconds\":"
            + String(format: "%.3f", table.lagSeconds))
        if let error = table.follow.lastError {
          writer.raw(",\"lastError\":")
          writer.string(error)
        }
        writer.raw("}")
        if let maxLag, table.lagSeconds > maxLag { behind = true }
      }
      writer.raw("}")
    }
    writer.raw(",\"status\":\(behind ? "\"behind\"" : "\"ok\"")}\n")
    return Reply(json: writer.bytes, status: behind ? .serviceUnavailable : .ok)
  }

  func nearest(_ target: String) throws -> Reply {
    let parameters = try allow(target, ["lat", "lon", "count", "maxKm", "dataset"])
    let query = try place(parameters)
    let (target, count, maxKilometers) = try nearestParameters(parameters)
    let found = target.tree.neighbors(of: query, count: count, maxDistanceKilometers: maxKilometers)
    return Reply(json: target.answerJSON(found, from: query) + [0x0A])
  }

  /// `dataset`, `count` and `maxKm`, as `GET` and `POST /v1/nearest` both take them.
  func nearestParameters(_ parameters: Query) throws(Problem) -> (
    NearestTarget, count: Int, maxKilometers: Double
  ) {
    let name = parameters.get("dataset") ?? "markers"
    guard let dataset = store[name] else { throw .unknownDataset(name) }
    let count = try integer(parameters, "count", default: 1, minimum: 1)
    guard count <= 10_000 else { throw .said(Problem.badParameter, .serviceCountAtMost, count) }
    let maxKilometers = try decimal(parameters, "maxKm") ?? .infinity
    guard maxKilometers >= 0 else {
      throw .said(Problem.badParameter, .serviceMaxKmNegative, maxKilometers)
    }
    return (dataset.target, count, maxKilometers)
  }

  func resolve(_ target: String) throws -> Reply {
    let parameters = try allow(target, ["lat", "lon", "newsCountries"])
    let resolution = Country.resolve(try place(parameters), in: try newsCountries(parameters))
    var writer = JSONWriter()
    writer.bytes.reserveCapacity(512)  // an answer is 200-400 bytes: one allocation, no regrowth
    writer.object { resolution.write(to: &$0) }
    writer.bytes.append(0x0A)
    return Reply(json: writer.bytes)
  }
}
