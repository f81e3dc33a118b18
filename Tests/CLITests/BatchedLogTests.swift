import AtlasServer
import Foundation
import Testing

/// The service's request log: lines held until a batch is full, a warning comes, or a flush, then written
/// whole and in order.
@Suite struct BatchedLogTests {
  @Test func linesWaitForABatchAWarningOrAFlush() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "BatchedLogTests-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).log"
    ).path
    let fileDescriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    try #require(fileDescriptor >= 0)
    defer {
      close(fileDescriptor)
      unlink(path)
    }
    func written() -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    let log = BatchedLog(fileDescriptor: fileDescriptor)
    defer { log.close() }
    var logger = log.logger(label: "test")
    logger[metadataKey: "dataset"] = "markers"
    logger.info("GET /healthz 200 0.02 ms")
    logger.debug("not at this level")
    log.flush()
    let first = written()
    #expect(first.hasSuffix(" info test: GET /healthz 200 0.02 ms dataset=markers\n"), "\(first)")
    #expect(first.split(separator: "\n").count == 1)
    #expect(
      first.dropFirst(4).hasPrefix("-") && first.dropFirst(10).hasPrefix("T")
        && first.dropFirst(19).hasPrefix("Z "))

    logger.warning("the cache is full")  // written at once, without a flush
    #expect(written().hasSuffix(" warning test: the cache is full dataset=markers\n"))

    // Enough lines for several 16 KiB batches: all of them come out, whole and in order.
    for i in 0..<2000 { logger.info("line \(i)") }
    log.flush()
    let lines = written().split(separator: "\n").dropFirst(2)
    #expect(lines.count == 2000)
    #expect(
      lines.enumerated().allSatisfy { $0.element.hasSuffix(" info test: line \($0.offset) dataset=markers") })
  }
}
