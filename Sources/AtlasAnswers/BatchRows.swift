import AtlasMessages
import Dispatch
import GeoFormats
import GeoIndex
import NewsAtlas

#if canImport(Glibc)
  import Glibc
#endif

/// How batch answers are written: one CSV row or one JSON object per input row.
public enum BatchFormat: String, Sendable, CaseIterable {
  case csv
  case jsonl
}

/// What each batch row asks.
public enum BatchQuery {
  /// The `count` nearest points of `target` within `maxKilometers` (csv lists the nearest only).
  case nearest(NearestTarget, count: Int, maxKilometers: Double)
  /// The news country of the set the place is in, else the nearest (`Country.resolve(_:in:)`).
  case resolve(NewsCountrySet)
}

/// How a batch run went.
public struct BatchSummary: Sendable, Equatable {
  /// Rows that were answered or failed (blank lines and the header are not rows).
  public var rows = 0
  /// Rows that got an error row instead of an answer.
  public var failedRows = 0
  /// The line number of the first failed row, 0 when none failed.
  public var firstFailedLine = 0

  public init(rows: Int = 0, failedRows: Int = 0, firstFailedLine: Int = 0) {
    self.rows = rows
    self.failedRows = failedRows
    self.firstFailedLine = firstFailedLine
  }
}

/// Streams `latitude,longitude` lines to one answer line each, in input order, at millions of rows a second.
///
/// Feed it bytes in chunks of any size (`feed(_:)`), then call `finish()`. A bad row becomes an error row (with
/// its line number) and the run goes on. The first non-blank line is a header when, its fields unquoted and
/// read without regard to case, it names a latitude column (latitude, lat, y) and a longitude column
/// (longitude, lon, lng, long, x), in any order among the first 16 columns; any other first line is a row.
/// Lines end with LF or CRLF; a carriage return anywhere else fails its row. A UTF-8 byte order mark is
/// skipped; a line over `maximumLineBytes` is a failed row; a NUL byte ends the run with an error, because the
/// input is binary, not text, and so does a header that puts latitude or longitude past the 16th column.
public struct BatchRows {
  /// The longest line read as a row; anything longer fails as one row.
  public static let maximumLineBytes = 1 << 20

  private var state: State
  /// A line begun in an earlier chunk.
  private var pending: [UInt8] = []
  /// Whether the line being read is over the limit (its bytes are being skipped).
  private var skippingLongLine = false
  private var atStart = true
  private let name: Sentence
  /// Cores that answer the complete lines of a large chunk at once (each its own share, in input order).
  private let threads: Int
  /// A chunk's complete lines are split across cores from this many bytes on.
  static let parallelBytes = 1 << 16
  /// Pieces a chunk is cut into for each core.
  static let piecesPerThread = 16
  /// The smallest piece worth its set-up (a copy of the run's state and an output of at least 64 KiB):
  /// 256 threads asking for 16 pieces each would cut a 4 MiB chunk into 1 KiB pieces.
  static let minimumPieceBytes = 1 << 16
  /// The pieces' outputs, kept from chunk to chunk for their memory.
  private var pieceOutputs: [PieceOutput] = []

  /// - Parameters:
  ///   - query: what each row asks.
  ///   - format: csv (with a header row written now) or jsonl.
  ///   - output: where answers go, in input order.
  ///   - name: how error messages name the input (a path, or `Sentence(.theRequestBody)`).
  ///   - threads: cores for the rows (1: this thread only); the output is the same whatever the count.
  ///   - language: the language of the failed rows' error column (a human sentence, in the reader's language).
  public init(
    query: BatchQuery, format: BatchFormat, output: OutputBuffer,
    name: any CustomStringConvertible = Sentence(.theInput), threads: Int = 1,
    language: InterfaceLanguage = .english
  ) {
    state = State(query: query, format: format, out: output, language: language)
    self.name = name as? Sentence ?? Sentence(verbatim: name.description)
    self.threads = Swift.max(1, threads)
    state.writeHeader()
  }

  /// The rows so far.
  public var summary: BatchSummary { state.summary }

  /// Answers every complete line in `bytes`, keeping an unfinished last line for the next call.
  /// - Throws: a data error when the bytes hold a NUL (binary input); rows before it are answered.
  public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>) throws(FormatError) {
    guard var base = chunk.baseAddress, !chunk.isEmpty, !state.out.isClosed else { return }
    var count = chunk.count
    if atStart {
      atStart = false
      if pending.isEmpty && count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF {
        base += 3
        count -= 3
      }
    }
    if memchr(base, 0, count) != nil {
      // Answer the text before the NUL, then stop: what follows is not text.
      let at = base.distance(to: memchr(base, 0, count)!.assumingMemoryBound(to: UInt8.self))
      process(base, at)
      pending.removeAll()  // the line the NUL is on is not answered
      skippingLongLine = false
      let line = state.lineNumber + 1
      throw .data(.batchNulByte, name, line)
    }
    process(base, count)
    if let refusal = state.refusal { throw FormatError(.data, refusal) }
  }

  private mutating func process(_ base: UnsafePointer<UInt8>, _ count: Int) {
    var cursor = 0
    // Finish a line begun earlier.
    if !pending.isEmpty || skippingLongLine {
      guard let newline = memchr(base, 0x0A, count) else {
        keep(base, 0, count)
        return
      }
      let end = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
      keep(base, 0, end)
      if skippingLongLine {
        state.tooLong()
        skippingLongLine = false
      } else {
        pending.withUnsafeBufferPointer { state.line($0.baseAddress!, 0, $0.count) }
      }
      pending.removeAll(keepingCapacity: true)
      cursor = end + 1
    }
    while cursor < count && !state.out.isClosed {  // nobody reads the answers any more: stop computing them
      if threads > 1 && state.sawFirstLine, let done = answerInParallel(base, cursor, count) {
        cursor = done
        continue
      }
      guard let newline = memchr(base + cursor, 0x0A, count - cursor) else {
        keep(base, cursor, count)
        return
      }
      let end = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
      state.answer(base, cursor, end)
      cursor = end + 1
    }
  }

  /// Answers the complete lines of `start..<count` on `threads` cores when they are many (at least
  /// `parallelBytes`): the lines are cut into `piecesPerThread` pieces a core at line breaks, each piece is
  /// answered by a copy of the run's state into bytes of its own (numbering its lines from where the pieces
  /// before it end), and the bytes are written in order, so the output is the one-thread output. Pieces are
  /// taken by whichever core is free, so a slower core (a busy virtual machine's) answers fewer of them
  /// instead of holding the others up. Returns where the pieces end, or nil to go on line by line.
  private mutating func answerInParallel(_ base: UnsafePointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
    var end = count
    while end > start && base[end - 1] != 0x0A { end -= 1 }  // just past the last line break
    guard end - start >= Self.parallelBytes else { return nil }
    // `piecesPerThread` a core, but none under `minimumPieceBytes` unless that leaves a core without one.
    let pieces = Swift.max(
      threads, Swift.min(threads * Self.piecesPerThread, (end - start) / Self.minimumPieceBytes))
    var bounds = [start]
    for piece in 1..<pieces {
      var at = Swift.max(bounds[bounds.count - 1], start + (end - start) * piece / pieces)
      if let newline = memchr(base + at, 0x0A, end - at) {
        at = base.distance(to: newline.assumingMemoryBound(to: UInt8.self)) + 1
      } else {
        at = end
      }
      bounds.append(at)
    }
    bounds.append(end)
    // Rows come out up to about four times as long as they go in.
    let room = Swift.max(1 << 16, 4 * (end - start) / pieces)
    while pieceOutputs.count < pieces { pieceOutputs.append(PieceOutput(capacity: room)) }
    var workers: [Worker] = []
    var line = state.lineNumber
    for piece in 0..<pieces {
      workers.append(Worker(state: state, firstLine: line, output: pieceOutputs[piece]))
      line += Self.lineBreaks(base + bounds[piece], bounds[piece + 1] - bounds[piece])  // ends at one
    }
    let text = SharedText(base: base)
    let (shares, limits) = (workers, bounds)
    DispatchQueue.concurrentPerform(iterations: pieces) { piece in
      shares[piece].answer(text.base, limits[piece], limits[piece + 1])
    }
    for worker in workers {
      worker.output.move(to: state.out)
      state.summary.rows += worker.state.summary.rows
      state.summary.failedRows += worker.state.summary.failedRows
      if state.summary.firstFailedLine == 0 {
        state.summary.firstFailedLine = worker.state.summary.firstFailedLine
      }
    }
    state.lineNumber = line
    return end
  }

  /// How many line feeds `count` bytes hold, sixteen bytes at a time (the pieces' first line numbers are worked
  /// out on the calling thread while no piece runs, so this is serial time: 0.08 ms for 4 MiB here, against
  /// 1.2 ms eight bytes at a time and more for a `memchr` per line).
  static func lineBreaks(_ base: UnsafePointer<UInt8>, _ count: Int) -> Int {
    let raw = UnsafeRawPointer(base)
    let newline = SIMD16<UInt8>(repeating: 0x0A)
    var found = 0
    var i = 0
    while i + 16 <= count {
      // Each lane tallies its matches in a byte, so at most 255 blocks before the lanes are added up.
      var tally = SIMD16<UInt8>()
      for _ in 0..<Swift.min((count - i) / 16, 255) {
        let bytes = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
        tally &+= SIMD16<UInt8>(repeating: 0).replacing(with: 1, where: bytes .== newline)
        i += 16
      }
      found += Int(SIMD16<UInt16>(truncatingIfNeeded: tally).wrappedSum())
    }
    while i < count {
      if base[i] == 0x0A { found += 1 }
      i += 1
    }
    return found
  }

  /// The chunk's bytes, read by every piece (never written while they run).
  private struct SharedText: @unchecked Sendable { let base: UnsafePointer<UInt8> }

  /// Where a piece's rows are written, kept from chunk to chunk (a fresh array for each piece of each chunk was
  /// a page fault every 4 KiB written): a buffer with room for the piece's rows, handed to the run's output
  /// without a copy, and an array for any rows beyond its room.
  // @unchecked: used by one piece's thread at a time, handed over by ForkJoin's join.
  private final class PieceOutput: @unchecked Sendable {
    private(set) var buffer: OutputBuffer! = nil
    private var overflow: [UInt8] = []

    init(capacity: Int) {
      buffer = OutputBuffer(capacity: capacity) { [unowned self] bytes in
        overflow.append(contentsOf: bytes)
        return true
      }
    }

    /// Hands the rows to `out`, in order, and empties this output for the next piece.
    func move(to out: OutputBuffer) {
      if !overflow.isEmpty {
        overflow.withUnsafeBufferPointer { out.appendBytes($0) }
        overflow.removeAll(keepingCapacity: true)
      }
      buffer.move(to: out)
    }
  }

  /// One piece of a chunk: a copy of the run's state that writes into the piece's output.
  // @unchecked: used by one piece's thread at a time, handed over by ForkJoin's join.
  private final class Worker: @unchecked Sendable {
    var state: State
    let output: PieceOutput

    init(state: State, firstLine: Int, output: PieceOutput) {
      self.state = state
      self.output = output
      self.state.out = output.buffer
      self.state.summary = BatchSummary()
      self.state.lineNumber = firstLine
      // Copies of its own of what every row reads: a row retains a country's columns, and two threads
      // retaining the same objects fight over their reference counts' cache lines (`swift_retain` was a
      // tenth of the samples on two threads and absent on one).
      self.state.countryColumns = state.countryColumns.map { $0.withUnsafeBufferPointer { Array($0) } }
      self.state.markers = state.markers.withUnsafeBufferPointer { Array($0) }
    }

    /// Answers the lines of `start..<end` into the piece's output.
    func answer(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) {
      var cursor = start
      while cursor < end, let newline = memchr(base + cursor, 0x0A, end - cursor) {
        let lineEnd = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
        state.answer(base, cursor, lineEnd)
        cursor = lineEnd + 1
      }
    }
  }

  /// Holds part of an unfinished line, or starts skipping it once it is over the limit.
  private mutating func keep(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) {
    guard !skippingLongLine else { return }
    if pending.count + (end - start) > Self.maximumLineBytes {
      skippingLongLine = true
      pending.removeAll()
      return
    }
    pending.append(contentsOf: UnsafeBufferPointer(start: base + start, count: end - start))
  }

  /// Ends the output with one error row (line 0) for a failure of the whole run, after the rows answered so
  /// far: where a status can no longer be sent (a streamed HTTP answer), the reader still learns why it stopped.
  public mutating func writeRunError(_ message: Sentence) {
    pending.removeAll()
    skippingLongLine = false
    state.lineNumber = 0
    state.summary.failedRows -= 1  // the run's error is not a failed row
    state.fail(latitude: "", longitude: "", message)
    state.out.flush()
  }

  /// Answers the last line (one without a line break) and flushes the output.
  @discardableResult
  public mutating func finish() -> BatchSummary {
    if skippingLongLine {
      state.tooLong()
      skippingLongLine = false
    } else if !pending.isEmpty {
      pending.withUnsafeBufferPointer { state.line($0.baseAddress!, 0, $0.count) }
    }
    pending.removeAll()
    state.out.flush()
    return state.summary
  }

  /// Reads a file (or standard input for "-") to the end through a batch run.
  /// - Parameter showProgress: a progress line on standard error for a regular file (for terminals).
  public static func run(
    path: String, query: BatchQuery, format: BatchFormat, output: OutputBuffer, showProgress: Bool = false,
    threads: Int = 1, language: InterfaceLanguage = .english
  ) throws(FormatError) -> BatchSummary {
    try run(
      path: path, query: query, format: format, output: output, showProgress: showProgress, threads: threads,
      chunkSize: 1 << 22, language: language)
  }

  /// `run` reading `chunkSize` bytes at a time (tests use small chunks to make many of them).
  static func run(
    path: String, query: BatchQuery, format: BatchFormat, output: OutputBuffer, showProgress: Bool,
    threads: Int, chunkSize: Int, language: InterfaceLanguage = .english
  ) throws(FormatError) -> BatchSummary {
    let input = try InputFile(path: path)
    defer { input.close() }
    var progress = ProgressLine(totalBytes: input.size, enabled: showProgress && input.size > 0)
    // Made at the first chunk, once it is known not to be Parquet (a refused file gets no header row), or
    // after an empty input (the header alone).
    var rows: BatchRows? = nil
    func make() -> BatchRows {
      BatchRows(
        query: query, format: format, output: output, name: "'\(path)'", threads: threads, language: language)
    }
    var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkSize)
    defer { buffer.deallocate() }
    // On several cores, a regular file's next chunk is read while this one is answered (4 MiB read is ~2 ms
    // of one core otherwise idle). Not a pipe's: a read there may wait on a person who has stopped typing.
    let readsAhead = threads > 1 && input.isRegular
    var spare = UnsafeMutablePointer<UInt8>.allocate(capacity: readsAhead ? chunkSize : 0)
    defer { spare.deallocate() }
    var consumed = 0
    var got = 0
    var ahead: ReadAhead? = nil
    while !output.isClosed {
      if let reading = ahead {
        got = try reading.wait()
        swap(&buffer, &spare)
      } else {
        got =
          threads > 1
          ? try input.readWaiting(into: buffer, count: chunkSize)
          : try input.read(into: buffer, count: chunkSize)
      }
      if got == 0 { break }
      // A Parquet file (it starts with PAR1) is read by the Python package, through pyarrow (issue 45).
      if consumed == 0, got >= 4, (0..<4).allSatisfy({ buffer[$0] == Array("PAR1".utf8)[$0] }) {
        throw .data(.featuresParquet, path)
      }
      if rows == nil { rows = make() }
      consumed += got
      ahead = readsAhead ? ReadAhead(input, into: spare, count: chunkSize) : nil
      do {
        try rows!.feed(UnsafeBufferPointer(start: buffer, count: got))
      } catch {
        _ = try? ahead?.wait()  // `spare` is being written
        progress.finish()
        output.flush()
        throw error
      }
      progress.update(bytes: consumed, rows: rows!.summary.rows)
    }
    _ = try? ahead?.wait()  // the output closed with a read under way
    progress.finish()
    if rows == nil { rows = make() }
    return rows!.finish()
  }

  /// A read of a file's next chunk on a thread of its own; `wait()` returns what it got. (A block on
  /// Dispatch's global queue was never run here while the cores' pieces were queued on it: the run hung.)
  // @unchecked: it holds a pthread and a C buffer; `result` is written by its thread before `wait()` joins it.
  private final class ReadAhead: @unchecked Sendable {
    private let input: InputFile
    private let buffer: UnsafeMutablePointer<UInt8>
    private let count: Int
    private var result: Result<Int, FormatError> = .success(0)
    private var thread: pthread_t? = nil

    init(_ input: InputFile, into buffer: UnsafeMutablePointer<UInt8>, count: Int) {
      self.input = input
      self.buffer = buffer
      self.count = count
      var thread = pthread_t()
      let context = Unmanaged.passRetained(self).toOpaque()
      let started = pthread_create(
        &thread, nil,
        { context in
          let reading = Unmanaged<ReadAhead>.fromOpaque(context!).takeRetainedValue()
          reading.run()
          return nil
        }, context)
      if started == 0 {
        self.thread = thread
      } else {
        Unmanaged<ReadAhead>.fromOpaque(context).release()
        run()  // no thread to be had: read here
      }
    }

    private func run() {
      result = Result { () throws(FormatError) in try input.read(into: buffer, count: count) }
    }

    func wait() throws(FormatError) -> Int {
      if let thread {
        pthread_join(thread, nil)
        self.thread = nil
      }
      return try result.get()
    }
  }

  /// Everything one run carries between lines.
  struct State {
    let query: BatchQuery
    let format: BatchFormat
    var out: OutputBuffer
    let tree: SphericalKDTree
    /// Each news country's `code,name,` columns, and its marker.
    var countryColumns: [[UInt8]]
    var markers: [GeoPoint]
    /// Each news country's offset in `Country.all`, by code.
    let countryOffsets: [String: Int]
    var summary = BatchSummary()
    var lineNumber = 0
    var sawFirstLine = false
    var columns = (latitude: 0, longitude: 1)
    /// Why the run cannot go on (a header whose columns rows cannot reach); no row is answered after it.
    var refusal: Sentence?

    /// The language of the error column.
    let language: InterfaceLanguage

    init(query: BatchQuery, format: BatchFormat, out: OutputBuffer, language: InterfaceLanguage) {
      self.query = query
      self.language = language
      self.format = format
      self.out = out
      if case .nearest(let target, _, _) = query { tree = target.tree } else { tree = Country.markerIndex }
      // A resolve run's countries are its set's; a nearest run's the 54 markers.
      var countries = Country.all
      if case .resolve(let set) = query { countries = set.countries }
      countryColumns = countries.map { Array("\($0.code),\(csvField($0.name)),".utf8) }
      markers = countries.map(\.marker)
      countryOffsets = Dictionary(uniqueKeysWithValues: countries.enumerated().map { ($1.code, $0) })
    }

    var isResolve: Bool {
      if case .resolve = query { return true }
      return false
    }

    var isCountries: Bool {
      if case .nearest(let target, _, _) = query { return target.isCountries }
      return true
    }

    func writeHeader() {
      guard format == .csv else { return }
      out.append(
        isResolve
          ? "line,latitude,longitude,code,name,method,containing,distance_km,error\n"
          : isCountries
            ? "line,latitude,longitude,code,name,distance_km,bearing_deg,error\n"
            : "line,latitude,longitude,index,distance_km,bearing_deg,error\n")
    }

    /// The line `start..<end` (its break excluded) as a row, or as a failed row when it is over the limit.
    mutating func answer(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) {
      if end - start > BatchRows.maximumLineBytes { tooLong() } else { line(base, start, end) }
    }

    mutating func tooLong() {
      lineNumber += 1
      sawFirstLine = true
      summary.rows += 1
      fail(latitude: "", longitude: "", Sentence(.batchRowTooLong, BatchRows.maximumLineBytes))
    }

    mutating func line(_ base: UnsafePointer<UInt8>, _ start: Int, _ rawEnd: Int) {
      guard refusal == nil else { return }
      lineNumber += 1
      var end = rawEnd
      if end > start && base[end - 1] == 0x0D { end -= 1 }
      let text = UnsafeBufferPointer(start: base + start, count: end - start)
      if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }  // blank lines are not rows
      if !sawFirstLine {
        sawFirstLine = true
        // A header names both columns (after unquoting, whatever the case); anything else is a row.
        var header = CSVRecord(text)
        if let found = CSV.coordinateColumns(header.strings()) {
          guard found.latitude < 16 && found.longitude < 16 else {
            refusal =
              lineNumber == 1
              ? Sentence(.batchHeaderColumns, found.latitude + 1, found.longitude + 1)
              : Sentence(.batchHeaderColumnsOnLine, lineNumber, found.latitude + 1, found.longitude + 1)
            return
          }
          columns = found
          return
        }
      }
      summary.rows += 1
      // The fields up to the later coordinate column; the rest of the line is not read.
      var fields = Fields()
      var record = CSVRecord(text)
      while fields.count <= max(columns.latitude, columns.longitude), let field = record.next() {
        if fields.count == columns.latitude { fields.latitude = field }
        if fields.count == columns.longitude { fields.longitude = field }
        fields.count += 1
      }
      if text.contains(0x0D) {
        fail(fields, Sentence(.batchRowCarriageReturn))
        return
      }
      guard let latitudeField = fields.latitude, let longitudeField = fields.longitude else {
        fail(
          fields, fields.count == 1 ? Sentence(.batchRowOneField) : Sentence(.batchRowFields, fields.count))
        return
      }
      let latitudeText = latitudeField.trimmed
      let longitudeText = longitudeField.trimmed
      guard let latitude = NumberParser.parse(latitudeText) else {
        fail(fields, Sentence(.batchRowLatitudeNotNumber, latitudeField.trimmedString))
        return
      }
      guard let longitude = NumberParser.parse(longitudeText) else {
        fail(fields, Sentence(.batchRowLongitudeNotNumber, longitudeField.trimmedString))
        return
      }
      if !(-90.0...90.0).contains(latitude) || !(-180.0...180.0).contains(longitude),
        let problem = Coordinates.rangeProblem(
          latitude: latitude, latitudeField.trimmedString, longitude: longitude, longitudeField.trimmedString)
      {
        fail(fields, problem)
        return
      }
      let query = GeoPoint(uncheckedLatitude: latitude, longitude: longitude)
      switch self.query {
      case .resolve(let set):
        resolveRow(latitudeText, longitudeText, Country.resolve(query, in: set))
      case .nearest(let target, let count, let maxKilometers):
        if format == .csv {
          let neighbor: Neighbor?
          if maxKilometers.isInfinite {
            neighbor = tree.nearest(to: query)
          } else {
            neighbor = tree.neighbors(of: query, count: 1, maxDistanceKilometers: maxKilometers).first
          }
          csvRow(target, latitudeText, longitudeText, query, neighbor)
        } else {
          jsonlRow(
            target, query, tree.neighbors(of: query, count: count, maxDistanceKilometers: maxKilometers))
        }
      }
    }

    /// `line,latitude,longitude,` with the coordinates as the user wrote them.
    func echoInput(_ latitudeText: UnsafeBufferPointer<UInt8>, _ longitudeText: UnsafeBufferPointer<UInt8>) {
      out.append(integer: lineNumber)
      out.append(byte: 0x2C)
      out.appendBytes(latitudeText)
      out.append(byte: 0x2C)
      out.appendBytes(longitudeText)
      out.append(byte: 0x2C)
    }

    func csvRow(
      _ target: NearestTarget,
      _ latitudeText: UnsafeBufferPointer<UInt8>, _ longitudeText: UnsafeBufferPointer<UInt8>,
      _ query: GeoPoint,
      _ neighbor: Neighbor?
    ) {
      echoInput(latitudeText, longitudeText)
      if let neighbor {
        switch target {
        case .countries: out.append(countryColumns[neighbor.index])
        case .userPoints:
          out.append(integer: target.featureIndex(neighbor))
          out.append(byte: 0x2C)
        }
        out.append(sixDecimals: neighbor.distanceKilometers)
        out.append(byte: 0x2C)
        let location = target.isCountries ? markers[neighbor.index] : target.location(neighbor)
        out.append(sixDecimals: GreatCircle.initialBearingDegrees(from: query, to: location))
        out.append(byte: 0x2C)
        out.append(byte: 0x0A)
      } else {
        out.append(target.isCountries ? ",,,,\n" : ",,,\n")
      }
      out.flushIfFull()
    }

    func resolveRow(
      _ latitudeText: UnsafeBufferPointer<UInt8>, _ longitudeText: UnsafeBufferPointer<UInt8>,
      _ resolution: Resolution
    ) {
      if format == .csv {
        echoInput(latitudeText, longitudeText)
        out.append(countryColumns[countryOffsets[resolution.country.code]!])
        out.append(resolution.method.rawValue)
        out.append(byte: 0x2C)
        if let containing = resolution.containing { out.append(containing.code) }
        out.append(byte: 0x2C)
        out.append(sixDecimals: resolution.distanceKilometers)
        out.append(",\n")
      } else {
        var json = JSONWriter()
        json.object { object in
          object.number("line", Double(lineNumber))
          resolution.write(to: &object)
        }
        json.bytes.append(0x0A)
        out.append(json.bytes)
      }
      out.flushIfFull()
    }

    func jsonlRow(_ target: NearestTarget, _ query: GeoPoint, _ found: [Neighbor]) {
      var json = JSONWriter()
      json.object { object in
        object.number("line", Double(lineNumber))
        object.object("query") {
          $0.number("latitude", query.latitude)
          $0.number("longitude", query.longitude)
        }
        object.array("results", found) { json, neighbor in
          json.object { target.writeResult(neighbor, from: query, to: &$0) }
        }
      }
      json.bytes.append(0x0A)
      out.append(json.bytes)
    }

    /// A row's coordinate fields, those it has.
    struct Fields {
      var latitude: CSVField? = nil
      var longitude: CSVField? = nil
      var count = 0
    }

    mutating func fail(_ fields: Fields, _ reason: Sentence) {
      fail(
        latitude: fields.latitude?.trimmedString ?? "", longitude: fields.longitude?.trimmedString ?? "",
        reason)
    }

    /// A failed row: `reason` in the run's language, after its line number (the run's own error: line 0, as it
    /// is).
    mutating func fail(latitude: String, longitude: String, _ reason: Sentence) {
      summary.failedRows += 1
      if summary.firstFailedLine == 0 { summary.firstFailedLine = lineNumber }
      let message =
        lineNumber == 0
        ? reason.text(in: language)
        : Message.batchRowFailed(lineNumber, reason.text(in: language), in: language)
      if format == .csv {
        // Empty answer fields between the coordinates and the error, as many as the header has.
        let empty = isResolve ? ",,,,,," : isCountries ? ",,,,," : ",,,,"
        out.append("\(lineNumber),\(csvField(latitude)),\(csvField(longitude))\(empty)\(csvField(message))\n")
      } else {
        var json = JSONWriter()
        json.object { object in
          object.number("line", Double(lineNumber))
          object.string("error", message)
        }
        json.bytes.append(0x0A)
        out.append(json.bytes)
      }
      out.flushIfFull()
    }
  }
}
