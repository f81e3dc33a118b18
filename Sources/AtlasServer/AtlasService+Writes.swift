import AtlasAnswers
import AtlasMessages
import AtlasSettings
import Fetch
import Foundation
import GeoFormats
import HTTPTypes
import Hummingbird
import NIOCore

extension AtlasService {
  /// `PUT /v1/datasets/{name}`: the body (a GeoJSON FeatureCollection or CSV, streamed to a file beside the
  /// datasets) becomes the dataset, created or replaced; 201 when created, 200 when replaced, with the dataset's
  /// entry as `/v1/datasets` lists it, once it is on disk and served.
  func putDataset(_ request: Request, _ context: some RequestContext) async throws -> Response {
    let (parsed, name, writes) = try writable(request, context, wholeDataset: true)
    let features = try await received(request.body, parsed, writes, name: name)
    return try answer(await writes.apply(.replace(features), to: name))
  }

  /// `POST /v1/datasets/{name}/features`: the body's features (a FeatureCollection or CSV) added at the end.
  func addFeatures(_ request: Request, _ context: some RequestContext) async throws -> Response {
    let (parsed, name, writes) = try writable(request, context)
    let features = try await received(request.body, parsed, writes, name: name)
    if let followers, let link = followers.links[name] {
      var array = "["
      for i in 0..<features.count {
        if i > 0 { array += "," }
        features.withText(of: i) { array += String(decoding: $0, as: UTF8.self) }
      }
      array += "]"
      return try await tableAnswer(name, followers) { () throws(TableWriteError) in
        try await link.insert(features: array)
      }
    }
    return try answer(await writes.apply(.add(features), to: name))
  }

  /// `DELETE /v1/datasets/{name}/features/{id}`: every feature whose GeoJSON `id` is `id` removed (404 when
  /// none has it).
  func removeFeature(_ request: Request, _ context: some RequestContext) async throws -> Response {
    let (_, name, writes) = try writable(request, context)
    let raw = context.parameters.get("id") ?? ""
    guard let id = raw.removingPercentEncoding, !id.isEmpty, id.utf8.count <= 1024 else {
      throw Problem.said(Problem.badParameter, .serviceFeatureIdShape)
    }
    if let followers, let link = followers.links[name] {
      return try await tableAnswer(name, followers, missing: DatasetWrites.noFeature(name, id)) {
        () throws(TableWriteError) in try await link.delete(id: id)
      }
    }
    return try answer(await writes.apply(.removeFeature(id: id), to: name))
  }

  /// How long a write to a table waits for this server to serve it before it is answered 202.
  static let tableWriteWait = Duration.seconds(10)

  /// The answer to a write made in the table of the dataset `name`, once committed: the dataset's entry once
  /// this server serves the change (200), 202 when it does not within `tableWriteWait`; 400 for features the
  /// table refuses, 404 for an id no row has, 503 when the database cannot be reached.
  private func tableAnswer(
    _ name: String, _ followers: TableDatasets, missing: Problem? = nil,
    _ write: () async throws(TableWriteError) -> Int64?
  ) async throws -> Response {
    let written: Int64?
    do {
      written = try await write()
    } catch {
      switch error {
      case .refused(let sentence): throw Problem.sentence(Problem.badParameter, sentence)
      case .unavailable(let sentence): throw Problem.sentence(Problem.unavailable, sentence)
      }
    }
    guard let change = written else { throw missing ?? Problem.failed("") }
    guard await followers.waitFor(change, in: name, limit: Self.tableWriteWait), let dataset = store[name] else {
      let table = tables[name] ?? name
      var writer = JSONWriter()
      writer.raw("{\"message\":")
      writer.string(Message.serviceTableNotYetServed(table, 10, in: .english))
      writer.raw("}\n")
      var reply = Reply(json: writer.bytes, status: .accepted)
      reply.headers[.retryAfter] = "1"
      return reply.response
    }
    var reply = Reply(json: Self.entry(dataset), status: .ok)
    reply.headers[.eTag] = "W/" + dataset.entityTag
    return reply.response
  }

  /// `DELETE /v1/datasets/{name}`: the dataset and its file removed; 204.
  func removeDataset(_ request: Request, _ context: some RequestContext) async throws -> Response {
    let (_, name, writes) = try writable(request, context, wholeDataset: true)
    return try answer(await writes.apply(.removeDataset, to: name))
  }

  /// The request, the dataset name it writes and the writer, once the token, the name and the query are
  /// checked: 403 when writes are off, 401 without the token, 400 for a name that is not one, 409 for the
  /// markers and for a dataset read from a PostgreSQL table.
  private func writable(_ request: Request, _ context: some RequestContext, wholeDataset: Bool = false) throws -> (
    ParsedRequest, String, DatasetWrites
  ) {
    let parsed = ParsedRequest(request, context)
    try writeAccess.check(parsed.headers)
    guard let writes else { throw Problem.said(Problem.forbidden, writeAccess.offReason) }
    let raw = context.parameters.get("name") ?? ""
    let name = Self.pathSegment(raw)
    guard VectorLayer.isValidName(name) else {
      throw Problem.said(Problem.badParameter, .serveDatasetName, printable(String(name.prefix(64))))
    }
    guard name != "markers" else {
      throw Problem.said(Problem.conflict, .serviceMarkersBuiltIn)
    }
    if wholeDataset, let table = tables[name] {
      throw Problem.said(Problem.conflict, .serviceDatasetFromTable, name, table)
    }
    try allow(parsed, [])
    return (parsed, name, writes)
  }

  /// The body's features, streamed to a temporary file in the datasets folder (0600) and read from there; 413
  /// over `maxBodyBytes`, 400 with the reader's sentence when it is neither a FeatureCollection nor CSV, read as
  /// a file given with `--points` is (`AtlasService.features`).
  private func received(
    _ body: RequestBody, _ request: ParsedRequest, _ writes: DatasetWrites, name: String
  ) async throws -> FeatureFile {
    let limit = maxBodyBytes
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
      throw Problem.said(Problem.tooLarge, .serviceBodyTooLarge, length, limit)
    }
    let file: PrivateFile
    do {
      file = try PrivateFile(beside: writes.path(of: name), naming: Sentence(.theUploadOf, name))
    } catch {
      throw Problem.said({ .notKept($0, detail: error.text(in: .current)) }, .serviceBodyNotKept)
    }
    defer { file.close() }  // the features read back keep their own descriptor
    var received = 0
    var first: UInt8? = nil
    for try await buffer in body {
      received += buffer.readableBytes
      guard received <= limit else {
        throw Problem.said(Problem.tooLarge, .serviceBodyOverLimit, limit)
      }
      if first == nil {
        first = buffer.readableBytesView.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
      }
      let written = buffer.withUnsafeReadableBytes { file.write($0) }
      guard written else {
        throw Problem.said(Problem.failed, .serviceCannotKeepBody, String(cString: strerror(errno)))
      }
    }
    // A JSON body is a FeatureCollection; read as CSV its refusal would speak of columns.
    if let type = request.headers[.contentType]?.lowercased(), type.contains("json"),
      let first, first != UInt8(ascii: "{")
    {
      throw Problem.said(Problem.badParameter, .serviceBodyNotFeatureCollection)
    }
    do {
      return try Self.features(
        path: file.temporaryPath, aggregations: writes.aggregations, name: Sentence(.theRequestBody))
    } catch {
      throw Problem.worded(
        .badParameter(Self.capitalized(error.description)), Wording { Self.capitalized(error.text(in: $0)) })
    }
  }

  /// The answer to a write: the dataset's entry with its validator, 204 for a removed dataset.
  private func answer(_ outcome: DatasetWrites.Outcome) throws -> Response {
    switch outcome {
    case .refused(let problem): throw problem
    case .removed: return Response(status: .noContent)
    case .served(let dataset, let created):
      var reply = Reply(json: Self.entry(dataset), status: created ? .created : .ok)
      reply.headers[.eTag] = "W/" + dataset.entityTag
      if created { reply.headers[.location] = "/v1/datasets/\(dataset.name)" }
      return reply.response
    }
  }

  static func capitalized(_ sentence: String) -> String {
    guard let first = sentence.first, first.isLowercase else { return sentence }
    return first.uppercased() + sentence.dropFirst()
  }
}
