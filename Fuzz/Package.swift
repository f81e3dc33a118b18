// swift-tools-version: 6.0
// libFuzzer targets for every parser that reads bytes someone else wrote. Their own package, so the root
// package's build is untouched; `scripts/fuzz TARGET [SECONDS]` builds one with
// `-sanitize=fuzzer,address` and runs it, seeded from the repository's fixtures.
import Foundation
import PackageDescription

// SwiftPM names a path dependency by its folder, so a clone in any folder must be named by that identity.
let parent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .lastPathComponent.lowercased()

func fuzzer(_ name: String, _ products: [String]) -> Target {
  .executableTarget(
    name: name, dependencies: ["FuzzDriver"] + products.map { .product(name: $0, package: parent) },
    path: "Sources/\(name)")
}

let package = Package(
  name: "NewsAtlasFuzz",
  dependencies: [
    .package(path: ".."),
    // The request types `fuzz-serve` builds, at the versions the root package resolves.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
  ],
  targets: [
    // Starts libFuzzer's driver from each target's entry point.
    .target(name: "FuzzDriver"),
    // GeoJSON FeatureCollections and CSV point files (FeatureFile), read back feature by feature.
    fuzzer("fuzz-features", ["GeoFormats"]),
    // Batch rows (latitude,longitude lines) in chunks of any size, every query and format.
    fuzzer("fuzz-batch", ["AtlasAnswers", "GeoFormats", "NewsAtlas"]),
    // Coordinates, --bbox boxes and --tile addresses as typed.
    fuzzer("fuzz-arguments", ["GeoFormats"]),
    // The JSON parser, with a round trip through the writer.
    fuzzer("fuzz-json", ["GeoFormats"]),
    // NewsAPI responses (status, headers, body) as the client decodes them.
    fuzzer("fuzz-newsapi", ["NewsAPI", "Fetch"]),
    // GDELT's answers for several countries and several feeds of a country merged, through the real clients
    // on an in-process transport: the children of a task group hand back their results (a release-only trap).
    fuzzer("fuzz-headlines", ["NewsAPI", "NewsAtlas", "Fetch", "Store"]),
    // The settings file: TOMLKit's reading, the in-place edits of `config set`, the keys' validation.
    fuzzer("fuzz-settings", ["AtlasSettings", "NewsAPI"]),
    // RSS and Atom documents as feeds' servers send them, with and without a charset (the feed reader, its
    // encodings, entities and dates).
    fuzzer("fuzz-feed", ["Feeds"]),
    // MapLibre filter expressions (`filter=`) read and evaluated, metered and not, on any properties.
    fuzzer("fuzz-filter", ["GeoFormats"]),
    // A kept dataset's journal read at `serve`'s start: what is cut or dropped is kept aside.
    fuzzer("fuzz-journal", ["AtlasServer", "GeoIndex"]),
    // `serve`'s routing, paths, queries and bodies, through its router in process.
    .executableTarget(
      name: "fuzz-serve",
      dependencies: [
        "FuzzDriver", .product(name: "AtlasServer", package: parent), .product(name: "GeoFormats", package: parent),
        .product(name: "GeoIndex", package: parent), .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
      ],
      path: "Sources/fuzz-serve"),
  ]
)
