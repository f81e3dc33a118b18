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
final class OutputBuffer {
  private(set) var bytes: [UInt8] = []
  private let capacity: Int

  init(capacity: Int = 1 << 20) {
    self.capacity = capacity
    bytes.reserveCapacity(capacity + 4096)
  }

  func append(_ other: [UInt8]) {
    bytes.append(contentsOf: other)
    if bytes.count >= capacity { flush() }
  }

  func append(_ text: String) {
    var text = text
    text.withUTF8 { bytes.append(contentsOf: $0) }
    if bytes.count >= capacity { flush() }
  }

  func append(byte: UInt8) { bytes.append(byte) }

  func appendBytes(_ buffer: UnsafeBufferPointer<UInt8>) {
    bytes.append(contentsOf: buffer)
  }

  func flushIfFull() { if bytes.count >= capacity { flush() } }

  /// Writes everything buffered; a closed pipe (`head`) ends the program quietly, as `cat` would.
  func flush() {
    bytes.withUnsafeBufferPointer { buffer in
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
    bytes.removeAll(keepingCapacity: true)
  }

  deinit { if !bytes.isEmpty { flush() } }
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
