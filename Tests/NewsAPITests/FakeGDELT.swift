import Fetch
import Foundation
import NewsAPI
import Synchronization
import TestSupport

/// GDELT DOC 2.0 as the tests' local imitation (`gdelt()` in `Tests/Support/server.py`) answers it, in process:
/// each country's articles from `Fixtures/gdelt/volumes.json` (articles a day, evenly spaced over the day before
/// the current quarter hour, newest first), the names of `Data/gdelt-countries.tsv` in `sourcecountry`, `{}`
/// when nothing matches, and GDELT's plain-text 200s for a bad query.
enum FakeGDELT {
  static let volumes: [String: Int] = {
    let data = try! Scratch.fixture("gdelt/volumes.json")
    return try! JSONSerialization.jsonObject(with: data) as! [String: Int]
  }()

  static let tooFast =
    "Please limit requests to one every 5 seconds or contact kalev.leetaru5@gmail.com for larger queries."

  static func text(_ sentence: String) -> HTTPResponse {
    HTTPResponse(
      status: 200, rawHeaders: Array("Content-Type: text/html; charset=utf-8\r\n".utf8),
      body: Array((sentence + "\n").utf8))
  }

  /// A country's articles seen in the timespan before `now`, newest first, with their times.
  static func articles(_ code: String, now: Int, span: Int) -> [(seen: Int, item: [String: Any])] {
    let perDay = volumes[code]!
    guard perDay > 0 else { return [] }
    let name = GDELTCountries.table[code]!.name
    let step = 86400.0 / Double(perDay)
    let offset = (code.unicodeScalars.reduce(0) { $0 + Int($1.value) } % 60) * 7
    var items: [(Int, [String: Any])] = []
    var k = 0
    while true {
      let seen = now - offset - Int(Double(k) * step)
      if seen <= now - span { break }
      let domain = "\(name.lowercased().replacingOccurrences(of: " ", with: ""))-news\(k % 3).example"
      let date = Date(timeIntervalSince1970: Double(seen))
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = TimeZone(identifier: "UTC")!
      let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
      let seendate = String(
        format: "%04d%02d%02dT%02d%02d%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
      items.append(
        (
          seen,
          [
            "url": "https://\(domain)/\(code)/\(k)", "url_mobile": "", "title": "\(name) story \(k)",
            "seendate": seendate, "socialimage": k % 2 == 0 ? "https://\(domain)/\(k).jpg" : "",
            "domain": domain, "language": "English", "sourcecountry": name,
          ]
        ))
      k += 1
    }
    return items
  }

  /// The answer to one request URL, as the imitation gives it.
  static func answer(_ url: String, _ headers: [(String, String)]) -> HTTPResponse {
    guard let components = URLComponents(string: url), components.path.hasSuffix("/api/v2/doc/doc") else {
      return HTTPResponse(status: 404, rawHeaders: [], body: Array("not found".utf8))
    }
    var query: [String: String] = [:]
    for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
    let q = query["query"] ?? ""
    guard !q.isEmpty else {
      return text("Your search contained a keyword that was too short or too common to search for.")
    }
    let parts = q.components(separatedBy: " sourcelang:")
    let countries = parts[0]
    if countries.contains(" OR ") && !(countries.hasPrefix("(") && countries.hasSuffix(")")) {
      return text("Queries containing OR'd terms must be surrounded by ().")
    }
    let terms = countries.trimmingCharacters(in: CharacterSet(charactersIn: "()")).components(
      separatedBy: " OR ")
    guard terms.allSatisfy({ $0.hasPrefix("sourcecountry:") }) else {
      return text("The specified phrase is too short.")
    }
    guard let span = GDELTQuery.seconds(timespan: query["timespan"] ?? "1d"),
      let records = Int(query["maxrecords"] ?? "75"), (1...250).contains(records)
    else { return text("Maxrecords must be between 1 and 250.") }
    let now = Int(Date().timeIntervalSince1970) / 900 * 900
    var items: [(seen: Int, item: [String: Any])] = []
    for term in terms {
      let fips = String(term.dropFirst("sourcecountry:".count)).uppercased()
      if let code = GDELTCountries.table.first(where: { $0.value.fips == fips })?.key {
        items += articles(code, now: now, span: Int(span))
      }
    }
    if parts.count > 1 && parts[1] != "english" { items = [] }  // every article here is in English
    items.sort { $0.seen > $1.seen }
    let chosen: [[String: Any]] = items.prefix(records).map(\.item)
    var body: [String: Any] = [:]
    if !chosen.isEmpty { body["articles"] = chosen }
    return HTTPResponse(
      status: 200, rawHeaders: Array("Content-Type: application/json\r\n".utf8),
      body: Array(try! JSONSerialization.data(withJSONObject: body)))
  }
}

/// Headers each request arrived with, by URL: to show what a host was sent.
final class HeaderLog: Sendable {
  private let log = Mutex<[(url: String, headers: [(String, String)])]>([])
  func record(_ url: String, _ headers: [(String, String)]) { log.withLock { $0.append((url, headers)) } }
  var entries: [(url: String, headers: [(String, String)])] { log.withLock { $0 } }
}
