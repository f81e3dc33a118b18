#!/usr/bin/env python3
"""A small HTTP server on 127.0.0.1 for the Fetch tests: behaviours on demand, never a real service.

It binds port 0, prints the port on the first line of stdout (the tests wait for that line: readiness, not a
sleep), serves until its stdin closes, and stops by itself after 120 seconds whatever happens.
"""
import gzip
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

COUNT = {"requests": 0}
LOCK = threading.Lock()
LOG_FILE = sys.argv[1] if len(sys.argv) > 1 else None  # every request's path and query, written before answering
FLAKY = {"jp": 1}  # countries that fail once with a 500 before answering

KEY = "test-key-0123456789abcdef0123456789"
ARTICLE = {"source": {"id": None, "name": "Example"}, "author": None, "title": "T", "description": None,
           "url": "https://example.org/a", "urlToImage": None, "publishedAt": "2024-04-20T20:52:20.5931133Z",
           "content": None}
REMOVED = {"source": {"id": None, "name": "[Removed]"}, "author": None, "title": "[Removed]",
           "description": "[Removed]", "url": "https://removed.com", "urlToImage": None,
           "publishedAt": "1970-01-01T00:00:00Z", "content": "[Removed]"}
SOURCES = [
    {"id": "le-monde", "name": "Le Monde", "description": "", "url": "https://www.lemonde.fr", "category": "general",
     "language": "fr", "country": "fr"},
    {"id": "les-echos", "name": "Les Echos", "description": "", "url": "https://www.lesechos.fr",
     "category": "business", "language": "fr", "country": "fr"},
    {"id": "xinhua-net", "name": "Xinhua Net", "description": "", "url": "http://xinhuanet.com", "category": "general",
     "language": "zh", "country": "zh"},
    {"id": "ynet", "name": "Ynet", "description": "", "url": "https://www.ynet.co.il", "category": "general",
     "language": "he", "country": "is"},
    {"id": "bbc-news", "name": "BBC News", "description": "", "url": "https://www.bbc.co.uk/news",
     "category": "general", "language": "en", "country": "gb"},
]


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
        if query.get("country") in ("au", "nz"):
            delay = 1000  # slow answers, to show that text output follows arrival
        if delay:
            time.sleep(delay / 1000)
        ok = lambda articles, total=None: self.send(200, json.dumps(
            {"status": "ok", "totalResults": len(articles) if total is None else total, "articles": articles}).encode())
        if path == "/v2/top-headlines/sources":
            return self.send(200, json.dumps({"status": "ok", "sources": SOURCES}).encode())
        if path == "/v2/top-headlines":
            country = query.get("country")
            if "sources" in query and ("country" in query or "category" in query):
                return self.send(400, json.dumps({"status": "error", "code": "parametersIncompatible",
                                                  "message": "You cannot mix the sources parameter."}).encode())
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
            sources = query.get("sources", "").split(",")
            if "le-monde" in sources:
                return ok([article("Paris")])
            return ok([])
        if path == "/v2/everything":
            if "ynet.co.il" in query.get("domains", "").split(",") and query.get("language") == "he":
                return ok([article("Jerusalem")])
            if query.get("q") == "flaky429":  # answers once, then is rate-limited
                with LOCK:
                    FLAKY["q429"] = FLAKY.get("q429", 0) + 1
                    first = FLAKY["q429"] == 1
                if not first:
                    return self.send(429, json.dumps({"status": "error", "code": "rateLimited",
                                                      "message": "Too many requests."}).encode(),
                                     headers=[("Retry-After", "3600")])
                return ok([article("Before the limit")])
            if query.get("q") == "paged":  # 45 results in all, pages of pageSize
                size, page = int(query.get("pageSize", "20")), int(query.get("page", "1"))
                start = (page - 1) * size
                return ok([article(f"r{i}") for i in range(start, min(start + size, 45))], 45)
            if query.get("q"):
                return ok([article("About " + query["q"])])
            return ok([])
        return self.send(404, b'{"status":"error","code":"notFound","message":"no such path"}')

    def do_GET(self):
        with LOCK:
            COUNT["requests"] += 1
            if LOG_FILE:
                with open(LOG_FILE, "a") as f:
                    f.write(self.path + "\n")
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        path = url.path
        if path.startswith("/v2/"):
            return self.news(path, query)
        if path == "/ok":
            self.send(200, b'{"status":"ok"}')
        elif path == "/headers":
            self.send(200, json.dumps({k.lower(): v for k, v in self.headers.items()}).encode())
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


def main():
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    watcher = threading.Thread(target=lambda: sys.stdin.read(), daemon=True)
    watcher.start()
    watcher.join(timeout=120)
    server.shutdown()


if __name__ == "__main__":
    main()
