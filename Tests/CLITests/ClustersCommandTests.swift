import Foundation
import GeoIndex
import TestSupport
import Testing

/// `newsatlas clusters` against supercluster's golden outputs, and its error cases.
@Suite struct ClustersCommandTests {
  /// Runs `body` with points-10k.json written as the GeoJSON supercluster was given (`{"index": i}`
  /// properties), in a scratch file removed afterwards.
  struct PointsFile: Decodable { let points: [[Double]] }

  static func withPoints10k<T>(_ body: (String) throws -> T) throws -> T {
    let points = try JSONDecoder().decode(PointsFile.self, from: try Scratch.fixture("points-10k.json"))
      .points
    let features = points.enumerated().map { i, p in
      "{\"type\":\"Feature\",\"properties\":{\"index\":\(i)},\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(p[0]),\(p[1])]}}"
    }
    return try Scratch.withFile(
      named: "points-10k.geojson",
      contents: "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n")
        + "\n]}", body)
  }

  /// A filtered index is supercluster run on the matching points alone: the same bytes as clustering a file
  /// that holds only those features (their ids, their order), for clusters, a cluster's leaves, and a tile.
  @Test func aFilterClustersTheMatchingPointsAlone() throws {
    let points = try JSONDecoder().decode(PointsFile.self, from: try Scratch.fixture("points-10k.json"))
      .points
    let categories = ["news", "sports", "culture"]
    func feature(_ i: Int, _ p: [Double]) -> String {
      "{\"type\":\"Feature\",\"properties\":{\"index\":\(i),\"category\":\"\(categories[i % 3])\"},"
        + "\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(p[0]),\(p[1])]}}"
    }
    func collection(_ features: [String]) -> String {
      "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}"
    }
    let all = points.enumerated().map { feature($0, $1) }
    let sports = points.enumerated().filter { $0.offset % 3 == 1 }.map { feature($0.offset, $0.element) }
    let filter = #"["all", ["==", ["get", "category"], "sports"], [">=", ["get", "index"], 0]]"#
    try Scratch.withFile(named: "all.geojson", contents: collection(all)) { allPath in
      try Scratch.withFile(named: "sports.geojson", contents: collection(sports)) { sportsPath in
        for query in [["--zoom", "2"], ["--zoom", "5", "--bbox", "-20,-20,40,40"], ["--tile", "1/1/0"]] {
          let filtered = try CLI.run(["clusters", "--points", allPath, "--filter", filter] + query)
          let alone = try CLI.run(["clusters", "--points", sportsPath] + query)
          #expect(filtered.status == 0 && alone.status == 0, "\(filtered.stderr)")
          #expect(filtered.stdout == alone.stdout, "\(query)")
          #expect(!filtered.stdout.contains("\"news\""))
        }
        let clusters = try #require(
          try Self.json(try CLI.run(["clusters", "--points", sportsPath, "--zoom", "1"]).stdout)
            as? [String: Any])
        let id = try #require(
          (clusters["features"] as? [[String: Any]])?.compactMap { $0["properties"] as? [String: Any] }
            .first { $0["cluster"] as? Bool == true }?["cluster_id"] as? Int)
        let leaves = ["--leaves", String(id), "--limit", "20"]
        let filtered = try CLI.run(["clusters", "--points", allPath, "--filter", filter] + leaves)
        let unfiltered = try CLI.run(["clusters", "--points", sportsPath] + leaves)
        #expect(filtered.status == 0 && filtered.stdout == unfiltered.stdout)
        let refused = try CLI.run([
          "clusters", "--points", allPath, "--zoom", "2", "--filter", #"["~=", 1, 2]"#,
        ])
        #expect(refused.status == 64 && refused.stderr.contains("'~=' is not a filter operator"))
      }
    }
  }

  static func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

  @Test(arguments: ["points-10k-clusters-z0.json", "points-10k-clusters-z2.json"])
  func worldClustersAreSuperclusters(_ name: String) throws {
    let expected = try #require(
      try JSONSerialization.jsonObject(
        with: Scratch.fixture("supercluster/\(name)"))
        as? [String: Any])
    let zoom = try #require(expected["zoom"] as? Int)
    let result = try Self.withPoints10k { try CLI.run(["clusters", "--points", $0, "--zoom", String(zoom)]) }
    #expect(result.status == 0, "\(result.stderr)")
    let json = try #require(try Self.json(result.stdout) as? [String: Any])
    #expect(json["type"] as? String == "FeatureCollection")
    let features = try #require(json["features"] as? [[String: Any]])
    let want = try #require(expected["features"] as? [[String: Any]])
    #expect(features.count == want.count)
    for (got, wanted) in zip(features, want) {
      #expect(got["id"] as? Int == wanted["id"] as? Int)
      #expect(
        NSDictionary(dictionary: got["properties"] as! [String: Any])
          == NSDictionary(dictionary: wanted["properties"] as! [String: Any]))
      let a = (got["geometry"] as! [String: Any])["coordinates"] as! [Double]
      let b = (wanted["geometry"] as! [String: Any])["coordinates"] as! [Double]
      #expect(abs(a[0] - b[0]) <= 1e-9 && abs(a[1] - b[1]) <= 1e-9)
    }
  }

  @Test(arguments: [("places-tile-z0-0-0.json", "2"), ("places-tile-z0-0-0-minpoints5.json", "5")])
  func tilesAreSuperclusters(file: String, minPoints: String) throws {
    let places = Scratch.fixtures.appendingPathComponent("supercluster/places.json").path
    let result = try CLI.run(["clusters", "--points", places, "--tile", "0/0/0", "--min-points", minPoints])
    #expect(result.status == 0, "\(result.stderr)")
    let got = try Self.json(result.stdout) as! NSDictionary
    let want =
      try JSONSerialization.jsonObject(
        with: Scratch.fixture("supercluster/\(file)"))
      as! NSDictionary
    #expect(got == want)
  }

  struct Navigation: Decodable {
    struct Entry: Decodable {
      let cluster_id: Int
      let expansionZoom: Int
      let leavesLimit5Offset3: [Int]
    }
    let clusters: [Entry]
  }

  @Test func navigationMatchesSupercluster() throws {
    let data = try Scratch.fixture("supercluster/points-10k-cluster-navigation.json")
    let navigation = try JSONDecoder().decode(Navigation.self, from: data)
    try Self.withPoints10k { try navigate($0, navigation) }
  }

  private func navigate(_ points10k: String, _ navigation: Navigation) throws {
    for entry in navigation.clusters.prefix(4) {
      let zoom = try CLI.run([
        "clusters", "--points", points10k, "--expansion-zoom", String(entry.cluster_id),
      ])
      #expect(zoom.stdout == "{\"clusterId\":\(entry.cluster_id),\"expansionZoom\":\(entry.expansionZoom)}\n")
      let leaves = try CLI.run([
        "clusters", "--points", points10k, "--leaves", String(entry.cluster_id), "--limit", "5",
        "--offset", "3",
      ])
      let features = try #require(
        (try Self.json(leaves.stdout) as? [String: Any])?["features"] as? [[String: Any]])
      #expect(
        features.compactMap { ($0["properties"] as? [String: Any])?["index"] as? Int }
          == entry.leavesLimit5Offset3)
      let children = try CLI.run([
        "clusters", "--points", points10k, "--children", String(entry.cluster_id),
      ])
      #expect(children.status == 0)
    }
  }

  /// A Parquet file (issue 45 item 5), which only the Python package reads (through pyarrow): `--points` and a
  /// batch's `--input` say so in one sentence, 65, naming the Python entry points, and write nothing to standard
  /// output (a batch's CSV header row came before the refusal).
  @Test func aParquetFileIsSentToThePythonPackage() throws {
    try Scratch.withFile(
      named: "points.parquet", bytes: Array("PAR1".utf8) + [0x15, 0x04, 0, 0] + Array("PAR1".utf8)
    ) {
      path in
      for arguments in [
        ["clusters", "--zoom", "1", "--points", path], ["resolve", "--input", path], ["nearest", "--input", path],
      ] {
        let result = try CLI.run(arguments)
        #expect(result.status == 65 && result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        #expect(
          result.stderr
            == "newsatlas: '\(path)' is a Parquet file, which the command line does not read; the "
            + "Python package does: python -m newsatlas resolve --input FILE --output OUT.parquet, or "
            + "newsatlas.read_points(FILE) for an index.\n", "\(result.stderr)")
      }
    }
  }

  /// `--format text` (issue 47 item 9): a table under a header, each cluster with the zoom it splits at, each
  /// point with its name (French in French, a decimal comma); the JSON laid out on a terminal, one line in a
  /// pipe, the same document either way.
  @Test func textAndLaidOutJSONForPeople() throws {
    let text = try CLI.run(["clusters", "--zoom", "2", "--format", "text"])
    #expect(text.status == 0)
    #expect(
      text.stdoutLines.first?.split(separator: " ") == [
        "KIND", "ID", "POINTS", "LATITUDE", "LONGITUDE", "DETAILS",
      ])
    let cluster = try #require(text.stdoutLines.first { $0.hasPrefix("cluster ") && $0.contains(" 121 ") })
    #expect(
      cluster.split(separator: " ") == [
        "cluster", "121", "7", "47.0593", "14.8714", "splits", "at", "zoom", "3",
      ])
    #expect(text.stdoutLines.contains { $0.hasPrefix("point ") && $0.hasSuffix("  Argentina") })
    // The same clusters as the JSON answer: every id, every lone marker.
    let json = try #require(try CLI.run(["clusters", "--zoom", "2"]).json?["features"] as? [[String: Any]])
    #expect(text.stdoutLines.count == json.count + 1)
    let french = try CLI.run(["clusters", "--leaves", "121", "--format", "text", "--lang", "fr"])
    #expect(
      french.stdoutLines.contains {
        $0.split(separator: " ") == ["point", "1", "47,6319", "13,7978", "Autriche"]
      })
    let splits = try CLI.run(["clusters", "--expansion-zoom", "121", "--format", "text"])
    #expect(splits.stdout == "Cluster 121 splits at zoom 3.\n")
    let tile = try CLI.run(["clusters", "--tile", "2/2/1", "--format", "text"])
    #expect(tile.stdoutLines.first?.split(separator: " ") == ["KIND", "ID", "POINTS", "X", "Y", "DETAILS"])
    // On a terminal (script(1) gives the command one), the JSON is laid out; piped, it is one line.
    let piped = try CLI.run(["clusters", "--children", "121"])
    #expect(piped.stdoutLines.count == 1)
    let terminal = try CLI.shell(#"script -qec "$0 clusters --children 121" /dev/null"#)
    #expect(terminal.status == 0)
    let laidOut = terminal.stdout.replacingOccurrences(of: "\r\n", with: "\n")
    #expect(
      laidOut.hasPrefix("{\n  \"type\": \"FeatureCollection\",\n  \"features\": [\n"),
      "\(laidOut.prefix(200))")
    let reread = try JSONSerialization.jsonObject(with: Data(laidOut.utf8)) as? NSDictionary
    #expect(reread == (try JSONSerialization.jsonObject(with: Data(piped.stdout.utf8)) as? NSDictionary))
  }

  @Test func countriesByDefaultWithUnclusteredFeaturesUnchanged() throws {
    let result = try CLI.run(["clusters", "--zoom", "2"])
    #expect(result.status == 0)
    let features = try #require(
      (try Self.json(result.stdout) as? [String: Any])?["features"] as? [[String: Any]])
    var total = 0
    for feature in features {
      let properties = try #require(feature["properties"] as? [String: Any])
      if properties["cluster"] as? Bool == true {
        total += properties["point_count"] as! Int
        #expect(feature["id"] as? Int == properties["cluster_id"] as? Int)
      } else {
        total += 1
        #expect(Set(properties.keys) == ["code", "name", "nameFr"])
        #expect(feature["id"] == nil)
      }
    }
    #expect(total == 54)
  }

  @Test func sumMinMaxAggregateNumericProperties() throws {
    let result = try Scratch.withFile(
      named: "people.csv",
      contents:
        "latitude,longitude,people,name\n10,20,5,a\n10.0001,20.0001,7,b\n10.0002,20,x,c\n-40,100,1,d\n"
    ) { path in
      try CLI.run(["clusters", "--points", path, "--zoom", "3", "--sum", "people", "--max", "name"])
    }
    #expect(result.status == 0, "\(result.stderr)")
    let features = try #require(
      (try Self.json(result.stdout) as? [String: Any])?["features"] as? [[String: Any]])
    let cluster = try #require(
      features.first { ($0["properties"] as? [String: Any])?["cluster"] as? Bool == true })
    let properties = try #require(cluster["properties"] as? [String: Any])
    #expect(properties["people"] as? Double == 12)  // "x" is not a number and is left out
    #expect(properties["name"] is NSNull)  // no point has a numeric name
    #expect(properties["point_count"] as? Int == 3)
    #expect(result.stdout.contains("\"people\":12,\"name\":null,\"cluster\":true"))  // aggregates come first
  }

  @Test func negativeBoxNeedsNoEquals() throws {
    let spaced = try CLI.run(["clusters", "--zoom", "1", "--bbox", "-10,35,30,60", "--radius", "60"])
    let joined = try CLI.run(["clusters", "--zoom", "1", "--bbox=-10,35,30,60", "--radius", "60"])
    #expect(spaced.status == 0 && spaced.stdout == joined.stdout && spaced.stdout.contains("\"cluster_id\""))
  }

  @Test func bboxAcrossTheAntimeridian() throws {
    let both = try Self.withPoints10k {
      try CLI.run(["clusters", "--points", $0, "--zoom", "17", "--bbox", "170,-10,-170,10"])
    }
    let features = try #require(
      (try Self.json(both.stdout) as? [String: Any])?["features"] as? [[String: Any]])
    let longitudes = features.map { (($0["geometry"] as! [String: Any])["coordinates"] as! [Double])[0] }
    #expect(!longitudes.isEmpty && longitudes.allSatisfy { $0 >= 170 || $0 <= -170 })
    #expect(longitudes.contains { $0 > 0 } && longitudes.contains { $0 < 0 })
  }

  @Test(arguments: [
    (["clusters"], "Give --zoom Z"),
    (["clusters", "--zoom", "2", "--tile", "1/0/0"], "not several"),
    (["clusters", "--zoom", "2", "--bbox", "1,2,3"], "--bbox takes four numbers"),
    (["clusters", "--tile", "2/4/0"], "off the map"),
    (["clusters", "--tile", "a/b"], "--tile takes Z/X/Y"),
    (["clusters", "--children", "99999"], "No cluster has the id 99999"),
    (["clusters", "--expansion-zoom", "3"], "No cluster has the id 3"),
    (["clusters", "--zoom", "1", "--radius", "0"], "radius"),
    (["clusters", "--zoom", "1", "--min-zoom", "5", "--max-zoom", "2"], "lowest zoom (5) to 30, not 2"),
    (["clusters", "--zoom", "1", "--sum", "a", "--max", "a"], "aggregated twice"),
    (["clusters", "--zoom", "1", "--points", "/nonexistent.json"], "Cannot open"),
  ])
  func usageErrors(arguments: [String], mentions: String) throws {
    let result = try CLI.run(arguments)
    #expect(result.status == 64)
    #expect(result.stdout.isEmpty)
    #expect(result.stderrLines.count == 1, "\(result.stderr)")
    #expect(result.stderr.contains(mentions), "\(result.stderr)")
  }

  @Test(arguments: [
    (
      "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}},\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,tru]}}]}",
      "line 2, column 63 (byte 170): unexpected word"
    ),
    (
      "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[0,0]}},{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[200,0]}}]}",
      "Feature 1"
    ),
    ("{\"type\":\"Topology\",\"features\":[]}", "not a GeoJSON FeatureCollection"),
  ])
  func malformedFilesNameWhere(contents: String, mentions: String) throws {
    let result = try Scratch.withFile(named: "bad.geojson", contents: contents) {
      try CLI.run(["clusters", "--points", $0, "--zoom", "0"])
    }
    #expect(result.status == 65)
    #expect(result.stderrLines.count == 1, "\(result.stderr)")
    #expect(result.stderr.contains(mentions), "\(result.stderr)")
  }

  @Test func streamsFromStandardInput() throws {
    let result = try CLI.run(
      ["clusters", "--points", "-", "--zoom", "20"],
      stdin:
        "{\"features\":[{\"type\":\"Feature\",\"id\":\"x\",\"properties\":{\"a\":[1,{\"b\":null}]},\"geometry\":{\"type\":\"Point\",\"coordinates\":[3,4]}}],\"type\":\"FeatureCollection\"}"
    )
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stdout
        == "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"id\":\"x\",\"properties\":{\"a\":[1,{\"b\":null}]},\"geometry\":{\"type\":\"Point\",\"coordinates\":[3,4]}}]}\n"
    )
  }
}
