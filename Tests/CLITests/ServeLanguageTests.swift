import AtlasMessages
import Fetch
import Foundation
import NewsAPI
import TestSupport
import Testing

@testable import AtlasServer

/// The service's error sentences in the language a request asks for (issue 31 item 6): `lang=fr` on any
/// endpoint, else `Accept-Language` (as the map page sends its own); English otherwise. The same sentences as the
/// command line's, from the one catalogue.
@Suite struct ServeLanguageTests {
  let client = HTTPClient()

  func error(_ response: HTTPResponse) throws -> String {
    let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
    return try #require(body?["error"] as? String, "\(String(decoding: response.body, as: UTF8.self))")
  }

  @Test func errorsInTheRequestsLanguage() async throws {
    let imitation = try LocalServer()
    let served = try Served([], environment: ["NEWSATLAS_GDELT_BASE": imitation.base])
    let french = [("Accept-Language", "fr-FR,fr;q=0.9,en;q=0.8")]
    let unknown = "/v1/headlines?country=xx"
    let english = try await client.get(served.base + unknown)
    #expect(english.status == 400)
    // A keyless server's news countries are every country GDELT covers (issue 47), listed by /v1/countries.
    #expect(
      try error(english)
        == "'xx' is not a country by code or name, such as es or Spain; /v1/countries?newsCountries=world lists "
        + "them.")
    let byQuery = try await client.get(served.base + unknown + "&lang=fr")
    let byHeader = try await client.get(served.base + unknown, headers: french)
    let frenchSentence =
      "'xx' n'est pas un pays par code ou par nom, comme es ou Espagne ; /v1/countries?newsCountries=world les "
      + "liste."
    let (queried, headed) = (try error(byQuery), try error(byHeader))
    #expect(byQuery.status == 400 && queried == frenchSentence)
    #expect(byHeader.status == 400 && headed == frenchSentence)
    // lang= beats the header; an ambiguous name lists the candidates by their French names.
    let englishAgain = try await client.get(served.base + unknown + "&lang=en", headers: french)
    let (again, first) = (try error(englishAgain), try error(english))
    #expect(again == first)
    let united = try error(try await client.get(served.base + "/v1/headlines?country=united&lang=fr"))
    #expect(united.contains("ae (Émirats arabes unis)"), "\(united)")
    for (path, sentence) in [
      (
        "/v1/headlines?country=fr&provider=rss",
        "'rss' n'est pas un fournisseur ; utilisez auto, newsapi, gdelt"
      ),
      ("/v1/headlines?country=fr&pageSize=0", "pageSize doit aller de 1 à 100 (un nombre entier), pas '0'."),
      ("/v1/headlines?country=fr&provider=newsapi", "Pas de clé NewsAPI : obtenez-en une gratuite"),
      ("/v1/resolve?lat=1", "Donnez lat et lon en degrés (par exemple lat=48.85&lon=2.35)."),
      ("/v1/nearest?lat=1", "Donnez lat et lon en degrés (par exemple lat=48.85&lon=2.35)."),
      ("/v1/basemap?zoom=99", "Donnez zoom, de 0 à 31 (par exemple zoom=3)."),
      (
        "/v1/resolve?lat=1&lon=2&frob=3",
        "Ce point d'accès ne prend pas de paramètre 'frob' ; il prend lat, lon, newsCountries."
      ),
      (
        "/v1/datasets/nothing/clusters?zoom=1",
        "Aucun jeu de données ne s'appelle 'nothing' ; /v1/datasets les liste."
      ),
      ("/v1/nowhere", "Rien ne se trouve à /v1/nowhere ; GET /openapi.json liste les points d'accès."),
      (
        "/v1/datasets/markers/clusters/abc/children",
        "Un identifiant de groupe est un nombre entier, pas 'abc' ; les groupes portent le leur dans cluster_id."
      ),
      (
        "/v1/datasets/markers/clusters/99999999/children",
        "Aucun groupe n'a l'identifiant 99999999 dans cet index."
      ),
      ("/v1/headlines?cluster=99999999&zoom=2", "Aucun groupe n'a l'identifiant 99999999 au zoom 2."),
      ("/tiles/markers/0/0/0.png", "Une tuile est {z}/{x}/{y}.mvt ou {z}/{x}/{y}.geojson, pas '0.png'."),
      ("/v1/datasets/markers/clusters", "Donnez zoom, le niveau de zoom de la carte (par exemple zoom=3)."),
      ("/v1/nearest?lat=1&lon=2&count=20000", "count vaut au plus 10000, pas 20000."),
    ] {
      let answer = try await client.get(served.base + path, headers: french)
      let said = try error(answer)
      #expect(answer.status >= 400 && said.hasPrefix(sentence), "\(path): \(said)")
      let plain = try error(try await client.get(served.base + path))
      #expect(!plain.hasPrefix(sentence), "\(path) in English: \(plain)")
    }
    #expect(try imitation.log().isEmpty)
    // A server without news says so in the request's language too.
    let noNews = try Served(["--no-news"])
    let off = try await client.get(noNews.base + "/v1/headlines?country=fr&lang=fr")
    let said = try error(off)
    #expect(off.status == 503 && said.hasPrefix("Ce serveur a été lancé avec --no-news"), "\(said)")
  }

  /// `/v1/countries?q=`, which the map's search box asks: a name read as `--country` reads it (the page matched
  /// names itself: "uk", "korea" and "emirats" found nothing there), and a name several countries have is the
  /// sentence naming them, in the request's language (the page said "No news country is called 'united'").
  /// It needs no news: a server started with --no-news answers it.
  @Test func countriesAreFoundAsCountryReadsThem() async throws {
    let served = try Served(["--no-news"])
    func codes(_ path: String) async throws -> [String] {
      let answer = try await client.get(served.base + path)
      #expect(answer.status == 200, "\(path)")
      let body = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
      return (body?["countries"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }
    #expect(try await codes("/v1/countries").count == 54)
    for (query, code) in [
      ("uk", "gb"), ("Allemagne", "de"), ("korea", "kr"), ("emirats", "ae"), ("FR", "fr"),
    ] {
      #expect(try await codes("/v1/countries?q=" + query) == [code], "\(query)")
    }
    let united = try await client.get(served.base + "/v1/countries?q=united")
    #expect(united.status == 404)
    // The candidates as data too, each as the list gives it; none for a name no country has.
    let candidates = (try JSONSerialization.jsonObject(with: Data(united.body)) as? [String: Any])?[
      "candidates"]
    let listed = (candidates as? [[String: Any]] ?? []).map { "\($0["code"] ?? "") \($0["nameFr"] ?? "")" }
    #expect(
      listed == ["ae Émirats arabes unis", "gb Royaume-Uni", "us États-Unis"],
      "\(String(decoding: united.body, as: UTF8.self))")
    #expect(
      try error(united)
        == "'united' could be ae (United Arab Emirates), gb (United Kingdom) or us (United States); give one code."
    )
    let uni = try await client.get(served.base + "/v1/countries?q=uni", headers: [("Accept-Language", "fr")])
    #expect(
      try error(uni)
        == "'uni' peut être ae (Émirats arabes unis), gb (Royaume-Uni) ou us (États-Unis) ; donnez un code.")
    let none = try await client.get(served.base + "/v1/countries?q=atlantis&lang=fr")
    let noneSaid = try error(none)
    let noCandidates = (try JSONSerialization.jsonObject(with: Data(none.body)) as? [String: Any])?[
      "candidates"]
    #expect((noCandidates as? [Any])?.isEmpty == true)
    #expect(
      none.status == 404
        && noneSaid
          == "'atlantis' n'est pas un des 54 pays de NewsAPI par code ou par nom, comme fr ou France ; "
          + "/v1/countries les liste, /v1/countries?q=NOM en trouve un.",
      "\(noneSaid)")
  }

  /// An error answer depends on the request's language, so it says so to caches (`Vary: Accept-Language`),
  /// the event loop's answers and the router's alike, and a 405 is worded in the request's language too.
  @Test func errorAnswersVaryWithTheLanguage() async throws {
    let served = try Served([])
    for path in ["/v1/resolve?lat=1", "/v1/headlines?country=xx", "/v1/nowhere", "/healthz?x=1"] {
      let answer = try await client.get(served.base + path, headers: [("Accept-Language", "fr")])
      #expect(answer.status >= 400 && answer.header("Vary") == "Accept-Language", "\(path)")
    }
    let fine = try await client.get(served.base + "/v1/resolve?lat=1&lon=2")
    #expect(fine.status == 200 && fine.header("Vary") == nil)
    func put(_ target: String) throws -> String {
      try served.raw("PUT \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    }
    let french = try put("/healthz?lang=fr")
    #expect(french.hasPrefix("HTTP/1.1 405") && french.lowercased().contains("\r\nvary: accept-language\r\n"))
    #expect(
      french.hasSuffix(#"{"error":"/healthz répond à GET, HEAD, OPTIONS, pas à PUT."}"# + "\n"), "\(french)")
    let english = try put("/healthz")
    #expect(english.hasSuffix(#"{"error":"/healthz answers GET, HEAD, OPTIONS, not PUT."}"# + "\n"))
  }

  /// The dataset writes in the request's language (issue 31 item 3): the 403 of a server whose writes are off,
  /// a name, a body and a feature refused, a request without Host; English unchanged. The server's log (a kept
  /// dataset it cannot serve) is in the language it was started in.
  @Test func datasetWritesInTheRequestsLanguage() throws {
    let data = try ScratchDirectory()
    try Data("{ not json".utf8).write(to: URL(fileURLWithPath: data.path + "/broken.geojson"))
    let token = "0123456789abcdef-write-token"
    let served = try Served(
      ["--no-news", "--datasets-dir", data.path],
      environment: ["NEWSATLAS_WRITE_TOKEN": token, "LANG": "fr_FR.UTF-8"])
    func send(_ method: String, _ target: String, _ body: String = "", french: Bool, headers: String = "")
      throws -> String
    {
      let language = french ? "Accept-Language: fr-FR,fr;q=0.9\r\n" : ""
      return try served.raw(
        "\(method) \(target) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\(language)\(headers)"
          + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
    }
    let collection =
      #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"a","properties":{},"#
      + #""geometry":{"type":"Point","coordinates":[2.35,48.85]}}]}"#
    #expect(try send("PUT", "/v1/datasets/live", collection, french: false).hasPrefix("HTTP/1.1 201"))
    for (method, target, body, headers, status, english, french) in [
      (
        "PUT", "/v1/datasets/no.dots", collection, "", "400",
        "A dataset name is letters, digits, '-' and '_' (64 at most), not 'no.dots'.",
        "Un nom de jeu de données est fait de lettres, de chiffres, de '-' et de '_' (64 au plus), pas 'no.dots'."
      ),
      (
        "PUT", "/v1/datasets/live", "[1]", "Content-Type: application/json\r\n", "400",
        "The body is not a GeoJSON FeatureCollection: a FeatureCollection is a JSON object, starting with '{'.",
        "Le corps n'est pas une FeatureCollection GeoJSON : une FeatureCollection est un objet JSON, qui commence "
          + "par '{'."
      ),
      (
        // The reader's refusal names the body in the request's language too.
        "PUT", "/v1/datasets/live", "latitude,longitude\n1,2\n3,x\n", "", "400",
        "Line 3 of 'the request body': the longitude 'x' is not a number.",
        "Ligne 3 de 'le corps de la requête' : la longitude 'x' n'est pas un nombre."
      ),
      (
        "DELETE", "/v1/datasets/live/features/nope", "", "", "404",
        "No feature of 'live' has the id 'nope'; a feature's id is its GeoJSON id member.",
        "Aucun objet de 'live' n'a l'identifiant 'nope' ; l'identifiant d'un objet est son membre id GeoJSON."
      ),
    ] {
      let inEnglish = try send(method, target, body, french: false, headers: headers)
      #expect(inEnglish.hasPrefix("HTTP/1.1 \(status)"), "\(inEnglish)")
      #expect(inEnglish.hasSuffix(#"{"error":"\#(english)"}"# + "\n"), "\(inEnglish)")
      let inFrench = try send(method, target, body, french: true, headers: headers)
      #expect(inFrench.hasPrefix("HTTP/1.1 \(status)"), "\(inFrench)")
      #expect(inFrench.hasSuffix(#"{"error":"\#(french)"}"# + "\n"), "\(inFrench)")
    }
    // A request without Host is refused before any route, in its Accept-Language too.
    let hostless = try served.raw("GET /healthz HTTP/1.1\r\nAccept-Language: fr\r\nConnection: close\r\n\r\n")
    #expect(
      hostless.hasSuffix(
        #"{"error":"Une requête HTTP/1.1 nomme son Host (RFC 9112, section 3.2) ; celle-ci n'en a pas."}"#
          + "\n"),
      "\(hostless)")
    let log = served.log()
    #expect(log.contains("broken.geojson' ne peut pas être servi ("), "\(log)")
    #expect(log.contains("retirez-le ou envoyez de nouveau le jeu de données par PUT."), "\(log)")
    #expect(!log.contains("cannot be served"), "\(log)")
    // A server that keeps no token: the 403 says how to turn writes on, in the request's language.
    let off = try Served(["--no-news", "--datasets-dir", data.path])
    let refused = try off.raw(
      "PUT /v1/datasets/live?lang=fr HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    #expect(refused.hasPrefix("HTTP/1.1 403"), "\(refused)")
    #expect(
      refused.contains("Les écritures sont coupées sur ce serveur ; lancez serve avec --write-token-file"))
    let english = try off.raw(
      "PUT /v1/datasets/live HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    #expect(english.contains("Writes are off on this server; start serve with --write-token-file FILE"))
  }

  /// The map page is written in the language `lang=` asks for, from the catalogue (issue 31 item 6): its
  /// controls' words, and the messages its script says as one JSON object of the catalogue's templates, which
  /// holds every message the script names (`text("…")`, the months).
  @Test func theMapPageIsWrittenFromTheCatalogue() async throws {
    let served = try Served(["--no-news"])
    let pages: [(String, InterfaceLanguage)] = [
      ("", .english), ("?lang=fr", .french), ("?poll=900&lang=FR", .french),
    ]
    for (query, language) in pages {
      let page = String(decoding: try await client.get(served.base + "/" + query).body, as: UTF8.self)
      #expect(page.contains("<html lang=\"\(language.rawValue)\">"), "\(query)")
      #expect(page.contains(">\(Message.mapNearMe.text(in: language))</button>"), "\(query)")
      #expect(page.contains(#"aria-label=""# + Message.mapMap.text(in: language) + #"""#), "\(query)")
      #expect(page.contains(">\(Message.mapOtherLanguage.text(in: language))</a>"), "\(query)")
      #expect(!page.contains("{{") && !page.contains("}}"), "\(query)")
      let json = try #require(
        page.firstMatch(of: /<script id="words" type="application\/json">(.*)<\/script>/)?.1)
      let words = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
      let expected = MapPage.scriptMessages.map { ($0.rawValue, $0.text(in: language)) }
      #expect(words == Dictionary(uniqueKeysWithValues: expected), "\(query)")
    }
    // Every message the script names is one the page holds.
    let held = Set(MapPage.scriptMessages.map(\.rawValue))
    let said = MapPage.script.matches(of: /text\("(\w+)"/).map { String($0.1) }
    #expect(said.count > 30)
    let named = MapPage.script.matches(of: /"(\w+)"/).map { String($0.1) }.filter {
      Message(rawValue: $0) != nil
    }
    #expect(Set(named).isSuperset(of: HumanDate.months.map(\.rawValue)))
    for name in said + named {
      #expect(held.contains(name), "the script says \(name), which the page does not hold")
    }
  }
}
