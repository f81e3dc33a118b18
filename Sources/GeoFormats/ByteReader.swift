import AtlasMessages

#if canImport(Glibc)
  import Glibc
#endif

/// Buffered reading of a file for the streaming parsers, with absolute positions for error messages.
struct ByteReader {
  private let input: InputFile?
  /// How errors name the input: its path, or a `Sentence` said in the reader's language.
  private let naming: any CustomStringConvertible
  private var buffer: [UInt8] = []
  private var position = 0
  /// The absolute offset of `buffer[0]`, and the line it is on.
  private var base = 0
  private var baseLine = 1
  /// Bytes between the last line break before `buffer[0]` and `buffer[0]`.
  private var baseColumn = 0
  private var eof = false
  private var progress: ProgressLine
  /// Where each read lands before it joins `buffer`.
  private var chunk: [UInt8] = []

  init(input: InputFile, showProgress: Bool, name: (any CustomStringConvertible)? = nil) {
    self.input = input
    self.naming = name ?? input.path
    progress = ProgressLine(totalBytes: input.size, enabled: showProgress && input.size > 0)
    chunk = [UInt8](repeating: 0, count: 1 << 20)
    buffer.reserveCapacity(1 << 21)
  }

  /// A reader over bytes already in memory.
  init(bytes: [UInt8], name: any CustomStringConvertible) {
    input = nil
    naming = name
    buffer = bytes
    eof = true
    progress = ProgressLine(totalBytes: 0, enabled: false)
  }

  var atEnd: Bool {
    mutating get {
      if position < buffer.count { return false }
      _ = try? fill(atLeast: 1)
      return position >= buffer.count
    }
  }

  var peek: UInt8? { position < buffer.count ? buffer[position] : nil }

  func absolute(_ index: Int) -> Int { base + index }

  /// Makes at least `count` bytes available from `position`, unless the file ends first.
  mutating func fill(atLeast count: Int) throws(FormatError) {
    while buffer.count - position < count && !eof {
      if position > 0 && position >= buffer.count / 2 { discardConsumed() }
      guard let input else { return }
      let got = try chunk.withUnsafeMutableBufferPointer { chunk throws(FormatError) in
        try input.read(into: chunk.baseAddress!, count: chunk.count)
      }
      buffer.append(contentsOf: chunk[0..<got])
      if got == 0 { eof = true }
      progress.update(bytes: base + buffer.count, rows: 0)
    }
  }

  /// Drops the bytes before `position`, keeping line numbers right.
  private mutating func discardConsumed() {
    if let lastBreak = buffer[0..<position].lastIndex(of: 0x0A) {
      for byte in buffer[0..<position] where byte == 0x0A { baseLine += 1 }
      baseColumn = position - lastBreak - 1
    } else {
      baseColumn += position
    }
    base += position
    buffer.removeSubrange(0..<position)
    position = 0
  }

  mutating func finishProgress() { progress.finish() }

  mutating func peekByte() throws(FormatError) -> UInt8 {
    try fill(atLeast: 1)
    guard position < buffer.count else { throw error(Sentence(.formatEndsTooEarly)) }
    return buffer[position]
  }

  mutating func advance() { position += 1 }
  mutating func retreat() { position -= 1 }
  mutating func consume(to end: Int) { position = end }

  /// Whether the bytes from the current position start with `prefix` (read as far as it needs).
  mutating func startsWith(_ prefix: [UInt8]) throws(FormatError) -> Bool {
    try fill(atLeast: prefix.count)
    guard buffer.count - position >= prefix.count else { return false }
    return buffer[position..<position + prefix.count].elementsEqual(prefix)
  }

  mutating func skipByteOrderMark() {
    if buffer.count - position >= 3 && buffer[position] == 0xEF && buffer[position + 1] == 0xBB
      && buffer[position + 2] == 0xBF
    {
      position += 3
    }
  }

  mutating func skipWhitespace() {
    while true {
      while position < buffer.count {
        switch buffer[position] {
        case 0x20, 0x0A, 0x0D, 0x09: position += 1
        default: return
        }
      }
      if eof { return }
      do { try fill(atLeast: 1) } catch { return }
      if position >= buffer.count { return }
    }
  }

  mutating func expect(_ byte: UInt8, _ message: Sentence) throws(FormatError) {
    skipWhitespace()
    guard try peekByte() == byte else { throw error(message) }
    position += 1
  }

  func bytes(start: Int, end: Int) -> ArraySlice<UInt8> { buffer[start..<end] }

  func withBytes<T>(start: Int, end: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
    buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
  }

  /// The buffer range of the JSON value at `position`, found by scanning brackets and strings, reading more of
  /// the file as needed. Indices stay valid until the next call that reads.
  mutating func valueExtent() throws(FormatError) -> (Int, Int) {
    while true {
      if let end = scanValue(from: position) { return (position, end) }
      if eof { throw error(Sentence(.formatEndsInsideValue)) }
      // Read at least as much again as is held, so a long value is rescanned a logarithmic number of times.
      let before = buffer.count - position
      try fill(atLeast: Swift.max(before + 1, before * 2))
    }
  }

  /// The end of the value starting at `start`, or nil when the buffer ends first.
  private func scanValue(from start: Int) -> Int? {
    let end = buffer.withUnsafeBufferPointer { JSONScan.valueEnd($0, start) }
    // A value that runs to the end of the buffer may go on in the part of the file not read yet.
    guard let end, end < buffer.count || eof else { return nil }
    return end > start ? end : nil
  }

  /// Parses `buffer[start..<end]`, reporting errors at their absolute position.
  func parse(start: Int, end: Int) throws(FormatError) -> JSONValue {
    do {
      return try JSONParser.parse(Array(buffer[start..<end]))
    } catch {
      let at = start + error.offset
      throw self.error(error.reason, at: at)
    }
  }

  mutating func readValue() throws(FormatError) -> JSONValue {
    let (start, end) = try valueExtent()
    let value = try parse(start: start, end: end)
    position = end
    return value
  }

  mutating func readString() throws(FormatError) -> String {
    guard try peekByte() == UInt8(ascii: "\"") else { throw error(Sentence(.formatExpectedMemberName)) }
    guard case .string(let text) = try readValue() else { throw error(Sentence(.formatExpectedMemberName)) }
    return text
  }

  /// The longest line `readLine()` returns.
  static let maximumLineBytes = 1 << 20

  /// The next line without its line break, or nil at the end.
  /// - Throws: a data error for a line longer than `maximumLineBytes` or holding a NUL byte (binary input).
  mutating func readLine() throws(FormatError) -> ArraySlice<UInt8>? {
    var searched = position
    while true {
      if let newline = buffer[searched...].firstIndex(of: 0x0A) {
        var end = newline
        if end > position && buffer[end - 1] == 0x0D { end -= 1 }
        let line = buffer[position..<end]
        try checkText(line)
        position = newline + 1
        return line
      }
      if let nul = buffer[searched...].firstIndex(of: 0) {
        throw error(Sentence(.formatNulByte), at: nul, format: "CSV")
      }
      if buffer.count - position > Self.maximumLineBytes {
        throw error(
          Sentence(.formatLineTooLong, Self.maximumLineBytes),
          at: position,
          format: "CSV")
      }
      searched = buffer.count
      if eof {
        guard position < buffer.count else { return nil }
        let line = buffer[position...]
        try checkText(line)
        position = buffer.count
        return line.last == 0x0D ? line.dropLast() : line
      }
      let held = buffer.count - position
      try fill(atLeast: held + 1)
      searched = position + held
    }
  }

  /// Refuses a line holding a NUL byte: the input is binary.
  private func checkText(_ line: ArraySlice<UInt8>) throws(FormatError) {
    if let nul = line.firstIndex(of: 0) {
      throw error(Sentence(.formatNulByte), at: nul, format: "CSV")
    }
  }

  /// A data error at `index` (default: the current position), naming line, column and byte offset.
  func error(_ reason: Sentence, at index: Int? = nil, format: String = "GeoJSON") -> FormatError {
    let at = min(index ?? position, buffer.count)
    var line = baseLine
    var lineStart = -baseColumn
    for i in 0..<at where buffer[i] == 0x0A {
      line += 1
      lineStart = i + 1
    }
    let column = at - lineStart + 1
    return .data(.formatNotValid, naming, format, line, column, base + at, reason)
  }
}
