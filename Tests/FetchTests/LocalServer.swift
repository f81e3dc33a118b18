import Foundation

/// The test server (`server.py`) on 127.0.0.1, started per suite and stopped when its stdin closes.
final class LocalServer: @unchecked Sendable {
  let port: Int
  private let process: Process
  private let input: Pipe

  var base: String { "http://127.0.0.1:\(port)" }

  init() throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("server.py")
    process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path]
    input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    // Readiness: the server prints its port once it is listening.
    var line = Data()
    while true {
      let byte = output.fileHandleForReading.readData(ofLength: 1)
      if byte.isEmpty || byte == Data("\n".utf8) { break }
      line.append(byte)
    }
    guard let port = Int(String(decoding: line, as: UTF8.self)) else {
      throw CocoaError(.fileReadCorruptFile)
    }
    self.port = port
  }

  deinit {
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
  }

  /// A port nothing listens on: bound, read back and released.
  static func closedPort() -> Int {
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
