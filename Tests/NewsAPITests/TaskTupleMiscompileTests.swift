import Foundation
import Testing

/// The toolchain's miscompile behind `Result.awaiting(_:)`: `Tests/Compiler/TaskTupleMiscompile.swift`
/// compiled with `-O`, as the release build compiles the package, then run.
///
/// The shape the package now uses (the result bound, then the tuple) must hand every index back. The bare shape
/// is a known issue of Swift 6.3.1: while the toolchain miscompiles it this test passes, recording the issue;
/// when a toolchain compiles it right the known issue is not recorded and the test fails, saying that the
/// workaround (and this test) can go.
@Suite struct TaskTupleMiscompileTests {
  @Test func theBoundShapeKeepsEveryIndexInAnOptimizedBuild() throws {
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../Compiler/TaskTupleMiscompile.swift").standardizedFileURL
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("newsatlas-miscompile-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let binary = folder.appendingPathComponent("reproducer").path

    let compiled = try Self.run(
      "/usr/bin/env", ["swiftc", "-O", "-parse-as-library", source.path, "-o", binary, "-module-cache-path",
        folder.appendingPathComponent("cache").path])
    try #require(compiled.status == 0, "swiftc -O failed: \(compiled.output)")
    let ran = try Self.run(binary, [])
    try #require(ran.status == 0, "the reproducer failed: \(ran.output)")

    let lines = Dictionary(
      uniqueKeysWithValues: ran.output.split(separator: "\n").compactMap { line -> (String, String)? in
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
      })
    let all = (0..<9).map(String.init).joined(separator: " ")
    #expect(lines["bound"] == all)
    withKnownIssue("Swift 6.3.1 -O hands a garbage index back from the bare shape; the workaround is needed") {
      #expect(lines["bare"] == all)
    }
  }

  private static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
  }
}
