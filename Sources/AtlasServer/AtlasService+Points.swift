import AtlasAnswers
import AtlasMessages
import GeoFormats
import GeoIndex
import NewsAtlas

extension AtlasService {
  func healthz(_ target: String) throws -> Reply {
    try allow(target, [])
    return Reply(
      json: Array("{\"datasets\":\(names.count),\"news\":\(news != nil),\"status\":\"ok\"}\n".utf8))
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
    let resolution = Country.resolve(try place(try allow(target, ["lat", "lon"])))
    var writer = JSONWriter()
    writer.bytes.reserveCapacity(512)  // an answer is 200-400 bytes: one allocation, no regrowth
    writer.object { resolution.write(to: &$0) }
    writer.bytes.append(0x0A)
    return Reply(json: writer.bytes)
  }
}
