import AtlasMessages

#if canImport(Glibc)
  import Glibc
#endif

/// A progress line on a terminal's standard error, refreshed at most four times a second: how much of the
/// input is read, the rows when known, the rate and, after a second, about how long is left (issue 47 item 10:
/// it said `27% (0 rows)`).
package struct ProgressLine {
  let totalBytes: Int
  let enabled: Bool
  private let started = ProgressLine.now()
  private var last = ProgressLine.now()
  private var shown = false

  package init(totalBytes: Int, enabled: Bool) {
    self.totalBytes = totalBytes
    self.enabled = enabled
  }

  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
  }

  package mutating func update(bytes: Int, rows: Int) {
    guard enabled else { return }
    let time = ProgressLine.now()
    guard time - last >= 0.25 else { return }
    last = time
    shown = true
    let percent = totalBytes > 0 ? min(100, bytes * 100 / totalBytes) : 0
    var parts = [Message.progressRead(percent, Self.megabytes(Double(totalBytes)))]
    if rows > 0 { parts.append(Message.progressRows(rows)) }
    let elapsed = time - started
    if elapsed >= 1, bytes > 0 {
      let rate = Double(bytes) / elapsed
      parts.append(Message.progressRate(Self.megabytes(rate)))
      if bytes < totalBytes {
        parts.append(Message.progressLeft(Self.seconds(Double(totalBytes - bytes) / rate)))
      }
    }
    StandardError.write("\rnewsatlas: " + parts.joined(separator: " · ") + "\u{1B}[K")
  }

  /// Megabytes with one decimal, in the reader's decimal mark (`120.5`, `120,5`).
  package static func megabytes(_ bytes: Double) -> String { decimal(bytes / 1e6) }

  /// Seconds, whole from 10 on, else with one decimal.
  package static func seconds(_ value: Double) -> String {
    value >= 10 ? String(Int(value.rounded())) : decimal(value)
  }

  /// `value` with one decimal, in the reader's decimal mark.
  package static func decimal(_ value: Double) -> String {
    let tenths = Int((max(0, value) * 10).rounded())
    let mark = InterfaceLanguage.current == .french ? "," : "."
    return "\(tenths / 10)\(mark)\(tenths % 10)"
  }

  /// Seconds since an arbitrary start, monotonic.
  package static func clock() -> Double { now() }

  package func finish() {
    if shown { StandardError.write("\r\u{1B}[K") }
  }
}

/// Standard error, unbuffered.
public enum StandardError {
  public static func write(_ text: String) {
    var text = text
    text.withUTF8 { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return }
        offset += written
      }
    }
  }

  public static var isTerminal: Bool { isatty(2) == 1 }
}
