import AtlasMessages
import AtlasSettings
import GeoFormats
import NewsAPI

#if canImport(Glibc)
  import Glibc
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

extension CLIError {
  /// A formats error, in the reader's language: a bad argument or an unreadable file is the command line's
  /// fault (64), a malformed file the data's (65).
  init(_ error: FormatError) {
    self.init(
      description: error.text(in: .current), exitCode: error.kind == .data ? CLIError.data : CLIError.usage)
  }
}

extension CLIError {
  /// A settings error: 64 for a value given on the command line, 78 (EX_CONFIG) for a bad settings file or
  /// environment, 73 (EX_CANTCREAT) for a settings file that cannot be written.
  init(_ error: SettingsError) {
    let code: Int32
    switch error.kind {
    case .usage: code = CLIError.usage
    case .configuration: code = 78
    case .cannotWrite: code = 73
    }
    self.init(description: error.text(in: .current), exitCode: code)
  }
}

extension OutputBuffer {
  /// Standard output; a closed pipe (`| head`) ends the program quietly with status 0, as `cat` would, and any
  /// other failed write (a full disk) in one sentence with status 74.
  static func standardOutput() -> OutputBuffer {
    OutputBuffer(fileDescriptor: 1) { error in standardOutputFailed(error) }
  }
}

/// Ends the program for a write to standard output that failed with `error`: quietly (0) for a reader that
/// went away, else with one sentence and EX_IOERR (74).
func standardOutputFailed(_ error: Int32) -> Never {
  if error == EPIPE { exit(0) }
  StandardError.write("newsatlas: \(Message.standardOutputFailed(String(cString: strerror(error))))\n")
  exit(74)
}

/// Writes out what `print` has buffered for standard output, before a successful exit: a write that fails
/// then is said (74) rather than lost with status 0.
func finishStandardOutput() {
  errno = 0
  // fflush(NULL) flushes every output stream, standard output among them; stdout itself is a C global that
  // strict concurrency will not let Swift name.
  if fflush(nil) != 0 { standardOutputFailed(errno == 0 ? EIO : errno) }
}

/// Runs a formats call, turning its error into the CLI's.
func formats<T>(_ body: () throws(FormatError) -> T) throws(CLIError) -> T {
  do {
    return try body()
  } catch {
    throw CLIError(error)
  }
}
