// swift-tools-version: 6.2
import PackageDescription

/// This manifest's folder, with its slash: the linker is not run there, so a file it reads is named in full.
let packageFolder = String(#filePath.dropLast("Package.swift".count))

let package = Package(
  name: "NewsAtlas",
  products: [
    .library(name: "GeoIndex", targets: ["GeoIndex"]),
    // Seeded points uniform on the sphere (the shared fixtures' generator), for tests and the benchmarks.
    .library(name: "SeededPoints", targets: ["SeededPoints"]),
    .library(name: "NewsAtlas", targets: ["NewsAtlas"]),
    .library(name: "GeoFormats", targets: ["GeoFormats"]),
    .library(name: "AtlasAnswers", targets: ["AtlasAnswers"]),
    .library(name: "VectorTiles", targets: ["VectorTiles"]),
    .library(name: "Fetch", targets: ["Fetch"]),
    .library(name: "NewsAPI", targets: ["NewsAPI"]),
    .library(name: "Store", targets: ["Store"]),
    // RSS 2.0, RSS 1.0 (RDF) and Atom 1.0 read with libxml2: no HTTP, no service, no CLI.
    .library(name: "Feeds", targets: ["Feeds"]),
    .library(name: "AtlasSettings", targets: ["AtlasSettings"]),
    // `newsatlas serve` as a library: `AtlasService.router()` mounts its routes in a host application.
    .library(name: "AtlasServer", targets: ["AtlasServer"]),
    .executable(name: "newsatlas", targets: ["NewsAtlasCLI"]),
    // The engine behind a C interface, for the Python package (python/): `pip install ./python` builds it.
    .library(name: "NewsAtlasC", type: .dynamic, targets: ["NewsAtlasC"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    // NIO's channel handler types, for the service's one handler of its own (Expect: 100-continue).
    .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
    // A full TOML 1.0 reader for the settings (toml++ 3.4 in C++ underneath), for AtlasSettings alone.
    .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
    // PostgreSQL's wire protocol, for `serve --postgres` (a PostGIS table as a dataset): its TLS and crypto are
    // already in the build through Hummingbird's and the tests' dependencies.
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
  ],
  targets: [
    // The pure geo core: the standard library, libm, pthreads and Synchronization (its parallel builds); no
    // Foundation, no I/O.
    .target(name: "GeoIndex"),
    .target(name: "SeededPoints", dependencies: ["GeoIndex"]),
    // libcurl, reached only through this shim, which opens libcurl.so.4 on the first fetch rather than at
    // every start (builds against Debian's libcurl4-openssl-dev headers).
    .target(name: "CCurl"),
    // An async HTTP client on libcurl's multi interface; curl never appears in its API.
    .target(name: "Fetch", dependencies: ["CCurl", "AtlasMessages"]),
    // Data/boundaries.bin and Documentation/openapi.json, embedded at build time (C23 #embed).
    .target(name: "CBoundaries"),
    // The 54 news countries and the world's borders (both embedded at build time).
    // What NewsAtlas says to people, in English and French: one catalogue of messages (standard library only).
    .target(name: "AtlasMessages"),
    .target(name: "NewsAtlas", dependencies: ["GeoIndex", "CBoundaries", "AtlasMessages"]),
    // General readers and writers, nothing of this application's answers: streaming GeoJSON/CSV features, one
    // quote-aware CSV record reader, a JSON parser and writer, numbers and coordinates (no Foundation). Their
    // refusals are the catalogue's sentences (AtlasMessages: the standard library only), said in the reader's
    // language by whichever front end reads them.
    .target(name: "GeoFormats", dependencies: ["GeoIndex", "AtlasMessages"]),
    // This application's answers, written once for the CLI, the service and the Python package: countries,
    // resolutions, nearest results, batch rows, cluster GeoJSON and vector tiles, expansion zooms, the basemap.
    .target(
      name: "AtlasAnswers",
      dependencies: ["GeoIndex", "NewsAtlas", "GeoFormats", "VectorTiles", "AtlasMessages"]),
    // Mapbox Vector Tile 2.1 encoding: protobuf by hand, standard library only.
    .target(name: "VectorTiles"),
    // `newsatlas serve`: the engine over HTTP (Hummingbird 2), every answer written by AtlasAnswers.
    .target(
      name: "AtlasServer",
      dependencies: [
        "GeoIndex", "NewsAtlas", "GeoFormats", "AtlasAnswers", "NewsAPI", "Store", "Fetch", "AtlasSettings",
        "AtlasMessages", "CBoundaries",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),  // FlatDictionary, the parsed query
        .product(name: "Logging", package: "swift-log"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "CompressNIO", package: "compress-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
      ]),
    // `newsatlas tiles`: every tile of a dataset, gzipped, into an MBTiles file (not an HTTP concern).
    .target(
      name: "MBTiles",
      dependencies: [
        "GeoIndex", "GeoFormats", "AtlasAnswers", "NewsAtlas", "Store",
        .product(name: "CompressNIO", package: "compress-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
      ]),
    // A PostGIS table's points read into a dataset's GeoJSON (PostgresNIO), for `serve --postgres`.
    .target(
      name: "PostGISSource",
      dependencies: [
        "AtlasMessages",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
      ]),
    // The user's folders (XDG config, cache and data homes) and the settings file: TOML read by TOMLKit,
    // written in place with the key's file never readable by others. What the keys mean is NewsAPI's.
    .target(
      name: "AtlasSettings", dependencies: ["AtlasMessages", .product(name: "TOMLKit", package: "TOMLKit")]),
    // SQLite, reached only through this shim (Debian's libsqlite3-dev), for the cache.
    .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
    // The on-disk cache of answers and the request log for the quota.
    .target(name: "Store", dependencies: ["CSQLite", "AtlasMessages"]),
    // libxml2, reached only through this shim, which opens libxml2.so.2 at the first parse rather than at every
    // start (ICU and liblzma with it). It builds against Debian's libxml2-dev headers, in /usr/include/libxml2
    // (pkg-config's libxml-2.0 cflags), for libxml2's types; nothing links the library.
    .target(name: "CLibXML2", cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])]),
    // Feed documents (RSS 2.0, RSS 1.0, Atom 1.0) to items: a real XML parser with entities and external reads
    // off; no Foundation, no I/O, so any front end (the Python package included) can reuse it.
    .target(
      name: "Feeds", dependencies: ["CLibXML2", "AtlasMessages"],
      swiftSettings: [.unsafeFlags(["-Xcc", "-I/usr/include/libxml2"])]),
    // The NewsAPI v2 client, with headlines for every country despite the service's limits.
    .target(
      name: "NewsAPI",
      dependencies: [
        "Fetch", "GeoIndex", "NewsAtlas", "GeoFormats", "AtlasAnswers", "Store", "Feeds", "AtlasSettings",
        "AtlasMessages",
      ]),
    // The thin command-line front end.
    // Its folder is not `Sources/newsatlas`: a name differing from `Sources/NewsAtlas` only by case breaks a clone on
    // a case-insensitive file system. The product, and so the binary, is still `newsatlas`.
    .executableTarget(
      name: "NewsAtlasCLI",
      dependencies: [
        "GeoIndex", "NewsAtlas", "GeoFormats", "AtlasAnswers", "AtlasServer", "MBTiles", "Fetch", "NewsAPI",
        "Store", "AtlasSettings", "AtlasMessages", "PostGISSource",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      // Release builds carry the Swift runtime and Foundation inside the binary, so the dynamic loader binds
      // none of Swift's libraries: a one-shot command started in 15 ms instead of 21 (9 ms since CCurl opens
      // libcurl at the first fetch; Benchmarks/README.md, cold start). Link flags only, as SwiftPM's
      // `--static-swift-stdlib` recompiles every module; the libraries after `-static-stdlib` are the ones
      // that objects compiled against the static Foundation would name (Swift 6 on Linux). Debug builds, and
      // the tests, keep linking the shared runtime.
      linkerSettings: [
        .unsafeFlags(
          [
            "-static-stdlib", "-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCShims",
            "-l_FoundationCollections", "-lswiftSynchronization",
          ], .when(platforms: [.linux], configuration: .release))
      ]
    ),
    // `@_cdecl` functions over GeoIndex, NewsAtlas and AtlasAnswers (the tile writer) for Python (ctypes).
    // Release builds carry the Swift runtime inside the shared library (`-static-stdlib`, as the CLI), so a
    // wheel runs where no Swift is installed; nothing here imports Foundation.
    // It exports its C interface only (`newsatlas_*`, by the version script NewsAtlasC.map): none of the
    // runtime's or the modules' Swift symbols, which another Swift library in the same process would clash with.
    .target(
      name: "NewsAtlasC", dependencies: ["GeoIndex", "NewsAtlas", "GeoFormats", "AtlasAnswers"],
      exclude: ["NewsAtlasC.map"],
      linkerSettings: [
        .unsafeFlags(["-Xlinker", "--version-script=\(packageFolder)Sources/NewsAtlasC/NewsAtlasC.map"]),
        .unsafeFlags(
          ["-static-stdlib", "-lswiftSynchronization"], .when(platforms: [.linux], configuration: .release)),
      ]),
    .testTarget(name: "GeoIndexTests", dependencies: ["GeoIndex", "SeededPoints"]),
    .testTarget(name: "NewsAtlasTests", dependencies: ["NewsAtlas", "SeededPoints"], exclude: ["Fixtures"]),
    .testTarget(name: "GeoFormatsTests", dependencies: ["GeoFormats", "TestSupport"]),
    .testTarget(
      name: "AtlasAnswersTests",
      dependencies: ["AtlasAnswers", "GeoFormats", "GeoIndex", "NewsAtlas", "TestSupport"]),
    .testTarget(
      name: "VectorTilesTests",
      dependencies: ["VectorTiles", "AtlasAnswers", "GeoFormats", "GeoIndex", "TestSupport"]),
    // The tests' real HTTP server on 127.0.0.1 (server.py) and the code that starts it and waits for it.
    .target(
      name: "TestSupport", dependencies: ["Fetch"], path: "Tests/Support",
      exclude: ["server.py", "feed_server.py", "harness.py", "barrier.py"]),
    .testTarget(name: "FetchTests", dependencies: ["Fetch", "TestSupport"]),
    .testTarget(
      name: "NewsAPITests", dependencies: ["NewsAPI", "Store", "TestSupport", "Feeds", "AtlasMessages"]),
    .testTarget(name: "AtlasMessagesTests", dependencies: ["AtlasMessages"]),
    .testTarget(name: "FeedsTests", dependencies: ["Feeds"]),
    .testTarget(name: "PostGISSourceTests", dependencies: ["PostGISSource", "AtlasMessages"]),
    .testTarget(name: "AtlasSettingsTests", dependencies: ["AtlasSettings", "TestSupport"]),
    .testTarget(
      name: "CLITests",
      dependencies: [
        "NewsAtlasCLI", "AtlasServer", "GeoIndex", "NewsAtlas", "GeoFormats", "AtlasAnswers", "Fetch",
        "NewsAPI", "AtlasMessages", "AtlasSettings",
        "TestSupport", "SeededPoints",
        // The service's router in process (ServeRoutesTests); a test target's dependency only, as it brings an
        // HTTP client and TLS (about 150 s more of a first build).
        .product(name: "HummingbirdTesting", package: "hummingbird"),
      ]),
  ]
)
