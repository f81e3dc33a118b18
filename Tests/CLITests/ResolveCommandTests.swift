import Foundation
import Testing

/// `newsatlas resolve`: the JSON contract, batch mode and errors.
@Suite struct ResolveCommandTests {
  @Test func jsonShapeInside() throws {
    let result = try CLI.run(["resolve", "48.58", "7.75", "--format", "json"])
    #expect(result.status == 0)
    let json = try #require(result.json)
    #expect(Set(json.keys) == ["query", "country", "method", "containing", "distanceKm"])
    #expect((json["country"] as? [String: String]) == ["code": "fr", "name": "France", "nameFr": "France"])
    #expect(json["method"] as? String == "inside")
    #expect((json["containing"] as? [String: String])?["code"] == "fr")
    #expect((json["distanceKm"] as? Double ?? 0) > 400)
  }

  /// Among NewsAPI's 54 (the `world` default is `GDELTCommandTests`' and `WorldCountriesTests`').
  @Test func outsideTheFiftyFourReportsWhereItIs() throws {
    let result = try CLI.run([
      "resolve", "36.7538", "3.0588", "--format", "json", "--news-countries", "newsapi",
    ])
    let json = try #require(result.json)
    #expect(json["method"] as? String == "nearest")
    #expect(
      (json["containing"] as? [String: String]) == ["code": "dz", "name": "Algeria", "nameFr": "Algérie"])
  }

  @Test func atSeaContainingIsNull() throws {
    let result = try CLI.run(["resolve", "0", "-30", "--format", "json"])
    #expect(result.json?["containing"] is NSNull)
    #expect(result.stdout.contains("\"containing\":null"))
  }

  @Test func batchResolvesEveryRowInOrder() throws {
    let result = try CLI.run(
      ["resolve", "--input", "-", "--news-countries", "newsapi"],
      stdin: "latitude,longitude\n48.58,7.75\n43.20,5.30\nnope,1\n36.7538,3.0588\n")
    #expect(result.status == 65)
    let rows = result.stdout.split(separator: "\n")
    #expect(rows[0] == "line,latitude,longitude,code,name,method,containing,distance_km,error")
    #expect(rows[1].hasPrefix("2,48.58,7.75,fr,France,inside,fr,"))
    #expect(rows[2].hasPrefix("3,43.20,5.30,fr,France,territorial-sea,fr,"))
    #expect(
      rows[3].hasPrefix("4,nope,1,,,,,,line 4")
        && rows[3].contains("line 4: the latitude 'nope' is not a number"))
    #expect(rows[4].hasPrefix("5,36.7538,3.0588,pt,Portugal,nearest,dz,"))
    // Among the world's countries (the default), Algiers is in Algeria.
    let world = try CLI.run(["resolve", "--input", "-"], stdin: "36.7538,3.0588\n")
    #expect(
      world.status == 0
        && world.stdout.split(separator: "\n")[1].hasPrefix("1,36.7538,3.0588,dz,Algeria,inside,dz,"))
  }

  @Test func jsonlBatch() throws {
    let result = try CLI.run(["resolve", "--input", "-", "--format", "jsonl"], stdin: "22.3193,114.1694\n")
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(object["line"] as? Int == 1)
    #expect((object["country"] as? [String: String])?["code"] == "hk")
  }

  @Test(arguments: [
    (["resolve", "91", "0"], "latitude 91 is outside"),
    (["resolve", "1"], "Give the longitude"),
    (["resolve"], "Give a latitude and a longitude"),
    (["resolve", "1", "2", "--format", "geojson"], "Please provide one of 'text', 'json', 'csv' or 'jsonl'"),
  ])
  func usageErrors(arguments: [String], mentions: String) throws {
    let result = try CLI.run(arguments)
    #expect(result.status == 64)
    #expect(result.stderrLines.count == 1)
    #expect(result.stderr.contains(mentions), "\(result.stderr)")
  }
}
