#!/usr/bin/env python3
"""Feeds on 127.0.0.1 for the feeds tests: the fixtures of Tests/Fixtures/feeds, as a publisher serves them.

It binds port 0, prints the port on the first line of stdout (the tests wait for that line), serves until its
stdin closes, and stops by itself after 2 hours whatever happens (a safety net only).

- /feeds/NAME: the fixture NAME, with an ETag (a hash of its bytes) and a Last-Modified; a request whose
  If-None-Match names that ETag, or whose If-Modified-Since is that date, gets 304 and no body.
- /changing/NAME: NAME with a new ETag on every request (a publisher without stable validators): never 304.
- /held/GROUP/N/NAME: NAME, each answer held until N requests of GROUP have arrived, so that N were in flight
  at once (a condition, not a sleep); a group not complete within 20 s answers 504 at once.
- /status/CODE: that status with a short HTML body.
Every request is written to the log file (argument 1) before it is answered, as
"PATH if-none-match=VALUE if-modified-since=VALUE" ("-" when the header is absent).
"""
import hashlib
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from barrier import barrier

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "feeds")
LOG_FILE = sys.argv[1] if len(sys.argv) > 1 else None
LAST_MODIFIED = "Wed, 25 Nov 2026 12:00:00 GMT"
LOCK = threading.Lock()
COUNTER = {"changing": 0}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def send(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status != 304:
            self.wfile.write(body)

    def fixture(self, name, changing=False):
        path = os.path.join(FIXTURES, name)
        if "/" in name or not os.path.isfile(path):
            return self.send(404, b"<html><body>Not found</body></html>", [("Content-Type", "text/html")])
        with open(path, "rb") as f:
            body = f.read()
        etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
        if changing:
            with LOCK:
                COUNTER["changing"] += 1
                etag = f'"changing-{COUNTER["changing"]}"'
        headers = [("Content-Type", "application/rss+xml"), ("ETag", etag), ("Last-Modified", LAST_MODIFIED)]
        if not changing and (self.headers.get("If-None-Match") == etag
                             or self.headers.get("If-Modified-Since") == LAST_MODIFIED):
            return self.send(304, b"", headers)
        self.send(200, body, headers)

    def do_GET(self):
        if LOG_FILE:
            with LOCK, open(LOG_FILE, "a") as f:
                f.write(f"{self.path} if-none-match={self.headers.get('If-None-Match') or '-'} "
                        f"if-modified-since={self.headers.get('If-Modified-Since') or '-'}\n")
        parts = self.path.split("?")[0].split("/")[1:]
        if len(parts) == 2 and parts[0] == "feeds":
            return self.fixture(parts[1])
        if len(parts) == 2 and parts[0] == "changing":
            return self.fixture(parts[1], changing=True)
        if len(parts) == 4 and parts[0] == "held" and parts[2].isdigit():
            if not barrier(parts[1], int(parts[2])):
                return self.send(504, b"<html><body>Group broken</body></html>", [("Content-Type", "text/html")])
            return self.fixture(parts[3])
        if len(parts) == 2 and parts[0] == "status" and parts[1].isdigit():
            return self.send(int(parts[1]), b"<html><body>Status</body></html>", [("Content-Type", "text/html")])
        self.send(404, b"<html><body>Not found</body></html>", [("Content-Type", "text/html")])


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    watcher = threading.Thread(target=lambda: sys.stdin.read(), daemon=True)
    watcher.start()
    watcher.join(timeout=7200)
    server.shutdown()


if __name__ == "__main__":
    main()
