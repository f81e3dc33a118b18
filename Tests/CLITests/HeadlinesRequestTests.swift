import Fetch
import Foundation
import NewsAPI
import TestSupport
import Testing

/// One request model for `newsatlas headlines` and `GET /v1/headlines`: the same bad input is refused with the
/// same sentence (the CLI names flags, the service parameters) and the statuses the README gives (64; 400, or
/// 404 for a cluster id the map of that zoom does not have); a cluster id is read with its zoom and the
/// clustering options of the map it came from, on both sides.
@Suite(.serialized) struct HeadlinesRequestTests {
  let client = HTTPClient()

  /// How the CLI calls each parameter.
  static func flag(_ parameter: HeadlinesRequest.Parameter) -> String {
    parameter == .pageSize ? "--page-size" : "--" + parameter.rawValue
  }

  /// The library's refusal of `given`, the sentence both front ends must say (both read countries among the
  /// world's under `auto`, the default).
  static func refusal(_ given: HeadlinesRequest.Given) -> HeadlinesRequestError? {
    do {
      _ = try HeadlinesRequest(given, offered: [.country, .near, .cluster], newsCountries: .world)
      return nil
    } catch {
      return error
    }
  }

  @Test func sameRefusalFromTheCLIAndTheService() async throws {
    let news = try LocalServer()
    let environment = ["NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": news.base]
    let served = try Served([], environment: environment)
    // A cluster of zoom 2's map, asked about at zoom 3, where it is not.
    let clusters = try #require(
      try JSONSerialization.jsonObject(
        with: Data(try await client.get(served.base + "/v1/datasets/markers/clusters?zoom=2").body))
        as? [String: Any])
    let zoom2 = try #require(
      (clusters["features"] as? [[String: Any]])?.compactMap { $0["properties"] as? [String: Any] }
        .first { $0["cluster"] as? Bool == true }?["cluster_id"] as? Int)
    let cases: [[(HeadlinesRequest.Parameter, String)]] = [
      [(.country, "xx")], [(.country, "fr"), (.category, "weather")], [(.country, "fr"), (.pageSize, "500")],
      [(.country, "fr"), (.pageSize, "ten")], [(.near, "91,0")], [(.near, "48.85")], [(.near, "north,2")],
      [(.cluster, "5")], [(.cluster, "five"), (.zoom, "2")], [(.cluster, "1"), (.zoom, "two")],
      [(.cluster, "1"), (.zoom, "40")], [(.cluster, String(zoom2)), (.zoom, "3")],
    ]
    for parameters in cases {
      var given = HeadlinesRequest.Given()
      for (parameter, value) in parameters {
        switch parameter {
        case .country: given.country = value
        case .near: given.near = value
        case .cluster: given.cluster = value
        case .zoom: given.zoom = value
        case .category: given.category = value
        case .pageSize: given.pageSize = value
        default: Issue.record("no case for \(parameter)")
        }
      }
      let error = try #require(Self.refusal(given), "\(parameters)")
      let query = parameters.map { "\($0.0.rawValue)=\($0.1)" }.joined(separator: "&")
      let answer = try await client.get(served.base + "/v1/headlines?" + query)
      let body = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
      #expect(answer.status == (error.isNotFound ? 404 : 400), "\(query)")
      // A country no country has: the service points at its own list (/v1/countries), the CLI at its command.
      let isUnknownCountry = error == .unknownWorldCountry("xx")
      let servedSentence =
        isUnknownCountry
        ? "'xx' is not a country by code or name, such as es or Spain; /v1/countries?newsCountries=world lists "
          + "them." : error.description
      #expect(body?["error"] as? String == servedSentence, "\(query)")
      let cli = try CLI.run(
        ["headlines"] + parameters.flatMap { [Self.flag($0.0), $0.1] }, environment: environment)
      #expect(cli.status == 64, "\(query)")
      #expect(cli.stderr == "newsatlas: \(error.description(naming: Self.flag))\n", "\(query)")
      // A sentence that names no parameter is byte for byte the service's.
      if !isUnknownCountry, error.description(naming: Self.flag) == error.description(naming: \.rawValue) {
        #expect(cli.stderr == "newsatlas: \(body?["error"] as? String ?? "")\n", "\(query)")
      }
    }
    #expect(try news.log().isEmpty)  // nothing refused was sent
  }

  /// A category is read in any case, by `--category` and `category=` as by `--categories`, the `category` setting
  /// and `sources --category` (`--category Sports` was refused while `--categories Sports` was taken).
  @Test func aCategoryIsReadInAnyCase() throws {
    for text in ["Sports", "SPORTS", " sports "] {
      let one = try HeadlinesRequest(HeadlinesRequest.Given(country: "fr", category: text))
      #expect(one.categories == ["sports"], "\(text)")
      let several = try HeadlinesRequest(
        HeadlinesRequest.Given(country: "fr", categories: text + ",Business"))
      #expect(several.categories == ["sports", "business"], "\(text)")
    }
    // A category that is none of the seven is still refused, named as typed.
    #expect(Self.refusal(HeadlinesRequest.Given(country: "fr", category: "Sport")) == .category("Sport"))
  }

  /// `serve --radius 80` draws other clusters than the defaults: its map's ids are read with its options, and
  /// the CLI reads them the same with the same flag (and refuses them, or names other countries, without it).
  @Test func aClusterIdIsReadWithItsMapsOptions() async throws {
    let news = try LocalServer()
    let environment = ["NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": news.base]
    let served = try Served(["--radius", "80"], environment: environment)
    let answer = try await client.get(served.base + "/v1/datasets/markers/clusters?zoom=2")
    let features = try #require(
      (try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])?["features"]
        as? [[String: Any]])
    let defaults = try #require(CLI.run(["clusters", "--zoom", "2"]).json?["features"] as? [[String: Any]])
    func clusters(_ features: [[String: Any]]) -> [Int: Int] {
      var result: [Int: Int] = [:]
      for case let properties as [String: Any] in features.map({ $0["properties"] })
      where properties["cluster"] as? Bool == true {
        result[properties["cluster_id"] as! Int] = properties["point_count"] as? Int
      }
      return result
    }
    let wide = clusters(features)
    let standard = clusters(defaults)
    // A cluster of the wide map that the default map does not have with that count.
    let (id, count) = try #require(wide.first { standard[$0.key] != $0.value })
    func codes(_ json: [String: Any]?) -> [String] {
      (json?["results"] as? [[String: Any]] ?? []).compactMap {
        ($0["country"] as? [String: Any])?["code"] as? String
      }
    }
    // NewsAPI's answers (provider newsapi): the subject is the cluster's members, not where headlines come from.
    let service = try await client.get(
      served.base + "/v1/headlines?cluster=\(id)&zoom=2&pageSize=1&provider=newsapi")
    #expect(service.status == 200)
    let fromService = codes(try JSONSerialization.jsonObject(with: Data(service.body)) as? [String: Any])
    #expect(fromService.count == count)
    let cli = try CLI.run(
      [
        "headlines", "--cluster", String(id), "--zoom", "2", "--radius", "80", "--page-size", "1", "--format",
        "json", "--provider", "newsapi",
      ],
      environment: environment)
    #expect(cli.status == 0, "\(cli.stderr)")
    #expect(codes(cli.json) == fromService)
    let withoutOptions = try CLI.run(
      [
        "headlines", "--cluster", String(id), "--zoom", "2", "--page-size", "1", "--format", "json",
        "--provider", "newsapi",
      ],
      environment: environment)
    #expect(withoutOptions.status == 64 || codes(withoutOptions.json) != fromService)
  }
}
