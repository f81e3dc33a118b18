#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A failure to report to the user in one sentence, with a sysexits(3) status.
struct CLIError: Error, CustomStringConvertible {
  /// EX_USAGE: the command line was wrong.
  static let usage: Int32 = 64
  /// EX_DATAERR: the input data was wrong.
  static let data: Int32 = 65

  let description: String
  let exitCode: Int32

  static func usage(_ message: String) -> CLIError { CLIError(description: message, exitCode: usage) }
  static func data(_ message: String) -> CLIError { CLIError(description: message, exitCode: data) }
}

/// Standard error, unbuffered.
enum StandardError {
  static func write(_ text: String) {
    var text = text
    text.withUTF8 { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
        if written <= 0 { return }
        offset += written
      }
    }
  }

  static var isTerminal: Bool { isatty(2) == 1 }
}

/// Standard output through a large buffer, flushed when full and at the end.
///
/// Bytes go straight into raw memory; the batch commands append a few hundred million of them a second.
final class OutputBuffer {
  private let storage: UnsafeMutablePointer<UInt8>
  @exclusivity(unchecked) private var count = 0
  private let capacity: Int
  private static let slack = 1 << 16

  init(capacity: Int = 1 << 20) {
    self.capacity = capacity
    storage = .allocate(capacity: capacity + Self.slack)
  }

  deinit {
    flush()
    storage.deallocate()
  }

  /// Makes room for `needed` more bytes.
  @inline(__always)
  private func reserve(_ needed: Int) {
    if count + needed > capacity + Self.slack { flush() }
  }

  func append(_ other: [UInt8]) {
    other.withUnsafeBufferPointer { appendBytes($0) }
  }

  func append(_ text: String) {
    var text = text
    text.withUTF8 { appendBytes($0) }
  }

  @inline(__always)
  func append(byte: UInt8) {
    reserve(1)
    storage[count] = byte
    count += 1
  }

  func appendBytes(_ buffer: UnsafeBufferPointer<UInt8>) {
    if buffer.count > Self.slack {
      flush()
      write(buffer)
      return
    }
    reserve(buffer.count)
    if let base = buffer.baseAddress { (storage + count).update(from: base, count: buffer.count) }
    count += buffer.count
    flushIfFull()
  }

  /// Appends an integer in decimal.
  func append(integer: Int) {
    reserve(21)
    var value = integer.magnitude
    if integer < 0 {
      storage[count] = UInt8(ascii: "-")
      count += 1
    }
    var digits = 1
    var probe = value
    while probe >= 10 {
      probe /= 10
      digits += 1
    }
    var position = count + digits
    count = position
    repeat {
      position -= 1
      storage[position] = UInt8(truncatingIfNeeded: value % 10) &+ 0x30
      value /= 10
    } while value > 0
  }

  /// Appends `value` rounded to six decimals ("245.754529"), without allocating.
  func append(sixDecimals value: Double) {
    let scaled = (abs(value) * 1_000_000).rounded()
    guard value.isFinite, scaled < 9e15 else {
      append(value.description)
      return
    }
    let micro = Int(scaled)
    if value < 0 && micro != 0 { append(byte: UInt8(ascii: "-")) }
    append(integer: micro / 1_000_000)
    reserve(7)
    storage[count] = UInt8(ascii: ".")
    var fraction = micro % 1_000_000
    var position = count + 6
    count = position + 1
    while position > count - 7 {
      storage[position] = UInt8(truncatingIfNeeded: fraction % 10) &+ 0x30
      fraction /= 10
      position -= 1
    }
  }

  func flushIfFull() { if count >= capacity { flush() } }

  /// Writes everything buffered.
  func flush() {
    write(UnsafeBufferPointer(start: storage, count: count))
    count = 0
  }

  /// Writes bytes to standard output; a closed pipe (`| head`) ends the program quietly, as `cat` would.
  private func write(_ buffer: UnsafeBufferPointer<UInt8>) {
    var offset = 0
    while offset < buffer.count {
      let written = Glibc.write(1, buffer.baseAddress! + offset, buffer.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        exit(errno == EPIPE ? 0 : 74)
      }
      offset += written
    }
  }
}

/// Reads a whole file, or standard input for "-".
func readAll(path: String) throws(CLIError) -> [UInt8] {
  let fd = path == "-" ? 0 : open(path, O_RDONLY)
  if fd < 0 {
    throw .usage("Cannot open '\(path)': \(String(cString: strerror(errno))).")
  }
  defer { if fd != 0 { close(fd) } }
  var result = [UInt8]()
  var chunk = [UInt8](repeating: 0, count: 1 << 20)
  while true {
    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
    if count < 0 {
      if errno == EINTR { continue }
      throw .usage("Cannot read '\(path)': \(String(cString: strerror(errno))).")
    }
    if count == 0 { return result }
    result.append(contentsOf: chunk[0..<count])
  }
}
