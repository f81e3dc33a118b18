import Fetch
import FuzzDriver
import NewsAPI

/// A NewsAPI response: the first byte picks the status, the bytes up to the first 0xFF are the header block,
/// the rest the body; decoded as articles and as sources, the way the client does.
func fuzzNewsAPI(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size >= 1 else { return 0 }
  let statuses = [200, 200, 200, 400, 401, 426, 429, 500, 502, 503, 301, 204]
  let status = statuses[Int(data[0]) % statuses.count]
  let rest = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  let split = rest.firstIndex(of: 0xFF) ?? 0
  let response = HTTPResponse(
    status: status, rawHeaders: Array(rest[..<split]),
    body: Array(rest[(split < rest.count ? split + 1 : split)...]))
  switch NewsAPIClient.decodeArticles(response) {
  case .success(let page):
    for article in page.articles { _ = article.publishedDate }
  case .failure(let error):
    precondition(!error.description.isEmpty)
  }
  if case .failure(let error) = NewsAPIClient.decodeSources(response) {
    precondition(!error.description.isEmpty)
  }
  return 0
}

@main enum Main {
  static func main() { runFuzzer { data, size in fuzzNewsAPI(data, size) } }
}
