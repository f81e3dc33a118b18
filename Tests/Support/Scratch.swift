import Foundation

/// Temporary files for tests: each in a fresh directory that is removed when the body returns or throws.
public enum Scratch {
  /// Runs `body` with a new empty directory under the system's temporary directory, then removes it.
  public static func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("newsatlas-tests-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
  }

  /// Runs `body` with the path of a file holding `contents`, then removes it.
  public static func withFile<T>(named name: String, contents: String, _ body: (String) throws -> T) throws
    -> T
  {
    try withFile(named: name, bytes: Array(contents.utf8), body)
  }

  /// Runs `body` with the path of a file holding `bytes`, then removes it.
  public static func withFile<T>(named name: String, bytes: [UInt8], _ body: (String) throws -> T) throws -> T
  {
    try withDirectory { directory in
      let url = directory.appendingPathComponent(name)
      try Data(bytes).write(to: url)
      return try body(url.path)
    }
  }

  /// The repository's golden files (`Tests/Fixtures`, with their provenance in its README).
  public static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures")

  /// A fixture's bytes; a missing or unreadable file throws (one failed test), naming the file.
  public static func fixture(_ relativePath: String) throws -> Data {
    let url = fixtures.appendingPathComponent(relativePath)
    do {
      return try Data(contentsOf: url)
    } catch {
      throw FixtureMissing(path: url.path)
    }
  }

  public struct FixtureMissing: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "The fixture '\(path)' cannot be read; it ships with the repository." }
  }
}

/// A file in a fresh temporary directory; `remove()` (in a `defer`) deletes the directory.
public final class ScratchFile {
  public let path: String
  private let directory: URL

  public init(named name: String, contents: String) throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("newsatlas-tests-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    path = url.path
    do {
      try Data(contents.utf8).write(to: url)
    } catch {
      remove()
      throw error
    }
  }

  public func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// A fresh temporary directory, removed when the last reference goes (a suite's stored property, say).
public final class ScratchDirectory: Sendable {
  public let path: String

  public init() throws {
    path = FileManager.default.temporaryDirectory.appendingPathComponent("newsatlas-tests-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }
}

extension FileHandle {
  /// One line (without its line break) read byte by byte, so nothing after it is consumed: a server's
  /// readiness line. Empty at the end of the stream.
  public func readReadinessLine() -> String {
    var line = Data()
    while true {
      let byte = readData(ofLength: 1)
      if byte.isEmpty || byte == Data("\n".utf8) { break }
      line.append(byte)
    }
    return String(decoding: line, as: UTF8.self)
  }
}
