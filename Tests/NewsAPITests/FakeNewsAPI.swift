import Fetch
import Foundation
import TestSupport

/// NewsAPI as the tests' local imitation (`Tests/Support/server.py`) answers it, in process: the 120 sources of
/// `Fixtures/newsapi/sources.json`, `country=` answered only for `us` (two articles and a `[Removed]` one),
/// `sources=` with every article of those sources, newest first, a prolific source (more than 10) one every 2
/// minutes and the others one every 40, so that a packed answer crowds out the same countries.
enum FakeNewsAPI {
  static let key = "test-key-0123456789abcdef0123456789"

  struct Source {
    let listed: [String: Any]
    let id: String
    let name: String
    let articles: Int
  }

  nonisolated(unsafe) static let catalog: [Source] = {
    let data = try! Scratch.fixture("newsapi/sources.json")
    let list = try! JSONSerialization.jsonObject(with: data) as! [[String: Any]]
    return list.map { entry in
      var listed = entry
      listed["articles"] = nil
      return Source(
        listed: listed, id: entry["id"] as! String, name: entry["name"] as! String,
        articles: entry["articles"] as! Int)
    }
  }()

  static func json(_ status: Int, _ object: Any) -> HTTPResponse {
    HTTPResponse(
      status: status, rawHeaders: Array("Content-Type: application/json\r\n".utf8),
      body: Array(try! JSONSerialization.data(withJSONObject: object)))
  }

  static func article(_ title: String) -> [String: Any] {
    [
      "source": ["id": NSNull(), "name": "Example"], "author": NSNull(), "title": title,
      "description": NSNull(),
      "url": "https://example.org/" + title.replacingOccurrences(of: " ", with: "-"), "urlToImage": NSNull(),
      "publishedAt": "2026-11-22T11:37:00Z", "content": NSNull(),
    ]
  }

  nonisolated(unsafe) static let removed: [String: Any] = [
    "source": ["id": NSNull(), "name": "[Removed]"], "author": NSNull(), "title": "[Removed]",
    "description": "[Removed]", "url": "https://removed.com", "urlToImage": NSNull(),
    "publishedAt": "1970-01-01T00:00:00Z", "content": "[Removed]",
  ]

  /// Every article of these sources, newest first.
  static func articles(of ids: Set<String>) -> [[String: Any]] {
    var items: [(stamp: Double, article: [String: Any])] = []
    let formatter = ISO8601DateFormatter()
    for (n, source) in catalog.enumerated() where ids.contains(source.id) {
      let step = source.articles > 10 ? 2 : 40
      for k in 0..<source.articles {
        let stamp = 1_795_348_800 - Double((k * step + n % 37) * 60)
        items.append(
          (
            stamp,
            [
              "source": ["id": source.id, "name": source.name], "author": NSNull(),
              "title": "\(source.id) \(k)",
              "description": NSNull(), "url": "https://example.org/\(source.id)/\(k)",
              "urlToImage": NSNull(),
              "publishedAt": formatter.string(from: Date(timeIntervalSince1970: stamp)), "content": NSNull(),
            ]
          ))
      }
    }
    // Python's sort is stable, and so is this one: equal dates keep the catalog's order.
    return items.enumerated().sorted { ($0.element.stamp, -$0.offset) > ($1.element.stamp, -$1.offset) }
      .map(\.element.article)
  }

  /// The answer to one request.
  static func answer(_ url: String, _ headers: [(String, String)]) throws(HTTPError) -> HTTPResponse {
    guard headers.contains(where: { $0.0 == "X-Api-Key" && $0.1 == key }) else {
      return json(401, ["status": "error", "code": "apiKeyInvalid", "message": "Your API key is invalid."])
    }
    guard let components = URLComponents(string: url) else { throw .invalidURL(url) }
    var query: [String: String] = [:]
    for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
    let ok = { (articles: [[String: Any]], total: Int) in
      json(200, ["status": "ok", "totalResults": total, "articles": articles])
    }
    switch components.path {
    case "/v2/top-headlines/sources":
      let listed = catalog.map(\.listed).filter { source in
        ["category", "language", "country"].allSatisfy {
          query[$0] == nil || source[$0] as? String == query[$0]
        }
      }
      return json(200, ["status": "ok", "sources": listed])
    case "/v2/top-headlines":
      if let country = query["country"] {
        if country == "us" { return ok([article("us one"), removed, article("us two")], 3) }
        return ok([], 0)
      }
      let ids = Set((query["sources"] ?? "").split(separator: ",").map(String.init))
      let items = articles(of: ids)
      let size = Int(query["pageSize"] ?? "20") ?? 20
      let page = Int(query["page"] ?? "1") ?? 1
      return ok(Array(items.dropFirst((page - 1) * size).prefix(size)), items.count)
    case "/v2/everything":
      return ok(query["q"].map { [article("About " + $0)] } ?? [], 1)
    default:
      return json(404, ["status": "error", "code": "notFound", "message": "no such path"])
    }
  }
}
