import Fetch
import Foundation
import NewsAPI
import Testing

/// The client's decoding of one response, without a network (the fuzz target `newsapi` drives the same calls).
@Suite struct ResponseDecodingTests {
  func response(_ status: Int, _ body: String, headers: String = "") -> HTTPResponse {
    HTTPResponse(status: status, rawHeaders: Array(headers.utf8), body: Array(body.utf8))
  }

  @Test func aPageDropsWithdrawnArticles() throws {
    let body = #"""
      {"status":"ok","totalResults":2,"articles":[
        {"source":{"id":null,"name":"A"},"author":null,"title":"Kept","description":null,"url":"https://a.example/1","urlToImage":null,"publishedAt":"2024-04-20T20:52:20.5Z","content":null},
        {"source":{"id":null,"name":"B"},"author":null,"title":"[Removed]","description":null,"url":"https://removed.com","urlToImage":null,"publishedAt":"2024-04-20T20:52:20Z","content":null}]}
      """#
    let page = try NewsAPIClient.decodeArticles(response(200, body)).get()
    #expect(page.totalResults == 2 && page.articles.map(\.title) == ["Kept"])
    #expect(page.articles[0].publishedDate == Date(timeIntervalSince1970: 1_713_646_340.5))
  }

  @Test func serviceErrorsKeepStatusCodeAndRetryAfter() {
    let result = NewsAPIClient.decodeArticles(
      response(
        429, #"{"status":"error","code":"rateLimited","message":"Slow down."}"#,
        headers: "Content-Type: application/json\r\nRetry-After: 7\r\n"))
    #expect(
      result
        == .failure(.service(status: 429, code: "rateLimited", message: "Slow down.", retryAfterSeconds: 7)))
  }

  /// `Retry-After` is delay-seconds or an HTTP date (RFC 9110); `-5`, `1.5` or `soon` are not believed.
  @Test(arguments: [("7", 7), (" 0 ", 0), ("-5", nil), ("1.5", nil), ("soon", nil), ("99999999999", nil)])
  func retryAfterIsReadStrictly(header: String, seconds: Int?) {
    let result = NewsAPIClient.decodeArticles(
      response(
        429, #"{"status":"error","code":"rateLimited","message":"Slow down."}"#,
        headers: "Retry-After: \(header)\r\n"))
    #expect(
      result
        == .failure(
          .service(status: 429, code: "rateLimited", message: "Slow down.", retryAfterSeconds: seconds)))
  }

  @Test func retryAfterAsAnHTTPDate() throws {
    let inTwoMinutes = Date().addingTimeInterval(120)
    let format = DateFormatter()
    format.locale = Locale(identifier: "en_US_POSIX")
    format.timeZone = TimeZone(identifier: "GMT")
    format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    let error = try #require(
      NewsAPIClient.decodeArticles(
        response(
          429, #"{"status":"error","code":"rateLimited","message":"Slow down."}"#,
          headers: "Retry-After: \(format.string(from: inTwoMinutes))\r\n")
      ).failure)
    #expect((118...121).contains(error.retryAfterSeconds ?? 0))
  }

  @Test func aTwoHundredErrorBodyIsAnError() {
    let result = NewsAPIClient.decodeArticles(
      response(200, #"{"status":"error","code":"unexpectedError","message":"Something went wrong."}"#))
    #expect(result.failure?.kind == "service")
  }

  @Test(arguments: [(200, "not json"), (200, "{\"articles\":5}"), (401, "<html>no</html>"), (500, "")])
  func anythingElseIsAnUnexpectedResponse(status: Int, body: String) {
    guard
      case .failure(.unexpectedResponse(let got, _)) = NewsAPIClient.decodeArticles(response(status, body))
    else {
      Issue.record("\(status) \(body) was not an unexpected response")
      return
    }
    #expect(got == status)
  }

  @Test func sourcesAreNormalised() throws {
    let body =
      #"{"status":"ok","sources":[{"id":"x","name":"X","description":null,"url":null,"category":null,"language":"zh","country":"zh"}]}"#
    #expect(try NewsAPIClient.decodeSources(response(200, body)).get().map(\.country) == ["cn"])
  }
}

extension Result {
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
