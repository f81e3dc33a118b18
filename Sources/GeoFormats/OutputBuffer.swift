#if canImport(Glibc)
  import Glibc
#endif

/// Output bytes gathered in a large buffer and handed to a sink when it fills, and at `flush()`.
///
/// Bytes go straight into raw memory; the batch rows append a few hundred million of them a second. When the
/// sink refuses (the reader went away), the buffer drops everything after and says so in `isClosed`, so a
/// long job can stop early instead of computing answers nobody reads.
public final class OutputBuffer {
  /// Takes a run of bytes; false when they cannot be delivered (and nothing more should be written).
  public typealias Sink = (UnsafeBufferPointer<UInt8>) -> Bool

  private let storage: UnsafeMutablePointer<UInt8>
  @exclusivity(unchecked) private var count = 0
  private let capacity: Int
  private let sink: Sink
  /// Whether the sink refused bytes; everything appended since was dropped.
  public private(set) var isClosed = false
  private static let slack = 1 << 16

  /// - Parameters:
  ///   - capacity: bytes gathered before the sink is called (default 1 MiB).
  ///   - sink: where the bytes go.
  public init(capacity: Int = 1 << 20, sink: @escaping Sink) {
    self.capacity = capacity
    self.sink = sink
    storage = .allocate(capacity: capacity + Self.slack)
  }

  /// A buffer that writes to a file descriptor; a write error (EPIPE for a closed pipe) closes it, and
  /// `onError` hears the errno first.
  public convenience init(fileDescriptor: Int32, onError: @escaping (Int32) -> Void = { _ in }) {
    self.init { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          onError(errno)
          return false
        }
        offset += written
      }
      return true
    }
  }

  /// The bytes `body` writes, gathered in memory (for an HTTP body, a test).
  public static func collecting(_ body: (OutputBuffer) -> Void) -> [UInt8] {
    final class Bytes { var value: [UInt8] = [] }
    let bytes = Bytes()
    let out = OutputBuffer(capacity: 1 << 16) { chunk in
      bytes.value += chunk
      return true
    }
    body(out)
    out.flush()
    return bytes.value
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

  public func append(_ other: [UInt8]) {
    other.withUnsafeBufferPointer { appendBytes($0) }
  }

  public func append(_ text: String) {
    var text = text
    text.withUTF8 { appendBytes($0) }
  }

  @inline(__always)
  public func append(byte: UInt8) {
    reserve(1)
    storage[count] = byte
    count += 1
  }

  public func appendBytes(_ buffer: UnsafeBufferPointer<UInt8>) {
    if buffer.count > Self.slack {
      flush()
      deliver(buffer)
      return
    }
    reserve(buffer.count)
    if let base = buffer.baseAddress { (storage + count).update(from: base, count: buffer.count) }
    count += buffer.count
    flushIfFull()
  }

  /// Appends an integer in decimal.
  public func append(integer: Int) {
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
  public func append(sixDecimals value: Double) {
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

  public func flushIfFull() { if count >= capacity { flush() } }

  /// Hands everything buffered to `other` instead of this buffer's sink (straight to `other`'s sink, without a
  /// copy, when it is more than a few KiB), and empties this buffer.
  public func move(to other: OutputBuffer) {
    other.appendBytes(UnsafeBufferPointer(start: storage, count: count))
    count = 0
  }

  /// Hands everything buffered to the sink.
  public func flush() {
    deliver(UnsafeBufferPointer(start: storage, count: count))
    count = 0
  }

  private func deliver(_ buffer: UnsafeBufferPointer<UInt8>) {
    guard !isClosed, !buffer.isEmpty else { return }
    if !sink(buffer) { isClosed = true }
  }
}
