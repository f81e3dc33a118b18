import AtlasMessages
import Fetch
import Foundation
import TestSupport
import Testing

@testable import AtlasServer

/// The lower layers in French (issue 31 item 3): what GeoFormats, AtlasSettings, the feeds file, Store and Fetch
/// refuse, and the warnings of a stale answer, are the catalogue's sentences, said in the reader's language by
/// the command line (and by the service, in the request's language); English stays the default.
@Suite struct FrenchLowerLayersTests {
  /// A script run in a scratch folder (`$XDG_CONFIG_HOME`, made first), and the sentence (or its start) it must
  /// print on standard error in French, with its English counterpart under the C locale.
  @Test(arguments: [
    (
      // GeoFormats: a feature that is not an object.
      #"printf '{"type":"FeatureCollection","features":[1]}' > p.json; "$0" nearest 1 2 --points p.json"#,
      "L'entité 0 de 'p.json' n'est pas un objet.", "Feature 0 in 'p.json' is not an object."
    ),
    (
      // GeoFormats and its JSON parser: a syntax error, located, its reason in French.
      #"printf '{"type":"FeatureCollection","features":[{"type":}]}' > q.json; "$0" nearest 1 2 --points q.json"#,
      "'q.json' n'est pas du GeoJSON valide à la ligne 1, colonne 49 (octet 48) : caractère inattendu '}'.",
      "'q.json' is not valid GeoJSON at line 1, column 49 (byte 48): unexpected character '}'."
    ),
    (
      // GeoFormats: a CSV row off the earth (a clause inside a sentence).
      #"printf 'lat,lon\n91,0\n' > c.csv; "$0" nearest 1 2 --points c.csv"#,
      "Ligne 2 de 'c.csv' : la latitude 91 est hors de -90...90 ; les latitudes sont des degrés au nord de "
        + "l'équateur.",
      "Line 2 of 'c.csv': the latitude 91 is outside -90...90; latitudes are degrees north of the equator."
    ),
    (
      // GeoFormats: a place given as an argument (the clause made a sentence), a box, a tile, a filter.
      #""$0" resolve 0 181"#,
      "La longitude 181 est hors de -180...180 ; les longitudes sont des degrés à l'est de Greenwich.",
      "The longitude 181 is outside -180...180; longitudes are degrees east of Greenwich."
    ),
    (
      #""$0" clusters --zoom 1 --bbox 1,2,3"#,
      "--bbox prend quatre nombres, ouest,sud,est,nord (par exemple -10,35,30,60), pas '1,2,3'.",
      "--bbox takes four numbers, west,south,east,north (for example -10,35,30,60), not '1,2,3'."
    ),
    (
      #""$0" clusters --tile 2/9/9"#,
      "Au zoom 2, le x et le y d'une tuile vont de 0 à 3 ; '2/9/9' est hors de la carte.",
      "At zoom 2 a tile's x and y run from 0 to 3; '2/9/9' is off the map."
    ),
    (
      #""$0" clusters --zoom 1 --filter '["==", 1'"#,
      "Le filtre n'est pas du JSON : ligne 1, colonne 9 (octet 8) : le texte s'arrête au milieu d'un tableau.",
      "The filter is not JSON: line 1, column 9 (byte 8): the text ends inside an array."
    ),
    (
      // AtlasSettings: a settings file that is not flat TOML.
      #"mkdir -p newsatlas && printf '[news]\ncountry = "fr"\n' > newsatlas/config.toml; "$0" headlines"#,
      "ouvre une table ; les réglages sont de simples lignes clé = valeur, sans [sections] ni clés à points ; "
        + "corrigez-le ou lancez 'newsatlas config reset'.",
      "starts a table; the settings are plain key = value lines, without [sections] or dotted keys; fix it or "
        + "run 'newsatlas config reset'."
    ),
    (
      // The feeds file: a line that is not a country and a URL, and one whose URL is refused (found in it).
      #"mkdir -p newsatlas && printf 'fr\n' > newsatlas/feeds.txt; "$0" feeds list"#,
      "n'est pas un pays et une URL (fr https://…) ; corrigez-la ou retirez-la avec 'newsatlas feeds remove'.",
      "is not a country and a URL (fr https://…); fix it or remove it with 'newsatlas feeds remove'."
    ),
    (
      #"mkdir -p newsatlas && printf 'fr ftp://x\n' > newsatlas/feeds.txt; "$0" feeds list"#,
      "Dans la ligne 1 du fichier des flux",
      "In line 1 of the feeds file"
    ),
    (
      // A batch with one failed row: French agrees in number ("1 lignes sur 2 ont échoué" before).
      #"printf 'lat,lon\n1,2\nx,3\n' | "$0" nearest --input - --format csv"#,
      "newsatlas: 1 ligne sur 2 a échoué (à la ligne 3) ; sa colonne error dit pourquoi.",
      "1 of 2 rows failed (the first on line 3); their error column says why."
    ),
    (
      // Offline with nothing cached: what is missing is named in the reader's language.
      #"env -u NEWSAPI_KEY "$0" headlines --country fr --offline"#,
      "Hors ligne, et le cache n'a pas de réponse pour les titres de GDELT pour France",
      "the cache has no answer for GDELT's headlines of France"
    ),
    (
      // NewsAPI offline with nothing cached: the request is named in the reader's language (it was quoted bare).
      #"NEWSATLAS_API_BASE=http://127.0.0.1:$1 "$0" search climat --offline"#,
      "Hors ligne, et le cache n'a pas de réponse pour la requête NewsAPI everything q=climat ;",
      "Offline, and the cache has no answer for NewsAPI's request everything q=climat;"
    ),
    (
      // MBTiles: the tiles command's file that cannot be written (a folder there, a folder missing).
      #"mkdir -p d && "$0" tiles --out d"#,
      "d est un dossier, pas un fichier ordinaire ; donnez un nouveau fichier ou un fichier MBTiles à remplacer.",
      "d is a folder, not a regular file; give a new file or an MBTiles file to replace."
    ),
    (
      #""$0" tiles --out nowhere/x.mbtiles"#, "Impossible de créer nowhere/x.mbtiles.partial-",
      "Cannot create nowhere/x.mbtiles.partial-"
    ),
    (
      // clusters: an option out of its range, a cluster id no cluster has.
      #""$0" clusters --zoom 1 --max-zoom 99"#,
      "--max-zoom prend un nombre entier du zoom le plus bas (0) à 30, pas 99.",
      "--max-zoom is a whole number from the lowest zoom (0) to 30, not 99."
    ),
    (
      #""$0" clusters --expansion-zoom 999999"#, "Aucun groupe n'a l'identifiant 999999 dans cet index.",
      "No cluster has the id 999999 in this index."
    ),
    (
      // Fetch: libcurl cannot be opened, so there is no HTTP client at all.
      #"NEWSATLAS_LIBCURL=/nowhere/libcurl.so "$0" headlines --country fr --provider gdelt"#,
      "/nowhere/libcurl.so n'a pas pu être chargé ; installez libcurl",
      "/nowhere/libcurl.so could not be loaded; install libcurl"
    ),
    (
      // Fetch: nothing listens where the service should be.
      #"NEWSATLAS_API_BASE=http://127.0.0.1:$1 "$0" headlines --country fr --provider newsapi"#,
      "a refusé la connexion ; rien n'y écoute.", "refused the connection; nothing is listening there."
    ),
  ])
  func saidInTheReadersLanguage(script: String, french: String, english: String) throws {
    let setUp = #"mkdir -p "$XDG_CONFIG_HOME" && cd "$XDG_CONFIG_HOME" && "#
    let port = String(LocalServer.closedPort())
    let inFrench = try CLI.shell(
      setUp + script, [port], environment: ["LANG": "fr_FR.UTF-8", "NEWSAPI_KEY": "k"])
    #expect(inFrench.status != 0)
    #expect(inFrench.stderr.contains(french), "\(script): \(inFrench.stderr)")
    #expect(!inFrench.stderr.contains(english), "\(script): \(inFrench.stderr)")
    let inEnglish = try CLI.shell(setUp + script, [port], environment: ["NEWSAPI_KEY": "k"])
    #expect(inEnglish.status == inFrench.status)
    #expect(inEnglish.stderr.contains(english), "\(script): \(inEnglish.stderr)")
  }

  /// Feeds: a feed's parse error as it reaches `headlines`, in the reader's language (libxml2's own words quoted
  /// as it gives them), from the feed server on 127.0.0.1.
  @Test(arguments: [
    (
      "malformed.xml",
      "n'a pas pu être lu : le flux n'est pas du XML bien formé (ligne 8 : Opening and ending tag mismatch",
      "could not be read: the feed is not well-formed XML (line 8: Opening and ending tag mismatch"
    ),
    (
      "billion-laughs.xml",
      "n'a pas pu être lu : le flux déclare une entité XML (<!ENTITY ...>) ; de tels flux sont refusés",
      "could not be read: the feed declares an XML entity (<!ENTITY ...>); such feeds are refused"
    ),
  ])
  func aFeedsParseErrorIsFrench(fixture: String, french: String, english: String) throws {
    let server = try LocalServer(script: "feed_server.py")
    let arguments = [
      "headlines", "--country", "fr", "--provider", "feeds", "--feed", server.base + "/feeds/" + fixture,
      "--refresh",
    ]
    let inFrench = try CLI.run(arguments, environment: ["LANG": "fr_FR.UTF-8"])
    #expect(inFrench.status != 0)
    #expect(inFrench.stderr.contains(french), "\(inFrench.stderr)")
    let inEnglish = try CLI.run(arguments)
    #expect(inEnglish.status == inFrench.status)
    #expect(inEnglish.stderr.contains(english), "\(inEnglish.stderr)")
  }

  /// What NewsAPI or GDELT answers instead of its JSON (`ServiceAnswer`), from the test server on 127.0.0.1: the
  /// catalogue's words in the reader's language around the service's own bytes, quoted; exit 69 and no retry
  /// but after a server error, while GDELT's own "limit requests" line is its rate limit (exit 75, one retry)
  /// by its kind, in either language.
  @Test(arguments: [
    (
      ["search", "portal"], "",
      "NewsAPI a répondu HTTP 200 avec autre chose que son JSON (la réponse commence par '<html>Sign in to the "
        + "hotel Wi-Fi</html>').",
      "NewsAPI answered HTTP 200 with something that is not its JSON (it begins '<html>Sign in to the hotel "
        + "Wi-Fi</html>').", Int32(69), 1
    ),
    (
      ["search", "emptybody"], "",
      "NewsAPI a répondu HTTP 502 avec autre chose que son JSON (une réponse vide).",
      "NewsAPI answered HTTP 502 with something that is not its JSON (an empty answer).", 69, 2
    ),
    (
      ["headlines", "--country", "de", "--provider", "gdelt"], "/notjson",
      #"GDELT a répondu HTTP 200 avec autre chose que son JSON (la réponse commence par '{"articles": 5}')."#,
      #"GDELT answered HTTP 200 with something that is not its JSON (it begins '{"articles": 5}')."#, 69, 1
    ),
    (
      ["headlines", "--country", "de", "--provider", "gdelt"], "/empty",
      "GDELT a répondu HTTP 200 avec autre chose que son JSON (une réponse vide).",
      "GDELT answered HTTP 200 with something that is not its JSON (an empty answer).", 69, 1
    ),
    (
      ["headlines", "--country", "de", "--provider", "gdelt"], "/toofast",
      "GDELT a refusé la requête : Please limit requests to one every 5 seconds",
      "GDELT refused the query: Please limit requests to one every 5 seconds", 75, 2
    ),
  ])
  func anAnswerThatIsNotTheServicesJSON(
    arguments: [String], gdeltPath: String, french: String, english: String, status: Int32, requests: Int
  ) throws {
    let server = try LocalServer()
    let script = #"""
      mkdir -p "$XDG_CONFIG_HOME/newsatlas" &&
        printf 'gdelt-spacing = 0\n' > "$XDG_CONFIG_HOME/newsatlas/config.toml" && "$0" "$@"
      """#
    let environment = [
      "NEWSAPI_KEY": LocalServer.newsAPIKey, "NEWSATLAS_API_BASE": server.base,
      "NEWSATLAS_GDELT_BASE": server.base + gdeltPath,
    ]
    let inFrench = try CLI.shell(
      script, arguments, environment: environment.merging(["LANG": "fr_FR.UTF-8"]) { $1 })
    #expect(inFrench.status == status, "\(inFrench.stderr)")
    #expect(inFrench.stderr.contains(french), "\(inFrench.stderr)")
    #expect(!inFrench.stderr.contains(english), "\(inFrench.stderr)")
    #expect(try server.log().count == requests)
    let inEnglish = try CLI.shell(script, arguments, environment: environment)
    #expect(inEnglish.status == status, "\(inEnglish.stderr)")
    #expect(inEnglish.stderr.contains(english), "\(inEnglish.stderr)")
    #expect(try server.log().count == 2 * requests)
  }

  /// Fetch: a transfer libcurl cannot create (`curl_easy_init` gives none) or start (`curl_multi_add_handle`
  /// refuses it), met through a libcurl whose one function fails (`NEWSATLAS_LIBCURL`: a library built here
  /// with that function, the rest the system's libcurl): a catalogue sentence with curl's own words quoted.
  @Test(arguments: [
    (
      // libcurl's own calls (its connection cache makes a handle) get a real one; NewsAtlas's get none.
      #"""
      #define _GNU_SOURCE
      #include <dlfcn.h>
      #include <string.h>
      void *curl_easy_init(void) {
        Dl_info info;
        if (dladdr(__builtin_return_address(0), &info) && info.dli_fname && strstr(info.dli_fname, "libcurl")) {
          void *(*real)(void) = (void *(*)(void))dlsym(RTLD_NEXT, "curl_easy_init");
          return real();
        }
        return 0;
      }
      """#,
      "La requête à 127.0.0.1:$ a échoué : libcurl n'a pas pu créer de transfert (curl_easy_init a échoué).",
      "The request to 127.0.0.1:$ failed: libcurl could not create a transfer (curl_easy_init failed)."
    ),
    (
      // CURLM_INTERNAL_ERROR.
      "int curl_multi_add_handle(void *multi, void *easy) { (void)multi; (void)easy; return 4; }",
      "La requête à 127.0.0.1:$ a échoué : libcurl n'a pas pu démarrer le transfert (Internal error, CURLMcode 4).",
      "The request to 127.0.0.1:$ failed: libcurl could not start the transfer (Internal error, CURLMcode 4)."
    ),
  ])
  func aTransferLibcurlCannotCreateOrStart(source: String, french: String, english: String) throws {
    let port = String(LocalServer.closedPort())
    let script = #"""
      mkdir -p "$XDG_CONFIG_HOME" && cd "$XDG_CONFIG_HOME" && printf '%s\n' "$2" > failing.c &&
      "$(command -v cc || command -v clang)" -shared -fPIC -o libfailing.so failing.c -Wl,--no-as-needed \
        -l:libcurl.so.4 -ldl &&
      NEWSATLAS_LIBCURL="$PWD/libfailing.so" NEWSATLAS_API_BASE="http://127.0.0.1:$1" "$0" search climat
      """#
    let environment = ["NEWSAPI_KEY": "k"]
    let inFrench = try CLI.shell(
      script, [port, source], environment: environment.merging(["LANG": "fr_FR.UTF-8"]) { $1 })
    #expect(inFrench.status == 69)
    #expect(inFrench.stderr == "newsatlas: " + french.replacing("$", with: port) + "\n", "\(inFrench.stderr)")
    let inEnglish = try CLI.shell(script, [port, source], environment: environment)
    #expect(inEnglish.status == 69)
    #expect(
      inEnglish.stderr == "newsatlas: " + english.replacing("$", with: port) + "\n", "\(inEnglish.stderr)")
  }

  /// Feeds: a libxml2 that cannot be opened (the loader's own words quoted) or lacks a function, as a feed from
  /// the feed server on 127.0.0.1 meets it, in the reader's language.
  @Test(arguments: [
    (
      "/nowhere/libxml2.so",
      "n'a pas pu être lu : /nowhere/libxml2.so n'a pas pu être chargé (/nowhere/libxml2.so: cannot open shared "
        + "object file: No such file or directory) ; installez libxml2 (Debian : apt-get install libxml2) ou "
        + "réglez NEWSATLAS_LIBXML2 sur son chemin pour lire les flux.",
      "could not be read: /nowhere/libxml2.so could not be loaded (/nowhere/libxml2.so: cannot open shared object "
        + "file: No such file or directory); install libxml2 (Debian: apt-get install libxml2) or set "
        + "NEWSATLAS_LIBXML2 to its path to read feeds."
    ),
    (
      "libc.so.6",
      "n'a pas pu être lu : la libxml2 chargée n'a pas xmlInitParser ; NewsAtlas lit les flux avec libxml2 2.9 ou "
        + "plus récente (libxml2 de Debian 12).",
      "could not be read: the libxml2 loaded lacks xmlInitParser; NewsAtlas reads feeds with libxml2 2.9 or "
        + "later (Debian 12's libxml2)."
    ),
  ])
  func aLibxml2ThatCannotBeUsedIsFrench(library: String, french: String, english: String) throws {
    let server = try LocalServer(script: "feed_server.py")
    let arguments = [
      "headlines", "--country", "fr", "--provider", "feeds", "--feed", server.base + "/feeds/rdf.xml",
    ]
    let inFrench = try CLI.run(
      arguments, environment: ["LANG": "fr_FR.UTF-8", "NEWSATLAS_LIBXML2": library])
    #expect(inFrench.status == 69)
    #expect(inFrench.stderr.contains(french), "\(inFrench.stderr)")
    let inEnglish = try CLI.run(arguments, environment: ["NEWSATLAS_LIBXML2": library])
    #expect(inEnglish.status == 69)
    #expect(inEnglish.stderr.contains(english), "\(inEnglish.stderr)")
  }

  /// Batch rows' error column is a sentence, in the reader's language (the CLI's interface language, the
  /// request's for the service); the rest of the row is the same in both.
  @Test func batchRowsSayWhyInTheReadersLanguage() throws {
    let input = "lat,lon\n1,2\nx,3\n91,0\n"
    let french = try CLI.run(
      ["nearest", "--input", "-", "--format", "csv"], stdin: input, environment: ["LANG": "fr_FR.UTF-8"])
    #expect(french.status == 65)
    #expect(
      french.stdout.contains("3,x,3,,,,,ligne 3 : la latitude 'x' n'est pas un nombre.\n"), "\(french.stdout)"
    )
    #expect(
      french.stdout.contains(
        "4,91,0,,,,,ligne 4 : la latitude 91 est hors de -90...90 ; les latitudes sont des degrés au nord de "
          + "l'équateur.\n"), "\(french.stdout)")
    let english = try CLI.run(["nearest", "--input", "-", "--format", "csv"], stdin: input)
    #expect(
      english.stdout.contains("3,x,3,,,,,line 3: the latitude 'x' is not a number.\n"), "\(english.stdout)")
    #expect(
      english.stdout.contains(
        "4,91,0,,,,,line 4: the latitude 91 is outside -90...90; latitudes are degrees north of the equator.\n"
      ),
      "\(english.stdout)")
    let served = try Served(["--no-news"])
    func post(_ headers: String) throws -> String {
      let body = "1\n2,3\n"
      return try served.raw(
        "POST /v1/resolve?format=jsonl HTTP/1.1\r\nHost: x\r\n\(headers)Content-Type: text/csv\r\n"
          + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
    }
    let inFrench = try post("Accept-Language: fr\r\n")
    #expect(
      inFrench.contains(#"{"line":1,"error":"ligne 1 : latitude,longitude attendus mais 1 champ trouvé."}"#),
      "\(inFrench)")
    let inEnglish = try post("")
    #expect(
      inEnglish.contains(#"{"line":1,"error":"line 1: expected latitude,longitude but found 1 field."}"#),
      "\(inEnglish)")
  }

  /// Store: a cache that is another program's SQLite database is refused, in the reader's language.
  @Test func theCachesRefusalIsFrench() throws {
    let script = #"""
      mkdir -p "$XDG_CACHE_HOME/newsatlas" &&
      python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("CREATE TABLE theirs (x)")' \
        "$XDG_CACHE_HOME/newsatlas/cache.sqlite" && "$0" headlines --country fr --provider newsapi
      """#
    let french = try CLI.shell(script, environment: ["LANG": "fr_FR.UTF-8", "NEWSAPI_KEY": "k"])
    #expect(
      french.stderr.contains("est la base SQLite d'un autre programme ; newsatlas la laisse telle quelle"))
    let english = try CLI.shell(script, environment: ["NEWSAPI_KEY": "k"])
    #expect(english.stderr.contains("is another program's SQLite database; newsatlas leaves it as it is"))
  }

  /// The service says a GeoFormats refusal in the request's language, as its own sentences.
  @Test func theServiceSaysThemInTheRequestsLanguage() async throws {
    let served = try Served(["--no-news"])
    let client = HTTPClient()
    let path = "/v1/datasets/markers/clusters?zoom=1&bbox=1,2,3"
    let english = try await client.get(served.base + path)
    #expect(english.status == 400)
    #expect(
      String(decoding: english.body, as: UTF8.self)
        == #"{"error":"bbox takes four numbers, west,south,east,north (for example -10,35,30,60), not '1,2,3'."}"#
        + "\n")
    let french = try await client.get(served.base + path, headers: [("Accept-Language", "fr")])
    #expect(
      String(decoding: french.body, as: UTF8.self)
        == #"{"error":"bbox prend quatre nombres, ouest,sud,est,nord (par exemple -10,35,30,60), pas '1,2,3'."}"#
        + "\n")
  }

  /// No sentence of the converted lower layers is written outside the catalogue: a string literal of three
  /// words or more in their sources fails, but for a programmer's precondition and the feeds file's comment line
  /// (file content).
  @Test(arguments: [
    "GeoFormats", "AtlasSettings", "Store/CacheDatabase.swift", "Fetch/HTTPClient.swift",
    "NewsAPI/FeedList.swift",
    "NewsAPI/FeedsClient.swift", "Feeds", "Store/MBTilesWriter.swift", "MBTiles",
    "AtlasAnswers/BatchRows.swift", "AtlasServer/BatchAnswers.swift",
    "AtlasServer/AtlasService+Batch.swift",
    // The service's dataset writes and its own refusals before a route.
    "AtlasServer/AtlasService+Writes.swift", "AtlasServer/DatasetWrites.swift",
    "AtlasServer/WriteAccess.swift",
    "AtlasServer/DatasetJournal.swift", "AtlasServer/HTTP1Rules.swift",
    "AtlasServer/AtlasService+Parameters.swift",
    "AtlasServer/AtlasService+Map.swift",
    // Article dates (the stricter scan below reads every word).
    "NewsAPI/HumanDate.swift",
    // The news library's refusals before a request, the settings' and GeoIndex's typed errors as said.
    "NewsAPI/NewsAPIClient+Headlines.swift", "NewsAPI/NewsAPIClient+Sources.swift",
    "NewsAPI/Settings.swift", "NewsAtlas/Country.swift", "AtlasSettings/SettingsError.swift",
    // What a service answered instead of its JSON (fr31).
    "NewsAPI/NewsAPIClient.swift", "NewsAPI/GDELTClient.swift", "NewsAPI/NewsAPIError.swift",
  ])
  func noEnglishOutsideTheCatalogue(path: String) throws {
    let found = try FrenchInterfaceTests.englishLiterals(under: "Sources/" + path).filter { literal in
      // The feeds file's comment line is file content.
      !literal.contains("\"# NewsAtlas feeds")
    }
    #expect(found.isEmpty, "English outside the catalogue:\n\(found.joined(separator: "\n"))")
  }

  /// Article dates' words and layouts are the catalogue's (`dateOnDay`, `dateToday`, the months' names): the
  /// words in HumanDate's string literals are only its layouts' field names, `UTC`, and ISO 8601's `T` and `Z`
  /// (the `--utc` form that scripts parse). Any other word, even one ("ago"), fails.
  @Test func datesSayNothingOutsideTheCatalogue() throws {
    let allowed: Set<String> = [
      "UTC", "T", "Z", "hour", "minute", "ago", "day", "day2", "month2", "monthName", "year",
    ]
    let found = try Self.literalWords(in: "Sources/NewsAPI/HumanDate.swift").filter {
      !allowed.contains($0.word)
    }
    #expect(found.isEmpty, "Words outside the catalogue:\n\(found.map(\.place).joined(separator: "\n"))")
  }

  /// The words (letters, then letters or digits) in the string literals of the Swift file at `path` (from the
  /// package's root), interpolations left out, with `file:line: literal`; comments are skipped.
  static func literalWords(in path: String) throws -> [(word: String, place: String)] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
    let file = root.appendingPathComponent(path).standardized
    let text = try String(contentsOf: file, encoding: .utf8)
    let literal = try Regex(#""((?:[^"\\]|\\.)*)""#)
    let interpolation = try Regex(#"\\\((?:[^()]|\([^()]*\))*\)"#)
    let word = try Regex(#"\p{L}[\p{L}\p{N}]*"#)
    var found: [(word: String, place: String)] = []
    for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      if line.drop(while: { $0 == " " }).hasPrefix("//") { continue }
      let code = line.split(separator: " //", maxSplits: 1).first ?? line
      for match in code.matches(of: literal) {
        let shown = String(code[match.range])
        let words = shown.replacing(interpolation, with: " ")
        for each in words.matches(of: word) {
          found.append((String(words[each.range]), "\(file.lastPathComponent):\(number + 1): \(shown)"))
        }
      }
    }
    #expect(!text.isEmpty, "\(path)")
    return found
  }

  /// The map page says nothing of its own (issue 31 item 6): the service writes its words from the catalogue
  /// (`MapPage.page(in:)`). Its HTML's text and labels are `{{message}}` placeholders but the product's name and
  /// the first dataset's; its script's string literals hold no two words, no capitalised word and no letter
  /// outside ASCII but names (NewsAPI, GDELT, Leaflet, Accept-Language) and words for the browser ("use
  /// strict", link types).
  @Test func theMapPageSaysNothingOutsideTheCatalogue() throws {
    var found: [String] = []
    let html = MapPage.html.replacing(try Regex(#"\{\{\w+\}\}"#), with: "")
    for match in html.matches(of: try Regex<(Substring, Substring)>(#">([^<]*)<"#)) {
      let text = match.1.trimmingCharacters(in: .whitespacesAndNewlines)
      if text.contains(try Regex(#"\p{L}"#)) && !["NewsAtlas", "markers"].contains(text) {
        found.append(text)
      }
    }
    let label = try Regex<(Substring, Substring)>(#"(?:aria-label|placeholder|title|alt)="([^"]*)""#)
    found += html.matches(of: label).filter { !$0.1.isEmpty }.map { "label: \($0.1)" }
    let literal = try Regex(#""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`"#)
    let words = try Regex(#"[A-Za-z]{2,} [A-Za-z]{2,}|\b[A-Z][a-z]+|(?=\p{L})[^\x00-\x7F]"#)
    let names: Set<String> = [
      "use strict", "NewsAPI", "GDELT", "Accept-Language", "noopener noreferrer",
      #"<a href="https://leafletjs.com">Leaflet</a>"#,
    ]
    for (number, line) in MapPage.script.split(separator: "\n").enumerated() {
      let trimmed = line.drop { $0 == " " }
      if trimmed.hasPrefix("//") || trimmed.hasPrefix("/*") || trimmed.hasPrefix("*") { continue }
      let code = line.split(separator: " //", maxSplits: 1).first ?? line
      for match in code.matches(of: literal) {
        let text = String(code[match.range].dropFirst().dropLast()).replacing(
          try Regex(#"\$\{[^}]*\}"#), with: " ")
        if !names.contains(text) && text.contains(words) { found.append("map.js:\(number + 1): \(text)") }
      }
    }
    #expect(found.isEmpty, "Words outside the catalogue:\n\(found.joined(separator: "\n"))")
  }
}
