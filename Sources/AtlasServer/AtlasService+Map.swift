import AtlasAnswers
import AtlasMessages
import Fetch
import Foundation
import GeoFormats
import GeoIndex
import Hummingbird
import NewsAtlas
import Synchronization

extension AtlasService {
  /// `GET /[?lang=xx][&poll=MS]`: the news map's page in the language `lang=` asks for (English otherwise),
  /// its words the catalogue's (`MapPage.page(in:)`); its script and style are `MapPage.script` and `MapPage.css`.
  func mapPage(_ request: ParsedRequest) throws -> Reply {
    let language = InterfaceLanguage.requested(
      query: try allow(request, ["lang", "poll"]).get("lang"), acceptLanguage: nil)
    var reply = Reply(
      text: MapPage.pages[language] ?? MapPage.page(in: language), type: "text/html; charset=utf-8")
    reply.headers[.contentSecurityPolicy] = MapPage.contentSecurityPolicy
    return reply
  }

  /// `GET /v1/countries[?q=TEXT]`: the 54 news countries as `newsatlas countries --format json` lists them
  /// (`{"countries":[{"code","name","nameFr","latitude","longitude","language"}]}`), or the one `q` names, read
  /// as `--country` and `?country=` read it (`Country.identified`: a code, an English or French name, case and
  /// accents ignored, uk, usa, the start or part of one name). A name no country has, or several have, is 404
  /// with the sentence that names the candidates, in the request's language, and `"candidates"`: those
  /// countries as the list gives them (none for a name no country has). The map's search box asks it.
  ///
  /// `newsCountries=world` lists (and `q` looks among) every country GDELT covers, `newsapi` the 54; by default
  /// the server's `newsCountries`.
  func countries(_ request: ParsedRequest) throws -> Reply {
    let parameters = try allow(request, ["q", "newsCountries"])
    let set = try newsCountries(parameters)
    var found = set.countries
    if let text = parameters.get("q") {
      let identification = Country.identified(by: text, in: set)
      guard case .one(let country) = identification else {
        let shown = printable(String(text.prefix(64)))
        let candidates = identification.candidates
        let sentence = CountryIdentification.refusal(
          candidates: candidates, shown: shown, service: true, in: set)
        let wording = Wording { sentence.text(in: $0) }
        // The candidates as data too, for a client to offer (the map's search lists them to choose from).
        throw Problem.withCandidates(
          .worded(.notFound(wording.text(InterfaceLanguage.english)), wording), count: candidates.count
        ) { json, n in json.object { candidates[n].write(to: &$0) } }
      }
      found = [country]
    }
    var writer = JSONWriter()
    writer.object { object in
      object.array("countries", found) { json, country in json.object { country.write(to: &$0) } }
    }
    writer.bytes.append(0x0A)
    return Reply(json: writer.bytes)
  }

  /// `GET /v1/basemap?zoom=Z[&x=X&y=Y]`: the countries' borders as GeoJSON, simplified for zoom Z: the whole
  /// world's, or with `x` and `y` the web-map tile Z/X/Y's alone, clipped to it (`Basemap.tileGeoJSON`), so
  /// that a close view asks tens of kilobytes, not the world's megabytes.
  func basemap(_ request: ParsedRequest) throws -> Reply {
    let parameters = try allow(request, ["zoom", "x", "y"])
    guard let zoom = try decimal(parameters, "zoom"), zoom >= 0, zoom <= 31 else {
      throw Problem.said(Problem.badParameter, .serviceGiveZoom)
    }
    let (x, y) = (parameters.get("x"), parameters.get("y"))
    guard x != nil || y != nil else {
      return compressed(
        json: basemaps.geoJSON(zoom: Swift.min(Int(zoom), BasemapCache.finestZoom)), for: request)
    }
    let last = zoom == zoom.rounded(.down) ? (1 << Int(zoom)) - 1 : 0
    func tileIndex(_ text: String?) throws(Problem) -> Int {
      guard zoom == zoom.rounded(.down), let text, text.count <= 10, let value = Int(text), value >= 0,
        value <= last
      else {
        let shown = "zoom=\(parameters.get("zoom") ?? "")&x=\(x ?? "")&y=\(y ?? "")"
        throw .said(
          Problem.badParameter, .serviceGiveTile, last, Int(zoom), printable(String(shown.prefix(64))))
      }
      return value
    }
    let tile = (zoom: Int(zoom), x: try tileIndex(x), y: try tileIndex(y))
    var reply = compressed(json: basemaps.tileGeoJSON(tile.zoom, tile.x, tile.y), for: request)
    reply.headers[.cacheControl] = "public, max-age=86400"  // the borders change only with the binary
    return reply
  }

  /// One of Leaflet's files: the names it ships, read from `leafletDirectory` (nothing else is served).
  func leafletFile(_ name: String) throws -> Reply {
    let types = [
      "leaflet.js": "text/javascript; charset=utf-8", "leaflet.css": "text/css; charset=utf-8",
      "images/layers.png": "image/png", "images/layers-2x.png": "image/png",
      "images/marker-icon.png": "image/png", "images/marker-icon-2x.png": "image/png",
      "images/marker-shadow.png": "image/png",
    ]
    guard let type = types[name] else {
      throw Problem.said(Problem.notFound, .serviceNoLeafletFile, name.prefix(64))
    }
    guard let data = FileManager.default.contents(atPath: leafletDirectory + "/" + name) else {
      throw Problem.said(Problem.unavailable, .serviceNoLeaflet, leafletDirectory)
    }
    return Reply(
      status: .ok, headers: [.contentType: type, .cacheControl: "public, max-age=86400"],
      body: ByteBuffer(bytes: data))
  }
}

/// The base map as GeoJSON, one feature per country (`code`, `name`, `news`: one of NewsAPI's 54), its rings
/// from Natural Earth simplified to about a pixel at each zoom (256-pixel tiles), made on first use and kept;
/// and its tiles, cut from the rings simplified for their zoom (kept), the latest few thousand kept too.
final class BasemapCache: Sendable {
  /// Zooms past this one get its detail (about 0.01°).
  static let finestZoom = 7
  /// Tiles past this zoom get its detail (about 0.0014°, near the 1:10m data's own).
  static let finestTileZoom = 10
  /// Tiles kept made; past this, the kept ones are let go at once (a tile is made in a millisecond or so).
  static let keptTiles = 4096
  /// Made under the lock, so that requests racing for a zoom make it once.
  private let made = Mutex<[Int: [UInt8]]>([:])
  private let rings = Mutex<[Int: BasemapRings]>([:])
  private let tiles = Mutex<[String: [UInt8]]>([:])

  func geoJSON(zoom: Int) -> [UInt8] {
    made.withLock { made in
      if let bytes = made[zoom] { return bytes }
      let bytes = Basemap.geoJSON(toleranceDegrees: Self.tolerance(zoom: zoom))
      made[zoom] = bytes
      return bytes
    }
  }

  /// The tile zoom/x/y's borders (`Basemap.tileGeoJSON`), simplified for its zoom (at most `finestTileZoom`).
  func tileGeoJSON(_ zoom: Int, _ x: Int, _ y: Int) -> [UInt8] {
    let key = "\(zoom)/\(x)/\(y)"
    if let bytes = tiles.withLock({ $0[key] }) { return bytes }
    let detail = Swift.min(zoom, Self.finestTileZoom)
    let simplified = rings.withLock { rings in
      if let made = rings[detail] { return made }
      let made = BasemapRings(toleranceDegrees: Self.tolerance(zoom: detail))
      rings[detail] = made
      return made
    }
    let bytes = Basemap.tileGeoJSON(simplified, zoom: zoom, x: x, y: y)
    tiles.withLock { tiles in
      if tiles.count >= Self.keptTiles { tiles.removeAll(keepingCapacity: true) }
      tiles[key] = bytes
    }
    return bytes
  }

  /// About a pixel at `zoom`, in degrees of longitude (256-pixel tiles).
  static func tolerance(zoom: Int) -> Double { 360 / (256 * Double(1 << zoom)) }
}
