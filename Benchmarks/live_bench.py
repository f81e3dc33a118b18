#!/usr/bin/env python3
"""Datasets that change while served (issue 30): write-to-visible latency of `newsatlas serve` at 10k, 100k and
1M points, and filtered tiles. Run from the repository after `swift build -c release --product newsatlas`.

For each size: a PUT of N seeded points (the dataset created), then ROUNDS times, alternately, a POST of one
feature, a DELETE of one feature by id and a PUT of the N points again, each timed from the request's first byte
to the moment a tile of the dataset is served from the new version (the write's answer comes once the new index
is swapped in; the tile asked right after must carry the new ETag, else the run fails). Then filtered tiles: the
first filtered tile (the filtered index built), then GETs of 256 tiles at zoom 4 through that filter on one
keep-alive connection, twice (first made, then from the tile cache), and the filter cache's bytes as /metrics
counts them beside the growth of the server's resident memory.

After the rounds, one more POST and then the first nearest query (`/v1/nearest?dataset=live`), which builds the
nearest tree that a write no longer builds. The load average is printed with each size. NEWSATLAS_BINARY names
another build to measure (an older one, for a before/after in one sitting); NEWSATLAS_SERVE_ARGS adds options to
`serve` (`--filter-cache-mb 512` keeps the filtered index of a third of 1M points, which the default 256 does not).

    python3 Benchmarks/live_bench.py [ROUNDS] [SIZES...]
"""
import http.client, json, os, random, re, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.environ.get("NEWSATLAS_BINARY") or os.path.join(ROOT, ".build", "release", "newsatlas")
TOKEN = "live-bench-write-token-0123456789"
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
SIZES = [int(s) for s in sys.argv[2:]] or [10_000, 100_000, 1_000_000]


def collection(count, seed, prefix="p"):
    rng = random.Random(seed)
    parts = []
    for i in range(count):
        lat, lon = rng.uniform(-80, 80), rng.uniform(-180, 180)
        parts.append(f'{{"type":"Feature","id":"{prefix}{i}","properties":{{"category":"{"abc"[i % 3]}"}},'
                     f'"geometry":{{"type":"Point","coordinates":[{lon:.6f},{lat:.6f}]}}}}')
    return ('{"type":"FeatureCollection","features":[' + ",".join(parts) + "]}").encode()


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024


class Client:
    def __init__(self, port):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)

    def ask(self, method, path, body=None, write=False):
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/geo+json"} if write else {}
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status >= 300 and response.status != 304 and not (response.status == 204 and method != "DELETE"):
            if not (method == "DELETE" and response.status == 204):
                raise SystemExit(f"{method} {path}: {response.status} {data[:200]!r}")
        return response.status, response.getheader("ETag"), data


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def main():
    scratch = tempfile.TemporaryDirectory(prefix="newsatlas-live-bench-")
    print(f"rounds {ROUNDS}, sizes {SIZES}, binary {BINARY}")
    for size in SIZES:
        body = collection(size, seed=size)
        server = subprocess.Popen(
            [BINARY, "serve", "--port", "0", "--no-news", "--datasets-dir", f"{scratch.name}/d{size}"]
            + os.environ.get("NEWSATLAS_SERVE_ARGS", "").split(),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env={**os.environ, "NEWSATLAS_WRITE_TOKEN": TOKEN})
        port = int(re.search(r":(\d+)\s*$", server.stdout.readline()).group(1))
        client = Client(port)
        try:
            begin = time.perf_counter()
            client.ask("PUT", "/v1/datasets/live", body, write=True)
            created = time.perf_counter() - begin
            timings = {"POST one feature": [], "DELETE one feature by id": [], "PUT all again": []}
            for round in range(ROUNDS):
                for what in timings:
                    _, before, _ = client.ask("GET", "/tiles/live/0/0/0.mvt")
                    begin = time.perf_counter()
                    if what.startswith("POST"):
                        client.ask("POST", "/v1/datasets/live/features", collection(1, seed=round, prefix=f"n{round}-"),
                                   write=True)
                    elif what.startswith("DELETE"):
                        client.ask("DELETE", f"/v1/datasets/live/features/p{round}", write=True)
                    else:
                        client.ask("PUT", "/v1/datasets/live", body, write=True)
                    _, after, _ = client.ask("GET", "/tiles/live/0/0/0.mvt")
                    elapsed = time.perf_counter() - begin
                    if after == before:
                        raise SystemExit(f"{what}: the tile's ETag did not change")
                    timings[what].append(elapsed)
            client.ask("POST", "/v1/datasets/live/features", collection(1, seed=99, prefix="last-"), write=True)
            begin = time.perf_counter()
            client.ask("GET", "/v1/nearest?dataset=live&lat=10&lon=20&count=5")
            nearest = time.perf_counter() - begin
            with open("/proc/loadavg") as f:
                load = " ".join(f.read().split()[:3])
            print(f"{size:>9,} points (load {load}): first nearest after a write {nearest * 1000:,.1f} ms",
                  flush=True)
            print(f"{size:>9,} points: PUT (created) {created * 1000:,.0f} ms; " + "; ".join(
                f"{what} median {median(values) * 1000:,.1f} ms (min {min(values) * 1000:,.1f}, max "
                f"{max(values) * 1000:,.1f})" for what, values in timings.items()), flush=True)
            # Filtered tiles: the first (the filtered index built), then 256 tiles at zoom 4 through the filter.
            quoted = "%5B%22%3D%3D%22%2C%5B%22get%22%2C%22category%22%5D%2C%22b%22%5D"
            resident = rss_mb(server.pid)
            begin = time.perf_counter()
            client.ask("GET", f"/tiles/live/0/0/0.mvt?filter={quoted}")
            first = time.perf_counter() - begin
            metrics = client.ask("GET", "/metrics")[2].decode()
            cache = int(re.search(r"newsatlas_filter_cache_bytes (\d+)", metrics).group(1))
            grown = rss_mb(server.pid) - resident
            for label in ("cold tiles", "warm tiles"):
                begin = time.perf_counter()
                for x in range(16):
                    for y in range(16):
                        client.ask("GET", f"/tiles/live/4/{x}/{y}.mvt?filter={quoted}")
                rate = 256 / (time.perf_counter() - begin)
                print(f"{size:>9,} points, filter category == b: {label} {rate:,.0f} tiles/s (one connection)",
                      flush=True)
            print(f"{size:>9,} points, filter category == b: first tile {first * 1000:,.0f} ms (index built); "
                  f"filter cache {cache / 1e6:,.1f} MB by its estimate, resident memory +{grown:,.1f} MB", flush=True)
        finally:
            server.terminate()
            server.wait()
    scratch.cleanup()


if __name__ == "__main__":
    main()
