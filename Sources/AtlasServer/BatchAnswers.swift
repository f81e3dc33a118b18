import AtlasAnswers
import AtlasMessages
import GeoFormats
import NIOCore

/// One batch POST's rows: the request body staged as it arrives, answered a piece at a time, in input order.
///
/// A piece is `pieceBytes(for:)` of body: 128 KiB for a row with one answer, less as `count` asks for more
/// (1/count of it), so that one piece's answer stays within a few MiB whatever the request asks (a `1,2`
/// line asking 54 results answers about 9 KiB). A piece of 64 KiB or more is shared between the cores
/// (`BatchRows`' threads, the same answers whatever their number). Used by one request's body writer at a
/// time (the writer awaits each step), hence unchecked.
final class BatchAnswers: @unchecked Sendable {
  private var rows: BatchRows
  private let output: OutputBuffer
  private let box: Collected
  private final class Collected { var buffer = ByteBuffer() }
  /// Body bytes not yet answered, from `consumed` on.
  private var staged: [UInt8] = []
  private var consumed = 0
  private let pieceBytes: Int
  /// The rows answered so far.
  var rowCount: Int { rows.summary.rows }
  /// Whether the run stopped (binary input): nothing more is answered.
  private(set) var failed = false
  private var finished = false

  /// Body bytes answered at once for a row of one answer.
  static let basePieceBytes = 1 << 17

  static func pieceBytes(for query: BatchQuery) -> Int {
    guard case .nearest(_, let count, _) = query else { return basePieceBytes }
    return max(64, basePieceBytes / max(1, count))
  }

  /// `language`: the request's, for the failed rows' error column and the run's error row.
  init(query: BatchQuery, format: BatchFormat, threads: Int, language: InterfaceLanguage = .english) {
    let box = Collected()
    output = OutputBuffer(capacity: 1 << 16) { chunk in
      box.buffer.writeBytes(chunk)
      return true
    }
    self.box = box
    pieceBytes = Self.pieceBytes(for: query)
    rows = BatchRows(
      query: query, format: format, output: output, name: Sentence(.theRequestBody), threads: threads,
      language: language)
  }

  /// The answer written since the last call.
  private func take() -> ByteBuffer {
    output.flush()
    defer { box.buffer = ByteBuffer() }
    return box.buffer
  }

  /// Answers `bytes`; true when the run must stop (binary input).
  private func answer(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    do throws(FormatError) {
      try rows.feed(bytes)
      return false
    } catch {
      rows.writeRunError(error.sentence.capitalized)
      return true
    }
  }

  /// Keeps `buffer` for `nextPiece()`.
  func stage(_ buffer: ByteBuffer) {
    if consumed > 0 {
      staged.removeSubrange(0..<consumed)
      consumed = 0
    }
    buffer.withUnsafeReadableBytes { staged.append(contentsOf: $0) }
  }

  /// The answer of the next piece of staged body, or nil when less than a piece is staged (`final`: when
  /// nothing is left, the last call answering the unfinished last line too).
  func nextPiece(final: Bool = false) -> ByteBuffer? {
    guard !finished else { return nil }
    let left = staged.count - consumed
    if failed || (final && left == 0) {
      guard final else { return nil }
      finished = true
      if !failed { rows.finish() }
      return take()
    }
    guard left >= pieceBytes || (final && left > 0) else { return nil }
    let size = min(left, pieceBytes)
    failed = staged.withUnsafeBufferPointer {
      answer(UnsafeBufferPointer(rebasing: $0[consumed..<consumed + size]))
    }
    consumed += size
    return take()
  }

  /// Answers what was staged, then ends the answer with an error row for `message`.
  func fail(_ message: Sentence) -> ByteBuffer {
    let left = staged.count - consumed
    let stopped =
      failed || staged.withUnsafeBufferPointer { answer(UnsafeBufferPointer(rebasing: $0[consumed...])) }
    consumed += left
    if !stopped { rows.writeRunError(message) }
    failed = true
    finished = true
    return take()
  }
}
