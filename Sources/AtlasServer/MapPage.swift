/// The news map at `/`: one page, no build step, no CDN. Leaflet (Debian's libjs-leaflet, BSD-2-Clause) draws
/// the service's own answers: the base map from `/v1/basemap`, clusters from `/v1/datasets/{name}/clusters`,
/// places from `/v1/resolve`, headlines from `/v1/headlines`. English, or French with `?lang=fr`.
enum MapPage {
  static let html = #"""
    <!doctype html>
    <html lang="en">
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
      <label><span data-text="dataset">Dataset</span>
        <select id="dataset" aria-label="Dataset"><option value="markers">markers</option></select></label>
      <form id="near">
        <label><span data-text="latitude">Latitude</span>
          <input id="near-lat" inputmode="decimal" autocomplete="off" size="8" required aria-label="Latitude"></label>
        <label><span data-text="longitude">Longitude</span>
          <input id="near-lon" inputmode="decimal" autocomplete="off" size="8" required aria-label="Longitude"></label>
        <button type="submit" data-text="near">Near me</button>
        <button type="button" id="locate" data-text="locate">Use my location</button>
      </form>
      <form id="find">
        <input id="find-country" list="countries" autocomplete="off" size="14" required aria-label="Country">
        <datalist id="countries"></datalist>
        <button type="submit" data-text="find">Go</button>
      </form>
      <button type="button" id="world" data-text="world">Whole world</button>
      <form id="filter">
        <input id="filter-property" autocomplete="off" size="8" aria-label="Property">
        <input id="filter-value" autocomplete="off" size="8" aria-label="Value">
        <button type="submit" data-text="apply">Filter</button>
      </form>
      <a id="lang" href="?lang=fr" hreflang="fr">Français</a>
    </header>
    <main>
      <div id="map" role="region" aria-label="Map"></div>
      <aside id="panel" hidden aria-live="polite">
        <button type="button" id="panel-close" aria-label="Close">×</button>
        <h2 id="panel-title"></h2>
        <select id="panel-category" aria-label="Category"></select>
        <select id="panel-source" aria-label="Source" hidden></select>
        <p id="panel-status"></p>
        <ol id="panel-list"></ol>
        <h3 id="panel-source-title" hidden></h3>
        <p id="panel-source-status"></p>
        <ol id="panel-source-list"></ol>
      </aside>
    </main>
    <p id="message" role="status"><span id="message-text"></span><button type="button" id="offer" hidden></button></p>
    <script src="/static/leaflet/leaflet.js"></script>
    <script src="/map.js"></script>
    </body>
    </html>

    """#

  static let css = #"""
    * { box-sizing: border-box; }
    html, body { margin: 0; height: 100%; font: 15px/1.4 system-ui, sans-serif; color: #1d2430; }
    body { display: flex; flex-direction: column; }
    header { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; padding: 8px 12px;
      background: #1d2430; color: #fff; }
    header h1 { font-size: 18px; margin: 0 8px 0 0; }
    header form { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 0; }
    header input, header select, header button { font: inherit; padding: 3px 6px; }
    header a { color: #ffd479; }
    main { flex: 1; display: flex; min-height: 0; position: relative; }
    #map { flex: 1; background: #b9d3e6; }
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
    #message:has(#message-text:empty):has(#offer[hidden]) { display: none; }
    #message { position: absolute; bottom: 8px; left: 8px; margin: 0; padding: 4px 8px; background: #fff;
      z-index: 1000; }
    .cluster { background: rgba(214, 90, 49, 0.85); border: 2px solid #fff; border-radius: 50%; color: #fff;
      font-weight: 600; display: flex; align-items: center; justify-content: center; }
    .point { background: #d65a31; border: 2px solid #fff; border-radius: 50%; }
    .cluster:focus, .point:focus { outline: 3px solid #1d2430; }
    @media (max-width: 640px) {
      main { flex-direction: column; }
      #panel { width: auto; max-height: 45%; border-left: 0; border-top: 1px solid #ccd; }
      header label span { display: none; }
    }

    """#

  static let script = #"""
    "use strict";
    (function () {
      const params = new URLSearchParams(location.search);
      const lang = params.get("lang") === "fr" ? "fr" : "en";
      const TEXT = {
        en: { dataset: "Dataset", latitude: "Latitude", longitude: "Longitude", near: "Near me",
          locate: "Use my location", other: "Français", otherHref: "?lang=fr", close: "Close", map: "News map",
          loading: "Loading…", noNews: "No headlines for this country.", cluster: "{n} countries or points: zoom in",
          point: "Point", via: { country: "via top headlines", sources: "via its sources", search: "via a search",
            sourcecountry: "by source country", feeds: "from its feeds", none: "" },
          providers: { newsapi: "NewsAPI", gdelt: "GDELT", feeds: "Feeds" },
          inside: "", nearest: "Nearest news country, {km} km away", badPlace: "Type a latitude and a longitude in degrees.",
          noLocation: "Your browser gave no location.", failed: "The service did not answer: ",
          find: "Go", country: "Country", world: "Whole world", property: "Property", value: "Value", apply: "Filter",
          category: "Category", allCategories: "Top headlines", source: "Favourite source",
          noSource: "No favourite source",
          offer: "Centre on {name}, the news country nearest to you?", filtered: "Filter: {p} = {v}",
          categories: { business: "Business", entertainment: "Entertainment", general: "General", health: "Health",
            science: "Science", sports: "Sports", technology: "Technology" },
          months: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] },
        fr: { dataset: "Jeu de données", latitude: "Latitude", longitude: "Longitude", near: "Près de moi",
          locate: "Ma position", other: "English", otherHref: "?lang=en", close: "Fermer", map: "Carte des actualités",
          loading: "Chargement…", noNews: "Aucun titre pour ce pays.", cluster: "{n} pays ou points : zoomer",
          point: "Point", via: { country: "par les titres du pays", sources: "par ses sources", search: "par une recherche",
            sourcecountry: "par pays de la source", feeds: "par ses flux", none: "" },
          providers: { newsapi: "NewsAPI", gdelt: "GDELT", feeds: "Flux" },
          inside: "", nearest: "Pays d’actualités le plus proche, à {km} km", badPlace: "Saisissez une latitude et une longitude en degrés.",
          noLocation: "Le navigateur n’a donné aucune position.", failed: "Le service n’a pas répondu : ",
          find: "Aller", country: "Pays", world: "Monde entier", property: "Propriété", value: "Valeur",
          apply: "Filtrer", category: "Catégorie", allCategories: "À la une", source: "Source favorite",
          noSource: "Aucune source favorite",
          offer: "Centrer sur {name}, le pays d’actualités le plus proche ?", filtered: "Filtre : {p} = {v}",
          categories: { business: "Économie", entertainment: "Divertissement", general: "Général", health: "Santé",
            science: "Sciences", sports: "Sports", technology: "Technologie" } },
      };
      const t = TEXT[lang];
      document.documentElement.lang = lang;
      for (const node of document.querySelectorAll("[data-text]")) node.textContent = t[node.dataset.text];
      document.getElementById("near-lat").placeholder = t.latitude;  // the labels hide on a phone
      document.getElementById("near-lon").placeholder = t.longitude;
      const switcher = document.getElementById("lang");
      switcher.textContent = t.other;
      switcher.href = t.otherHref + location.hash;
      switcher.hreflang = lang === "fr" ? "en" : "fr";
      document.getElementById("map").setAttribute("aria-label", t.map);
      document.getElementById("panel-close").setAttribute("aria-label", t.close);
      document.getElementById("panel-category").setAttribute("aria-label", t.category);
      document.getElementById("panel-source").setAttribute("aria-label", t.source);
      /** A choice kept in the browser between visits (the panel's category and favourite source). */
      function kept(key) { try { return localStorage.getItem("newsatlas." + key) || ""; } catch (e) { return ""; } }
      function keep(key, value) { try { localStorage.setItem("newsatlas." + key, value); } catch (e) { /* private */ } }
      for (const [id, label] of [["find-country", t.country], ["filter-property", t.property],
        ["filter-value", t.value]]) {
        const input = document.getElementById(id);
        input.placeholder = label;
        input.setAttribute("aria-label", label);
      }
      /** A date in the page's language and the reader's time zone, as the CLI prints it: "24 Nov 2026, 11:30",
       *  "Le 24/11/2026 à 11:30"; the text as given when it is not a date. */
      function humanDate(text) {
        const date = new Date(text);
        if (isNaN(date)) return text;
        const two = (n) => String(n).padStart(2, "0");
        const clock = `${two(date.getHours())}:${two(date.getMinutes())}`;
        return lang === "fr"
          ? `Le ${two(date.getDate())}/${two(date.getMonth() + 1)}/${date.getFullYear()} à ${clock}`
          : `${date.getDate()} ${TEXT.en.months[date.getMonth()]} ${date.getFullYear()}, ${clock}`;
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
        const response = await fetch(url, { ...(options || {}), headers });
        const body = await response.json().catch(() => ({ error: response.statusText }));
        if (!response.ok) throw new Error(body.error || response.statusText);
        return body;
      }
      const messageText = document.getElementById("message-text");
      const offer = document.getElementById("offer");
      function say(text) { messageText.textContent = text; offer.hidden = true; }

      // The view: #zoom/lat/lon, read at start and whenever it changes, written as the map moves.
      function readHash() {
        const m = /^#(\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)$/.exec(location.hash);
        return m ? { zoom: +m[1], lat: +m[2], lon: +m[3] } : null;
      }
      const start = readHash() || { zoom: 2, lat: 25, lon: 10 };
      const map = L.map("map", { minZoom: 1, maxZoom: 18, worldCopyJump: true, keyboard: true });
      map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
      map.attributionControl.addAttribution("Borders: Natural Earth");
      map.setView([start.lat, start.lon], start.zoom);
      window.addEventListener("hashchange", () => {
        const view = readHash();
        if (view) map.setView([view.lat, view.lon], view.zoom);
      });
      function writeHash() {
        const c = map.getCenter();
        const hash = `#${map.getZoom()}/${c.lat.toFixed(4)}/${c.lng.toFixed(4)}`;
        if (location.hash !== hash) history.replaceState(null, "", location.pathname + location.search + hash);
        switcher.href = t.otherHref + hash;
      }

      // The base map: land and borders from the service's Natural Earth data, the news countries shaded.
      const basemap = L.geoJSON(null, {
        interactive: false,
        style: (feature) => ({ color: "#7d8593", weight: 0.7, fillOpacity: 1,
          fillColor: feature.properties.news ? "#f2d59b" : "#e6e4dd" }),
      }).addTo(map);
      const basemaps = {};
      let basemapShown = -1;
      async function updateBasemap() {
        const z = Math.max(0, Math.min(7, Math.floor(map.getZoom())));
        if (z === basemapShown) return;
        basemaps[z] = basemaps[z] || getJSON(`/v1/basemap?zoom=${z}`);
        const data = await basemaps[z];
        if (z !== Math.max(0, Math.min(7, Math.floor(map.getZoom())))) return;
        basemap.clearLayers();
        basemap.addData(data);
        basemapShown = z;
      }

      // Clusters of the chosen dataset, for the view.
      const select = document.getElementById("dataset");
      let dataset = "markers";
      const clusters = L.layerGroup().addTo(map);
      let generation = 0;
      let filter = "";  // a MapLibre filter expression as JSON, or "" for every point
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
          if (p.cluster) {
            const size = p.point_count < 10 ? 30 : p.point_count < 100 ? 36 : 44;
            const marker = L.marker([lat, lon], {
              icon: L.divIcon({ className: "cluster", html: `<span>${p.point_count_abbreviated}</span>`,
                iconSize: [size, size] }),
              title: t.cluster.replace("{n}", p.point_count), alt: String(p.point_count), keyboard: true,
            });
            marker.on("click", async () => {
              const answer = await getJSON(
                `/v1/datasets/${encodeURIComponent(dataset)}/clusters/${p.cluster_id}/expansion-zoom?${filterQuery().slice(1)}`);
              map.setView([lat, lon], answer.expansionZoom);
            });
            marker.addTo(clusters);
          } else {
            const name = lang === "fr" && p.nameFr ? p.nameFr : (p.name || t.point);
            const marker = L.marker([lat, lon], {
              icon: L.divIcon({ className: "point", iconSize: [14, 14] }), title: name, alt: name, keyboard: true,
            });
            marker.on("click", () => openPlace(lat, lon));
            marker.addTo(clusters);
          }
        }
        document.body.dataset.view = `${zoom}:${data.features.length}`;  // what the page shows, for tests
        document.body.dataset.points =
          String(data.features.reduce((n, f) => n + (f.properties.point_count || 1), 0));
      }

      // A place: its news country, then that country's headlines.
      const panel = document.getElementById("panel");
      const title = document.getElementById("panel-title");
      const status = document.getElementById("panel-status");
      const list = document.getElementById("panel-list");
      document.getElementById("panel-close").addEventListener("click", () => { panel.hidden = true; });
      const categorySelect = document.getElementById("panel-category");
      categorySelect.replaceChildren(new Option(t.allCategories, ""),
        ...Object.keys(t.categories).map((c) => new Option(t.categories[c], c)));
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
        sourceSelect.replaceChildren(new Option(t.noSource, ""), ...ids.map((id) => new Option(id, id)));
        sourceSelect.value = ids.includes(kept("source")) ? kept("source") : "";
        sourceSelect.hidden = ids.length === 0;
        document.body.dataset.sources = ids.join(" ");  // what the page offers, for tests
      }).catch(() => { sourceSelect.hidden = true; });
      sourceSelect.addEventListener("change", () => {
        keep("source", sourceSelect.value);
        if (shown) showCountry(shown.country, shown.where);
      });

      /** A place: its news country (the one it is in, else the nearest), then that country's headlines. */
      async function openPlace(lat, lon) {
        panel.hidden = false;
        title.textContent = "";
        status.textContent = t.loading;
        list.replaceChildren();
        try {
          const place = await getJSON(`/v1/resolve?lat=${lat.toFixed(5)}&lon=${lon.toFixed(5)}`);
          const where = place.method === "nearest" ? t.nearest.replace("{km}", Math.round(place.distanceKm)) : "";
          await showCountry(place.country, where);
        } catch (error) {
          status.textContent = t.failed + error.message;
        }
      }

      /** A news country's headlines in the panel, in the chosen category. */
      async function showCountry(country, where) {
        shown = { country, where };
        panel.hidden = false;
        title.textContent = lang === "fr" ? country.nameFr : country.name;
        title.dataset.code = country.code;
        status.textContent = where || t.loading;
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
          status.textContent = error.message;  // --no-news, the budget, or GDELT's categories: the service's sentence
          return;
        }
        if (shown.country !== country || categorySelect.value !== category || sourceSelect.value !== source) return;
        const result = answer.results[0];
        list.dataset.provider = result.provider;  // which provider answered, for tests
        const favourite = answer.results.find((r) => r.source === source);
        if (source && favourite) {
          sourceTitle.textContent = source;
          sourceTitle.hidden = false;
          if (favourite.error) sourceStatus.textContent = favourite.error.message;
          else if (favourite.articles.length === 0) sourceStatus.textContent = favourite.reason || t.noNews;
          else showArticles(sourceList, favourite.articles);
          sourceList.dataset.source = source;
        }
        if (result.error) { status.textContent = result.error.message; return; }
        if (result.articles.length === 0) { status.textContent = result.reason || t.noNews; return; }
        // The provider that answered, and how: "GDELT · by source country"; each article names its source.
        status.textContent = [where, t.providers[result.provider], t.via[result.strategy]]
          .filter((x) => x).join(" · ");
        showArticles(list, result.articles);
      }

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
          time.dateTime = article.publishedAt;
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
      map.on("click", (event) => openPlace(event.latlng.lat, event.latlng.lng));

      // "Near me": typed coordinates, or the browser's location where the user allows it.
      const form = document.getElementById("near");
      const latInput = document.getElementById("near-lat");
      const lonInput = document.getElementById("near-lon");
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const lat = Number(latInput.value.trim()), lon = Number(lonInput.value.trim());
        if (!latInput.value.trim() || !lonInput.value.trim() || !isFinite(lat) || !isFinite(lon)
            || Math.abs(lat) > 90 || Math.abs(lon) > 180) { say(t.badPlace); return; }
        say("");
        map.setView([lat, lon], Math.max(map.getZoom(), 5));
        openPlace(lat, lon);
      });
      document.getElementById("locate").addEventListener("click", () => {
        if (!navigator.geolocation) { say(t.noLocation); return; }
        navigator.geolocation.getCurrentPosition(async (position) => {
          const lat = position.coords.latitude, lon = position.coords.longitude;
          latInput.value = lat.toFixed(4);
          lonInput.value = lon.toFixed(4);
          try {
            // The country the reader is in (else the nearest): offered, not forced, as the app asked.
            const place = await getJSON(`/v1/resolve?lat=${lat.toFixed(5)}&lon=${lon.toFixed(5)}`);
            const country = place.country;
            say(t.offer.replace("{name}", lang === "fr" ? country.nameFr : country.name));
            offer.textContent = lang === "fr" ? "Oui" : "Yes";
            offer.hidden = false;
            offer.onclick = () => { say(""); goToCountry(country.code); };
          } catch (error) {
            say(t.failed + error.message);
          }
        }, () => say(t.noLocation));
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
      }).catch((error) => say(t.failed + error.message));
      async function goToCountry(code) {
        await countryList;
        const country = countries.find((c) => c.code === code);
        if (!country) return;
        map.setView([country.lat, country.lon], 5);
        showCountry(country, "");
      }
      // A typed name is read by the service as --country reads it (a code, an English or French name, uk, usa,
      // the start or part of one name); a name several countries have is its sentence naming them.
      document.getElementById("find").addEventListener("submit", async (event) => {
        event.preventDefault();
        const input = document.getElementById("find-country");
        try {
          const answer = await getJSON(`/v1/countries?q=${encodeURIComponent(input.value.trim())}`);
          say("");
          goToCountry(answer.countries[0].code);
        } catch (error) {
          say(error.message);
        }
      });
      document.getElementById("world").addEventListener("click", () => map.setView([25, 10], 2));

      // A filter on the dataset's points: one property equal to one value (a number or true/false when typed
      // as one, else text), sent as the MapLibre expression ["==", ["get", property], value].
      document.getElementById("filter").addEventListener("submit", (event) => {
        event.preventDefault();
        const property = document.getElementById("filter-property").value.trim();
        const text = document.getElementById("filter-value").value.trim();
        let value = text;
        if (/^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false)$/.test(text)) value = JSON.parse(text);
        filter = property ? JSON.stringify(["==", ["get", property], value]) : "";
        say(property ? t.filtered.replace("{p}", property).replace("{v}", text) : "");
        updateClusters().catch((error) => say(t.failed + error.message));
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
        if (!seen.has(dataset)) dataset = "markers";  // the dataset on the map was removed
        select.value = dataset;
        const changed = stamps !== null && stamps.get(dataset) !== seen.get(dataset);
        stamps = seen;
        // For tests: each dataset's name and count, as the list shows them.
        document.body.dataset.datasets = answer.datasets.map((d) => `${d.name}:${d.pointCount}`).join(" ");
        if (changed) await updateClusters();
      }
      updateDatasets().catch((error) => say(t.failed + error.message));
      const pollMilliseconds = Number(params.get("poll")) || 5000;  // ?poll=MS, 500 at the least
      setInterval(() => {
        if (!document.hidden) updateDatasets().catch(() => {});
      }, Math.max(500, pollMilliseconds));
      select.addEventListener("change", () => { dataset = select.value; updateClusters().catch((e) => say(t.failed + e.message)); });

      function refresh() {
        writeHash();
        Promise.all([updateBasemap(), updateClusters()]).catch((error) => say(t.failed + error.message));
      }
      map.on("moveend", refresh);
      refresh();
      window.newsAtlas = { map, openPlace, showCountry, goToCountry, humanDate, viewBox, safeHref };
    })();

    """#
}
