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

    def do_GET(self):
        with LOCK:
            COUNT["requests"] += 1
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        path = url.path
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
