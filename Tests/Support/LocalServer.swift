import Foundation

/// A test server on 127.0.0.1 (`server.py`, or `feed_server.py`, the feeds of `Tests/Fixtures/feeds`):
/// started by each suite, ready once it prints its port, stopped when its standard input closes.
public final class LocalServer: @unchecked Sendable {
  public let port: Int
  /// With `secondHost`, the same server's port on 127.0.0.2 (a second host for redirect tests).
  public let secondPort: Int?
  /// The key the fake NewsAPI accepts (a test fixture, not a real key).
  public static let newsAPIKey = "test-key-0123456789abcdef0123456789"
  private let process: Process
  private let input: Pipe
  private let logFile: URL

  public var base: String { "http://127.0.0.1:\(port)" }

  /// - Parameter secondHost: also listen on 127.0.0.2, log where each request arrived (`arrivals()`), and
  ///   redirect `/hop/REST` to `http://127.0.0.2:secondPort/REST`.
  /// - Parameter script: the server, a Python script beside this file.
  public init(script: String = "server.py", secondHost: Bool = false) throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(script)
    process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    logFile = FileManager.default.temporaryDirectory.appendingPathComponent("newsatlas-server-\(UUID()).log")
    process.arguments = ["python3", script.path, logFile.path] + (secondHost ? ["--second-host"] : [])
    input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    // Readiness: the server prints its port once it is listening.
    guard let port = Int(output.fileHandleForReading.readReadinessLine()) else {
      throw CocoaError(.fileReadCorruptFile)
    }
    self.port = port
    secondPort = secondHost ? Int(output.fileHandleForReading.readReadinessLine()) : nil
    if secondHost && secondPort == nil { throw CocoaError(.fileReadCorruptFile) }
  }

  /// With `secondHost`: each request as `ADDRESS PATH 'KEY'` (the X-Api-Key it carried, or `'-'`), in order.
  public func arrivals() -> [String] {
    guard let data = try? Data(contentsOf: logFile.appendingPathExtension("arrivals")) else { return [] }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  /// Stops the server now (its port then refuses connections).
  public func stop() {
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
  }

  /// The paths and queries the server has been sent, in order.
  public func log() throws -> [String] {
    guard let data = try? Data(contentsOf: logFile) else { return [] }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  deinit {
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
    try? FileManager.default.removeItem(at: logFile)
    try? FileManager.default.removeItem(at: logFile.appendingPathExtension("arrivals"))
  }

  /// A port nothing listens on: bound, read back and released.
  public static func closedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        _ = bind(fd, $0, length)
        _ = getsockname(fd, $0, &length)
      }
    }
    close(fd)
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
