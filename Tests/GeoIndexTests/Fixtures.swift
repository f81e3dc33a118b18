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

  static func decode<T: Decodable>(_ type: T.Type, _ relativePath: String) throws -> T {
    let data = try Data(contentsOf: directory.appendingPathComponent(relativePath))
    return try JSONDecoder().decode(type, from: data)
  }

  /// `{"points": [[longitude, latitude]]}` files as points.
  static func points(_ relativePath: String) throws -> [GeoPoint] {
    struct File: Decodable { let points: [[Double]] }
    return try decode(File.self, relativePath).points.map {
      try GeoPoint(latitude: $0[1], longitude: $0[0])
    }
  }
}
