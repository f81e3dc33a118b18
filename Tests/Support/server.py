#!/usr/bin/env python3
"""A small HTTP server on 127.0.0.1 for the Fetch tests: behaviours on demand, never a real service.

It binds port 0, prints the port on the first line of stdout (the tests wait for that line: readiness, not a
sleep), serves until its stdin closes, and stops by itself after 2 hours whatever happens (a safety net only, for a
pipe some child kept open: a test's server starts when the suite is set up, and a busy 2-core machine running
the whole suite in parallel has kept tests waiting 20 minutes for their turn, past the 15 minutes this was).
"""
import gzip
import calendar
import json
import re
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from barrier import barrier

COUNT = {"requests": 0}
LOCK = threading.Lock()
ARGUMENTS = [argument for argument in sys.argv[1:] if not argument.startswith("--")]
LOG_FILE = ARGUMENTS[0] if ARGUMENTS else None  # every request's path and query, written before answering
# With --second-host the same handler also listens on 127.0.0.2 (its port on the second line of stdout), and
# LOG_FILE.arrivals records "ADDRESS PATH KEY" for every request (KEY: the X-Api-Key received, or "-"), so a test
# can show that a key never reached the second host. /hop/REST on 127.0.0.1 redirects there (302 to
# http://127.0.0.2:PORT2/REST); /hop-same/REST redirects to /REST on the same host.
SECOND_HOST = "--second-host" in sys.argv[1:]
PORTS = {}
FLAKY = {"jp": 1}  # countries that fail once with a 500 before answering
# Barriers (barrier.py): /barrier?group=G&n=N, and a NewsAPI search for "barrier-G-N", hold each answer until
# N requests of group G have arrived; a broken group answers 504 at once.

KEY = "test-key-0123456789abcdef0123456789"
ARTICLE = {"source": {"id": None, "name": "Example"}, "author": None, "title": "T", "description": None,
           "url": "https://example.org/a", "urlToImage": None, "publishedAt": "2024-04-20T20:52:20.5931133Z",
           "content": None}
REMOVED = {"source": {"id": None, "name": "[Removed]"}, "author": None, "title": "[Removed]",
           "description": "[Removed]", "url": "https://removed.com", "urlToImage": None,
           "publishedAt": "1970-01-01T00:00:00Z", "content": "[Removed]"}
# A source list shaped like the real one (120 sources; see Fixtures/newsapi/make_sources.py). "articles" is how
# many top headlines each source has here; it is not part of NewsAPI's answer.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "newsapi", "sources.json")) as f:
    CATALOG = json.load(f)
SOURCES = [{k: v for k, v in source.items() if k != "articles"} for source in CATALOG]
PROLIFIC = {source["id"] for source in CATALOG if source["articles"] > 10}
SLOW_SOURCES = {"abc-news-au": 1000}  # milliseconds: to show that text output follows arrival


HOSTILE_ARTICLE = {"source": {"id": "cnn", "name": "Src\x9b31m"}, "author": "A\x1b[0m",
                   "title": "Title\x1b[2J\r\nnewsatlas: forged line", "description": "D\x07",
                   "url": "https://example.org/a", "urlToImage": "https://example.org/\x1b]0;pwned\x07",
                   "publishedAt": "2026-11-22T11:37:00Z", "content": None}
HOSTILE_SOURCE = {"id": "evil\x1b[31m", "name": "Evil\x1b]0;title\x07 News\r\nforged", "description": "x",
                  "url": "https://example.org", "category": "general", "language": "en", "country": "us"}


def source_articles(n, source):
    """A source's top headlines, newest first: prolific ones (a live feed) every 2 minutes, others every 40."""
    step = 2 if source["id"] in PROLIFIC else 40
    items = []
    for k in range(source["articles"]):
        minutes = k * step + n % 37
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1795348800 - minutes * 60))
        items.append({"source": {"id": source["id"], "name": source["name"]}, "author": None,
                      "title": f"{source['id']} {k}",
                      # Every other article has a description (the map shows it), those without a picture.
                      "description": f"What {source['id']} {k} is about." if k % 2 == 1 else None,
                      "url": f"https://example.org/{source['id']}/{k}",
                      "urlToImage": f"https://example.org/{source['id']}/{k}.jpg" if k % 2 == 0 else None,
                      "publishedAt": stamp, "content": None})
    return items


def by_sources(ids):
    """Every article of these sources, newest first (the order the service answers in)."""
    items = []
    for n, source in enumerate(CATALOG):
        if source["id"] in ids:
            items += source_articles(n, source)
    return sorted(items, key=lambda a: a["publishedAt"], reverse=True)


# GDELT DOC 2.0 as documented: GET /api/v2/doc/doc?query=...&mode=ArtList&format=json&maxrecords=N&timespan=T
# &sort=DateDesc answers {"articles":[...]} (or {} when nothing matches), newest first; a bad query, or a client
# asking more often than allowed, gets a 200 with one line of plain text (text/html), as GDELT answers them.
# Each country's articles come from Fixtures/gdelt/volumes.json (articles a day), evenly spaced over the day
# before the current quarter hour; names and FIPS codes from Data/gdelt-countries.tsv. A base path picks a
# behaviour: /toofast (every answer is the rate-limit sentence), /toofast-once (the first is), /badquery,
# /paced-MS (the rate-limit sentence for a request less than MS ms after the previous one), /down (503 HTML),
# /notjson (a 200 of JSON that is not GDELT's), /empty (a 200 with no body).
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
with open(os.path.join(ROOT, "Tests", "Fixtures", "gdelt", "volumes.json")) as f:
    GDELT_VOLUMES = json.load(f)
GDELT_COUNTRIES = {}  # FIPS -> (iso, name)
with open(os.path.join(ROOT, "Data", "gdelt-countries.tsv")) as f:
    for line in f:
        if line.startswith("#") or line.startswith("iso\t") or not line.strip():
            continue
        iso, fips, name = line.rstrip("\n").split("\t")
        GDELT_COUNTRIES[fips] = (iso, name)
WORLD_COUNTRIES = {}  # FIPS -> (iso, GDELT's name): every other country GDELT covers, asked by sourcecountry
with open(os.path.join(ROOT, "Data", "world-countries.tsv")) as f:
    for line in f:
        if line.startswith("#") or not line.strip():
            continue
        iso, fips, _, _, name = line.rstrip("\n").split("\t")[:5]
        if fips not in GDELT_COUNTRIES:
            WORLD_COUNTRIES[fips] = (iso, name)
GDELT_TOO_FAST = ("Please limit requests to one every 5 seconds or contact kalev.leetaru5@gmail.com for larger "
                  "queries.")
GDELT_STATE = {"last": None, "toofast-once": 1}
TIMESPANS = {"min": 60, "h": 3600, "d": 86400, "w": 604800}


def gdelt_articles(iso, fips, name, now, span):
    """A country's articles seen in the last `span` seconds before `now`, newest first."""
    per_day = GDELT_VOLUMES.get(iso, 100)  # the 54 as measured; any other country a steady 100 a day
    items = []
    if per_day == 0:
        return items
    step = 86400 / per_day
    offset = (sum(map(ord, iso)) % 60) * 7  # countries' articles do not fall on the same seconds
    k = 0
    while True:
        seen = now - offset - k * step
        if seen <= now - span:
            break
        domain = f"{name.lower().replace(' ', '')}-news{k % 3}.example"
        items.append({"url": f"https://{domain}/{iso}/{k}", "url_mobile": "",
                      "title": f"{name} story {k}", "seendate": time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(seen)),
                      "socialimage": f"https://{domain}/{k}.jpg" if k % 2 == 0 else "", "domain": domain,
                      "language": "English", "sourcecountry": name, "_seen": seen})
        k += 1
    return items


def article(title):
    return dict(ARTICLE, title=title, url="https://example.org/" + title.replace(" ", "-"))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="application/json", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def news(self, path, query):
        if self.headers.get("X-Api-Key") != KEY:
            return self.send(401, json.dumps({"status": "error", "code": "apiKeyInvalid",
                                              "message": "Your API key is invalid or incorrect."}).encode())
        delay = int(query.get("delayms", "0")) or int(self.headers.get("X-Test-Delay", "0"))
        if delay:
            time.sleep(delay / 1000)
        ok = lambda articles, total=None: self.send(200, json.dumps(
            {"status": "ok", "totalResults": len(articles) if total is None else total, "articles": articles}).encode())
        if path == "/v2/top-headlines/sources":
            listed = [source for source in SOURCES
                      if all(source[key] == query[key] for key in ("category", "language", "country") if key in query)]
            return self.send(200, json.dumps({"status": "ok", "sources": listed}).encode())
        if path == "/v2/top-headlines":
            country = query.get("country")
            if "sources" in query and ("country" in query or "category" in query):
                return self.send(400, json.dumps({"status": "error", "code": "parametersIncompatible",
                                                  "message": "You cannot mix the sources parameter."}).encode())
            if country == "us" and query.get("category") == "health":
                return self.send(429, json.dumps({"status": "error", "code": "rateLimited",
                                                  "message": "You have made too many requests recently."}).encode(),
                                 headers=[("Retry-After", "3600")])
            if country == "kr":
                return self.send(429, json.dumps({"status": "error", "code": "rateLimited",
                                                  "message": "You have made too many requests recently."}).encode(),
                                 headers=[("Retry-After", "3600")])
            if country == "jp":
                with LOCK:
                    fail = FLAKY["jp"] > 0
                    FLAKY["jp"] -= 1
                if fail:
                    return self.send(500, json.dumps({"status": "error", "code": "unexpectedError",
                                                      "message": "our fault"}).encode(), headers=[("Retry-After", "0")])
                return ok([article("Tokyo")])
            if country == "ua":
                return self.send(503, b"<html>Service Unavailable</html>", "text/html")
            if country in ("us", "au", "nz"):
                return ok([article(country + " one"), REMOVED, article(country + " two")], 3)
            if country is not None:
                return ok([])
            ids = query.get("sources", "").split(",")
            unknown = [id for id in ids if id not in {source["id"] for source in SOURCES}]
            if unknown:
                return self.send(400, json.dumps({"status": "error", "code": "sourceDoesNotExist",
                                                  "message": f"The source {unknown[0]} does not exist."}).encode())
            if len(ids) > 20:
                return self.send(400, json.dumps({"status": "error", "code": "sourcesTooMany",
                                                  "message": "You have requested too many sources."}).encode())
            time.sleep(max([SLOW_SOURCES.get(id, 0) for id in ids]) / 1000)
            size, page = int(query.get("pageSize", "20")), int(query.get("page", "1"))
            items = by_sources(set(ids))
            return ok(items[(page - 1) * size:page * size], len(items))
        if path == "/v2/everything":
            if query.get("q", "").startswith("barrier-"):  # barrier-GROUP-N: held until N of GROUP arrived
                _, group, n = query["q"].rsplit("-", 2)
                if not barrier(group, int(n)):
                    return self.send(504, b"<html>barrier broken</html>", "text/html")
                return ok([article("About " + query["q"])])
            if query.get("q") == "flaky429":  # answers once, then is rate-limited
                with LOCK:
                    FLAKY["q429"] = FLAKY.get("q429", 0) + 1
                    first = FLAKY["q429"] == 1
                if not first:
                    return self.send(429, json.dumps({"status": "error", "code": "rateLimited",
                                                      "message": "Too many requests."}).encode(),
                                     headers=[("Retry-After", "3600")])
                return ok([article("Before the limit")])
            if query.get("q") == "slow":  # answers after 2 seconds, whatever the client's timeout
                time.sleep(2)
                return ok([article("Late")])
            if query.get("q") == "always500":  # a server error every time, with a Retry-After of 0
                return self.send(500, json.dumps({"status": "error", "code": "unexpectedError",
                                                  "message": "our fault"}).encode(), headers=[("Retry-After", "0")])
            if query.get("q") == "okerror":  # NewsAPI's error body with a 200
                return self.send(200, json.dumps({"status": "error", "code": "unexpectedError",
                                                  "message": "Something went wrong on our side."}).encode())
            if query.get("q") == "portal":  # a 200 that is a proxy's page, not NewsAPI's JSON
                return self.send(200, b"<html>Sign in to the hotel Wi-Fi</html>", "text/html")
            if query.get("q") == "emptybody":  # a gateway's error with no body at all
                return self.send(502, b"", "text/html")
            if query.get("q") == "nulltitle":  # one malformed article between two good ones
                bad = dict(article("x"), title=None)
                return ok([article("Good one"), bad, article("Good two")], 3)
            if query.get("q") == "negativeretry":  # a Retry-After no client should believe
                return self.send(429, json.dumps({"status": "error", "code": "rateLimited",
                                                  "message": "Too many requests."}).encode(),
                                 headers=[("Retry-After", "-5")])
            if query.get("q") == "paged":  # 45 results in all, pages of pageSize
                size, page = int(query.get("pageSize", "20")), int(query.get("page", "1"))
                start = (page - 1) * size
                return ok([article(f"r{i}") for i in range(start, min(start + size, 45))], 45)
            if query.get("q"):
                return ok([article("About " + query["q"])])
            return ok([])
        return self.send(404, b'{"status":"error","code":"notFound","message":"no such path"}')

    def gdelt(self, mode, query):
        """GDELT DOC 2.0's article list (see GDELT_VOLUMES above); never looks at a key (it takes none)."""
        text = lambda sentence: self.send(200, (sentence + "\n").encode(), "text/html; charset=utf-8")
        with LOCK:
            now_ms = time.time() * 1000
            last, GDELT_STATE["last"] = GDELT_STATE["last"], now_ms
            once = GDELT_STATE["toofast-once"] > 0
            if mode == "toofast-once":
                GDELT_STATE["toofast-once"] -= 1
        if mode == "toofast" or (mode == "toofast-once" and once):
            return text(GDELT_TOO_FAST)
        if mode.startswith("paced-") and last is not None and now_ms - last < int(mode[6:]):
            return text(GDELT_TOO_FAST)
        if mode == "down":
            return self.send(503, b"<html>Service Unavailable</html>", "text/html")
        if mode == "notjson":
            return self.send(200, b'{"articles": 5}')
        if mode == "empty":
            return self.send(200, b"", "text/html")
        q = query.get("query", "")
        if mode == "badquery" or not q:
            return text("Your search contained a keyword that was too short or too common to search for.")
        if query.get("mode", "").lower() != "artlist" or query.get("format") != "json":
            return text("Invalid mode or format.")
        countries, _, language = q.partition(" sourcelang:")
        if not countries.lstrip("(").startswith("sourcecountry:"):
            return self.gdelt_search(countries, language, query, text)
        if " OR " in countries and not (countries.startswith("(") and countries.endswith(")")):
            return text("Queries containing OR'd terms must be surrounded by ().")
        terms = countries.strip("()").split(" OR ")
        if not all(term.startswith("sourcecountry:") for term in terms):
            return text("The specified phrase is too short.")
        span_text = query.get("timespan", "1d")
        digits = "".join(c for c in span_text if c.isdigit())
        unit = span_text[len(digits):].lower()
        if not digits or unit not in TIMESPANS:
            return text("Invalid timespan.")
        span = int(digits) * TIMESPANS[unit]
        records = int(query.get("maxrecords", "75"))
        if not 1 <= records <= 250:
            return text("Maxrecords must be between 1 and 250.")
        now = int(time.time()) // 900 * 900
        items = []
        for term in terms:
            fips = term[len("sourcecountry:"):].upper()
            if fips in GDELT_COUNTRIES or fips in WORLD_COUNTRIES:
                iso, name = GDELT_COUNTRIES.get(fips) or WORLD_COUNTRIES[fips]
                items += gdelt_articles(iso, fips, name, now, span)
        if language and language != "english":
            items = []  # the imitation's articles are all in English
        items.sort(key=lambda a: a["_seen"], reverse=True)
        items = [{k: v for k, v in a.items() if k != "_seen"} for a in items[:records]]
        if not items:
            return self.send(200, b"{}")
        return self.send(200, json.dumps({"articles": items}).encode())

    def gdelt_search(self, words, language, query, text):
        """GDELT's keyword search: every country's articles (as above) whose title holds each of the words
        (any case; quotes kept together), with `domain:` (one, or several OR'd in parentheses) and `-domain:`
        filters, `startdatetime`/`enddatetime` (YYYYMMDDHHMMSS) or `timespan`, newest first whatever the sort."""
        domains = []
        match = re.search(r"\(?(domain:[^ ()]+(?: OR domain:[^ ()]+)*)\)?", words)
        if match and not match.group(0).startswith("-"):
            domains = [term[len("domain:"):] for term in match.group(1).split(" OR ")]
            words = words[:match.start()] + words[match.end():]
        excluded = re.findall(r"-domain:(\S+)", words)
        words = re.sub(r"-domain:\S+", "", words).strip()
        terms = [t.strip('"').lower() for t in re.findall(r'"[^"]*"|\S+', words)]
        if words and any(len(t) < 3 for t in terms):
            return text("The specified phrase is too short.")
        if query.get("sort") not in ("DateDesc", "HybridRel"):
            return text("Invalid sort.")
        records = int(query.get("maxrecords", "75"))
        if not 1 <= records <= 250:
            return text("Maxrecords must be between 1 and 250.")
        now = int(time.time()) // 900 * 900
        start, end = query.get("startdatetime"), query.get("enddatetime")
        if start or end:
            try:
                low = calendar.timegm(time.strptime(start, "%Y%m%d%H%M%S"))
                high = calendar.timegm(time.strptime(end, "%Y%m%d%H%M%S"))
            except (TypeError, ValueError):
                return text("Invalid date.")
        else:
            low, high = now - 86400, now
        items = []
        for fips, (iso, name) in GDELT_COUNTRIES.items():
            items += [a for a in gdelt_articles(iso, fips, name, high, high - low)
                      if all(t in a["title"].lower() for t in terms)
                      and (not domains or a["domain"] in domains) and a["domain"] not in excluded]
        if language and language != "english":
            items = []
        items.sort(key=lambda a: a["_seen"], reverse=True)
        items = [{k: v for k, v in a.items() if k != "_seen"} for a in items[:records]]
        return self.send(200, json.dumps({"articles": items}).encode() if items else b"{}")

    def hostile(self, path, query):
        """A service whose text holds terminal escapes, C1 controls and line breaks (base URL + "/hostile")."""
        if path == "/v2/top-headlines/sources":
            return self.send(200, json.dumps({"status": "ok", "sources": [HOSTILE_SOURCE]}).encode())
        if query.get("q") == "error":
            return self.send(400, json.dumps({"status": "error", "code": "bad\x1b[2J",
                                              "message": "Oops\x1b[2J\r\nnewsatlas: forged line."}).encode())
        return self.send(200, json.dumps({"status": "ok", "totalResults": 1, "articles": [HOSTILE_ARTICLE]}).encode())

    def do_GET(self):
        with LOCK:
            COUNT["requests"] += 1
            if LOG_FILE:
                with open(LOG_FILE, "a") as f:
                    f.write(self.path + "\n")
                if SECOND_HOST:
                    with open(LOG_FILE + ".arrivals", "a") as f:
                        key = self.headers.get("X-Api-Key") or "-"
                        f.write(f"{self.server.server_address[0]} {self.path} {key!r}\n")
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        path = url.path
        if SECOND_HOST and self.path.startswith("/hop/"):
            return self.send(302, b"", headers=[("Location", f"http://127.0.0.2:{PORTS['second']}/{self.path[5:]}")])
        if self.path.startswith("/hop-same/"):
            return self.send(302, b"", headers=[("Location", "/" + self.path[10:])])
        if path.startswith("/hostile/v2/"):
            return self.hostile(path[len("/hostile"):], query)
        if path.startswith("/v2/"):
            return self.news(path, query)
        if path.endswith("/api/v2/doc/doc"):
            return self.gdelt(path[:-len("/api/v2/doc/doc")].strip("/"), query)
        if path == "/ok":
            self.send(200, b'{"status":"ok"}')
        elif path == "/headers":
            self.send(200, json.dumps({k.lower(): v for k, v in self.headers.items()}).encode())
        elif path == "/barrier":
            group, n = query.get("group", ""), int(query.get("n", "2"))
            reached = barrier(group, n)
            self.send(200 if reached else 504, json.dumps({"reached": reached}).encode())
        elif path == "/slow":
            time.sleep(int(query.get("ms", "300")) / 1000)
            self.send(200, json.dumps({"slept": int(query.get("ms", "300"))}).encode())
        elif path == "/status":
            code = int(query.get("code", "500"))
            extra = [("Retry-After", query["retry"])] if "retry" in query else []
            self.send(code, b'{"status":"error","code":"x","message":"y"}', headers=extra)
        elif path == "/big":
            self.send(200, b"x" * int(query.get("bytes", "1000")), "text/plain")
        elif path == "/redirect":
            n = int(query.get("n", "1"))
            if n <= 0:
                self.send(200, b'{"redirected":true}')
            else:
                self.send(302, b"", headers=[("Location", f"/redirect?n={n - 1}")])
        elif path == "/gzip":
            body = gzip.compress(json.dumps({"compressed": True, "pad": "a" * 1000}).encode())
            self.send(200, body, headers=[("Content-Encoding", "gzip")])
        elif path == "/reset":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial")
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.close()
            self.close_connection = True
        elif path == "/count":
            with LOCK:
                self.send(200, json.dumps({"requests": COUNT["requests"]}).encode())
        else:
            self.send(404, b'{"status":"error","code":"notFound","message":"no such path"}')


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return  # a client that went away (the tests kill some on purpose)
        super().handle_error(request, client_address)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    servers = [server]
    if SECOND_HOST:
        servers.append(Server(("127.0.0.2", 0), Handler))
        PORTS["second"] = servers[1].server_address[1]
    print("\n".join(str(each.server_address[1]) for each in servers), flush=True)
    for each in servers:
        threading.Thread(target=each.serve_forever, daemon=True).start()
    watcher = threading.Thread(target=lambda: sys.stdin.read(), daemon=True)
    watcher.start()
    watcher.join(timeout=7200)
    for each in servers:
        each.shutdown()


if __name__ == "__main__":
    main()
