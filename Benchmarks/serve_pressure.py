#!/usr/bin/env python3
"""newsatlas serve's memory under careless clients, and its throughput beside it: with 1M points (serve_bench.py's),
eight batch POSTs that never read their answer (POST /v1/nearest?format=jsonl&count=5, 80 KB of `1,2` lines) and
six slow cluster readers (three GET clusters?zoom=31 of the whole world, three of a band of about 90,000 points,
each reading 1 KiB and then nothing), the server's RSS sampled while they hold on; then, on a fresh server, MVT
tiles and GET /v1/resolve under wrk (64 connections) as serve_bench.py measures them. Give it one binary or
several (a before and an after, measured alternately); run from Benchmarks/, needs wrk.

    python3 serve_pressure.py [--seconds N] BINARY...
"""
import json, math, os, random, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.argv, arguments = sys.argv[:1], sys.argv[1:]
import serve_bench  # noqa: E402 (its start and wrk; it reads sys.argv when imported)

SECONDS = 10
if arguments[:1] == ["--seconds"]:
    SECONDS, arguments = int(arguments[1]), arguments[2:]
serve_bench.SECONDS = SECONDS
if not arguments:
    sys.exit("usage: python3 serve_pressure.py [--seconds N] BINARY...")


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def pressure(binary, points):
    server, base, _ = serve_bench.start([], [binary, "serve", "--port", "0", "--no-news", "--points",
                                             f"points={points}"])
    port = int(base.rsplit(":", 1)[1])
    try:
        loaded = status_kb(server.pid, "VmRSS")
        clients = []
        body = b"1,2\n" * 20_000
        for _ in range(8):
            s = socket.create_connection(("127.0.0.1", port))
            s.setblocking(False)
            request = (b"POST /v1/nearest?format=jsonl&count=5 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
                       % len(body)) + body
            try:
                s.send(request)  # as much as the socket takes; the rest never comes if the server stops reading
            except BlockingIOError:
                pass
            clients.append(s)
        for i in range(6):
            s = socket.create_connection(("127.0.0.1", port))
            box = "" if i < 3 else "&bbox=-180,-5.2,180,5.2"
            s.sendall(f"GET /v1/datasets/points/clusters?zoom=31{box} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            s.recv(1024)
            clients.append(s)
        peak = 0
        for _ in range(20):  # ten seconds of the clients holding on
            time.sleep(0.5)
            peak = max(peak, status_kb(server.pid, "VmRSS"))
        held = status_kb(server.pid, "VmRSS")
        hwm = status_kb(server.pid, "VmHWM")
        for s in clients:
            s.close()
        return {"loaded_rss_mb": loaded / 1024, "held_rss_mb": held / 1024, "peak_rss_mb": peak / 1024,
                "hwm_mb": hwm / 1024, "over_loaded_mb": (peak - loaded) / 1024}
    finally:
        server.terminate()
        server.wait()


def throughput(binary, points, tiles):
    server, base, _ = serve_bench.start([], [binary, "serve", "--port", "0", "--no-news", "--points",
                                             f"points={points}"])
    try:
        return {"tiles": serve_bench.wrk(base, os.path.join(HERE, "wrk", "tiles.lua"),
                                         {"TILES": tiles, "DATASET": "points"}),
                "resolve": serve_bench.wrk(base, os.path.join(HERE, "wrk", "resolve.lua"), {})}
    finally:
        server.terminate()
        server.wait()


def main():
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        r = random.Random(1)  # serve_bench.py's points
        points = os.path.join(tmp, "points.geojson")
        with open(points, "w") as f:
            f.write('{"type":"FeatureCollection","features":[\n')
            f.write(",\n".join('{"type":"Feature","properties":{"index":%d},"geometry":{"type":"Point",'
                               '"coordinates":[%r,%r]}}' % (i, r.random() * 360 - 180,
                                                            math.degrees(math.asin(2 * r.random() - 1)))
                               for i in range(1_000_000)))
            f.write("\n]}\n")
        tiles = os.path.join(tmp, "tiles.txt")
        with open(os.path.join(HERE, "Fixtures", "tiles-3000.json")) as f, open(tiles, "w") as out:
            out.write("\n".join(f"{z} {x} {y}" for z, x, y in json.load(f)) + "\n")
        for binary in arguments:
            results[binary] = {"pressure": pressure(binary, points)}
            print(json.dumps({binary: results[binary]}), file=sys.stderr)
        for binary in arguments:
            results[binary].update(throughput(binary, points, tiles))
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
