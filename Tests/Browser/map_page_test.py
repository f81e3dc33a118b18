#!/usr/bin/env python3
"""The news map page in a real browser: Debian's chromium and chromium-driver through Selenium, headless.

Starts the local NewsAPI imitation (Tests/Support/server.py) and `newsatlas serve` on 127.0.0.1 (readiness read
from their first lines, never slept for), then checks what a person would see: the page loads with no console
error and no request leaving 127.0.0.1; at zoom 2 its cluster markers and their counts are the service's
clusters for the same view; a click on a cluster zooms in; `#zoom/lat/lon` restores a view; a click on France
opens a panel whose headlines come from the imitation; `?lang=fr` speaks French, and asks the service in French
(its error sentences come back French); a phone-sized window still
shows the map and the panel; and a second server with no key at all shows France's headlines from the GDELT
imitation (the same server.py), naming GDELT as the provider and each article's source; a dataset written over
HTTP (PUT, then POST …/features with the write token) changes on the open page, its count in the dataset list and
its clusters' counts, without a reload. Issue 47's map-page items: a click's pin and the chosen country's
outline, the sea's offer of the nearest news country, a dataset point's own properties as text; the keyboard (one
tab stop for the markers, arrows, Enter, Space, Escape), contrast, target size, aria-live and an axe-core pass
(PyPI's axe-selenium-python; this script runs itself again under .build/python-venv when this Python lacks it);
"Could not reach the server" with a working Retry, and the spinner; the filter's count, property names and URL;
categories only from NewsAPI, and the search box's words and choices; items 1 and 2: one slim header row on a
desktop and a phone, the one Tools control, the phone's bottom sheet, the hint shown once, the legend, the
countries' names, and the borders as tiles from zoom 7 (under 400 kB). Screenshots go to ARTIFACTS (default
.build/browser-artifacts), map-desktop.png and map-phone.png among them (Documentation/'s pictures).

    python3 Tests/Browser/map_page_test.py [path/to/newsatlas]

Ends with a line "N passed, N failed" and exits non-zero when a check fails.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV = os.path.join(ROOT, ".build", "python-venv")
try:  # axe-core for the accessibility pass: from this Python, else from the tests' virtual environment
    from axe_selenium_python import Axe
except ImportError:
    if os.path.exists(os.path.join(VENV, "bin", "python")) and os.path.realpath(sys.prefix) != os.path.realpath(VENV):
        os.execv(os.path.join(VENV, "bin", "python"), [os.path.join(VENV, "bin", "python"), *sys.argv])
    raise SystemExit("map_page_test.py: no axe_selenium_python here or in .build/python-venv; run scripts/bootstrap")
from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.support.ui import Select, WebDriverWait

sys.path.insert(0, os.path.join(ROOT, "Tests", "Support"))
from harness import binary, check, finish  # noqa: E402

ARTIFACTS = os.environ.get("ARTIFACTS", os.path.join(ROOT, ".build", "browser-artifacts"))
NEWS_KEY = "test-key-0123456789abcdef0123456789"  # the imitation's key, a test fixture
WRITE_TOKEN = "browser-test-write-token-0123456789"  # the server's write token, a test fixture


# Dates as the CLI prints them (Tests/NewsAPITests/HumanDateTests.swift's cases, in Europe/Paris): published, the
# moment they are seen, English, French. The page words them from the catalogue's layouts and words, which the
# service writes into it.
DATES = [
    ("2026-03-29T00:30:00Z", "2030-03-17T17:46:40Z", "29 Mar 2026, 01:30", "Le 29/03/2026 à 01:30"),
    ("2026-03-29T01:30:00Z", "2030-03-17T17:46:40Z", "29 Mar 2026, 03:30", "Le 29/03/2026 à 03:30"),
    ("2026-10-25T01:30:00Z", "2030-03-17T17:46:40Z", "25 Oct 2026, 02:30", "Le 25/10/2026 à 02:30"),
    ("2026-11-29T19:10:00Z", "2026-11-29T21:25:00Z", "20:10 (2 h ago)", "20:10 (il y a 2 h)"),
    ("2026-11-29T21:13:00Z", "2026-11-29T21:25:00Z", "22:13 (12 min ago)", "22:13 (il y a 12 min)"),
    ("2026-11-29T21:24:30Z", "2026-11-29T21:25:00Z", "22:24 (just now)", "22:24 (à l'instant)"),
    ("2026-11-28T23:30:00Z", "2026-11-29T21:25:00Z", "00:30 (21 h ago)", "00:30 (il y a 21 h)"),
    ("2026-11-29T21:40:00Z", "2026-11-29T21:25:00Z", "29 Nov 2026, 22:40", "Le 29/11/2026 à 22:40"),
]


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.load(response)


def write(url, method, points):
    """PUTs or POSTs a FeatureCollection of (lat, lon) points with the write token; the answer's JSON."""
    features = [{"type": "Feature", "properties": {"name": f"live {i}"},
                 "geometry": {"type": "Point", "coordinates": [lon, lat]}} for i, (lat, lon) in enumerate(points)]
    body = json.dumps({"type": "FeatureCollection", "features": features}).encode()
    request = urllib.request.Request(url, data=body, method=method, headers={
        "Authorization": f"Bearer {WRITE_TOKEN}", "Content-Type": "application/geo+json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    scratch = tempfile.TemporaryDirectory(prefix="newsatlas-browser-")
    news = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "Support", "server.py")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    news_port = int(news.stdout.readline())  # readiness: the imitation prints its port once it listens
    environment = {**os.environ, "NEWSAPI_KEY": NEWS_KEY, "NEWSATLAS_API_BASE": f"http://127.0.0.1:{news_port}",
                   "NEWSATLAS_GDELT_BASE": f"http://127.0.0.1:{news_port}",
                   "XDG_CACHE_HOME": scratch.name + "/cache", "XDG_CONFIG_HOME": scratch.name + "/config",
                   "XDG_DATA_HOME": scratch.name + "/data"}
    # The reader's favourite sources (the sources setting), which the page offers in its panel.
    os.makedirs(scratch.name + "/config/newsatlas")
    with open(scratch.name + "/config/newsatlas/config.toml", "w") as settings:
        settings.write('sources = "bbc-news,le-monde"\n')
    server = subprocess.Popen([binary(), "serve", "--port", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True,
                              env={**environment, "NEWSATLAS_WRITE_TOKEN": WRITE_TOKEN})
    ready = server.stdout.readline()  # "newsatlas: serving on http://127.0.0.1:PORT"
    base = ready.strip().rsplit(" ", 1)[-1]
    # The same server with no key at all: its headlines come from GDELT (the imitation), with a cache of its own.
    keyless_environment = {key: value for key, value in environment.items() if key != "NEWSAPI_KEY"}
    keyless_environment["XDG_CACHE_HOME"] = scratch.name + "/keyless-cache"
    keyless = subprocess.Popen([binary(), "serve", "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=keyless_environment)
    keyless_base = keyless.stdout.readline().strip().rsplit(" ", 1)[-1]
    driver = None
    try:
        if not base.startswith("http://127.0.0.1:"):
            raise SystemExit(f"map_page_test.py: the server did not start: {ready!r}")
        options = webdriver.ChromeOptions()
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
                         "--disable-dev-shm-usage", "--lang=en-GB"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        service = webdriver.ChromeService(executable_path="/usr/bin/chromedriver")
        driver = webdriver.Chrome(options=options, service=service)
        wait = WebDriverWait(driver, 20)
        # The reader's time zone, for the dates' checks (the browser does the time-zone arithmetic).
        driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Europe/Paris"})

        def human_dates(column):
            shown = [driver.execute_script("return window.newsAtlas.humanDate(arguments[0], new Date(arguments[1]))",
                                           published, now) for published, now, *_ in DATES]
            return shown, [case[column] for case in DATES]

        def view():
            return driver.execute_script("return document.body.dataset.view || ''")

        def open_page(path, zoom):
            driver.get(base + path)
            wait.until(lambda d: view().startswith(f"{zoom}:"))

        def settle(condition, seconds=10):
            """Waits for a condition; False when it never holds, so the check after it fails with its words."""
            try:
                WebDriverWait(driver, seconds).until(condition)
                return True
            except TimeoutException:
                return False

        def run_axe(where):
            """axe-core (PyPI's axe-selenium-python, which bundles axe.min.js, injected as that package does) on
            the page as it is: True when it finds no violation of impact serious or critical, each printed."""
            axe = Axe(driver)
            axe.inject()
            results = axe.run()
            bad = [v for v in results["violations"] if v["impact"] in ("serious", "critical")]
            print(f"       axe ({where}): {len(results['violations'])} violations, {len(bad)} serious or critical, "
                  f"{len(results['passes'])} rules passed")
            for violation in results["violations"]:
                targets = [node["target"] for node in violation["nodes"][:3]]
                print(f"       axe ({where}): {violation['impact']} {violation['id']}: {violation['help']} {targets}")
            return not bad

        def click_at(lat, lon):
            """A real click on the map at a place (a marker there takes it)."""
            point = driver.execute_script(
                "const p = window.newsAtlas.map.latLngToContainerPoint([arguments[0], arguments[1]]); return [p.x, p.y]",
                lat, lon)
            element = driver.find_element(By.ID, "map")
            size = element.size
            ActionChains(driver).move_to_element_with_offset(
                element, int(point[0] - size["width"] / 2), int(point[1] - size["height"] / 2)).click().perform()

        def show_tools(wanted=True):
            """Opens (or closes) the one Tools control, where the dataset, coordinates and filter live."""
            if driver.find_element(By.ID, "tools").is_displayed() != wanted:
                driver.find_element(By.ID, "tools-toggle").click()
            settle(lambda d: d.find_element(By.ID, "tools").is_displayed() == wanted)

        def header_height():
            return driver.execute_script("return document.querySelector('header').getBoundingClientRect().height")

        def overlapping(rects):
            return [(a, b) for i, a in enumerate(rects) for b in rects[i + 1:]
                    if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]

        def pin():
            return driver.execute_script(
                "const m = window.newsAtlas.pin; return m._map ? [m.getLatLng().lat, m.getLatLng().lng] : null")

        # The world at zoom 2.
        started = time.perf_counter()
        open_page("/#2/25/10", 2)
        interactive = time.perf_counter() - started
        print(f"       page interactive with the 54 markers in {interactive * 1000:.0f} ms (navigation to clusters drawn)")
        driver.save_screenshot(os.path.join(ARTIFACTS, "world.png"))
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        check(not errors, f"no console errors ({errors[:2]})")
        box = driver.execute_script("return window.newsAtlas.viewBox()")
        expected = get_json(f"{base}/v1/datasets/markers/clusters?zoom=2&bbox={box}")["features"]
        expected_counts = sorted(f["properties"]["point_count_abbreviated"] for f in expected
                                 if f["properties"].get("cluster"))
        expected_points = sum(1 for f in expected if not f["properties"].get("cluster"))
        shown_counts = sorted(int(e.text) for e in driver.find_elements(By.CSS_SELECTOR, ".cluster"))
        shown_points = len(driver.find_elements(By.CSS_SELECTOR, ".point"))
        check(shown_counts == expected_counts and shown_points == expected_points,
              f"zoom 2 shows the service's clusters {expected_counts} and {expected_points} lone markers "
              f"(page: {shown_counts}, {shown_points})")
        # Issue 47, item 5: the markers are one tab stop (a roving tabindex), the first in reading order; the
        # arrow keys move between them; Enter or Space opens the one focused; Escape closes the panel.
        stops = driver.execute_script(
            "const top = document.getElementById('map').getBoundingClientRect().top;"
            "return [...document.querySelectorAll('.cluster, .point')].map((e) => {"
            " const r = e.getBoundingClientRect();"
            " return [e.tabIndex, Math.floor((r.top + r.height / 2 - top) / 48), r.left]; })")
        first = min(stops, key=lambda s: (s[1], s[2])) if stops else None
        check(len(stops) == 37 and [s[0] for s in stops].count(0) == 1 and first and first[0] == 0,
              f"the {len(stops)} markers are one tab stop, the first in reading order "
              f"({[s[0] for s in stops].count(0)} with tabindex 0)")
        tab_stop = driver.find_element(By.CSS_SELECTOR, ".leaflet-marker-pane [tabindex='0']")
        tab_stop.send_keys(Keys.ARROW_RIGHT)
        moved = driver.execute_script(
            "const a = document.activeElement; return a !== arguments[0] && a.tabIndex === 0"
            " && a.matches('.cluster, .point') && arguments[0].tabIndex === -1", tab_stop)
        check(moved, "the right arrow moves the focus to the next marker, which becomes the tab stop")
        sizes = driver.execute_script(
            "return [...document.querySelectorAll('.point')].map((e) => [e.offsetWidth, e.offsetHeight])")
        check(sizes and all(w >= 24 and h >= 24 for w, h in sizes),
              f"lone markers are targets of 24 by 24 px at least (WCAG 2.5.8; {sorted(set(map(tuple, sizes)))})")
        contrast = driver.execute_script("""
            const style = getComputedStyle(document.querySelector('.cluster'));
            const lum = (rgb) => { const c = rgb.match(/[\\d.]+/g).slice(0, 3).map((v) => v / 255)
              .map((v) => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
              return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; };
            const alpha = (style.backgroundColor.match(/[\\d.]+/g)[3] || '1');
            const [a, b] = [lum(style.color), lum(style.backgroundColor)];
            return [Number(alpha), (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), style.fontSize];""")
        check(contrast[0] == 1 and contrast[1] >= 4.5,
              f"cluster labels meet WCAG AA contrast, 4.5:1 on an opaque background ({contrast[1]:.2f}:1, "
              f"opacity {contrast[0]}, {contrast[2]})")
        live = driver.execute_script(
            "return [...document.querySelectorAll('[aria-live]')].map((e) => e.id + ':' + e.getAttribute('aria-live'))")
        check(live == ["panel-status:polite"] and not driver.find_element(By.ID, "panel").get_attribute("aria-live"),
              f"aria-live is on the panel's one status line, not on its ten headlines ({live})")
        check(run_axe("the world at zoom 2"), "axe-core finds no serious or critical violation on the world map")

        # Issue 47, item 2: a one-line hint, shown until hidden, and remembered hidden across a reload.
        hint = driver.find_element(By.ID, "hint")
        shown_hint = hint.is_displayed() and hint.text.startswith("Click a country or a marker for its headlines.")
        driver.find_element(By.ID, "hint-close").click()
        hidden_hint = not hint.is_displayed()
        driver.refresh()
        wait.until(lambda d: view().startswith("2:"))
        check(shown_hint and hidden_hint and not driver.find_element(By.ID, "hint").is_displayed()
              and driver.execute_script("return localStorage.getItem('newsatlas.hintHidden')") == "1",
              "a one-line hint shows on the first visit, hides with its button, and stays hidden after a reload")
        # The legend: what the clusters, the dots, the shading and the pin mean, open on a wide screen.
        legend = driver.execute_script(
            "const l = document.getElementById('legend'); return l ? [l.open, l.querySelector('summary').textContent,"
            " [...l.querySelectorAll('li')].map((i) => [i.firstChild.className, i.textContent])] : null")
        check(legend and legend[0] and legend[1] == "Legend"
              and [c for c, _ in legend[2]] == ["swatch-cluster", "swatch-point", "swatch-news", "swatch-other",
                                               "swatch-pin"]
              and "click to zoom in" in legend[2][0][1] and "headlines" in legend[2][1][1],
              f"a legend says what the markers, the shading and the pin mean ({legend})")
        # Country names: none at zoom 2 (the clusters speak there), from zoom 3 under the markers, never two
        # overlapping, never a tab stop or in a click's way.
        labels = driver.execute_script(
            "return [...document.querySelectorAll('.country-label')].filter((e) => !e.hidden).length")
        check(labels == 0, f"no country names at zoom 2 ({labels} shown)")

        # Issue 47, item 1: one slim header row at 1280×800; the tools folded into one control.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
        open_page("/#4/48/8", 4)
        rows = driver.execute_script(
            "return [...document.querySelectorAll('header > *')].filter((e) => e.offsetWidth)"
            ".map((e) => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2))")
        check(header_height() <= 52 and max(rows) - min(rows) <= 4,
              f"at 1280×800 the header is one slim row ({header_height():.0f} px, centres {sorted(set(rows))})")
        hidden_tools = [driver.find_element(By.ID, i).is_displayed() for i in ("dataset", "near-lat", "filter-property")]
        toggle = driver.find_element(By.ID, "tools-toggle")
        toggle.click()
        opened = settle(lambda d: d.find_element(By.ID, "tools").is_displayed())
        shown_tools = [driver.find_element(By.ID, i).is_displayed()
                       for i in ("dataset", "near-lat", "near-lon", "filter-property", "filter-value", "world")]
        expanded = toggle.get_attribute("aria-expanded")
        toggle.click()
        closed = settle(lambda d: not d.find_element(By.ID, "tools").is_displayed())
        toggle.click()
        settle(lambda d: d.find_element(By.ID, "tools").is_displayed())
        ActionChains(driver).send_keys(Keys.ESCAPE).perform()
        escaped = settle(lambda d: not d.find_element(By.ID, "tools").is_displayed()
                         and d.switch_to.active_element == toggle)
        check(not any(hidden_tools) and opened and all(shown_tools) and expanded == "true" and closed and escaped
              and toggle.get_attribute("aria-expanded") == "false",
              f"the dataset, coordinates and filter are one Tools control: hidden, opened and closed by it, "
              f"and by Escape ({hidden_tools}, {shown_tools}, {expanded})")
        # A click on the map while Tools is open closes it, as a popover closes, and opens nothing.
        before_tools = driver.execute_script("const m = window.newsAtlas.map, c = m.getCenter(); return [c.lat, c.lng, m.getZoom()]")
        driver.execute_script("window.newsAtlas.map.setView([0, -140], 4, {animate: false})")
        show_tools(True)
        click_at(2, -138)  # the Pacific, no marker
        dismissed = settle(lambda d: not d.find_element(By.ID, "tools").is_displayed())
        check(dismissed and pin() is None and not driver.find_element(By.ID, "panel").is_displayed(),
              "a click on the map while Tools is open closes Tools and opens nothing")
        driver.execute_script("window.newsAtlas.map.setView([arguments[0], arguments[1]], arguments[2], {animate: false})",
                              *before_tools)
        labels = driver.execute_script(
            "return [...document.querySelectorAll('.country-label')].filter((e) => !e.hidden).map((e) => {"
            " const r = e.firstChild.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom, e.textContent,"
            " getComputedStyle(e).pointerEvents, e.tabIndex]; })")
        names = [label[4] for label in labels]
        markers = driver.execute_script(
            "return [...document.querySelectorAll('.cluster, .point')].map((e) => {"
            " const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })")
        covered = [(a[4], b) for a in labels for b in markers
                   if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]
        check("France" in names and "Germany" in names and not overlapping(labels) and not covered
              and all(label[5] == "none" and label[6] < 0 for label in labels),
              f"at zoom 4 the news countries are named on the map, none over another or a marker, none "
              f"clickable ({len(names)}: {names[:6]}; {covered[:2]})")
        driver.save_screenshot(os.path.join(ARTIFACTS, "labels-zoom4.png"))
        # Borders from zoom 7 in: the view's tiles, each clipped to its tile, not the world's 3.4 MB at once.
        open_page("/?lang=en#7/46.6/2.4", 7)  # a new document: its resource timings alone
        settle(lambda d: (d.execute_script("return document.body.dataset.basemap") or "").startswith("7/"))
        asked = driver.execute_script(
            "return performance.getEntriesByType('resource').filter((e) => e.name.includes('/v1/basemap'))"
            ".map((e) => [e.name.split('/v1/')[1], e.decodedBodySize])")
        total = sum(size for _, size in asked)
        check(asked and all("&x=" in name for name, _ in asked) and total < 400_000
              and driver.execute_script("return document.body.dataset.basemap").startswith("7/"),
              f"at zoom 7 the borders come as {len(asked)} tiles, {total / 1000:.0f} kB in all (under 400 kB)")
        driver.save_screenshot(os.path.join(ARTIFACTS, "borders-zoom7.png"))
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        open_page("/#2/25/10", 2)

        # A click on a cluster zooms to its expansion zoom.
        cluster = max(driver.find_elements(By.CSS_SELECTOR, ".cluster"), key=lambda e: int(e.text))
        cluster.click()
        wait.until(lambda d: driver.execute_script("return window.newsAtlas.map.getZoom()") > 2)
        check(driver.execute_script("return window.newsAtlas.map.getZoom()") > 2, "a click on a cluster zooms in")

        # The URL keeps the view.
        open_page("/#4/50/10", 4)
        center = driver.execute_script("const c = window.newsAtlas.map.getCenter(); return [c.lat, c.lng]")
        check(abs(center[0] - 50) < 0.01 and abs(center[1] - 10) < 0.01, f"#4/50/10 restores the view ({center})")
        driver.save_screenshot(os.path.join(ARTIFACTS, "europe-zoom4.png"))

        # A click on France opens its headlines, from the local imitation.
        open_page("/#5/46.6/2.4", 5)
        point = driver.execute_script(
            "const p = window.newsAtlas.map.latLngToContainerPoint([46.6, 2.4]); return [p.x, p.y]")
        element = driver.find_element(By.ID, "map")
        size = element.size
        ActionChains(driver).move_to_element_with_offset(
            element, int(point[0] - size["width"] / 2), int(point[1] - size["height"] / 2)).click().perform()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) > 0
                   or "error" in d.find_element(By.ID, "panel-status").text.lower())
        title = driver.find_element(By.ID, "panel-title").text
        items = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#panel-list li")]
        check(title == "France" and len(items) == 10 and any("le-monde" in i for i in items),
              f"a click on France opens its headlines ({title}: {items[:2]})")
        driver.save_screenshot(os.path.join(ARTIFACTS, "france-panel.png"))
        check(run_axe("France's panel open"), "axe-core finds no serious or critical violation with the panel open")
        # The keyboard: Escape closes the panel; Enter and Space on a focused marker open it as a click does.
        ActionChains(driver).send_keys(Keys.ESCAPE).perform()
        closed = settle(lambda d: not d.find_element(By.ID, "panel").is_displayed())
        check(closed and pin() is None, "Escape closes the panel (and takes the pin away)")
        france = driver.find_element(By.CSS_SELECTOR, ".point[title='France']")
        driver.execute_script("arguments[0].focus()", france)
        france.send_keys(Keys.ENTER)
        opened = settle(lambda d: d.find_element(By.ID, "panel").is_displayed()
                        and d.find_element(By.ID, "panel-title").text == "France")
        ActionChains(driver).send_keys(Keys.ESCAPE).perform()
        back = settle(lambda d: not d.find_element(By.ID, "panel").is_displayed()
                      and d.switch_to.active_element == france)
        check(opened and back, "Enter on a focused marker opens its country; Escape gives the focus back to it")
        spain = driver.find_element(By.CSS_SELECTOR, ".point[title='Portugal']")
        driver.execute_script("arguments[0].focus()", spain)
        spain.send_keys(Keys.SPACE)
        check(settle(lambda d: d.find_element(By.ID, "panel-title").text == "Portugal"),
              "Space on a focused marker opens it too")
        ActionChains(driver).send_keys(Keys.ESCAPE).perform()
        settle(lambda d: not d.find_element(By.ID, "panel").is_displayed())
        click_at(46.6, 2.4)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) == 10)
        # Issue 47: a click on land away from any marker pins the place and outlines the country whose news opens.
        click_at(44.2, 0.6)
        settle(lambda d: pin() is not None and d.execute_script("return document.body.dataset.outlined") == "fr"
                   and len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) > 0)
        pinned = pin() or [0, 0]
        outlines = driver.execute_script("return document.querySelectorAll('.leaflet-overlay-pane path[stroke-width=\"3\"]').length")
        check(abs(pinned[0] - 44.2) < 0.2 and abs(pinned[1] - 0.6) < 0.2 and outlines > 0
              and driver.find_element(By.ID, "panel-title").text == "France",
              f"a click on land pins the place and outlines the country opened ({pinned}, {outlines} outline paths)")
        # A click in the sea (in no country: /v1/resolve's containing is null) offers the nearest news country.
        # The Bay of Biscay, 60 km off the coast, where France's marker is the nearest of every country's.
        click_at(45.5, -2.0)
        settle(lambda d: d.find_element(By.ID, "offer").is_displayed())
        # The place the click landed on, a pixel's rounding from 45.5, -2.0 (a kilometre apart), asked as the
        # page asks it.
        clicked = pin() or [45.5, -2.0]
        sea = get_json(f"{base}/v1/resolve?lat={clicked[0]:.5f}&lon={clicked[1]:.5f}")
        said = driver.find_element(By.ID, "message-text").text
        expected_said = f"Nearest news country: {sea['country']['name']}, {round(sea['distanceKm']):,} km"
        check(sea["containing"] is None and sea["country"]["code"] == "fr" and said == expected_said
              and driver.find_element(By.ID, "offer").text == "Show its news"
              and not driver.find_element(By.ID, "panel").is_displayed() and pin() is not None
              and driver.execute_script("return document.body.dataset.outlined") == "",
              f"a click in the sea offers the nearest news country, opening nothing ({said!r}, {expected_said!r})")
        driver.save_screenshot(os.path.join(ARTIFACTS, "sea-click.png"))
        if driver.find_element(By.ID, "offer").is_displayed():
            driver.find_element(By.ID, "offer").click()
        settle(lambda d: d.find_element(By.ID, "panel-title").get_attribute("data-code") == sea["country"]["code"]
               and len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) > 0)
        check(driver.execute_script("return document.body.dataset.outlined") == sea["country"]["code"],
              "accepting the offer opens and outlines the nearest news country")
        links = [e.get_attribute("href") for e in driver.find_elements(By.CSS_SELECTOR, "#panel-list li a")]
        check(len(links) == 10 and all(link.startswith("https://") for link in links), "every headline is a link")
        # The page's own check, in this browser: only http and https become links.
        checked = driver.execute_script(
            "return ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,x', 'vbscript:x', '/relative',"
            " 'https://a.example/x', 'http://b.example/'].map(window.newsAtlas.safeHref)")
        check(checked == [None, None, None, None, None, "https://a.example/x", "http://b.example/"],
              f"only http and https URLs become links ({checked})")
        images = [e.get_attribute("src") for e in driver.find_elements(By.CSS_SELECTOR, "#panel-list li img")]
        wanted = [a["imageUrl"] for a in get_json(f"{base}/v1/headlines?country=fr&pageSize=10")["results"][0]["articles"]
                  if a.get("imageUrl")]
        check(wanted and sorted(images) == sorted(wanted), f"each article's picture is shown ({len(images)} of {len(wanted)})")
        descriptions = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#panel-list li .description")]
        wanted = [a["description"] for a in get_json(f"{base}/v1/headlines?country=fr&pageSize=10")["results"][0]["articles"]
                  if a.get("description")]
        check(wanted and descriptions == wanted, f"each article's description is shown ({descriptions[:2]})")
        dates = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#panel-list time")]
        check(dates and all(re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d", d) for d in dates),
              f"dates read as the CLI prints them ({dates[:2]})")
        shown, wanted = human_dates(2)
        check(shown == wanted, f"the page's dates are the CLI's, across DST in Europe/Paris and today ({shown})")
        # A category of the country, chosen in the panel: offered, as NewsAPI answered (issue 47, item 4).
        category_options = driver.execute_script(
            "return [...document.querySelectorAll('#panel-category option')].map((o) => o.value)")
        check(driver.find_element(By.ID, "panel-category").is_displayed() and len(category_options) == 8,
              f"with NewsAPI answering, the panel offers top headlines and the seven categories ({category_options})")
        Select(driver.find_element(By.ID, "panel-category")).select_by_value("sports")
        wait.until(lambda d: d.find_element(By.ID, "panel-list").get_attribute("data-category") == "sports"
                   and len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) > 0)
        sports = [e.text.split("\n")[0] for e in driver.find_elements(By.CSS_SELECTOR, "#panel-list li a")]
        expected_sports = [a["title"] for a in get_json(
            f"{base}/v1/headlines?country=fr&category=sports&pageSize=10")["results"][0]["articles"]]
        check(sports == expected_sports, f"the category sports shows France's sports headlines ({sports[:2]})")
        Select(driver.find_element(By.ID, "panel-category")).select_by_value("")

        # A favourite source, chosen in the panel: its headlines with the country's, asked in the same request
        # (source=) and the same as /v1/headlines answers; the choice is kept across a reload.
        wait.until(lambda d: d.execute_script("return document.body.dataset.sources || ''") == "bbc-news le-monde")
        Select(driver.find_element(By.ID, "panel-source")).select_by_value("bbc-news")

        def source_shown(d):
            return (d.find_element(By.ID, "panel-source-list").get_attribute("data-source") == "bbc-news"
                    and len(d.find_elements(By.CSS_SELECTOR, "#panel-source-list li")) > 0
                    and len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) > 0)
        wait.until(source_shown)
        bbc = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#panel-source-list li a")]
        answer = get_json(f"{base}/v1/headlines?country=fr&pageSize=10&source=bbc-news")["results"]
        expected_bbc = [a["title"] for r in answer if r.get("source") == "bbc-news" for a in r["articles"]]
        france = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#panel-list li a")]
        check(bbc and bbc == expected_bbc and france == [a["title"] for a in answer[0]["articles"]]
              and driver.find_element(By.ID, "panel-source-title").text == "bbc-news",
              f"a favourite source's headlines show with France's ({bbc[:2]}, {len(france)})")
        open_page("/#5/46.6/2.4", 5)
        wait.until(lambda d: d.execute_script("return document.body.dataset.sources || ''") != "")
        kept = Select(driver.find_element(By.ID, "panel-source")).first_selected_option.get_attribute("value")
        driver.execute_script("window.newsAtlas.openPlace(46.6, 2.4)")
        wait.until(source_shown)
        check(kept == "bbc-news", f"the favourite source chosen is kept across a reload ({kept!r})")
        Select(driver.find_element(By.ID, "panel-source")).select_by_value("")
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#panel-source-list li"))

        # Issue 47, item 7: a spinner while the panel waits (still when the reader asks for less motion), and a
        # server out of reach said in words for people with a Retry button that works.
        spinning = driver.execute_script(
            "window.newsAtlas.openPlace(46.6, 2.4); const s = document.getElementById('panel-status');"
            "const b = getComputedStyle(s, '::before'); return [s.textContent, b.content, b.animationName]")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) == 10)
        after = driver.execute_script("return getComputedStyle(document.getElementById('panel-status'), '::before').content")
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
        still = driver.execute_script(
            "window.newsAtlas.openPlace(46.6, 2.4); const s = document.getElementById('panel-status');"
            "const b = getComputedStyle(s, '::before'); return [b.content, b.animationName]")
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) == 10)
        check(spinning == ["Loading…", '""', "spin"] and after == "none" and still == ['""', "none"],
              f"a spinner turns while the panel loads, and stands still for reduced motion ({spinning}, {after}, {still})")
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0,
                                                                    "downloadThroughput": -1, "uploadThroughput": -1})
        driver.execute_script("window.newsAtlas.openPlace(50.85, 4.35)")
        said = settle(lambda d: d.find_element(By.ID, "panel-retry").is_displayed())
        status = driver.find_element(By.ID, "panel-status").text
        check(said and status == "Could not reach the server." and "Failed to fetch" not in driver.page_source
              and driver.find_element(By.ID, "panel-retry").text == "Retry",
              f"a server out of reach is said in words, with a Retry button ({status!r})")
        driver.save_screenshot(os.path.join(ARTIFACTS, "unreachable.png"))
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0,
                                                                    "downloadThroughput": -1, "uploadThroughput": -1})
        for button in driver.find_elements(By.ID, "panel-retry"):
            if button.is_displayed():
                button.click()
        check(settle(lambda d: d.find_element(By.ID, "panel-title").text == "Belgium"
                     and len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) > 0
                     and not d.find_element(By.ID, "panel-retry").is_displayed()),
              "Retry, once the server is back, opens the place asked for")
        driver.get_log("browser")  # the offline requests' console errors, made on purpose, are read and left

        # The country search box: both languages' names, accents optional; a name goes to its country.
        names = driver.execute_script(
            "return [...document.querySelectorAll('#countries option')].map((o) => o.value)")
        listed = len(get_json(f"{base}/v1/countries")["countries"])
        check(listed > 200 and len(names) == 2 * listed and "Germany" in names and "Allemagne" in names
              and "Espagne" in names,
              f"the search box offers the news countries' English and French names: every country GDELT covers "
              f"on a server that may ask GDELT ({len(names)} of {listed} countries)")
        field = driver.find_element(By.ID, "find-country")
        field.clear()
        field.send_keys("allemagne")
        driver.find_element(By.CSS_SELECTOR, "#find button").click()
        wait.until(lambda d: d.find_element(By.ID, "panel-title").get_attribute("data-code") == "de"
                   and len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) > 0)
        # The view moves with an animation: wait for it to end near Germany's marker (a check made at once saw the
        # map halfway from France).
        wait.until(lambda d: d.execute_script(
            "const c = window.newsAtlas.map.getCenter(); return Math.abs(c.lat - 51.1) < 1.5 && Math.abs(c.lng - 10.4) < 1.5"))
        center = driver.execute_script("const c = window.newsAtlas.map.getCenter(); return [c.lat, c.lng, window.newsAtlas.map.getZoom()]")
        check(driver.find_element(By.ID, "panel-title").text == "Germany" and abs(center[0] - 51.1) < 1.5
              and abs(center[1] - 10.4) < 1.5 and center[2] == 5, f"'allemagne' centres on Germany and opens its headlines ({center})")
        field.clear()
        field.send_keys("atlantis")
        driver.find_element(By.CSS_SELECTOR, "#find button").click()
        # Issue 47, item 4: beside the box, in words for map readers; several countries' name lists them to choose.
        said = settle(lambda d: d.find_element(By.ID, "find-said").text == "No news country is called 'atlantis'.")
        check(said and "/v1/countries" not in driver.find_element(By.TAG_NAME, "body").text,
              f"a name no country has is said so beside the box ({driver.find_element(By.ID, 'find-said').text!r})")
        # Names as --country reads them (the service's /v1/countries): several countries named, an alias.
        field.clear()
        field.send_keys("united")
        driver.find_element(By.CSS_SELECTOR, "#find button").click()
        settle(lambda d: d.find_elements(By.CSS_SELECTOR, "#find-said button"))
        said = driver.find_element(By.ID, "find-said").text
        choices = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#find-said button")]
        check(said.startswith("'united' could be:")
              and choices == ["United Arab Emirates", "United Kingdom", "United States",
                              "United States Virgin Islands"],
              f"a name several countries have lists them to choose from ({said!r}, {choices})")
        driver.save_screenshot(os.path.join(ARTIFACTS, "search-choices.png"))
        for button in driver.find_elements(By.CSS_SELECTOR, "#find-said button[data-code='us']"):
            button.click()
        check(settle(lambda d: d.find_element(By.ID, "panel-title").get_attribute("data-code") == "us"
                     and not d.find_elements(By.CSS_SELECTOR, "#find-said button")),
              "choosing one of them opens it")
        field.clear()
        field.send_keys("uk")
        driver.find_element(By.CSS_SELECTOR, "#find button").click()
        wait.until(lambda d: d.find_element(By.ID, "panel-title").get_attribute("data-code") == "gb")
        check(driver.find_element(By.ID, "panel-title").text == "United Kingdom", "'uk' opens the United Kingdom")
        show_tools()
        driver.find_element(By.ID, "world").click()
        wait.until(lambda d: view().startswith("2:"))
        check(driver.execute_script("return window.newsAtlas.map.getZoom()") == 2, "the whole-world button shows the world")

        # A filter on the points: one property, one value; the markers then show France alone.
        driver.find_element(By.ID, "filter-property").send_keys("code")
        driver.find_element(By.ID, "filter-value").send_keys("fr")
        driver.find_element(By.CSS_SELECTOR, "#filter button").click()
        wait.until(lambda d: view() == "2:1")
        check(len(driver.find_elements(By.CSS_SELECTOR, ".point")) == 1 and not driver.find_elements(By.CSS_SELECTOR, ".cluster"),
              "the filter box shows the points that match alone")
        driver.find_element(By.ID, "filter-property").clear()
        driver.find_element(By.CSS_SELECTOR, "#filter button").click()
        wait.until(lambda d: view() != "2:1")

        # Issue 47, item 6: the filter says how many match (and a property the dataset has not got), offers the
        # dataset's property names (its TileJSON's fields), and the dataset and filter live in the URL.
        places = {"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {"name": f"place {i}", "category": "sports" if i % 4 == 0 else "science"},
             "geometry": {"type": "Point", "coordinates": [-40 + i * 4, 10 + i]}} for i in range(20)]}
        request = urllib.request.Request(base + "/v1/datasets/places", data=json.dumps(places).encode(), method="PUT",
                                         headers={"Authorization": f"Bearer {WRITE_TOKEN}",
                                                  "Content-Type": "application/geo+json"})
        urllib.request.urlopen(request, timeout=60).read()

        def filter_count():  # in the Tools panel, read whether it is open or not
            return driver.find_element(By.ID, "filter-count").get_attribute("textContent")

        open_page("/#2/20/0&dataset=places&property=category&value=sports", 2)
        settle(lambda d: filter_count() == "5 of 20 features match")
        offered = driver.execute_script(
            "return [...document.querySelectorAll('#filter-properties option')].map((o) => o.value)")
        check(Select(driver.find_element(By.ID, "dataset")).first_selected_option.get_attribute("value") == "places"
              and driver.find_element(By.ID, "filter-property").get_attribute("value") == "category"
              and driver.find_element(By.ID, "filter-value").get_attribute("value") == "sports"
              and driver.execute_script("return document.body.dataset.points") == "5"
              and filter_count() == "5 of 20 features match",
              f"#2/20/0&dataset=places&property=category&value=sports opens that view, saying how many match "
              f"({filter_count()!r})")
        check(sorted(offered) == ["category", "name"],
              f"the property box offers the dataset's property names, from its TileJSON ({offered})")
        show_tools()
        driver.find_element(By.ID, "filter-property").clear()
        driver.find_element(By.ID, "filter-property").send_keys("categroy")
        driver.find_element(By.CSS_SELECTOR, "#filter button").click()
        wanted_count = "0 of 20 features match · 'categroy' is not a property of places; its properties: "
        settle(lambda d: filter_count().startswith(wanted_count))
        url = driver.current_url
        check(filter_count().startswith(wanted_count) and "property=categroy" in url and "dataset=places" in url
              and "value=sports" in url, f"a misspelt property says 0 match and names the ones there are, and the "
              f"URL keeps it ({filter_count()!r}, {url[len(base):]})")
        driver.save_screenshot(os.path.join(ARTIFACTS, "filter-count.png"))
        driver.refresh()
        restored = settle(lambda d: filter_count().startswith(wanted_count)
                          and d.find_element(By.ID, "filter-property").get_attribute("value") == "categroy"
                          and d.execute_script("return document.body.dataset.view") == "2:0")
        switch = driver.find_element(By.ID, "lang").get_attribute("href")
        check(restored and "dataset=places" in switch and "property=categroy" in switch and "lang=fr" in switch,
              f"a reload restores the dataset and the filter, and the language link keeps them ({switch[len(base):]})")
        driver.get(base + "/?lang=fr#2/20/0&dataset=places&property=category&value=sports")
        check(settle(lambda d: filter_count() == "5 sur 20 entités correspondent"),
              f"the count speaks French on the French page ({filter_count()!r})")

        # A dataset that changes while the page is open: written over HTTP, seen without a reload (the page asks
        # /v1/datasets again every ?poll= milliseconds and fetches the clusters again when the dataset changed).
        write(base + "/v1/datasets/live", "PUT", [(48.0 + i * 0.01, 2.0 + i * 0.01) for i in range(30)])
        open_page("/?poll=500#4/47/3", 4)
        wait.until(lambda d: "live (30)" in [o.get_attribute("textContent")
                                             for o in Select(d.find_element(By.ID, "dataset")).options])
        show_tools()
        Select(driver.find_element(By.ID, "dataset")).select_by_value("live")
        wait.until(lambda d: d.execute_script("return document.body.dataset.points") == "30")
        added = write(base + "/v1/datasets/live/features", "POST", [(50.0 + i * 0.01, 4.0) for i in range(12)])
        wait.until(lambda d: d.execute_script("return document.body.dataset.points") == "42")
        wait.until(lambda d: "live (42)" in [o.get_attribute("textContent")
                                             for o in Select(d.find_element(By.ID, "dataset")).options])
        counts = sorted(int(e.text) for e in driver.find_elements(By.CSS_SELECTOR, ".cluster span"))
        check(added["pointCount"] == 42 and sum(counts) + len(driver.find_elements(By.CSS_SELECTOR, ".point")) == 42,
              f"a dataset written while the page is open shows its new count and clusters without a reload ({counts})")
        driver.save_screenshot(os.path.join(ARTIFACTS, "live-dataset.png"))

        # Stored XSS (issue 43): a dataset's own points whose properties pretend to be a cluster with a label of
        # HTML, one with an id equal to its cluster_id (shown as a cluster: its label is the count, as text),
        # one without (a point). Neither runs script, and the page's policy allows no inline script.
        title_before = driver.title
        attack = "<img src=x onerror=\"document.title='pwned'\">"
        hostile = {"type": "FeatureCollection", "features": [
            {"type": "Feature", "id": 7, "properties": {"cluster": True, "cluster_id": 7, "point_count": 5,
             "point_count_abbreviated": attack, "name": attack},
             "geometry": {"type": "Point", "coordinates": [-60.0, -30.0]}},
            {"type": "Feature", "properties": {"cluster": True, "cluster_id": 9, "point_count": 3,
             "point_count_abbreviated": attack, "name": attack},
             "geometry": {"type": "Point", "coordinates": [100.0, 40.0]}}]}
        request = urllib.request.Request(base + "/v1/datasets/hostile", data=json.dumps(hostile).encode(),
                                         method="PUT", headers={"Authorization": f"Bearer {WRITE_TOKEN}",
                                                                "Content-Type": "application/geo+json"})
        urllib.request.urlopen(request, timeout=60).read()
        open_page("/#2/0/0", 2)
        wait.until(lambda d: "hostile (2)" in [o.get_attribute("textContent")
                                               for o in Select(d.find_element(By.ID, "dataset")).options])
        show_tools()
        Select(driver.find_element(By.ID, "dataset")).select_by_value("hostile")
        show_tools(False)
        wait.until(lambda d: d.execute_script("return document.body.dataset.view") == "2:2")
        injected = driver.execute_script("return document.querySelectorAll('.leaflet-marker-pane img').length")
        labels = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".cluster span")]
        check(driver.title == title_before and injected == 0 and labels == ["5"],
              f"a dataset's properties never become markup (title {driver.title!r}, {injected} injected images, "
              f"cluster labels {labels})")
        # Issue 47: a dataset's own point shows its own properties, as text, in its tooltip and its popup.
        point = driver.find_element(By.CSS_SELECTOR, ".point")
        tooltip = point.get_attribute("title")
        point.click()
        settle(lambda d: d.find_elements(By.CSS_SELECTOR, ".leaflet-popup .properties dd"))
        pairs = driver.execute_script(
            "return [...document.querySelectorAll('.leaflet-popup .properties dt')].map((t) => [t.textContent,"
            " t.nextElementSibling.textContent])")
        injected = driver.execute_script("return document.querySelectorAll('.leaflet-popup img').length")
        check(tooltip == attack and ["name", attack] in pairs and ["cluster_id", "9"] in pairs and injected == 0
              and driver.title == title_before and not driver.find_element(By.ID, "panel").is_displayed(),
              f"a dataset point's tooltip and popup show its own properties as text ({tooltip!r}, {pairs[:2]})")
        driver.save_screenshot(os.path.join(ARTIFACTS, "dataset-point-popup.png"))
        for button in driver.find_elements(By.CSS_SELECTOR, ".leaflet-popup .popup-news"):
            button.click()
        settle(lambda d: d.find_element(By.ID, "panel").is_displayed() and pin() is not None)
        pinned = pin() or [0, 0]
        check(abs(pinned[0] - 40.0) < 0.01 and abs(pinned[1] - 100.0) < 0.01,
              "the popup's button asks for the point's place's news, pinned")
        with urllib.request.urlopen(base + "/", timeout=30) as page:
            policy = page.headers.get("Content-Security-Policy", "")
        check("script-src 'self'" in policy and "unsafe-inline" not in policy,
              f"the page is served with a Content-Security-Policy that allows no inline script ({policy!r})")
        show_tools()
        Select(driver.find_element(By.ID, "dataset")).select_by_value("markers")
        open_page("/#2/25/10", 2)

        # After locating: centre on the news country nearest to me is offered, and done when accepted.
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": base, "permissions": ["geolocation"]})
        driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {"latitude": 50.85, "longitude": 4.35, "accuracy": 10})
        driver.find_element(By.ID, "locate").click()
        wait.until(lambda d: d.find_element(By.ID, "offer").is_displayed())
        offered = driver.find_element(By.ID, "message-text").text
        driver.find_element(By.ID, "offer").click()
        wait.until(lambda d: d.find_element(By.ID, "panel-title").get_attribute("data-code") == "be"
                   and len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) > 0)
        wait.until(lambda d: d.execute_script(
            "const c = window.newsAtlas.map.getCenter(); return Math.abs(c.lat - 50.6) < 1.5 && Math.abs(c.lng - 4.6) < 1.5"))
        center = driver.execute_script("const c = window.newsAtlas.map.getCenter(); return [c.lat, c.lng]")
        check("Belgium" in offered and abs(center[0] - 50.6) < 1.5 and abs(center[1] - 4.6) < 1.5,
              f"after locating, centring on the nearest news country is offered and done ({offered!r}, {center})")
        # In Madrid, Spain is offered (every country GDELT covers is a news country), not Portugal's marker.
        driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {"latitude": 40.42, "longitude": -3.70, "accuracy": 10})
        driver.find_element(By.ID, "locate").click()
        wait.until(lambda d: "Spain" in d.find_element(By.ID, "message-text").text
                   and d.find_element(By.ID, "offer").is_displayed())
        driver.find_element(By.ID, "offer").click()
        spain = settle(lambda d: d.find_element(By.ID, "panel-title").get_attribute("data-code") == "es"
                       and len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) > 0)
        check(spain, "in Madrid, my location offers Spain and opens its headlines "
              f"({driver.find_element(By.ID, 'panel-title').text!r})")

        # No key at all: France's headlines from GDELT, the panel naming the provider and each article's source.
        if not keyless_base.startswith("http://127.0.0.1:"):
            raise SystemExit("map_page_test.py: the keyless server did not start")
        driver.get(keyless_base + "/#5/46.6/2.4")
        wait.until(lambda d: (d.execute_script("return document.body.dataset.view || ''")).startswith("5:"))
        driver.execute_script("window.newsAtlas.openPlace(46.6, 2.4)")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) > 0
                   or d.find_element(By.ID, "panel-status").text not in ("", "Loading…"))
        provider = driver.find_element(By.ID, "panel-list").get_attribute("data-provider")
        status = driver.find_element(By.ID, "panel-status").text
        items = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#panel-list li")]
        sources = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#panel-list li .source")]
        check(provider == "gdelt" and "GDELT" in status and len(items) == 10
              and all(source.startswith("france-news") for source in sources),
              f"with no key, France's headlines come from GDELT, provider and sources named "
              f"({provider}, {status!r}, {sources[:2]})")
        driver.save_screenshot(os.path.join(ARTIFACTS, "france-panel-gdelt.png"))
        # Issue 47, item 4: GDELT has no categories, so none is offered; one kept from before is not asked for.
        check(not driver.find_element(By.ID, "panel-category").is_displayed(),
              "with GDELT answering, the panel offers no category")
        driver.execute_script("localStorage.setItem('newsatlas.category', 'sports')")
        driver.refresh()
        wait.until(lambda d: (d.execute_script("return document.body.dataset.view || ''")).startswith("5:"))
        driver.execute_script("window.newsAtlas.openPlace(46.6, 2.4)")
        shown = settle(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) == 10)
        check(shown and not driver.find_element(By.ID, "panel-category").is_displayed()
              and driver.find_element(By.ID, "panel-list").get_attribute("data-category") == ""
              and "GDELT" in driver.find_element(By.ID, "panel-status").text,
              f"a category kept from before is not asked of GDELT: its top headlines show "
              f"({driver.find_element(By.ID, 'panel-status').text!r})")

        # French, and a phone's width.
        driver.get_log("performance")  # what the English pages asked is read and left behind
        open_page("/?lang=fr#2/25/10", 2)
        check(driver.find_element(By.CSS_SELECTOR, "#near button[type=submit]").get_attribute("textContent")
              == "Près de moi",
              "?lang=fr speaks French")
        driver.execute_script("window.newsAtlas.openPlace(30, -40, true)")  # mid-Atlantic
        settle(lambda d: d.find_element(By.ID, "offer").is_displayed())
        said = re.sub(r"[\u202f\u00a0]", " ", driver.find_element(By.ID, "message-text").text)
        # Among every country's markers (this server may ask GDELT), Cape Verde's is the nearest.
        check(said.startswith("Pays d’actualités le plus proche : Cap-Vert, à ") and said.endswith(" km")
              and driver.find_element(By.ID, "offer").text == "Voir ses actualités",
              f"the sea's offer of the nearest news country speaks French ({said!r})")
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0,
                                                                    "downloadThroughput": -1, "uploadThroughput": -1})
        driver.execute_script("window.newsAtlas.openPlace(46.6, 2.4)")
        settle(lambda d: d.find_element(By.ID, "panel-retry").is_displayed())
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0,
                                                                    "downloadThroughput": -1, "uploadThroughput": -1})
        check(driver.find_element(By.ID, "panel-status").text == "Impossible de joindre le serveur."
              and driver.find_element(By.ID, "panel-retry").text == "Réessayer",
              "a server out of reach is said in French on the French page")
        driver.get_log("browser")  # the offline request's console error, made on purpose
        driver.execute_script("window.newsAtlas.openPlace(46.6, 2.4)")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#panel-list time")) > 0)
        dates = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#panel-list time")]
        check(all(re.fullmatch(r"Le \d\d/\d\d/\d{4} à \d\d:\d\d", d) for d in dates),
              f"?lang=fr shows French dates ({dates[:2]})")
        # The French words the service wrote into the page from the catalogue: the dates' layout and words, the
        # map's attribution.
        shown, wanted = human_dates(3)
        check(shown == wanted, f"?lang=fr's dates are the CLI's French ones, from the catalogue ({shown})")
        attribution = driver.find_element(By.CSS_SELECTOR, ".leaflet-control-attribution").text
        check("Frontières : Natural Earth" in attribution,
              f"the French page's attribution is the catalogue's ({attribution!r})")
        # The search box in French: French names completed first, and the service's sentence in French.
        names = driver.execute_script(
            "return [...document.querySelectorAll('#countries option')].map((o) => o.value)")
        check(names[:2] == ["Andorre", "Andorra"] and "Allemagne" in names and "Espagne" in names,
              f"the French page completes French names first ({names[:2]})")
        field = driver.find_element(By.ID, "find-country")
        field.send_keys("uni")
        driver.find_element(By.CSS_SELECTOR, "#find button").click()
        settle(lambda d: d.find_elements(By.CSS_SELECTOR, "#find-said button"))
        said = driver.find_element(By.ID, "find-said").text
        choices = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#find-said button")]
        check(said.startswith("'uni' peut être :")
              and choices == ["Émirats arabes unis", "Royaume-Uni", "États-Unis", "îles Vierges des États-Unis"],
              f"the search box's choices are French on the French page ({said!r}, {choices})")
        field.clear()
        field.send_keys("atlantide")
        driver.find_element(By.CSS_SELECTOR, "#find button").click()
        check(settle(lambda d: d.find_element(By.ID, "find-said").text
                     == "Aucun pays d’actualités ne s’appelle 'atlantide'."),
              f"a name no country has is said in French ({driver.find_element(By.ID, 'find-said').text!r})")
        # The page asks the service in its language, so the service's error sentences come in French.
        asked = [json.loads(entry["message"])["message"]["params"]["request"]
                 for entry in driver.get_log("performance")
                 if json.loads(entry["message"])["message"].get("method") == "Network.requestWillBeSent"]
        asked = [r for r in asked if "/v1/" in r["url"]]
        check(asked and all(r["headers"].get("Accept-Language") == "fr" for r in asked),
              f"?lang=fr asks the service in French, Accept-Language: fr "
              f"({[(r['url'][-40:], r['headers'].get('Accept-Language')) for r in asked[:3]]})")
        french = json.loads(driver.execute_async_script(
            "const done = arguments[0];"
            "fetch('/v1/headlines?country=xx', {headers: {'Accept-Language': 'fr'}})"
            ".then((r) => r.text()).then(done, (e) => done(JSON.stringify({error: String(e)})));"))
        check(french.get("error", "").startswith("'xx' n'est pas un pays"),
              f"the service answers the page's French with a French sentence ({french})")
        check(driver.find_element(By.ID, "world").get_attribute("textContent") == "Monde entier"
              and driver.find_element(By.ID, "tools-toggle").get_attribute("textContent").strip().endswith("Outils")
              and driver.find_element(By.ID, "find-country").get_attribute("placeholder") == "Chercher un pays"
              and driver.execute_script("const s = document.querySelector('#legend summary'); return s && s.textContent")
              == "Légende"
              and "Sports" in driver.find_element(By.ID, "panel-category").text
              and "Aucune source favorite" in driver.find_element(By.ID, "panel-source").text,
              "the new controls speak French too")
        driver.set_window_size(390, 844)
        open_page("/#3/46/5", 3)
        map_size = driver.find_element(By.ID, "map").size
        check(map_size["width"] >= 380 and map_size["height"] > 200, f"a phone's width still shows the map {map_size}")
        driver.execute_script("window.newsAtlas.openPlace(46.6, 2.4)")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) > 0)
        driver.save_screenshot(os.path.join(ARTIFACTS, "phone-panel.png"))
        check(driver.find_element(By.ID, "panel").is_displayed(), "the panel shows on a phone")
        # Issue 47, item 1: on a 390×844 phone the header is one slim row and the headlines are a bottom sheet
        # over the map, which keeps most of the screen.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        settle(lambda d: d.execute_script("return innerWidth") == 390)
        sheet = driver.execute_script(
            "const r = (id) => document.getElementById(id).getBoundingClientRect();"
            "return [innerHeight, r('map').height, r('panel').top, r('panel').bottom, r('panel').width,"
            " document.querySelectorAll('#panel-list li').length]")
        rows = driver.execute_script(
            "return [...document.querySelectorAll('header > *')].filter((e) => e.offsetWidth > 1)"
            ".map((e) => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2))")
        check(header_height() <= 52 and max(rows) - min(rows) <= 4,
              f"on a 390×844 phone the header is one slim row ({header_height():.0f} px, centres {sorted(set(rows))})")
        check(sheet[1] >= sheet[0] - 60 and sheet[2] - header_height() >= 0.5 * sheet[0] and sheet[3] == sheet[0]
              and sheet[4] == 390 and sheet[5] == 10,
              f"on a phone the headlines are a bottom sheet leaving most of the screen to the map "
              f"(viewport {sheet[0]}, map {sheet[1]:.0f} px tall, sheet from {sheet[2]:.0f} px, {sheet[5]} headlines)")
        driver.save_screenshot(os.path.join(ARTIFACTS, "phone-sheet.png"))
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        check(run_axe("a phone, the panel open"),
              "axe-core finds no serious or critical violation on a phone, the panel open")

        # The pictures in Documentation/ (map-desktop.png, map-phone.png): a click in the south-west of France, its
        # pin, outline and headlines, at a laptop's 1280×800 and a phone's 390×844 viewport.
        # A first visit's page: the hint shown (a new document, so the page reads it again).
        driver.execute_script("localStorage.removeItem('newsatlas.hintHidden')")
        for name, (width, height), path, (lat, lon) in [
                ("map-desktop.png", (1280, 800), "/?lang=en#5/46.6/2.4", (44.2, 0.6)),
                ("map-phone.png", (390, 844), "/?lang=en#4/47/2.4", (44.0, 4.5))]:
            driver.set_window_size(width, height + 200)
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 640})
            open_page(path, int(path.split("#")[1][0]))
            click_at(lat, lon)
            settle(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#panel-list li")) == 10 and pin() is not None)
            driver.save_screenshot(os.path.join(ARTIFACTS, name))
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

        # Nothing left 127.0.0.1 (every request the browser made, from its network log).
        urls = []
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        # Articles' pictures come from their publishers (the imitation's are on example.org, which this machine
        # cannot reach); everything else the page loads is the service's own.
        def picture(url):  # the imitations' article pictures: example.org's and GDELT's *.example hosts
            return re.fullmatch(r"https://([a-z0-9-]+\.)*(example\.org|[a-z0-9-]+\.example)/\S*\.jpg", url) is not None
        outside = [u for u in urls if not (u.startswith("http://127.0.0.1:") or u.startswith("data:") or picture(u))]
        check(urls and not outside, f"{len(urls)} requests, none leaving 127.0.0.1 but articles' pictures ({outside[:3]})")
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
                  and not picture(entry["message"].split(" ", 1)[0])
                  and "/v1/headlines?country=xx " not in entry["message"]  # the 400 asked for on purpose
                  and "/v1/countries?q=" not in entry["message"]]  # the search box's names no one country has
        check(not errors, f"still no console errors, unreachable pictures aside ({errors[:2]})")
    finally:
        if driver:
            driver.quit()
        server.terminate()
        server.wait()
        keyless.terminate()
        keyless.wait()
        news.stdin.close()
        news.wait()
        scratch.cleanup()
    print(f"screenshots in {ARTIFACTS}")
    finish()


if __name__ == "__main__":
    main()
