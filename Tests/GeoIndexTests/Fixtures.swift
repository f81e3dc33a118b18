import Foundation
import GeoIndex

/// Reads the golden files copied into the repository (`Tests/Fixtures`; their provenance is in its README).
///
/// Decoded with `JSONDecoder`, which rounds numbers correctly; `JSONSerialization` on Linux does not (it reads
/// 171.51700878437094 as 171.51700878437092).
enum Fixtures {
  static let directory: URL = {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures")
  }()

  /// A fixture's bytes; a missing file throws an error that names it.
  static func data(_ relativePath: String) throws -> Data {
    let url = directory.appendingPathComponent(relativePath)
    guard let data = FileManager.default.contents(atPath: url.path) else {
      throw FixtureMissing(path: url.path)
    }
    return data
  }

  static func decode<T: Decodable>(_ type: T.Type, _ relativePath: String) throws -> T {
    try JSONDecoder().decode(type, from: try data(relativePath))
  }

  /// `{"points": [[longitude, latitude]]}` files as points.
  static func points(_ relativePath: String) throws -> [GeoPoint] {
    struct File: Decodable { let points: [[Double]] }
    return try decode(File.self, relativePath).points.map {
      try GeoPoint(latitude: $0[1], longitude: $0[0])
    }
  }
}

/// A golden file that cannot be read: one failed test that names it.
struct FixtureMissing: Error, CustomStringConvertible {
  let path: String
  var description: String {
    "The fixture '\(path)' cannot be read; it ships with the repository (Tests/Fixtures)."
  }
}
