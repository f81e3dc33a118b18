import AtlasAnswers
import AtlasMessages
import Foundation
import GeoFormats
import Hummingbird
import NIOCore

extension AtlasService {
  /// `POST /v1/nearest` and `/v1/resolve`: the body's `latitude,longitude` lines answered as the CLI's batch
  /// mode answers them, streamed back in input order as they are read, so a body of any length is never held
  /// whole. A failure of the whole run after the answer began (a NUL byte, a body over the limit) ends it with
  /// one error row (line 0). The answer streams as the body arrives, so this is the one handler given the body
  /// and returning a `Response`.
  func batch(_ request: ParsedRequest, body: RequestBody, resolving: Bool) throws -> Response {
    let parameters = try allow(
      request, resolving ? ["format", "newsCountries"] : ["format", "count", "maxKm", "dataset"])
    let format: BatchFormat
    switch parameters.get("format") ?? "csv" {
    case "csv": format = .csv
    case "jsonl": format = .jsonl
    case let other: throw Problem.said(Problem.badParameter, .serviceBatchFormat, other.prefix(64))
    }
    let query: BatchQuery
    if resolving {
      query = .resolve(try newsCountries(parameters))
    } else {
      let (target, count, maxKilometers) = try nearestParameters(parameters)
      guard count == 1 || format == .jsonl else {
        throw Problem.said(Problem.badParameter, .serviceBatchCountNeedsJSONL)
      }
      query = .nearest(target, count: count, maxKilometers: maxKilometers)
    }
    // The body is latitude,longitude lines; a JSON document (`{"lat":1,"lon":2}`) is not read as rows, where it
    // would be one failed row under a 200.
    if let type = request.headers[.contentType]?.lowercased(),
      let media = type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces),
      media.hasSuffix("/json") || media.hasSuffix("+json")
    {
      throw Problem.said(Problem.unsupportedMediaType, .serviceBatchNotJSON, media.prefix(64))
    }
    let limit = maxBodyBytes
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
      throw Problem.said(Problem.tooLarge, .serviceBodyTooLarge, length, limit)
    }
    // Failed rows say why in the request's language (lang=, else Accept-Language), as its refusals do.
    let language = InterfaceLanguage.requested(
      query: parameters.get("lang"), acceptLanguage: request.headers[.acceptLanguage])
    let answers = BatchAnswers(query: query, format: format, threads: batchThreads, language: language)
    let metrics = self.metrics
    return Response(
      status: .ok,
      headers: [.contentType: format == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson"],
      body: ResponseBody { writer in
        // One piece of the body answered at a time, each answer written before the next piece is read: the
        // write waits while the client does not read (the socket's buffer is full), and the body is not read
        // meanwhile, so a client that stops reading holds one piece's answer, not the whole body's; a client
        // that goes away ends the run at the next write (it throws), or at the task's cancellation.
        metrics.batchStarted()
        defer { metrics.batchEnded(rows: answers.rowCount) }
        var received = 0
        for try await buffer in body {
          received += buffer.readableBytes
          if received > limit {
            try await writer.write(
              answers.fail(Sentence(.serviceBodyOverLimit, limit)))
            break
          }
          answers.stage(buffer)
          while let piece = answers.nextPiece() {
            try Task.checkCancellation()
            if piece.readableBytes > 0 { try await writer.write(piece) }
          }
          if answers.failed { break }
        }
        while let piece = answers.nextPiece(final: true) {
          try Task.checkCancellation()
          if piece.readableBytes > 0 { try await writer.write(piece) }
        }
        try await writer.finish(nil)
      })
  }
}
