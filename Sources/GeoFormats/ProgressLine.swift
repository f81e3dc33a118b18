#if canImport(Glibc)
  import Glibc
#endif

/// A progress line on a terminal's standard error, refreshed at most four times a second.
package struct ProgressLine {
  let totalBytes: Int
  let enabled: Bool
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
    StandardError.write("\rnewsatlas: \(percent)% (\(rows) rows)")
  }

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
