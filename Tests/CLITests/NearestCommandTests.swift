import Foundation
import GeoIndex
import NewsAtlas
import SeededPoints
import TestSupport
import Testing

/// `newsatlas nearest`: its JSON shapes are a contract, and every bad input is one sentence and a status.
@Suite struct NearestCommandTests {
  @Test func jsonShapeForTheCountries() throws {
    let result = try CLI.run(["nearest", "48.85", "2.35", "--format", "json"])
    #expect(result.status == 0)
    let json = try #require(result.json)
    let query = try #require(json["query"] as? [String: Double])
    #expect(query == ["latitude": 48.85, "longitude": 2.35])
    let results = try #require(json["results"] as? [[String: Any]])
    #expect(results.count == 1)
    let first = results[0]
    #expect(
      Set(first.keys)
        == ["code", "name", "nameFr", "latitude", "longitude", "distanceKm", "bearingDegrees"])
    #expect(first["code"] as? String == "fr")
    #expect(first["name"] as? String == "France")
    let paris = try GeoPoint(latitude: 48.85, longitude: 2.35)
    let france = try #require(Country.named(code: "fr"))
    let distance = try #require(first["distanceKm"] as? Double)
    #expect(abs(distance - GreatCircle.distanceKilometers(from: paris, to: france.marker)) < 1e-9)
    let bearing = try #require(first["bearingDegrees"] as? Double)
    #expect(abs(bearing - GreatCircle.initialBearingDegrees(from: paris, to: france.marker)) < 1e-9)
  }

  /// `LAT,LON` as --near takes it, in one argument or two, answers as `LAT LON` does; nearest and resolve alike.
  @Test(arguments: ["nearest", "resolve"]) func bothSpellingsOfAPlace(command: String) throws {
    let expected = try CLI.run([command, "-33.87", "151.21", "--format", "json"])
    #expect(expected.status == 0)
    for spelling in [["-33.87,151.21"], ["-33.87, 151.21"], ["-33.87,", "151.21"], ["--", "-33.87,151.21"]] {
      let result = try CLI.run([command, "--format", "json"] + spelling)
      #expect(result.status == 0, "\(spelling): \(result.stderr)")
      #expect(result.stdout == expected.stdout, "\(spelling)")
    }
    for (spelling, mentions) in [
      (["1,2,3"], "one latitude and one longitude, not 3"),
      (["-33.87,x"], "The longitude 'x' is not a number"),
      (["-33.87,"], "longitude after the latitude"), (["--nope"], "Unknown option"),
    ] {
      let result = try CLI.run([command] + spelling)
      #expect(result.status == 64, "\(spelling)")
      #expect(
        result.stderrLines.count == 1 && result.stderr.contains(mentions), "\(spelling): \(result.stderr)")
    }
  }

  /// Each command's --format help lists only the formats it takes, and a format it does not take is a usage error.
  @Test func formatHelpListsWhatEachCommandTakes() throws {
    for (command, taken, refused) in [
      ("search", "text, json", "geojson"), ("countries", "text, json", "csv"),
      ("headlines", "text, json", "jsonl"),
      ("resolve", "text, json, csv, jsonl", "geojson"), ("nearest", "text, json, geojson, csv, jsonl", ""),
    ] {
      let help = try CLI.run([command, "--help"])
      #expect(help.status == 0)
      // The option's help, its wrapped lines joined, up to the next option.
      let lines = help.stdout.split(separator: "\n").drop { !$0.hasPrefix("  --format") }
      let entry = [lines.first ?? ""] + lines.dropFirst().prefix { !$0.hasPrefix("  -") }
      let line = entry.joined(separator: " ").split(separator: " ").joined(separator: " ")
      #expect(line.contains("values: \(taken))") || line.contains("values: \(taken);"), "\(command): \(line)")
      if !refused.isEmpty {
        #expect(!line.contains(refused), "\(command): \(line)")
        let result = try CLI.run([command, "x", "--format", refused])
        #expect(result.status == 64, "\(command) --format \(refused)")
      }
    }
  }

  /// Help that reads right: usage lines as people type them, one default for --threads (not this machine's
  /// core count), the exit statuses in the overview, 1 among them (config get, feeds remove).
  @Test func helpTexts() throws {
    let nearest = try CLI.run(["nearest", "--help"]).stdout
    #expect(nearest.contains("newsatlas nearest LAT LON [--count <n>]"))
    #expect(!nearest.contains("[<lat lon> ...]"))
    let resolve = try CLI.run(["resolve", "--help"]).stdout
    #expect(resolve.contains("newsatlas resolve --input <file> [--format csv|jsonl] [--threads <n>]"))
    let threads = resolve.split(separator: "\n").drop { !$0.contains("--threads <n>  ") }.prefix(2)
      .joined(separator: " ")
    #expect(threads.components(separatedBy: "default").count == 2, "\(threads)")
    // The exit statuses once, at the end of the root's help (issue 47 item 9), in its language; every
    // command's help ends with one line that says where they are.
    let root = try CLI.run(["--help"]).stdout
    #expect(root.contains("EXIT STATUS (sysexits): 0 success; 1 nothing to get or remove"))
    #expect(root.firstRange(of: "EXIT STATUS")!.lowerBound > root.firstRange(of: "USAGE:")!.lowerBound)
    let rootFrench = FrenchInterfaceTests.collapsed(
      try CLI.run(["--help"], environment: FrenchInterfaceTests.french).stdout)
    #expect(rootFrench.contains("CODE DE SORTIE (sysexits) : 0 succès ; 1 rien à lire ou à retirer"))
    #expect(rootFrench.contains("; 64 une ligne"))
    for command in FrenchInterfaceTests.commands {
      let english = try CLI.run([command, "--help"]).stdout
      #expect(!english.contains("EXIT STATUS (sysexits)"), "\(command)")
      #expect(
        english.hasSuffix("EXIT STATUS: as sysexits(3); 'newsatlas --help' lists them.\n"), "\(command)")
      let french = try CLI.run([command, "--help"], environment: FrenchInterfaceTests.french).stdout
      #expect(!french.contains("CODE DE SORTIE (sysexits)"), "\(command)")
      #expect(french.contains("\nEXEMPLES :\n  newsatlas \(command)"), "\(command)")
      #expect(french.hasSuffix("CODE DE SORTIE : selon sysexits(3) ; 'newsatlas --help' les liste.\n"))
    }
    // Each status the help names is the one the command exits with: 1 for config get of a setting not set and
    // feeds remove of a feed not listed, 65 for a countries query that matches none.
    #expect(try CLI.run(["config", "get", "country"]).status == 1)
    #expect(try CLI.run(["feeds", "remove", "fr", "https://nope.example/x.xml"]).status == 1)
    #expect(try CLI.run(["countries", "zz"]).status == 65)
    let headlines = try CLI.run(["headlines", "--help"]).stdout
    #expect(!headlines.contains("<all>"))
    // Its own options first, then the clustering ones only --cluster uses.
    let country = try #require(headlines.firstRange(of: "  --country <country>"))
    #expect(country.lowerBound < (try #require(headlines.firstRange(of: "  --radius <px>"))).lowerBound)
  }

  /// Every command's help ends with two to four examples of it (issue 47 item 9); those that need no network,
  /// key, server or file of the reader's run as written and succeed, so an example cannot go stale.
  @Test func everyHelpEndsWithExamplesThatRun() throws {
    let needsMore = ["shops", "places", "token", "example.org", "lemonde", "markers.mbtiles"]
    var ran = 0
    for command in FrenchInterfaceTests.commands {
      let help = try CLI.run([command, "--help"]).stdout
      let section = help.components(separatedBy: "\nEXAMPLES:\n").dropFirst().first ?? ""
      let examples = section.components(separatedBy: "\n\n")[0].split(separator: "\n")
        .filter { $0.hasPrefix("  newsatlas ") }.map { $0.dropFirst(2) }
      #expect((2...4).contains(examples.count), "\(command): \(examples)")
      for example in examples where example.split(separator: " ")[1] == command {
        let words = example.split(separator: " ").dropFirst().map(String.init)
        let offline =
          ["nearest", "resolve", "clusters", "countries", "quota"].contains(command)
          || (command == "headlines" && words.contains("--dry-run"))
          || (command == "feeds" && words.contains("list")) || (command == "config" && words.contains("show"))
        guard offline, !needsMore.contains(where: { example.contains($0) }) else { continue }
        let result = try CLI.run(words)
        #expect(result.status == 0 && !result.stdout.isEmpty, "\(example): \(result.stderr)")
        ran += 1
      }
    }
    #expect(ran >= 12)
  }

  /// Colour (issue 47 item 9) only where it is wanted: never in a pipe unless asked (`--color always`), on a
  /// terminal by default (script(1) gives the command one) unless `NO_COLOR` or `TERM=dumb` says no or
  /// `--color never`; the explicit flag beats `NO_COLOR`; an error's `newsatlas:` in red on a terminal.
  @Test func colourOnlyWhereItIsWanted() throws {
    let bold = "\u{1B}[1mCODE  NAME"
    #expect(!(try CLI.run(["countries", "egypt"]).stdout.contains("\u{1B}")))
    #expect(try CLI.run(["countries", "egypt", "--color", "always"]).stdout.hasPrefix(bold))
    // A terminal that takes colour, whatever the test run's own TERM and NO_COLOR are.
    func onATerminal(_ arguments: String, _ environment: [String: String] = [:]) throws -> String {
      let terminal = ["TERM": "xterm-256color", "NO_COLOR": ""].merging(environment) { $1 }
      return try CLI.shell(#"script -qec "$0 \#(arguments)" /dev/null"#, environment: terminal).stdout
    }
    #expect(try onATerminal("countries egypt").hasPrefix(bold))
    #expect(!(try onATerminal("countries egypt", ["NO_COLOR": "1"]).contains("\u{1B}")))
    #expect(!(try onATerminal("countries egypt", ["TERM": "dumb"]).contains("\u{1B}")))
    #expect(!(try onATerminal("countries egypt --color never").contains("\u{1B}")))
    #expect(try onATerminal("countries egypt --color always", ["NO_COLOR": "1"]).hasPrefix(bold))
    #expect(try onATerminal("nearest 91 0").hasPrefix("\u{1B}[1;31mnewsatlas:\u{1B}[0m The latitude 91"))
    #expect(try CLI.run(["countries", "--color", "sometimes"]).status == 64)
  }

  @Test func negativeCoordinatesAndCountNearestFirst() throws {
    let result = try CLI.run(["nearest", "-33.87", "151.21", "--count", "3", "--format", "json"])
    #expect(result.status == 0)
    let results = try #require(result.json?["results"] as? [[String: Any]])
    #expect(results.compactMap { $0["code"] as? String } == ["au", "nz", "id"])
    let distances = results.compactMap { $0["distanceKm"] as? Double }
    #expect(distances == distances.sorted())
  }

  @Test func maxKilometresCanLeaveNothing() throws {
    let result = try CLI.run(["nearest", "48.85", "2.35", "--max-km", "100", "--format", "json"])
    #expect(result.status == 0)
    #expect((result.json?["results"] as? [Any])?.isEmpty == true)
  }

  @Test func geoJSONIsAFeatureCollectionOfPoints() throws {
    let result = try CLI.run(["nearest", "0", "179.9", "--count", "2", "--format", "geojson"])
    #expect(result.status == 0)
    let json = try #require(result.json)
    #expect(json["type"] as? String == "FeatureCollection")
    let features = try #require(json["features"] as? [[String: Any]])
    #expect(features.count == 2)
    for feature in features {
      #expect(feature["type"] as? String == "Feature")
      let geometry = try #require(feature["geometry"] as? [String: Any])
      #expect(geometry["type"] as? String == "Point")
      #expect((geometry["coordinates"] as? [Double])?.count == 2)
      let properties = try #require(feature["properties"] as? [String: Any])
      #expect(properties["code"] is String && properties["distanceKm"] is Double)
    }
  }

  @Test func textIsOneLinePerCountry() throws {
    let result = try CLI.run(["nearest", "35.68", "139.69", "--count", "2"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines[0].hasPrefix("jp  Japan"))
  }

  @Test func userGeoJSONPointsKeepIndexAndProperties() throws {
    let scratch = try ScratchFile(
      named: "cafes.geojson",
      contents: """
        {"type":"FeatureCollection","features":[
          {"type":"Feature","properties":{"name":"north"},"geometry":{"type":"Point","coordinates":[2.35,48.9]}},
          {"type":"Feature","properties":{"name":"nowhere"},"geometry":null},
          {"type":"Feature","properties":{"name":"south","rank":1.50},"geometry":{"type":"Point","coordinates":[2.35,48.8]}}
        ]}
        """)
    defer { scratch.remove() }
    let path = scratch.path
    let result = try CLI.run([
      "nearest", "48.81", "2.35", "--points", path, "--count", "2", "--format", "json",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let results = try #require(result.json?["results"] as? [[String: Any]])
    #expect(results.compactMap { $0["index"] as? Int } == [2, 0])
    let properties = try #require(results[0]["properties"] as? [String: Any])
    #expect(properties["name"] as? String == "south")
    #expect(result.stdout.contains("\"rank\":1.50"))  // numbers echoed exactly as given
  }

  @Test func userCSVPoints() throws {
    let scratch = try ScratchFile(
      named: "stops.csv", contents: "name,lon,lat\n\"Gare, Nord\",2.355,48.881\nBercy,2.382,48.839\n")
    defer { scratch.remove() }
    let path = scratch.path
    let result = try CLI.run(["nearest", "48.88", "2.35", "--points", path, "--format", "json"])
    #expect(result.status == 0, "\(result.stderr)")
    let first = try #require((result.json?["results"] as? [[String: Any]])?.first)
    #expect(first["index"] as? Int == 0)
    #expect((first["properties"] as? [String: String])?["name"] == "Gare, Nord")
  }

  @Test func batchCSVKeepsOrderAndReportsBadRows() throws {
    let input = "latitude,longitude\n48.85,2.35\nabc,3\n\n91,0\n-33.9,151.2\n1\n0,0\r\n"
    let scratch = try ScratchFile(named: "in.csv", contents: input)
    defer { scratch.remove() }
    let path = scratch.path
    let result = try CLI.run(["nearest", "--input", path])
    #expect(result.status == 65)
    let rows = result.stdout.split(separator: "\n").map {
      $0.split(separator: ",", omittingEmptySubsequences: false)
    }
    #expect(
      rows[0].joined(separator: ",") == "line,latitude,longitude,code,name,distance_km,bearing_deg,error")
    #expect(rows.dropFirst().map { String($0[0]) } == ["2", "3", "5", "6", "7", "8"])
    #expect(rows[1][3] == "fr" && rows[4][3] == "au" && rows[6][3] == "ng")
    #expect(rows[2].last?.contains("line 3: the latitude 'abc' is not a number") == true)
    #expect(rows[3].last?.contains("line 5: the latitude 91 is outside -90...90") == true)
    #expect(result.stdout.contains("line 7: expected latitude,longitude but found 1 field"))
    #expect(result.stderrLines.count == 1)
    #expect(result.stderr.contains("3 of 6 rows failed (the first on line 3)"))
  }

  @Test func batchAgreesWithSingleQueries() throws {
    var points = SeededSpherePoints(seed: 99)
    let queries = (0..<200).map { _ in points.next()! }
    let input = queries.map { "\($0.latitude),\($0.longitude)" }.joined(separator: "\n")
    let result = try CLI.run(["nearest", "--input", "-", "--format", "jsonl", "--count", "2"], stdin: input)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count == queries.count)
    for (query, line) in zip(queries, lines) {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let codes = (object["results"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
      let expected = Country.markerIndex.neighbors(of: query, count: 2).map { Country.all[$0.index].code }
      #expect(codes == expected)
    }
  }

  @Test func batchOnEveryCoreAnswersAsOneFromAPipe() throws {
    var points = SeededSpherePoints(seed: 7)
    var lines = ["latitude,longitude"]
    for i in 0..<40_000 {
      let point = points.next()!
      lines.append(i % 997 == 0 ? "oops,\(i)" : "\(point.latitude),\(point.longitude)")
    }
    let input = lines.joined(separator: "\n") + "\n"
    for command in ["nearest", "resolve"] {
      let one = try CLI.run([command, "--input", "-", "--threads", "1"], stdin: input)
      let two = try CLI.run([command, "--input", "-", "--threads", "2"], stdin: input)
      #expect(one.status == 65 && two.status == 65)
      #expect(one.stdout.count > 1_000_000 && two.stdout == one.stdout, "\(command)")
      #expect(two.stderr == one.stderr)
    }
  }

  @Test func batchHeaderMayNameColumnsInAnyOrder() throws {
    let result = try CLI.run(["nearest", "--input", "-"], stdin: "lon,lat\n2.35,48.85\n")
    #expect(result.status == 0)
    #expect(result.stdout.contains("\n2,48.85,2.35,fr,France,"))
  }

  struct BadInput: CustomTestStringConvertible, Sendable {
    let arguments: [String]
    let status: Int32
    let mentions: String
    var testDescription: String { arguments.joined(separator: " ") }
  }

  static let badInputs: [BadInput] = [
    .init(arguments: ["nearest", "95", "2"], status: 64, mentions: "latitude 95 is outside -90...90"),
    .init(arguments: ["nearest", "-90.5", "2"], status: 64, mentions: "latitude -90.5 is outside"),
    .init(arguments: ["nearest", "10", "180.5"], status: 64, mentions: "longitude 180.5 is outside"),
    .init(arguments: ["nearest", "abc", "2"], status: 64, mentions: "latitude 'abc' is not a number"),
    .init(arguments: ["nearest", "nan", "2"], status: 64, mentions: "latitude 'nan' is not a number"),
    .init(arguments: ["nearest", "1", "inf"], status: 64, mentions: "longitude 'inf' is not a number"),
    .init(arguments: ["nearest", "45"], status: 64, mentions: "Give the longitude after the latitude 45"),
    .init(arguments: ["nearest"], status: 64, mentions: "Give a latitude and a longitude"),
    .init(arguments: ["nearest", "1", "2", "3"], status: 64, mentions: "not 3 values"),
    .init(
      arguments: ["nearest", "1", "2", "--count", "0"], status: 64, mentions: "--count must be 1 or more"),
    .init(
      arguments: ["nearest", "1", "2", "--format", "csv"], status: 64,
      mentions: "csv and jsonl go with --input"),
    .init(arguments: ["nearest", "1", "2", "--format", "xml"], status: 64, mentions: "xml"),
    .init(
      arguments: ["nearest", "--cuont", "2", "1", "2"], status: 64, mentions: "Unknown option '--cuont'"),
    .init(
      arguments: ["nearest", "--max-km", "-5", "1", "2"], status: 64, mentions: "--max-km must be a distance"),
    .init(
      arguments: ["nearest", "1", "2", "--points", "/nonexistent/p.json"], status: 64, mentions: "Cannot open"
    ),
    .init(arguments: ["nearest", "--input", "/nonexistent/in.csv"], status: 64, mentions: "Cannot open"),
    .init(arguments: ["nearest", "--input", "-", "--count", "2"], status: 64, mentions: "--format jsonl"),
    .init(arguments: ["nearest", "1", "2", "--input", "-"], status: 64, mentions: "not both"),
    .init(
      arguments: ["nearest", "--input", "-", "--threads", "0"], status: 64, mentions: "--threads is 1 to 256"),
    .init(
      arguments: ["resolve", "--input", "-", "--threads", "-2"], status: 64, mentions: "--threads is 1 to 256"
    ),
    .init(arguments: ["frobnicate"], status: 64, mentions: "frobnicate"),
    .init(arguments: ["countries", "--format", "geojson"], status: 64, mentions: "one of 'text' and 'json'"),
  ]

  @Test(arguments: badInputs)
  func badInputIsOneSentenceAndAStatus(_ bad: BadInput) throws {
    let result = try CLI.run(bad.arguments, stdin: "")
    #expect(result.status == bad.status)
    #expect(result.stdout.isEmpty)
    #expect(result.stderrLines.count == 1, "\(result.stderr)")
    #expect(result.stderr.contains(bad.mentions), "\(result.stderr)")
    #expect(result.stderr.hasPrefix("newsatlas: "))
  }

  @Test(arguments: [
    ("{\"type\":\"FeatureCollection\",\"features\":[", "not valid GeoJSON at line 1, column 41 (byte 40)"),
    ("{\"type\":\"Feature\"}", "not a GeoJSON FeatureCollection"),
    (
      "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[0,0]}},{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[10,95]}}]}",
      "Feature 1"
    ),
    ("name,lat,lon\nx,abc,3\n", "Line 2"),
    ("name,city\nx,y\n", "no latitude and longitude columns"),
    ("", "holds no points"),
  ])
  func malformedPointsFilesAreDataErrors(contents: String, mentions: String) throws {
    let scratch = try ScratchFile(named: "points.data", contents: contents)
    defer { scratch.remove() }
    let path = scratch.path
    let result = try CLI.run(["nearest", "1", "2", "--points", path])
    #expect(result.status == 65)
    #expect(result.stderrLines.count == 1, "\(result.stderr)")
    #expect(result.stderr.contains(mentions), "\(result.stderr)")
  }
}

@Suite struct CountriesCommandTests {
  @Test func jsonListsAllFiftyFour() throws {
    let result = try CLI.run(["countries", "--format", "json"])
    #expect(result.status == 0)
    let countries = try #require(result.json?["countries"] as? [[String: Any]])
    #expect(countries.count == 54)
    #expect(
      Set(countries[0].keys) == ["code", "name", "nameFr", "latitude", "longitude", "language"])
  }

  @Test func accentInsensitiveQuery() throws {
    let result = try CLI.run(["countries", "egypte", "--format", "json"])
    let countries = try #require(result.json?["countries"] as? [[String: Any]])
    #expect(countries.compactMap { $0["code"] as? String } == ["eg"])
    #expect(countries.first?["nameFr"] as? String == "Égypte")
  }

  /// The query's help says what the matcher does: a code, or any part of a name (it said "the start of a
  /// name", and "gypt" finds Égypte), names that start with it first, in both languages.
  @Test func theQuerysHelpSaysWhatItMatches() throws {
    let part = try CLI.run(["countries", "gypt", "--format", "json"])
    #expect((part.json?["countries"] as? [[String: Any]])?.compactMap { $0["code"] as? String } == ["eg"])
    let ordered = try CLI.run(["countries", "ma", "--format", "json"])
    let codes = (ordered.json?["countries"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
    // Morocco by its code, Malaysia by the start of its name, Germany (Allemagne) by a part of one.
    #expect(codes.prefix(2) == ["ma", "my"] && codes.contains("de"), "\(codes)")
    for (language, said) in [
      (
        "en",
        "A code, or any part of an English or French name, any case, accents optional (\"egypte\" and "
          + "\"gypt\" find Égypte); names that start with it come first."
      ),
      (
        "fr",
        "Un code, ou toute partie d'un nom anglais ou français, casse et accents indifférents (\"egypte\" et "
          + "\"gypt\" trouvent Égypte) ; les noms qui commencent par lui viennent d'abord."
      ),
    ] {
      let help = try CLI.run(["countries", "--help", "--lang", language])
      let collapsed = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
      #expect(collapsed.contains(said), "\(help.stdout)")
    }
  }

  @Test func noMatchSaysSo() throws {
    let text = try CLI.run(["countries", "atlantis"])
    #expect(text.status == 65)
    #expect(text.stderr.contains("No news country matches 'atlantis'"))
    let json = try CLI.run(["countries", "atlantis", "--format", "json"])
    #expect(json.status == 0 && json.stdout == "{\"countries\":[]}\n")
  }
}
