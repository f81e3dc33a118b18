// swift-tools-version: 6.1
// Benchmarks live in their own package so that the root package's build and tests never compile the
// benchmark tool. Run from this directory: `swift package benchmark` (ordo-one/benchmark) or
// `python3 compare.py` (the side-by-side table in README.md).
import Foundation
import PackageDescription

// SwiftPM names a path dependency by its folder, so a clone in any folder must be named by that identity.
let parent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .lastPathComponent.lowercased()

let package = Package(
  name: "NewsAtlasBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(path: ".."),
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
  ],
  targets: [
    .executableTarget(
      name: "GeoIndexBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "GeoIndex", package: parent), .product(name: "SeededPoints", package: parent),
      ],
      path: "Benchmarks/GeoIndexBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    // The fetch layer against a bare libcurl multi loop and URLSession (compare.py http).
    .target(name: "CurlLoop", path: "Sources/CurlLoop", linkerSettings: [.linkedLibrary("curl")]),
    .executableTarget(
      name: "httpbench",
      dependencies: ["CurlLoop", .product(name: "Fetch", package: parent)],
      path: "Sources/httpbench",
      swiftSettings: [.swiftLanguageMode(.v5)]  // a benchmark script: top-level globals shared by tasks
    ),
    // The Swift side of compare.py: the same points and queries as the Python peers, timed in one process.
    .executableTarget(
      name: "compare",
      dependencies: [
        .product(name: "GeoIndex", package: parent), .product(name: "SeededPoints", package: parent),
        .product(name: "NewsAtlas", package: parent),
        .product(name: "Store", package: parent), .product(name: "GeoFormats", package: parent),
        .product(name: "AtlasAnswers", package: parent),
      ],
      path: "Sources/compare"
    ),
    // The feeds parser against Python's feedparser (feeds_bench.py): parses the same files, timed in process.
    .executableTarget(
      name: "feedsbench",
      dependencies: [.product(name: "Feeds", package: parent)],
      path: "Sources/feedsbench"
    ),
    // Bare Hummingbird answering a fixed resolve body: the framework's floor beside the service
    // (serve_bench.py). Linked as the service's release binary is, the Swift runtime and Foundation statically.
    .executableTarget(
      name: "bareserver",
      dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
      path: "Sources/bareserver",
      linkerSettings: [
        .unsafeFlags(
          [
            "-static-stdlib", "-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCShims",
            "-l_FoundationCollections", "-lswiftSynchronization",
          ], .when(platforms: [.linux], configuration: .release))
      ]
    ),
  ]
)
