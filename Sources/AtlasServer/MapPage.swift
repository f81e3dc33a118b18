import AtlasMessages
import GeoFormats
import NewsAPI

/// The news map at `/`: one page, no build step, no CDN. Leaflet (Debian's libjs-leaflet, BSD-2-Clause) draws
/// the service's own answers: the base map from `/v1/basemap`, clusters from `/v1/datasets/{name}/clusters`,
/// places from `/v1/resolve`, headlines from `/v1/headlines`. English, or French with `?lang=fr`: the service
/// writes the page in its language from the catalogue (`page(in:)`), the script's sentences and date layouts
/// too, so the page says nothing of its own.
enum MapPage {
  /// The page's HTML: `{{name}}` is the catalogue's message `name` in the page's language, `{{lang}}` and
  /// `{{otherLang}}` the page's language and the other's, `{{words}}` the script's messages (`page(in:)`).
  static let html = #"""
    <!doctype html>
    <html lang="{{lang}}">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>NewsAtlas</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="/static/leaflet/leaflet.css">
    <link rel="stylesheet" href="/map.css">
    </head>
    <body>
    <header>
      <h1>NewsAtlas</h1>
      <form id="find" role="search">
        <input id="find-country" list="countries" autocomplete="off" required
          aria-label="{{mapSearch}}" placeholder="{{mapSearch}}">
        <datalist id="countries"></datalist>
        <button type="submit">{{mapGo}}</button>
        <span id="find-said" role="status"></span>
      </form>
      <button type="button" id="locate" title="{{mapUseMyLocation}}"><span class="icon" aria-hidden="true">◎</span>
        <span class="words">{{mapUseMyLocation}}</span></button>
      <button type="button" id="tools-toggle" aria-expanded="false" aria-controls="tools" title="{{mapTools}}"><span
        class="icon" aria-hidden="true">☰</span> <span class="words">{{mapTools}}</span></button>
      <a id="lang" href="?lang={{otherLang}}" hreflang="{{otherLang}}">{{mapOtherLanguage}}</a>
    </header>
    <main>
      <div id="tools" role="group" aria-label="{{mapTools}}" hidden>
        <label><span>{{mapDataset}}</span>
          <select id="dataset"><option value="markers">markers</option></select></label>
        <form id="near">
          <input id="near-lat" inputmode="decimal" autocomplete="off" size="8" required aria-label="{{mapLatitude}}"
            placeholder="{{mapLatitude}}">
          <input id="near-lon" inputmode="decimal" autocomplete="off" size="8" required aria-label="{{mapLongitude}}"
            placeholder="{{mapLongitude}}">
          <button type="submit">{{mapNearMe}}</button>
        </form>
        <form id="filter">
          <input id="filter-property" list="filter-properties" autocomplete="off" size="8"
            aria-label="{{mapProperty}}" placeholder="{{mapProperty}}">
          <datalist id="filter-properties"></datalist>
          <input id="filter-value" autocomplete="off" size="8" aria-label="{{mapValue}}" placeholder="{{mapValue}}">
          <button type="submit">{{mapFilter}}</button>
          <output id="filter-count" for="filter-property filter-value"></output>
        </form>
        <button type="button" id="world">{{mapWholeWorld}}</button>
      </div>
      <div id="map" role="region" aria-label="{{mapMap}}"></div>
      <p id="hint" hidden><span>{{mapHint}}</span>
        <button type="button" id="hint-close" aria-label="{{mapHideHint}}" title="{{mapHideHint}}">×</button></p>
      <aside id="panel" aria-labelledby="panel-title" hidden>
        <button type="button" id="panel-close" aria-label="{{mapClose}}">×</button>
        <h2 id="panel-title"></h2>
        <select id="panel-category" aria-label="{{mapCategory}}" hidden></select>
        <select id="panel-source" aria-label="{{mapFavouriteSource}}" hidden></select>
        <p id="panel-status" role="status" aria-live="polite"></p>
        <button type="button" id="panel-retry" hidden>{{mapRetry}}</button>
        <ol id="panel-list"></ol>
        <h3 id="panel-source-title" hidden></h3>
        <p id="panel-source-status"></p>
        <ol id="panel-source-list"></ol>
      </aside>
    </main>
    <p id="message" role="status"><span id="message-text"></span><button type="button" id="offer" hidden></button></p>
    <script id="words" type="application/json">{{words}}</script>
    <script src="/static/leaflet/leaflet.js"></script>
    <script src="/map.js"></script>
    </body>
    </html>

    """#

  /// The messages the script says (`text("name", …)` in it), written into the page as `{{words}}`.
  static let scriptMessages: [Message] =
    [
      .mapLoading, .mapNoNews, .mapCluster, .mapPoint, .mapNearest, .mapBadPlace, .mapNoLocation, .mapFailed,
      .mapTopHeadlines, .mapNoFavouriteSource, .mapOffer, .mapYes, .mapFiltered, .mapBorders,
      .mapProviderFeeds,
      .headlinesViaTop, .headlinesViaSources, .headlinesViaSearch, .mapViaSourceCountry, .headlinesViaFeeds,
      .mapCategoryBusiness, .mapCategoryEntertainment, .mapCategoryGeneral, .mapCategoryHealth,
      .mapCategoryScience, .mapCategorySports, .mapCategoryTechnology, .mapNearestOffer, .mapShowNews,
      .mapNoProperties, .mapNewsHere, .mapUnreachable, .mapRetry, .mapFilterCount,
      .mapUnknownProperty, .mapNoCountry, .mapWhichCountry, .mapLegend, .mapLegendCluster, .mapLegendPoint,
      .mapLegendNewsCountry, .mapLegendOtherCountry, .mapLegendPin, .dateJustNow, .dateMinutesAgo,
      .dateHoursAgo, .dateToday, .dateOnDay, .dateUnknown,
    ] + HumanDate.months

  /// The page in each language, made once.
  static let pages: [InterfaceLanguage: String] = Dictionary(
    uniqueKeysWithValues: InterfaceLanguage.allCases.map { ($0, page(in: $0)) })

  /// `html` in `language`: each `{{name}}` the catalogue's message (HTML-escaped), `{{words}}` the script's
  /// messages as one JSON object of templates (`{"mapCluster":"{1} countries or points: zoom in",…}`, `<`
  /// written `\u003c` so no text ends the script element), so a sentence of the page has one home.
  static func page(in language: InterfaceLanguage) -> String {
    var words = JSONWriter()
    words.object { object in
      for message in scriptMessages { object.string(message.rawValue, message.text([], in: language)) }
    }
    let json = String(decoding: words.bytes, as: UTF8.self).replacing("<", with: "\\u003c")
    var page = ""
    var rest = html[...]
    while let open = rest.firstRange(of: "{{") {
      page += rest[..<open.lowerBound]
      guard let close = rest[open.upperBound...].firstRange(of: "}}") else { break }
      let name = String(rest[open.upperBound..<close.lowerBound])
      switch name {
      case "lang": page += language.rawValue
      case "otherLang": page += language == .french ? "en" : "fr"
      case "words": page += json
      default:
        guard let message = Message(rawValue: name) else {
          preconditionFailure("MapPage.html names no message \(name)")
        }
        page += escaped(message.text([], in: language))
      }
      rest = rest[close.upperBound...]
    }
    return page + rest
  }

  /// Text as HTML text or an attribute's value.
  static func escaped(_ text: String) -> String {
    var escaped = ""
    for character in text {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      default: escaped.append(character)
      }
    }
    return escaped
  }

  /// The page's Content-Security-Policy: its script, style and data from this server only, no inline script or
  /// style (the words' JSON block is data, never run), no plugin, no frame around it; headline pictures from
  /// anywhere on the web (their links are checked http(s) before they become an `img`).
  static let contentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; "
    + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

  static let css = #"""
    * { box-sizing: border-box; }
    html, body { margin: 0; height: 100%; font: 15px/1.4 system-ui, sans-serif; color: #1d2430; }
    body { display: flex; flex-direction: column; }
    /* One slim row: the search, my location, the one Tools control and the language; the rest is the map. */
    header { display: flex; flex-wrap: nowrap; gap: 8px; align-items: center; padding: 6px 12px;
      background: #1d2430; color: #fff; }
    header h1 { font-size: 18px; margin: 0 8px 0 0; white-space: nowrap; }
    header form { display: flex; gap: 6px; align-items: center; margin: 0; }
    #find { position: relative; flex: 0 1 360px; min-width: 0; }
    #find-country { flex: 1; min-width: 0; }
    header input, header button, #tools input, #tools select, #tools button { font: inherit; padding: 3px 8px; }
    header button { white-space: nowrap; }
    #tools-toggle { margin-left: auto; }
    #tools-toggle[aria-expanded="true"] { background: #ffd479; }
    header a { color: #ffd479; white-space: nowrap; }
    header .icon { font-size: 16px; line-height: 1; }
    /* The search box's sentence and choices drop below it, over the map, instead of widening the header. */
    #find-said { position: absolute; top: calc(100% + 6px); left: 0; z-index: 1200; min-width: 100%;
      padding: 6px 8px; background: #fff; color: #1d2430; border-radius: 4px; box-shadow: 0 2px 8px #0004; }
    #find-said:empty { display: none; }
    #find-said button { font: inherit; margin: 4px 6px 0 0; }
    main { flex: 1; display: flex; min-height: 0; position: relative; }
    #map { flex: 1; background: #b9d3e6; }
    /* Tools: the dataset, typed coordinates and the filter, folded into one panel that opens over the map. */
    #tools { position: absolute; top: 8px; right: 8px; z-index: 1100; display: flex; flex-direction: column;
      gap: 8px; align-items: flex-start; max-width: calc(100% - 16px); padding: 10px 12px; background: #fff;
      border-radius: 6px; box-shadow: 0 2px 10px #0005; }
    #tools[hidden] { display: none; }
    #tools form { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 0; }
    #tools label span { margin-right: 6px; }
    #filter-count { flex-basis: 100%; font-size: 13px; }
    #filter-count:empty { display: none; }
    #hint { position: absolute; top: 8px; left: 56px; z-index: 1000; max-width: calc(100% - 72px); margin: 0;
      padding: 4px 4px 4px 10px; background: #fff; border-radius: 4px; box-shadow: 0 1px 5px #0004;
      font-size: 14px; }
    #hint[hidden] { display: none; }
    #hint button { font: inherit; font-size: 18px; line-height: 1; border: 0; background: none; cursor: pointer;
      padding: 0 6px; }
    #panel { width: 360px; overflow-y: auto; padding: 12px 16px; border-left: 1px solid #ccd; background: #fff; }
    #panel[hidden] { display: none; }
    #panel-close { float: right; font-size: 20px; border: 0; background: none; cursor: pointer; }
    #panel h2 { margin: 0 0 6px; font-size: 18px; }
    #panel h3 { margin: 12px 0 4px; font-size: 16px; }
    #panel ol { padding-left: 20px; }
    #panel li { margin-bottom: 10px; }
    #panel time, #panel .source { color: #5a6270; font-size: 13px; }
    #panel img { display: block; max-width: 100%; max-height: 160px; margin: 4px 0; border-radius: 3px; }
    #panel .description { margin: 4px 0 0; font-size: 14px; }
    #panel select { font: inherit; margin-bottom: 6px; }
    #offer { margin-left: 8px; font: inherit; }
    #panel-retry { font: inherit; margin: 0 0 8px; }
    /* A spinner before the status line while the panel waits; still (a ring) for readers who ask for less motion. */
    #panel-status.busy::before { content: ""; display: inline-block; width: 14px; height: 14px; margin-right: 8px;
      vertical-align: -2px; border: 2px solid #ccd; border-top-color: #b5441b; border-radius: 50%;
      animation: spin 0.8s linear infinite; }
    @keyframes spin { to { transform: rotate(360deg); } }
    @media (prefers-reduced-motion: reduce) { #panel-status.busy::before { animation: none; } }
    #message:has(#message-text:empty):has(#offer[hidden]) { display: none; }
    #message { position: absolute; bottom: 8px; left: 8px; margin: 0; padding: 4px 8px; background: #fff;
      z-index: 1000; }
    /* White on #b5441b is 5.5:1 (WCAG AA asks 4.5:1 of text this size); a lone marker is a 24 px target
       (WCAG 2.5.8) around its 14 px dot. */
    .cluster, .swatch-cluster { background: #b5441b; border: 2px solid #fff; border-radius: 50%; color: #fff;
      font-size: 13px; font-weight: 700; display: flex; align-items: center; justify-content: center; }
    .point { border-radius: 50%; }
    .point::after, .swatch-point::after { content: ""; position: absolute; inset: 5px; background: #b5441b;
      border: 2px solid #fff; border-radius: 50%; }
    .cluster:focus, .point:focus { outline: 3px solid #1d2430; outline-offset: 1px; }
    .leaflet-container .leaflet-control-attribution { background: #fff; color: #1d2430; }
    .leaflet-container .leaflet-control-attribution a { color: #0a4f7a; }
    .pin::before, .swatch-pin::before { content: ""; position: absolute; left: 3px; top: 0; width: 18px;
      height: 18px; background: #1d2430; border: 3px solid #fff; border-radius: 50% 50% 50% 0;
      transform: rotate(-45deg); }
    .properties { margin: 0 0 6px; display: grid; grid-template-columns: auto 1fr; gap: 2px 8px; font-size: 13px; }
    .properties dt { font-weight: 600; }
    .properties dd { margin: 0; overflow-wrap: anywhere; }
    /* Country names on the map, from /v1/countries: under each news country's marker, never in a click's way. */
    .country-label { pointer-events: none; white-space: nowrap; text-align: center; font-size: 12px;
      font-weight: 600; color: #1d2430; text-shadow: 0 0 3px #fff, 0 0 3px #fff, 0 0 2px #fff; }
    .country-label[hidden] { display: none; }
    .country-label > span { position: absolute; left: 0; top: 0; transform: translate(-50%, 13px); }
    /* The legend: what the markers, the shading and the pin mean. */
    .legend { background: #fff; border-radius: 4px; box-shadow: 0 1px 5px #0004; padding: 4px 8px;
      font-size: 13px; max-width: 260px; }
    .legend summary { cursor: pointer; font-weight: 600; }
    .legend ul { list-style: none; margin: 4px 0 2px; padding: 0; }
    .legend li { display: flex; align-items: center; gap: 8px; margin: 3px 0; }
    .legend li > span:first-child { flex: none; position: relative; width: 24px; height: 24px; }
    .swatch-cluster { font-size: 11px; }
    .swatch-news, .swatch-other { border: 1px solid #7d8593; }
    .swatch-news { background: #f2d59b; }
    .swatch-other { background: #e6e4dd; }
    .swatch-pin { height: 30px !important; }
    @media (max-width: 640px) {
      header { padding: 6px 8px; gap: 6px; }
      header h1, header .words { position: absolute; width: 1px; height: 1px; overflow: hidden;
        clip: rect(0 0 0 0); white-space: nowrap; }
      #find { flex: 1 1 auto; }
      header button { padding: 3px 8px; }
      /* The headlines in a bottom sheet over the map, which keeps the screen: at most 40% of its height. */
      #panel { position: absolute; left: 0; right: 0; bottom: 0; z-index: 1050; width: auto; max-height: 40%;
        border-left: 0; border-radius: 12px 12px 0 0; box-shadow: 0 -2px 12px #0005; padding-top: 16px; }
      #panel::before { content: ""; position: absolute; top: 6px; left: calc(50% - 20px); width: 40px;
        height: 4px; border-radius: 2px; background: #ccd; }
      /* The hint spans the map's top; the legend, folded, waits under it until it is hidden. */
      #hint { left: 52px; right: 8px; max-width: none; font-size: 12px; }
      main:has(#hint:not([hidden])) .leaflet-top.leaflet-right { top: 48px; }
    }

    """#

  static let script = #"""
    "use strict";
    (function () {
      const params = new URLSearchParams(location.search);
      // The service wrote the page in its language (?lang=), and the script's messages into it: the catalogue's
      // templates, {1}, {2}… for values, so every sentence has one home (AtlasMessages).
      const lang = document.documentElement.lang;
      const words = JSON.parse(document.getElementById("words").textContent);
      /** A template with its {1}, {2}… or {named} fields in place; a field `value` does not know stays. */
      function fill(template, value) {
        return template.replace(/\{(\w+)\}/g, (field, key) => {
          const given = value(key);
          return given === undefined ? field : String(given);
        });
      }
      /** The catalogue's message `name` in the page's language, `values` in its {1}, {2}… */
      function text(name, ...values) {
        if (!(name in words)) throw new Error(name);  // a message the service did not write: a defect
        return fill(words[name], (key) => values[Number(key) - 1]);
      }
      const switcher = document.getElementById("lang");
      const otherHref = switcher.getAttribute("href");  // ?lang= the other language
      switcher.href = otherHref + location.hash;
      /** A choice kept in the browser between visits (the panel's category and favourite source). */
      function kept(key) { try { return localStorage.getItem("newsatlas." + key) || ""; } catch (e) { return ""; } }
      function keep(key, value) { try { localStorage.setItem("newsatlas." + key, value); } catch (e) { /* private */ } }
      const MONTHS = ["monthJanuary", "monthFebruary", "monthMarch", "monthApril", "monthMay", "monthJune",
        "monthJuly", "monthAugust", "monthSeptember", "monthOctober", "monthNovember", "monthDecember"];
      /** A date as the CLI prints it (HumanDate: the catalogue's layouts dateOnDay and dateToday, its words), in
       *  the page's language and the reader's time zone: "24 Nov 2026, 11:30", "Le 24/11/2026 à 11:30", today
       *  "11:30 (2 h ago)"; the text as given when it is not a date. */
      function humanDate(published, now = new Date()) {
        if (!published) return text("dateUnknown");
        const date = new Date(published);
        if (isNaN(date)) return published;
        const two = (n) => String(n).padStart(2, "0");
        const fields = { hour: two(date.getHours()), minute: two(date.getMinutes()) };
        const age = now - date;
        if (age >= 0 && date.toDateString() === now.toDateString()) {
          const minutes = Math.floor(age / 60000);
          fields.ago = minutes === 0 ? text("dateJustNow")
            : minutes < 60 ? text("dateMinutesAgo", minutes) : text("dateHoursAgo", Math.floor(minutes / 60));
          return fill(text("dateToday"), (key) => fields[key]);
        }
        Object.assign(fields, { day: String(date.getDate()), day2: two(date.getDate()),
          month2: two(date.getMonth() + 1), monthName: text(MONTHS[date.getMonth()]),
          year: String(date.getFullYear()) });
        return fill(text("dateOnDay"), (key) => fields[key]);
      }

      /** The URL if it is an absolute http or https one, else null (it then becomes no link). */
      function safeHref(url) {
        try {
          const parsed = new URL(url);
          return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
        } catch (error) {
          return null;
        }
      }
      /** The service's answer; its error sentences in the page's language (it reads Accept-Language). */
      async function getJSON(url, options) {
        const headers = { ...((options && options.headers) || {}), "Accept-Language": lang };
        let response;
        try {
          response = await fetch(url, { ...(options || {}), headers });
        } catch (failure) {  // no answer at all (the browser's "Failed to fetch"): said for people, with a retry
          const error = new Error(text("mapUnreachable"));
          error.unreachable = true;
          throw error;
        }
        const body = await response.json().catch(() => ({ error: response.statusText }));
        if (!response.ok) {
          const error = new Error(body.error || response.statusText);
          error.body = body;  // the rest of the answer (a search's "candidates")
          throw error;
        }
        return body;
      }
      const messageText = document.getElementById("message-text");
      const offer = document.getElementById("offer");
      function say(sentence) { messageText.textContent = sentence; offer.hidden = true; }
      /** A failure on the message line: the service's sentence, or, when it could not be reached, ours and a
       *  Retry button that does `again`. */
      function sayFailed(error, again) {
        if (!error.unreachable) { say(text("mapFailed", error.message)); return; }
        say(error.message);
        if (!again) return;
        offer.textContent = text("mapRetry");
        offer.hidden = false;
        offer.onclick = () => { say(""); again(); };
      }

      // The view: #zoom/lat/lon, read at start and whenever it changes, written as the map moves.
      // After the view, the dataset and the filter when there are some: #zoom/lat/lon&dataset=…&property=…&value=…
      function readHash() {
        const m = /^#(\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)(?:&(.*))?$/.exec(location.hash);
        return m ? { zoom: +m[1], lat: +m[2], lon: +m[3], state: new URLSearchParams(m[4] || "") } : null;
      }
      const start = readHash() || { zoom: 2, lat: 25, lon: 10, state: new URLSearchParams() };
      const map = L.map("map", { minZoom: 1, maxZoom: 18, worldCopyJump: true, keyboard: true });
      map.createPane("labels").style.zIndex = 450;  // above the borders, below the markers
      map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
      map.attributionControl.addAttribution(text("mapBorders"));
      map.setView([start.lat, start.lon], start.zoom);
      window.addEventListener("hashchange", () => {
        const view = readHash();
        if (view) {
          map.setView([view.lat, view.lon], view.zoom);
          showState(view.state);
        }
      });
      /** The view, then the dataset and the filter as they are now, so a view and its filter can be shared and
       *  reloaded (the language link keeps them too). */
      function writeURL() {
        const c = map.getCenter();
        const state = new URLSearchParams();
        if (dataset !== "markers") state.set("dataset", dataset);
        if (filterProperty) { state.set("property", filterProperty); state.set("value", filterTyped); }
        const rest = state.toString();
        const hash = `#${map.getZoom()}/${c.lat.toFixed(4)}/${c.lng.toFixed(4)}` + (rest ? "&" + rest : "");
        if (location.hash !== hash) history.replaceState(null, "", location.pathname + location.search + hash);
        switcher.href = otherHref + hash;
      }

      // The base map: land and borders from the service's Natural Earth data, the news countries shaded. Far out,
      // the whole world in one answer per zoom; from TILED_FROM in, the view's web-map tiles alone, each clipped
      // to its tile (/v1/basemap?zoom=&x=&y=): their land filled in one pane, their borders stroked in one above,
      // so no tile's edge is drawn as a border.
      const TILED_FROM = 5, FINEST_TILES = 10;
      map.createPane("land").style.zIndex = 350;
      map.createPane("borders").style.zIndex = 360;
      const borderStyle = { color: "#7d8593", weight: 0.7, fill: false };
      function landStyle(feature) {
        const fillColor = feature.properties.news ? "#f2d59b" : "#e6e4dd";
        return feature.properties.part === "land" ? { stroke: false, fillOpacity: 1, fillColor }
          : { ...borderStyle, fill: true, fillOpacity: 1, fillColor };  // the world's: filled and stroked at once
      }
      const shownParts = new Map();  // "world/Z" or "Z/X/Y" (X unwrapped) -> { layers, features, shift }
      const fetched = new Map();  // URL -> its answer (a promise), asked once
      function ask(url) {
        if (!fetched.has(url)) {
          fetched.set(url, getJSON(url).catch((error) => {
            fetched.delete(url);  // asked again on the next move or retry
            throw error;
          }));
        }
        return fetched.get(url);
      }
      /** The parts of the base map the view needs: the world at its zoom, or the tiles it shows. */
      function wantedParts() {
        const zoom = Math.max(0, Math.floor(map.getZoom()));
        if (zoom < TILED_FROM) return [`world/${zoom}`];
        const z = Math.min(zoom, FINEST_TILES), n = 2 ** z;
        const b = map.getBounds();
        const column = (lon) => Math.floor((lon + 180) / 360 * n);
        const row = (lat) => {
          const s = Math.sin(Math.max(-85.05, Math.min(85.05, lat)) * Math.PI / 180);
          return Math.min(n - 1, Math.max(0, Math.floor((0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * n)));
        };
        const keys = [];
        for (let x = column(b.getWest()); x <= column(b.getEast()); x++) {
          for (let y = row(b.getNorth()); y <= row(b.getSouth()); y++) keys.push(`${z}/${x}/${y}`);
        }
        return keys;
      }
      /** A part's URL and how far east of its stored place it is drawn (a tile of a copy of the world). */
      function partSource(key) {
        const [z, x, y] = key.split("/");
        if (z === "world") return { url: `/v1/basemap?zoom=${x}`, shift: 0 };
        const n = 2 ** Number(z), wrapped = ((Number(x) % n) + n) % n;
        return { url: `/v1/basemap?zoom=${z}&x=${wrapped}&y=${y}`, shift: (Number(x) - wrapped) / n * 360 };
      }
      function shifted(shift) { return (c) => L.latLng(c[1], c[0] + shift); }
      function drawPart(key, data, shift) {
        const land = data.features.filter((f) => f.properties.part !== "border");
        const lines = data.features.filter((f) => f.properties.part === "border");
        const options = { interactive: false, coordsToLatLng: shifted(shift) };
        const layers = [L.geoJSON(land, { ...options, pane: "land", style: landStyle }).addTo(map),
          L.geoJSON(lines, { ...options, pane: "borders", style: () => borderStyle }).addTo(map)];
        shownParts.set(key, { layers, features: data.features, shift });
      }
      async function updateBasemap() {
        const missing = wantedParts().filter((key) => !shownParts.has(key));
        const answers = await Promise.all(missing.map((key) => ask(partSource(key).url)));
        const wanted = wantedParts();
        missing.forEach((key, i) => {
          if (wanted.includes(key) && !shownParts.has(key)) drawPart(key, answers[i], partSource(key).shift);
        });
        for (const [key, part] of [...shownParts]) {
          if (wanted.includes(key)) continue;
          part.layers.forEach((layer) => layer.remove());
          shownParts.delete(key);
        }
        document.body.dataset.basemap = [...shownParts.keys()].join(" ");  // the parts drawn, for tests
        drawOutline();
      }
      // The chosen country (the one whose news the panel shows), outlined from the same borders.
      const outline = L.layerGroup().addTo(map);
      let outlined = "";
      function drawOutline() {
        outline.clearLayers();
        let drawn = 0;
        for (const part of shownParts.values()) {
          const shape = outlined
            ? part.features.filter((f) => f.properties.code === outlined && f.properties.part !== "land") : [];
          if (!shape.length) continue;
          drawn += shape.length;
          L.geoJSON(shape, { interactive: false, coordsToLatLng: shifted(part.shift),
            style: () => ({ color: "#1d2430", weight: 3, fill: false }) }).addTo(outline);
        }
        document.body.dataset.outlined = drawn ? outlined : "";  // what the page outlines, for tests
      }
      function outlineCountry(code) { outlined = code || ""; drawOutline(); }
      // A pin where the map was clicked (or the typed place), so the place asked about is seen.
      const pin = L.marker([0, 0], { icon: L.divIcon({ className: "pin", iconSize: [24, 30], iconAnchor: [12, 30] }),
        interactive: false, keyboard: false });
      function placePin(lat, lon) { pin.setLatLng([lat, lon]).addTo(map); }

      // The legend: what the markers, the shading and the pin mean; open where the screen has room for it.
      const legend = L.control({ position: "topright" });
      legend.onAdd = () => {
        const box = L.DomUtil.create("details", "legend");
        box.id = "legend";
        const narrow = matchMedia("(max-width: 640px)");
        box.open = !narrow.matches;
        narrow.addEventListener("change", () => { box.open = !narrow.matches; });
        const summary = document.createElement("summary");
        summary.textContent = text("mapLegend");
        const items = document.createElement("ul");
        for (const [swatch, name, label] of [["swatch-cluster", "mapLegendCluster", "3"],
          ["swatch-point", "mapLegendPoint"], ["swatch-news", "mapLegendNewsCountry"],
          ["swatch-other", "mapLegendOtherCountry"], ["swatch-pin", "mapLegendPin"]]) {
          const item = document.createElement("li");
          const mark = document.createElement("span");
          mark.className = swatch;
          mark.setAttribute("aria-hidden", "true");
          if (label) mark.textContent = label;
          const said = document.createElement("span");
          said.textContent = text(name);
          item.append(mark, said);
          items.append(item);
        }
        box.append(summary, items);
        L.DomEvent.disableClickPropagation(box);
        L.DomEvent.disableScrollPropagation(box);
        return box;
      };
      legend.addTo(map);

      // The one-line hint, until the reader hides it (remembered in the browser).
      const hint = document.getElementById("hint");
      hint.hidden = kept("hintHidden") === "1";
      document.getElementById("hint-close").addEventListener("click", () => {
        hint.hidden = true;
        keep("hintHidden", "1");
      });

      // The tools (dataset, typed coordinates, filter, whole world) folded into one control in the header.
      const tools = document.getElementById("tools");
      const toolsToggle = document.getElementById("tools-toggle");
      function showTools(open) {
        tools.hidden = !open;
        toolsToggle.setAttribute("aria-expanded", String(open));
      }
      toolsToggle.addEventListener("click", () => {
        showTools(tools.hidden);
        if (!tools.hidden) tools.querySelector("select").focus();
      });

      // Clusters of the chosen dataset, for the view.
      const select = document.getElementById("dataset");
      let dataset = start.state.get("dataset") || "markers";
      const clusters = L.layerGroup().addTo(map);
      let generation = 0;
      // A filter on the dataset's points: one property equal to one value (a number or true/false when typed
      // as one, else text), sent as the MapLibre expression ["==", ["get", property], value]; from the URL first.
      let filterProperty = (start.state.get("property") || "").trim();
      let filterTyped = (start.state.get("value") || "").trim();
      let filter = filterExpression(filterProperty, filterTyped);  // as JSON, or "" for every point
      function filterExpression(property, typed) {
        let value = typed;
        if (/^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false)$/.test(typed)) value = JSON.parse(typed);
        return property ? JSON.stringify(["==", ["get", property], value]) : "";
      }
      function filterQuery() { return filter ? `&filter=${encodeURIComponent(filter)}` : ""; }
      function viewBox() {
        const b = map.getBounds();
        let west = b.getWest(), east = b.getEast();
        if (east - west >= 360) { west = -180; east = 180; } else {
          const wrap = (x) => ((((x + 180) % 360) + 360) % 360) - 180;
          west = wrap(west); east = wrap(east);
        }
        const south = Math.max(-90, b.getSouth()), north = Math.min(90, b.getNorth());
        return [west, south, east, north].map((v) => v.toFixed(6)).join(",");
      }
      // The markers are one tab stop (a roving tabindex), not one each: Tab reaches the first in reading order
      // (top to bottom, left to right on the screen), the arrow keys, Home and End move between them, and Enter
      // or Space opens the one focused as a click does.
      let roving = [];
      function roveMarkers() {
        const was = roving.indexOf(document.activeElement);
        const placed = [];
        clusters.eachLayer((marker) => {
          const element = marker.getElement();
          if (element) placed.push({ element, at: map.latLngToContainerPoint(marker.getLatLng()) });
        });
        placed.sort((a, b) => Math.floor(a.at.y / 48) - Math.floor(b.at.y / 48) || a.at.x - b.at.x);
        roving = placed.map((p) => p.element);
        roving.forEach((element, i) => { element.tabIndex = i === 0 ? 0 : -1; });
        if (was >= 0 && roving.length) roving[0].focus();  // the focused marker was redrawn: stay among them
      }
      function markerKeys(marker) {
        const element = marker.getElement();
        if (!element) return;
        element.setAttribute("role", "button");
        element.setAttribute("aria-label", marker.options.title);
        L.DomEvent.on(element, "keydown", (event) => {
          const key = event.key.toLowerCase();
          if (key === "enter" || key === " ") {
            L.DomEvent.stop(event);
            opener = element;
            marker.fire("click");
            return;
          }
          const steps = { arrowright: 1, arrowdown: 1, arrowleft: -1, arrowup: -1 };
          let next = roving.indexOf(element);
          if (key in steps) next = (next + steps[key] + roving.length) % roving.length;
          else if (key === "home") next = 0;
          else if (key === "end") next = roving.length - 1;
          else return;
          L.DomEvent.stop(event);
          element.tabIndex = -1;
          roving[next].tabIndex = 0;
          roving[next].focus();
        });
      }
      /** Whether a feature is a cluster the server made: its feature id is its cluster_id and its counts are
       *  whole numbers (a dataset's own point may carry any properties, "cluster": true among them). */
      function isCluster(feature) {
        const p = feature.properties;
        return p.cluster === true && Number.isInteger(p.cluster_id) && feature.id === p.cluster_id
          && Number.isInteger(p.point_count) && p.point_count >= 2;
      }
      async function updateClusters() {
        const mine = ++generation;
        const zoom = Math.floor(map.getZoom());
        // Revalidated (If-None-Match, a 304 when unchanged): a dataset written over HTTP has new clusters at the
        // same URL, which the browser's cache would otherwise answer for the answer's max-age.
        const data = await getJSON(
          `/v1/datasets/${encodeURIComponent(dataset)}/clusters?zoom=${zoom}&bbox=${viewBox()}${filterQuery()}`,
          { cache: "no-cache" });
        if (mine !== generation) return;
        clusters.clearLayers();
        for (const feature of data.features) {
          const [lon, lat] = feature.geometry.coordinates;
          const p = feature.properties;
          // A cluster is what the server made one: its feature id is its cluster_id and its counts are whole
          // numbers. A dataset's own point may carry any properties ("cluster": true and a label of HTML
          // among them), so nothing of a feature's properties is ever markup: the label is text.
          if (isCluster(feature)) {
            const size = p.point_count < 10 ? 30 : p.point_count < 100 ? 36 : 44;
            const label = document.createElement("span");
            label.textContent = p.point_count >= 1000
              ? `${p.point_count >= 10000 ? Math.round(p.point_count / 1000) : Math.round(p.point_count / 100) / 10}k`
              : String(p.point_count);
            const marker = L.marker([lat, lon], {
              icon: L.divIcon({ className: "cluster", html: label, iconSize: [size, size] }),
              title: text("mapCluster", p.point_count), alt: String(p.point_count), keyboard: true,
            });
            marker.on("click", async () => {
              const answer = await getJSON(
                `/v1/datasets/${encodeURIComponent(dataset)}/clusters/${p.cluster_id}/expansion-zoom?${filterQuery().slice(1)}`);
              map.setView([lat, lon], answer.expansionZoom);
            });
            marker.addTo(clusters);
            markerKeys(marker);
          } else if (dataset === "markers") {
            // The markers are the news countries: a click opens the country's news.
            const name = lang === "fr" && p.nameFr ? p.nameFr : (p.name || text("mapPoint"));
            const marker = L.marker([lat, lon], {
              icon: L.divIcon({ className: "point", iconSize: [24, 24] }), title: name, alt: name, keyboard: true,
            });
            marker.on("click", () => openPlace(lat, lon));
            marker.addTo(clusters);
            markerKeys(marker);
          } else {
            // A point of the reader's own dataset: its own properties (as text), and its place's news on asking.
            const name = summary(p);
            const marker = L.marker([lat, lon], {
              icon: L.divIcon({ className: "point", iconSize: [24, 24] }), title: name, alt: name, keyboard: true,
            });
            marker.bindPopup(() => pointPopup(p, lat, lon), { maxWidth: 280 });
            marker.addTo(clusters);
            markerKeys(marker);
          }
        }
        roveMarkers();
        placeLabels();  // around the markers as now drawn
        document.body.dataset.view = `${zoom}:${data.features.length}`;  // what the page shows, for tests
        document.body.dataset.points =
          String(data.features.reduce((n, f) => n + (f.properties.point_count || 1), 0));
      }

      /** A point's name for its tooltip: its name, else its first properties as key: value, else "Point". */
      function summary(properties) {
        if (typeof properties.name === "string" && properties.name) return properties.name;
        const pairs = Object.keys(properties).slice(0, 3).map((k) => `${k}: ${valueText(properties[k])}`).join(", ");
        return pairs ? (pairs.length > 80 ? pairs.slice(0, 79) + "\u2026" : pairs) : text("mapPoint");
      }
      /** A property's value as text: a string as it is, anything else as JSON. */
      function valueText(value) { return typeof value === "string" ? value : JSON.stringify(value); }
      /** A dataset point's popup: its properties as a list of text (never markup), and a button for its news. */
      function pointPopup(properties, lat, lon) {
        const box = document.createElement("div");
        const keys = Object.keys(properties);
        if (keys.length) {
          const list = document.createElement("dl");
          list.className = "properties";
          for (const key of keys) {
            const term = document.createElement("dt");
            term.textContent = key;
            const value = document.createElement("dd");
            value.textContent = valueText(properties[key]);
            list.append(term, value);
          }
          box.append(list);
        } else {
          const none = document.createElement("p");
          none.textContent = text("mapNoProperties");
          box.append(none);
        }
        const news = document.createElement("button");
        news.type = "button";
        news.className = "popup-news";
        news.textContent = text("mapNewsHere");
        news.addEventListener("click", () => { map.closePopup(); openPlace(lat, lon, true); });
        box.append(news);
        return box;
      }

      // A place: its news country, then that country's headlines.
      const panel = document.getElementById("panel");
      const title = document.getElementById("panel-title");
      const status = document.getElementById("panel-status");
      const list = document.getElementById("panel-list");
      const retry = document.getElementById("panel-retry");
      /** The panel's status line: a sentence, a spinner while `busy`, and a Retry button doing `again` if given. */
      function setStatus(sentence, busy = false, again = null) {
        status.textContent = sentence;
        status.classList.toggle("busy", busy);
        retry.hidden = !again;
        retry.onclick = again && (() => { retry.hidden = true; again(); });
      }
      let opener = null;  // what had the focus when the panel opened: given it back when Escape closes it
      document.addEventListener("keydown", (event) => {
        if (event.key.toLowerCase() !== "escape") return;
        if (!tools.hidden) {  // the tools first: they open over the map
          showTools(false);
          toolsToggle.focus();
          return;
        }
        if (panel.hidden) return;
        const back = opener && document.contains(opener) ? opener : map.getContainer();
        closePanel();
        back.focus();
      });
      function closePanel() {
        panel.hidden = true;
        opener = null;
        shown = null;
        outlineCountry("");
        pin.remove();
      }
      document.getElementById("panel-close").addEventListener("click", closePanel);
      const categorySelect = document.getElementById("panel-category");
      const categories = { business: text("mapCategoryBusiness"), entertainment: text("mapCategoryEntertainment"),
        general: text("mapCategoryGeneral"), health: text("mapCategoryHealth"), science: text("mapCategoryScience"),
        sports: text("mapCategorySports"), technology: text("mapCategoryTechnology") };
      categorySelect.replaceChildren(new Option(text("mapTopHeadlines"), ""),
        ...Object.keys(categories).map((c) => new Option(categories[c], c)));
      categorySelect.value = kept("category");  // "" when the kept one is no longer offered
      if (categorySelect.selectedIndex < 0) categorySelect.value = "";
      let shown = null;  // the country in the panel and what was said of the place
      categorySelect.addEventListener("change", () => {
        keep("category", categorySelect.value);
        if (shown) showCountry(shown.country, shown.where);
      });
      // The favourite sources (the server's sources setting, GET /v1/sources): one chosen is shown with every
      // country's headlines, asked in the same request (source=), as the CLI's headlines asks --source.
      const sourceSelect = document.getElementById("panel-source");
      const sourceTitle = document.getElementById("panel-source-title");
      const sourceStatus = document.getElementById("panel-source-status");
      const sourceList = document.getElementById("panel-source-list");
      const favourites = getJSON("/v1/sources").then((answer) => {
        const ids = answer.sources.map((s) => s.id);
        sourceSelect.replaceChildren(new Option(text("mapNoFavouriteSource"), ""), ...ids.map((id) => new Option(id, id)));
        sourceSelect.value = ids.includes(kept("source")) ? kept("source") : "";
        sourceSelect.hidden = ids.length === 0;
        document.body.dataset.sources = ids.join(" ");  // what the page offers, for tests
      }).catch(() => { sourceSelect.hidden = true; });
      sourceSelect.addEventListener("change", () => {
        keep("source", sourceSelect.value);
        if (shown) showCountry(shown.country, shown.where);
      });

      /** Kilometres as the page's language writes a whole number of them ("2,535", "2 535"). */
      function kilometres(km) { return number(Math.round(km)); }
      /** A whole number as the page's language writes it; "?" when it is not known. */
      function number(n) { return n === undefined ? "?" : n.toLocaleString(lang === "fr" ? "fr-FR" : "en-GB"); }
      let asked = 0;  // the latest place asked about: an older answer arriving late is dropped
      /** A place: its news country (the one it is in, else the nearest), then that country's headlines; `pinned`
       *  puts a pin there. A place in no country at all (the sea) offers the nearest news country instead. */
      async function openPlace(lat, lon, pinned = false) {
        const mine = ++asked;
        if (panel.hidden && !opener) opener = document.activeElement;
        if (pinned) placePin(lat, lon);
        say("");
        panel.hidden = false;
        title.textContent = "";
        setStatus(text("mapLoading"), true);
        list.replaceChildren();
        try {
          const place = await getJSON(`/v1/resolve?lat=${lat.toFixed(5)}&lon=${lon.toFixed(5)}`);
          if (mine !== asked) return;
          const km = kilometres(place.distanceKm);
          if (place.containing === null) {
            closePanel();
            if (pinned) placePin(lat, lon);
            const country = place.country;
            say(text("mapNearestOffer", lang === "fr" ? country.nameFr : country.name, km));
            offer.textContent = text("mapShowNews");
            offer.hidden = false;
            offer.onclick = () => { say(""); showCountry(country, text("mapNearest", km)); };
            return;
          }
          const where = place.method === "nearest" ? text("mapNearest", km) : "";
          await showCountry(place.country, where);
        } catch (error) {
          if (mine !== asked) return;
          if (error.unreachable) setStatus(error.message, false, () => openPlace(lat, lon, pinned));
          else setStatus(text("mapFailed", error.message));
        }
      }

      /** A news country's headlines in the panel, in the chosen category. */
      async function showCountry(country, where) {
        const mine = ++asked;  // a later click or choice supersedes this one: its answer is not shown
        if (panel.hidden && !opener) opener = document.activeElement;
        shown = { country, where };
        panel.hidden = false;
        outlineCountry(country.code);
        title.textContent = lang === "fr" ? country.nameFr : country.name;
        title.dataset.code = country.code;
        setStatus(where || text("mapLoading"), true);
        list.replaceChildren();
        sourceList.replaceChildren();
        sourceTitle.hidden = true;
        sourceStatus.textContent = "";
        await favourites;
        const category = categorySelect.value, source = sourceSelect.value;
        list.dataset.category = category;
        sourceList.dataset.source = "";
        let answer;
        try {
          answer = await getJSON(`/v1/headlines?country=${country.code}&pageSize=10`
            + (category ? `&category=${category}` : "") + (source ? `&source=${encodeURIComponent(source)}` : ""));
        } catch (error) {
          if (mine !== asked) return;
          // --no-news or the budget: the service's sentence; no answer at all: ours, and a retry.
          setStatus(error.message, false, error.unreachable ? () => showCountry(country, where) : null);
          return;
        }
        if (mine !== asked || categorySelect.value !== category || sourceSelect.value !== source) return;
        const result = answer.results[0];
        list.dataset.provider = result.provider;  // which provider answered, for tests
        // Categories are offered only when the provider that answers has them (NewsAPI; GDELT and feeds have
        // none): a category kept from a server that had them is asked again without.
        const categorised = result.provider === "newsapi";
        categorySelect.hidden = !categorised;
        if (!categorised && category) {
          categorySelect.value = "";
          return showCountry(country, where);
        }
        const favourite = answer.results.find((r) => r.source === source);
        if (source && favourite) {
          sourceTitle.textContent = source;
          sourceTitle.hidden = false;
          if (favourite.error) sourceStatus.textContent = favourite.error.message;
          else if (favourite.articles.length === 0) sourceStatus.textContent = favourite.reason || text("mapNoNews");
          else showArticles(sourceList, favourite.articles);
          sourceList.dataset.source = source;
        }
        if (result.error) { setStatus(result.error.message); return; }
        if (result.articles.length === 0) { setStatus(result.reason || text("mapNoNews")); return; }
        // The provider that answered, and how: "GDELT · by source country"; each article names its source.
        setStatus([where, providers[result.provider], via[result.strategy]].filter((x) => x).join(" · "));
        showArticles(list, result.articles);
      }

      const providers = { newsapi: "NewsAPI", gdelt: "GDELT", feeds: text("mapProviderFeeds") };
      const via = { country: text("headlinesViaTop"), sources: text("headlinesViaSources"),
        search: text("headlinesViaSearch"), sourcecountry: text("mapViaSourceCountry"),
        feeds: text("headlinesViaFeeds"), none: "" };

      /** Articles as list items: a link (http(s) only), the source and date, the picture and description. */
      function showArticles(list, articles) {
        for (const article of articles) {
          const item = document.createElement("li");
          // Only an http(s) URL becomes a link: a javascript: or data: URL from a feed stays text.
          const href = safeHref(article.url);
          const link = document.createElement(href ? "a" : "span");
          if (href) {
            link.href = href;
            link.rel = "noopener noreferrer";
            link.target = "_blank";
          }
          link.textContent = article.title;
          const meta = document.createElement("div");
          const source = document.createElement("span");
          source.className = "source";
          source.textContent = article.source.name + " · ";
          const time = document.createElement("time");
          if (article.publishedAt) time.dateTime = article.publishedAt;
          time.textContent = humanDate(article.publishedAt);
          meta.append(source, time);
          item.append(link, meta);
          // The article's picture (from its publisher, an http(s) URL only) and description, as the app showed.
          const image = article.imageUrl && safeHref(article.imageUrl);
          if (image) {
            const picture = document.createElement("img");
            picture.src = image;
            picture.alt = "";
            picture.loading = "lazy";
            picture.referrerPolicy = "no-referrer";
            picture.addEventListener("error", () => { picture.hidden = true; });  // no broken-image icon
            item.append(picture);
          }
          if (article.description) {
            const description = document.createElement("p");
            description.className = "description";
            description.textContent = article.description;
            item.append(description);
          }
          list.append(item);
        }
      }
      // A click on the map while the tools are open closes them, as a popover closes, and opens nothing.
      map.on("click", (event) => {
        if (!tools.hidden) {
          showTools(false);
          return;
        }
        openPlace(event.latlng.lat, event.latlng.lng, true);
      });

      // "Near me": typed coordinates, or the browser's location where the user allows it.
      const form = document.getElementById("near");
      const latInput = document.getElementById("near-lat");
      const lonInput = document.getElementById("near-lon");
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const lat = Number(latInput.value.trim()), lon = Number(lonInput.value.trim());
        if (!latInput.value.trim() || !lonInput.value.trim() || !isFinite(lat) || !isFinite(lon)
            || Math.abs(lat) > 90 || Math.abs(lon) > 180) { say(text("mapBadPlace")); return; }
        say("");
        map.setView([lat, lon], Math.max(map.getZoom(), 5));
        openPlace(lat, lon, true);
      });
      document.getElementById("locate").addEventListener("click", () => {
        if (!navigator.geolocation) { say(text("mapNoLocation")); return; }
        navigator.geolocation.getCurrentPosition(async (position) => {
          const lat = position.coords.latitude, lon = position.coords.longitude;
          latInput.value = lat.toFixed(4);
          lonInput.value = lon.toFixed(4);
          try {
            // The country the reader is in (else the nearest): offered, not forced, as the app asked.
            const place = await getJSON(`/v1/resolve?lat=${lat.toFixed(5)}&lon=${lon.toFixed(5)}`);
            const country = place.country;
            say(text("mapOffer", lang === "fr" ? country.nameFr : country.name));
            offer.textContent = text("mapYes");
            offer.hidden = false;
            offer.onclick = () => { say(""); goToCountry(country.code); };
          } catch (error) {
            sayFailed(error, () => document.getElementById("locate").click());
          }
        }, () => say(text("mapNoLocation")));
      });

      // The 54 news countries (/v1/countries), for the search box's completions: English and French names.
      let countries = [];
      const countryList = getJSON("/v1/countries").then((answer) => {
        countries = answer.countries.map((c) => ({ code: c.code, name: c.name, nameFr: c.nameFr,
          lat: c.latitude, lon: c.longitude }));
        const names = [];
        for (const c of countries) {
          names.push(new Option(lang === "fr" ? c.nameFr : c.name, undefined));
          names.push(new Option(lang === "fr" ? c.name : c.nameFr, undefined));
        }
        for (const option of names) option.value = option.text;
        document.getElementById("countries").replaceChildren(...names);
        return countries;
      }).catch((error) => { sayFailed(error, null); return countries; });
      // Country names on the map, from the same list: each under its marker from zoom 3; where one would cover
      // a marker or a name placed before it (earlier in the list), it is left out. Text only, never in the way of
      // a click or a tab stop.
      const LABELS_FROM = 3;
      const labels = [];
      countryList.then((list) => {
        for (const c of list) {
          const name = document.createElement("span");
          name.textContent = lang === "fr" ? c.nameFr : c.name;
          const label = L.marker([c.lat, c.lon], { pane: "labels", interactive: false, keyboard: false,
            icon: L.divIcon({ className: "country-label", html: name, iconSize: [0, 0], iconAnchor: [0, 0] }) });
          label.addTo(map);
          label.getElement().setAttribute("aria-hidden", "true");
          labels.push(label);
        }
        placeLabels();
      });
      function placeLabels() {
        const shown = map.getZoom() >= LABELS_FROM;
        const taken = [...document.querySelectorAll(".cluster, .point")].map((e) => e.getBoundingClientRect());
        for (const label of labels) {
          const element = label.getElement();
          if (!element) continue;
          element.hidden = !shown;
          if (!shown) continue;
          const r = element.firstChild.getBoundingClientRect();
          const clash = taken.some((t) => r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom);
          element.hidden = clash;
          if (!clash) taken.push(r);
        }
      }
      map.on("moveend", placeLabels);  // after a zoom too
      async function goToCountry(code) {
        await countryList;
        const country = countries.find((c) => c.code === code);
        if (!country) return;
        map.setView([country.lat, country.lon], 5);
        showCountry(country, "");
      }
      // A typed name is read by the service as --country reads it (a code, an English or French name, uk, usa,
      // the start or part of one name). Beside the box: a name no country has is said so, and a name several
      // have lists them to choose from (the 404's "candidates").
      const findSaid = document.getElementById("find-said");
      document.getElementById("find").addEventListener("submit", async (event) => {
        event.preventDefault();
        const typed = document.getElementById("find-country").value.trim();
        findSaid.replaceChildren();
        try {
          const answer = await getJSON(`/v1/countries?q=${encodeURIComponent(typed)}`);
          say("");
          goToCountry(answer.countries[0].code);
        } catch (error) {
          if (error.unreachable) { sayFailed(error, () => event.target.requestSubmit()); return; }
          await countryList;
          const named = (error.body && error.body.candidates || []).map((c) => c.code);
          const candidates = countries.filter((c) => named.includes(c.code));
          if (candidates.length < 2) { findSaid.textContent = text("mapNoCountry", typed); return; }
          findSaid.textContent = text("mapWhichCountry", typed);
          for (const country of candidates) {
            const choice = document.createElement("button");
            choice.type = "button";
            choice.textContent = lang === "fr" ? country.nameFr : country.name;
            choice.dataset.code = country.code;
            choice.addEventListener("click", () => { findSaid.replaceChildren(); goToCountry(country.code); });
            findSaid.append(choice);
          }
        }
      });
      document.getElementById("world").addEventListener("click", () => map.setView([25, 10], 2));

      // The filter box: its count of what matches beside it ("5 of 20 features match"), a property the dataset
      // does not have said, and the dataset's property names offered (its TileJSON's vector_layers[].fields).
      const propertyInput = document.getElementById("filter-property");
      const valueInput = document.getElementById("filter-value");
      const filterCount = document.getElementById("filter-count");
      propertyInput.value = filterProperty;
      valueInput.value = filterTyped;
      const clusterFields = ["cluster", "cluster_id", "point_count", "point_count_abbreviated"];
      let fields = null;  // the property names of the dataset on the map, once its TileJSON is read
      async function updateFields() {
        const asked = dataset;
        fields = null;
        const tileJSON = await getJSON(`/tiles/${encodeURIComponent(asked)}.json`);
        if (asked !== dataset) return;
        const names = new Set();
        for (const layer of tileJSON.vector_layers || []) {
          for (const name of Object.keys(layer.fields || {})) if (!clusterFields.includes(name)) names.add(name);
        }
        fields = [...names];
        document.getElementById("filter-properties").replaceChildren(...fields.map((name) => new Option(name, name)));
      }
      const pointCounts = new Map();  // each dataset's number of points, from /v1/datasets
      async function updateFilterCount() {
        if (!filter) { filterCount.textContent = ""; return; }
        const asked = `${dataset} ${filter}`;
        const [data] = await Promise.all([getJSON(
          `/v1/datasets/${encodeURIComponent(dataset)}/clusters?zoom=0${filterQuery()}`, { cache: "no-cache" }),
          fieldsRead]);
        if (asked !== `${dataset} ${filter}`) return;
        const matching = data.features.reduce((n, f) => n + (isCluster(f) ? f.properties.point_count : 1), 0);
        const said = [text("mapFilterCount", number(matching), number(pointCounts.get(dataset)))];
        if (fields && !fields.includes(filterProperty)) {
          said.push(text("mapUnknownProperty", filterProperty, dataset, fields.join(", ")));
        }
        filterCount.textContent = said.join(" · ");
        filterCount.dataset.matching = String(matching);  // for tests
      }
      let fieldsRead = updateFields().catch(() => {});
      /** The dataset and filter a link names (its #…&dataset=&property=&value=), shown if they are new. */
      function showState(state) {
        const named = state.get("dataset") || "markers";
        const property = (state.get("property") || "").trim(), typed = (state.get("value") || "").trim();
        if (named === dataset && property === filterProperty && typed === filterTyped) return;
        const otherDataset = named !== dataset;
        dataset = named;
        if (otherDataset) fieldsRead = updateFields().catch(() => {});
        select.value = dataset;
        [filterProperty, filterTyped] = [property, typed];
        [propertyInput.value, valueInput.value] = [property, typed];
        filter = filterExpression(property, typed);
        updateClusters().catch((error) => sayFailed(error, refresh));
        updateFilterCount().catch(() => {});
      }
      document.getElementById("filter").addEventListener("submit", (event) => {
        event.preventDefault();
        filterProperty = propertyInput.value.trim();
        filterTyped = valueInput.value.trim();
        filter = filterExpression(filterProperty, filterTyped);
        say(filterProperty ? text("mapFiltered", filterProperty, filterTyped) : "");
        writeURL();
        updateClusters().catch((error) => sayFailed(error, refresh));
        updateFilterCount().catch((error) => sayFailed(error, null));
      });

      // The datasets the service has, asked again every few seconds while the page is seen: a dataset written
      // over HTTP (PUT, POST …/features, DELETE) shows its new count, and its clusters are fetched again when
      // the one on the map changed (its version or content hash).
      let stamps = null;  // name -> "version:contentHash", as last seen
      async function updateDatasets() {
        const answer = await getJSON("/v1/datasets", { cache: "no-cache" });
        const labels = answer.datasets.map((d) => `${d.name} (${d.pointCount})`);
        if ([...select.options].map((o) => o.text).join("\n") !== labels.join("\n")) {
          select.replaceChildren(...answer.datasets.map((d, i) => new Option(labels[i], d.name)));
        }
        const seen = new Map(answer.datasets.map((d) => [d.name, `${d.version}:${d.contentHash}`]));
        for (const d of answer.datasets) pointCounts.set(d.name, d.pointCount);
        let changed = stamps !== null && stamps.get(dataset) !== seen.get(dataset);
        if (!seen.has(dataset)) {  // the dataset on the map was removed, or the URL named none
          dataset = "markers";
          changed = true;
          writeURL();
          fieldsRead = updateFields().catch(() => {});
        }
        select.value = dataset;
        stamps = seen;
        // For tests: each dataset's name and count, as the list shows them.
        document.body.dataset.datasets = answer.datasets.map((d) => `${d.name}:${d.pointCount}`).join(" ");
        if (changed) await Promise.all([updateClusters(), updateFilterCount()]);
      }
      const datasetsRead = updateDatasets()
        .catch((error) => sayFailed(error, () => { refresh(); updateDatasets().catch(() => {}); }));
      datasetsRead.then(() => updateFilterCount()).catch(() => {});
      const pollMilliseconds = Number(params.get("poll")) || 5000;  // ?poll=MS, 500 at the least
      setInterval(() => {
        if (!document.hidden) updateDatasets().catch(() => {});
      }, Math.max(500, pollMilliseconds));
      select.addEventListener("change", () => {
        dataset = select.value;
        writeURL();
        fieldsRead = updateFields().catch(() => {});
        updateClusters().catch((e) => sayFailed(e, refresh));
        updateFilterCount().catch(() => {});
      });

      function refresh() {
        writeURL();
        Promise.all([updateBasemap(), updateClusters()]).catch((error) => sayFailed(error, refresh));
      }
      map.on("moveend", refresh);
      refresh();
      window.newsAtlas = { map, openPlace, showCountry, goToCountry, humanDate, viewBox, safeHref, pin, showTools };
    })();

    """#
}
