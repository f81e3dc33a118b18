#!/usr/bin/env python3
"""The filter cache's estimate against the memory a filtered dataset takes in `newsatlas serve` (issue 30).

For each size: `serve --points live=FILE` with N seeded uniform points (live_bench.py's, a third in each category),
no tile cache (so that tiles add nothing kept) and a filter cache large enough to keep the filtered dataset. Then
the first tile through `filter=["==",["get","category"],"b"]` (the filtered dataset built, with the zooms' k-d trees
its build needs), then one filtered tile at every zoom from 1 to the index's max zoom + 1 (each zoom's k-d tree
that the build left to its first query built by that tile), the server's resident memory (VmRSS) and the cache's
estimate (`newsatlas_filter_cache_bytes` in /metrics) read after each step. Run from the repository after a build
of `newsatlas`; NEWSATLAS_BINARY names another build (an older one, for a before/after in one sitting).

    python3 Benchmarks/filter_cache_memory.py [SIZES...]
"""
import math, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from live_bench import BINARY, Client, collection, rss_mb  # noqa: E402

SIZES = [int(s) for s in sys.argv[1:]] or [100_000, 1_000_000]
FILTER = "%5B%22%3D%3D%22%2C%5B%22get%22%2C%22category%22%5D%2C%22b%22%5D"


def tile(zoom, latitude=10.0, longitude=20.0):
    """The tile at `zoom` holding (latitude, longitude)."""
    n = 1 << zoom
    x = int((longitude + 180) / 360 * n)
    y = int((1 - math.log(math.tan(math.radians(latitude)) + 1 / math.cos(math.radians(latitude))) / math.pi) / 2 * n)
    return f"{zoom}/{x}/{y}"


def estimate(client):
    return int(re.search(r"newsatlas_filter_cache_bytes (\d+)", client.ask("GET", "/metrics")[2].decode()).group(1))


def main():
    scratch = tempfile.TemporaryDirectory(prefix="newsatlas-filter-memory-")
    print(f"sizes {SIZES}, binary {BINARY}")
    for size in SIZES:
        path = f"{scratch.name}/p{size}.geojson"
        with open(path, "wb") as f:
            f.write(collection(size, seed=size))
        server = subprocess.Popen(
            [BINARY, "serve", "--port", "0", "--no-news", "--points", f"live={path}", "--tile-cache-mb", "0",
             "--filter-cache-mb", "4096", "--datasets-dir", f"{scratch.name}/d{size}"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        port = int(re.search(r":(\d+)\s*$", server.stdout.readline()).group(1))
        client = Client(port)
        try:
            client.ask("GET", "/tiles/live/0/0/0.mvt")
            client.ask("GET", "/metrics")
            start = rss_mb(server.pid)
            client.ask("GET", f"/tiles/live/0/0/0.mvt?filter={FILTER}")
            first = (rss_mb(server.pid) - start, estimate(client) / 1e6)
            for zoom in range(1, 18):
                client.ask("GET", f"/tiles/live/{tile(zoom)}.mvt?filter={FILTER}")
            every = (rss_mb(server.pid) - start, estimate(client) / 1e6)
            with open("/proc/loadavg") as f:
                load = " ".join(f.read().split()[:3])
            print(f"{size:>9,} points (load {load}): first filtered tile: resident +{first[0]:,.1f} MB, estimate "
                  f"{first[1]:,.1f} MB; a tile at every zoom after it: resident +{every[0]:,.1f} MB, estimate "
                  f"{every[1]:,.1f} MB", flush=True)
        finally:
            server.terminate()
            server.wait()
    scratch.cleanup()


if __name__ == "__main__":
    main()
