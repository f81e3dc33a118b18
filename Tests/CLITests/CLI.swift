import Foundation
import TestSupport

/// Runs the built `newsatlas` binary as a user would, capturing everything it prints.
enum CLI {
  struct Result {
    let status: Int32
    let stdout: String
    let stderr: String

    var json: [String: Any]? {
      (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }
    var stderrLines: [Substring] { stderr.split(separator: "\n") }
    var stdoutLines: [Substring] { stdout.split(separator: "\n") }
  }

  /// The binary under test: the one `NEWSATLAS_BINARY` names (CI names the release build's, which is what users
  /// run: `.ci/run`), else the one beside the test bundle in the build products directory.
  static let executable: URL = {
    if let named = ProcessInfo.processInfo.environment["NEWSATLAS_BINARY"], !named.isEmpty {
      let url = URL(fileURLWithPath: named).standardizedFileURL
      precondition(
        FileManager.default.isExecutableFile(atPath: url.path),
        "NEWSATLAS_BINARY names \(named), which is not an executable file; build it (swift build -c release).")
      return url
    }
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let beside = products.appendingPathComponent("newsatlas")
    if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
    // `swift test` may run the bundle through a runner in another directory.
    return Bundle.main.bundleURL.appendingPathComponent("newsatlas")
  }()

  static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws
    -> Result
  {
    try launch(executable, arguments, stdin: stdin, environment: environment)
  }

  /// Runs a bash script in which `$0` is the built binary and `$1`… are `arguments` (for pipes and limits).
  static func shell(_ script: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws
    -> Result
  {
    try launch(
      URL(fileURLWithPath: "/bin/bash"), ["-c", script, executable.path] + arguments, stdin: nil,
      environment: environment)
  }

  private static func launch(
    _ program: URL, _ arguments: [String], stdin: String?, environment: [String: String]
  ) throws -> Result {
    let process = Process()
    process.executableURL = program
    process.arguments = arguments
    // Scratch folders for the settings and cache, removed when the run ends.
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("newsatlas-run-\(UUID())")
    defer { try? FileManager.default.removeItem(at: scratch) }
    var inherited = ProcessInfo.processInfo.environment
    inherited["NEWSAPI_KEY"] = nil  // a developer's real key must never reach a test
    inherited["NEWSATLAS_API_BASE"] = nil
    // Never GDELT's public host: a closed port on 127.0.0.1 unless a test gives its imitation.
    inherited["NEWSATLAS_GDELT_BASE"] = "http://127.0.0.1:\(LocalServer.closedPort())"
    // Nor a developer's own settings file: by default, an empty settings folder.
    inherited["XDG_CONFIG_HOME"] = scratch.appendingPathComponent("config").path
    // Nor their cache: by default, a fresh one each run.
    inherited["XDG_CACHE_HOME"] = scratch.appendingPathComponent("cache").path
    // English text in the reader's time zone unless a test says otherwise (a French developer's LANG aside).
    (inherited["LC_ALL"], inherited["LC_MESSAGES"], inherited["LANG"]) = (nil, nil, "C.UTF-8")
    process.environment = inherited.merging(environment) { $1 }
    let out = Pipe()
    let err = Pipe()
    let input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    // Standard input is written on its own thread: a child that answers as it reads fills its output pipe
    // while a large input is still being written, and both would wait for ever.
    signal(SIGPIPE, SIG_IGN)  // a child that stops reading makes the write fail, not kill the tests
    let writer = input.fileHandleForWriting
    let written = DispatchSemaphore(value: 0)
    let bytes = Data((stdin ?? "").utf8)
    DispatchQueue.global().async {
      if !bytes.isEmpty { try? writer.write(contentsOf: bytes) }
      try? writer.close()
      written.signal()
    }
    // Read both pipes to the end before waiting, so a large output cannot block the child.
    let errors = ErrorCollector()
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      errors.data = err.fileHandleForReading.readDataToEndOfFile()
      done.signal()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    done.wait()
    process.waitUntilExit()
    written.wait()
    return Result(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errors.data, as: UTF8.self))
  }

  private final class ErrorCollector: @unchecked Sendable { var data = Data() }
}
