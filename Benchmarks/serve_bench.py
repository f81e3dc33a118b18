#!/usr/bin/env python3
"""newsatlas serve under load: start time and memory with 1M points, MVT tiles (from the tile cache, then with
it off) and /v1/resolve over HTTP with wrk (64 connections), and rows/s of a 1M-row POST /v1/resolve; then
GET /v1/resolve again, alternately with bare Hummingbird answering a fixed body of the same size (bareserver,
the framework's floor on this machine in the same minutes), three rounds each. Run from Benchmarks/ after
`swift build -c release --product newsatlas` in the root and `swift build -c release --product bareserver`
here; needs Debian's wrk and curl.

    python3 serve_bench.py [SECONDS]
"""
import json, math, os, random, re, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))
BINARY = os.path.join(ROOT, ".build", "release", "newsatlas")
BARE = os.path.join(HERE, ".build", "release", "bareserver")
if len(sys.argv) > 2 or (len(sys.argv) == 2 and not (sys.argv[1].isdigit() and int(sys.argv[1]) > 0)):
    sys.exit("usage: python3 serve_bench.py [SECONDS], a whole number of seconds per wrk run (default 10).")
SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 10


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def start(arguments, command=None):
    """Starts `newsatlas serve --port 0` with `arguments`, or `command` instead; waits for its URL line."""
    begin = time.perf_counter()
    server = subprocess.Popen(command or [BINARY, "serve", "--port", "0"] + arguments, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline()  # readiness: printed once the port is open
    elapsed = time.perf_counter() - begin
    match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not match:
        server.kill()
        raise SystemExit(f"serve_bench.py: the server did not start: {line!r}")
    return server, f"http://127.0.0.1:{match.group(1)}", elapsed


def wrk(base, script, env):
    done = subprocess.run(["wrk", "-t2", "-c64", f"-d{SECONDS}s", "--latency", "-s", script, base],
                          capture_output=True, text=True, env={**os.environ, **env}, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", done).group(1))

    def latency(p):
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", done).groups()
        return float(value) * {"us": 1e-3, "ms": 1, "s": 1e3}[unit]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", done)
    socket_errors = re.search(r"Socket errors: (.*)", done)
    return {"requests_per_s": rate, "p50_ms": latency(50), "p99_ms": latency(99),
            "non_2xx": int(errors.group(1)) if errors else 0,
            "socket_errors": socket_errors.group(1) if socket_errors else None}


def main():
    for path, build in ((BINARY, "swift build -c release --product newsatlas (in the root)"),
                        (BARE, "swift build -c release --product bareserver (in Benchmarks/)")):
        if not os.path.exists(path):
            raise SystemExit(f"serve_bench.py: {path} is not built; run {build} first.")
    for tool in ("wrk", "curl"):
        if shutil.which(tool) is None:
            raise SystemExit(f"serve_bench.py: {tool} is not installed; run apt-get install {tool} first.")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        r = random.Random(1)
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
        rows = os.path.join(tmp, "rows.csv")
        with open(rows, "w") as f:
            f.write("latitude,longitude\n")
            f.write("\n".join(f"{math.degrees(math.asin(2 * r.random() - 1)):.6f},{r.random() * 360 - 180:.6f}"
                              for _ in range(1_000_000)) + "\n")

        server, base, started = start(["--points", f"points={points}"])
        try:
            results["start_1m_s"] = started
            results["start_1m_rss_mb"] = peak_rss_mb(server.pid)
            results["tiles"] = wrk(base, os.path.join(HERE, "wrk", "tiles.lua"), {"TILES": tiles, "DATASET": "points"})
            results["resolve"] = wrk(base, os.path.join(HERE, "wrk", "resolve.lua"), {})
            begin = time.perf_counter()
            answer = subprocess.run(["curl", "-s", "--data-binary", f"@{rows}", f"{base}/v1/resolve"],
                                    capture_output=True, check=True).stdout
            post = time.perf_counter() - begin
            lines = answer.count(b"\n") - 1
            results["post_resolve_rows_per_s"] = lines / post
            results["post_resolve_rows"] = lines
            results["peak_rss_mb"] = peak_rss_mb(server.pid)
        finally:
            server.terminate()
            server.wait()
        # The same tile walk with the tile cache off: every request makes and encodes its tile.
        server, base, _ = start(["--points", f"points={points}", "--tile-cache-mb", "0"])
        try:
            results["tiles_uncached"] = wrk(base, os.path.join(HERE, "wrk", "tiles.lua"),
                                            {"TILES": tiles, "DATASET": "points"})
        finally:
            server.terminate()
            server.wait()
        server, base, started = start([])
        results["start_markers_s"] = started
        server.terminate()
        server.wait()
        # GET /v1/resolve beside the framework's floor, alternately, so that both see the VM's same minutes.
        resolve = os.path.join(HERE, "wrk", "resolve.lua")
        results["resolve_rounds"] = []
        for _ in range(3):
            side_by_side = {}
            for name, arguments, command in (("bare", [], [BARE]), ("newsatlas", ["--no-news"], None)):
                server, base, _ = start(arguments, command)
                try:
                    side_by_side[name] = wrk(base, resolve, {})
                finally:
                    server.terminate()
                    server.wait()
            side_by_side["ratio"] = (side_by_side["newsatlas"]["requests_per_s"]
                                     / side_by_side["bare"]["requests_per_s"])
            results["resolve_rounds"].append(side_by_side)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
