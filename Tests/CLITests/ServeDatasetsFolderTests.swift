import Fetch
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import AtlasServer

/// Issue 43's writes that were lost or rolled back without a word: a folder two servers write in, odd files in
/// it, and DELETE by an id that names other features.
@Suite struct ServeDatasetsFolderTests {
  typealias Base = ServeWritesTests

  /// A second `serve` with a write token on a folder another one writes in is refused at start, naming the
  /// first one's pid (exit 69); the first keeps serving; once it has stopped, the folder can be used again.
  @Test func twoServersCannotWriteInOneFolder() async throws {
    let scratch = try ScratchDirectory()
    let folder = scratch.path + "/datasets"
    let token = ["NEWSATLAS_WRITE_TOKEN": Base.token]
    let first = try Served(["--datasets-dir", folder], environment: token)
    // Bounded: a second server that is not refused would serve until `timeout` ends it (status 124).
    let second = try CLI.shell(#"exec timeout 30 "$0" serve --port 0 --datasets-dir "$1""#, [folder], environment: token)
    #expect(second.status == 69, "\(second.stderr)")
    #expect(second.stderr.contains("pid \(first.process.processIdentifier)"), "\(second.stderr)")
    #expect(second.stderr.contains("'\(folder)'") && second.stdoutLines.isEmpty)
    let health = try await HTTPClient().get(first.base + "/healthz")
    #expect(health.status == 200)
    // The folder was made for the first, the owner's alone.
    let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
    #expect(mode == 0o700)
    _ = first.stop()
    // The kernel let go of the lock with the process: the folder is free again.
    let third = try Served(["--datasets-dir", folder], environment: token)
    #expect(try await HTTPClient().get(third.base + "/healthz").status == 200)
  }

  /// `--datasets-dir` naming a regular file is refused at start (64), with or without a token, instead of
  /// starting and answering every write with a 500.
  @Test func aFileIsNoDatasetsFolder() throws {
    let scratch = try ScratchDirectory()
    let file = scratch.path + "/not-a-folder"
    try "x".write(toFile: file, atomically: true, encoding: .utf8)
    for environment in [["NEWSATLAS_WRITE_TOKEN": Base.token], [:]] {
      let refused = try CLI.run(["serve", "--port", "0", "--datasets-dir", file], environment: environment)
      #expect(refused.status == 64, "\(refused.stderr)")
      #expect(refused.stderr.contains("is a regular file, not a folder"), "\(refused.stderr)")
    }
  }

  /// A FIFO named like a dataset's base: `serve` starts (opened for reading, it would hang the start for ever)
  /// and says so. Bounded: the server runs 15 s under `timeout`, which ends it either way; what counts is
  /// that its readiness line came before.
  @Test func aFIFOIsSaidAndLeft() throws {
    let scratch = try ScratchDirectory()
    let folder = scratch.path + "/datasets"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    #expect(mkfifo(folder + "/piped.geojson", 0o600) == 0)
    let run = try CLI.shell(#"timeout 15 "$0" serve --no-news --port 0 --datasets-dir "$1""#, [folder])
    #expect(run.stdout.contains("serving on http://127.0.0.1:"), "\(run.stdout) \(run.stderr)")
    #expect(
      run.stderr.contains("'\(folder)/piped.geojson' in the datasets folder is a FIFO, not a regular file"),
      "\(run.stderr)")
    var status = stat()
    #expect(lstat(folder + "/piped.geojson", &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
  }

  /// A journal that is a link or a folder: the base is not served without the changes answered since it;
  /// `serve` says what it found and what it left, and serves the rest.
  @Test func oddJournalsAreSaidAndLeft() async throws {
    let scratch = try ScratchDirectory()
    let folder = scratch.path + "/datasets"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for name in ["linked", "foldered", "fine"] {
      try Base.collection(3, version: 1).write(toFile: "\(folder)/\(name).geojson", atomically: true, encoding: .utf8)
    }
    try FileManager.default.createSymbolicLink(atPath: folder + "/linked.journal", withDestinationPath: "/dev/null")
    try FileManager.default.createDirectory(atPath: folder + "/foldered.journal", withIntermediateDirectories: false)
    let served = try Served(["--datasets-dir", folder], environment: ["NEWSATLAS_WRITE_TOKEN": Base.token])
    let listed = String(decoding: try await HTTPClient().get(served.base + "/v1/datasets").body, as: UTF8.self)
    #expect(listed.contains(#""name":"fine""#), "\(listed)")
    #expect(!listed.contains(#""name":"linked""#) && !listed.contains(#""name":"foldered""#), "\(listed)")
    let log = served.log()
    #expect(log.contains("its journal '\(folder)/linked.journal' is a symbolic link, not a regular file"), "\(log)")
    #expect(log.contains("its journal '\(folder)/foldered.journal' is a folder, not a regular file"), "\(log)")
    // Left as they were.
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/linked.journal")) == "/dev/null")
  }

  /// DELETE by id compares ids exactly: integers past 2^53 as integers, strings by their bytes (the Kelvin
  /// sign is not K); a feature with two ids is refused, since a DELETE could name only one of them.
  @Test func deleteByIDNamesOneFeatureOnly() async throws {
    let scratch = try ScratchDirectory()
    let service = try Base.service(scratch.path)
    let point = #""geometry":{"type":"Point","coordinates":[2.35,48.85]}"#
    let ids = ["9007199254740992", "9007199254740993", #""K""#, #""\u212A""#, "7"]
    let body =
      #"{"type":"FeatureCollection","features":["#
      + ids.map { #"{"type":"Feature","id":\#($0),"properties":{},\#(point)}"# }.joined(separator: ",") + "]}"
    try await Application(router: service.router()).test(.router) { client in
      #expect(try await Base.send(client, .put, "/v1/datasets/live", body).status == 201)
      let big = try await Base.send(client, .delete, "/v1/datasets/live/features/9007199254740993")
      #expect(big.status == 200 && big.json["featureCount"] as? Int == 4, "\(big.body)")
      #expect(try await Base.send(client, .delete, "/v1/datasets/live/features/9007199254740993").status == 404)
      let kelvin = try await Base.send(client, .delete, "/v1/datasets/live/features/K")
      #expect(kelvin.status == 200 && kelvin.json["featureCount"] as? Int == 3, "\(kelvin.body)")
      // 7.0 is the number 7 (one value, written two ways), and what is left is what was not named.
      #expect(try await Base.send(client, .delete, "/v1/datasets/live/features/7.0").status == 200)
      for left in ["9007199254740992", "%E2%84%AA"] {
        let answer = try await Base.send(client, .delete, "/v1/datasets/live/features/" + left)
        #expect(answer.status == 200, "\(left): \(answer.body)")
      }
      let twice = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"id":2,"properties":{},\#(point)}]}"#
      let refused = try await Base.send(client, .post, "/v1/datasets/live/features", twice)
      #expect(refused.status == 400 && refused.body.contains(#"has two \"id\" members"#), "\(refused.body)")
    }
  }
}
