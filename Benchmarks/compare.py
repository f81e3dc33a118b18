#!/usr/bin/env python3
"""Side-by-side: GeoIndex's SphericalKDTree against scipy's cKDTree and pykdtree, same points, same queries.

Run from Benchmarks/ (after `pip install scipy pykdtree`):
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 python3 compare.py [nearest] [clusters]
It builds the Swift tools in release mode, runs every contender in this one process tree, and rewrites the
table between the markers in README.md. Points are the seed-1 stream of the fixtures' generator (mulberry32),
queries the seed-2 stream in a seeded random order; the peers get them as 3-D unit vectors already converted,
GeoIndex gets latitude/longitude and pays for the conversion and the exact haversine distance of the answer.
"""
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # pykdtree queries with OpenMP; single-threaded for all
import numpy as np  # noqa: E402
import scipy  # noqa: E402
from scipy.spatial import cKDTree  # noqa: E402

try:
    import pykdtree
    from pykdtree.kdtree import KDTree as PyKDTree
except ImportError:  # pragma: no cover
    sys.exit("compare.py: pykdtree is missing; install it with: pip install pykdtree")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SIZES = [54, 10_000, 1_000_000]
QUERIES = 100_000
M32 = np.uint64(0xFFFFFFFF)


def mulberry32(seed, count):
    """`count` consecutive outputs of mulberry32: each state is seed + k * 0x6D2B79F5, so it vectorises."""
    k = np.arange(1, count + 1, dtype=np.uint64)
    a = (np.uint64(seed) + k * np.uint64(0x6D2B79F5)) & M32
    t = a
    t = ((t ^ (t >> np.uint64(15))) * (t | np.uint64(1))) & M32
    t = t ^ ((t + (((t ^ (t >> np.uint64(7))) * (t | np.uint64(61))) & M32)) & M32)
    return (t ^ (t >> np.uint64(14))) & M32


def sphere_points(seed, count):
    words = mulberry32(seed, 4 * count).reshape(count, 4)
    u = ((words[:, [0, 2]] >> np.uint64(5)).astype(np.float64) * 67108864.0
         + (words[:, [1, 3]] >> np.uint64(6)).astype(np.float64)) / 9007199254740992.0
    lng = u[:, 0] * 360 - 180
    lat = np.degrees(np.arcsin(2 * u[:, 1] - 1))
    return lat, lng


def shuffled(n):
    order = np.arange(n)
    words = mulberry32(3, n)
    for step, i in enumerate(range(n - 1, 0, -1)):
        j = int(words[step]) % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def unit_vectors(lat, lng):
    la, lo = np.radians(lat), np.radians(lng)
    return np.ascontiguousarray(np.column_stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)]))


def best(rounds, fn):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def run(cmd, **kw):
    done = subprocess.run(cmd, text=True, capture_output=True, **kw)
    if done.returncode != 0:
        # What went wrong, not only that it did (a failed build's errors are on its standard output).
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        done.check_returncode()
    return done.stdout


def main():
    sections = sys.argv[1:] or ["nearest", "clusters", "http", "resolve", "cache"]
    print("building the Swift tools (release)...", file=sys.stderr)
    run(["swift", "build", "-c", "release", "--product", "compare"], cwd=HERE)
    run(["swift", "build", "-c", "release", "--product", "newsatlas"], cwd=ROOT)
    newsatlas = os.path.join(run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT).strip(),
                             "newsatlas")
    compare = os.path.join(run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=HERE).strip(), "compare")

    if "clusters" in sections:
        clusters(compare, newsatlas)
    if "resolve" in sections:
        resolve(compare, newsatlas)
    if "cache" in sections:
        cache(compare, newsatlas)
    if "http" in sections:
        run(["swift", "build", "-c", "release", "--product", "httpbench"], cwd=HERE)
        http(os.path.join(run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=HERE).strip(), "httpbench"))
    if "nearest" not in sections:
        return
    qlat, qlng = sphere_points(2, QUERIES)
    order = shuffled(QUERIES)
    q = unit_vectors(qlat[order], qlng[order])

    print("running GeoIndex...", file=sys.stderr)
    swift = {row["n"]: row for row in map(json.loads, run([compare, ",".join(map(str, SIZES)), str(QUERIES)]).split())}

    rows = []
    for n in SIZES:
        lat, lng = sphere_points(1, n)
        p = unit_vectors(lat, lng)
        rounds = 3 if n >= 1_000_000 else 10
        ck_build = best(rounds, lambda: cKDTree(p))
        ck = cKDTree(p)
        ck_query = best(3, lambda: ck.query(q, k=1, workers=1))
        pk_build = best(rounds, lambda: PyKDTree(p, leafsize=16))
        pk = PyKDTree(p, leafsize=16)
        pk_query = best(3, lambda: pk.query(q, k=1))
        # Agreement: the peers answer on unit vectors by chord; GeoIndex by haversine. Same index expected.
        _, ck_idx = ck.query(q[:2000], k=1)
        brute = None
        if n <= 10_000:
            def numpy_brute():
                return np.argmax(q @ p.T, axis=1) if n <= 54 else np.concatenate(
                    [np.argmax(q[i:i + 2000] @ p.T, axis=1) for i in range(0, len(q), 2000)])
            brute = best(3, numpy_brute) * 1e9 / QUERIES
        rows.append({
            "n": n,
            "ours_build_ms": swift[n]["buildMs"], "ours_ns": swift[n]["nearestNs"],
            "ours_brute_ns": swift[n]["bruteForceNs"],
            "ck_build_ms": ck_build * 1e3, "ck_ns": ck_query * 1e9 / QUERIES,
            "pk_build_ms": pk_build * 1e3, "pk_ns": pk_query * 1e9 / QUERIES,
            "np_brute_ns": brute,
        })

    # The CLI end to end: 2M rows of CSV through `newsatlas nearest --input`, and the cold start.
    with tempfile.TemporaryDirectory() as tmp:
        csv_path = os.path.join(tmp, "queries.csv")
        blat, blng = sphere_points(4, 2_000_000)
        with open(csv_path, "w") as f:
            f.write("latitude,longitude\n")
            f.write("\n".join(f"{a:.6f},{b:.6f}" for a, b in zip(blat, blng)))
            f.write("\n")
        batch = best(3, lambda: subprocess.run([newsatlas, "nearest", "--input", csv_path], check=True,
                                               stdout=subprocess.DEVNULL))
        batch_one = best(3, lambda: subprocess.run([newsatlas, "nearest", "--input", csv_path, "--threads", "1"],
                                                   check=True, stdout=subprocess.DEVNULL))
    cold = []
    for _ in range(50):
        start = time.perf_counter()
        subprocess.run([newsatlas, "nearest", "48.85", "2.35"], check=True, stdout=subprocess.DEVNULL)
        cold.append(time.perf_counter() - start)

    write_readme(rows, 2_000_000 / batch, 2_000_000 / batch_one, statistics.median(cold) * 1e3)


# supercluster 8.0.1 on node 20, measured on this machine class (medians of three runs; the clustering issue).
SUPERCLUSTER = {"build_1m_s": 14.0, "build_10k_ms": 86.0, "queries_1m_s": 4.5, "cli_1m_s": 19.0, "cli_1m_mb": 1800}


def run_measured(cmd):
    """Wall time (s) and peak resident memory (MB) of one command.

    Measured by GNU time (Debian package `time`): a child forked straight from this Python process would count
    this process's own memory, copied at fork, in its peak."""
    if not os.path.exists("/usr/bin/time"):
        raise SystemExit("compare.py: /usr/bin/time is missing; install it with: apt-get install time")
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"compare.py: {' '.join(cmd)} failed: {done.stderr.strip()}")
    return elapsed, int(done.stderr.strip().splitlines()[-1]) / 1024


def clusters(compare, newsatlas):
    print("running ClusterIndex...", file=sys.stderr)
    rows = {r["n"]: r for r in map(json.loads, run([compare, "clusters", "10000,1000000"]).split())}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "points-1m.geojson")
        lat, lng = sphere_points(1, 1_000_000)
        with open(path, "w") as f:
            f.write('{"type":"FeatureCollection","features":[\n')
            f.write(",\n".join(
                '{"type":"Feature","properties":{"index":%d},"geometry":{"type":"Point","coordinates":[%r,%r]}}'
                % (i, float(a), float(b)) for i, (a, b) in enumerate(zip(lng, lat))))
            f.write("\n]}\n")
        size_mb = os.path.getsize(path) / 1e6
        runs = [run_measured([newsatlas, "clusters", "--points", path, "--zoom", "3"]) for _ in range(3)]
    cli_s = statistics.median(r[0] for r in runs)
    cli_mb = max(r[1] for r in runs)
    cold = []
    for _ in range(50):
        start = time.perf_counter()
        subprocess.run([newsatlas, "clusters", "--zoom", "2"], check=True, stdout=subprocess.DEVNULL)
        cold.append(time.perf_counter() - start)
    cold_ms = statistics.median(cold) * 1e3
    sc = SUPERCLUSTER
    build_1m = rows[1_000_000]["buildMs"] / 1e3
    build_10k = rows[10_000]["buildMs"]
    one_1m = rows[1_000_000]["buildOneThreadMs"] / 1e3
    one_10k = rows[10_000]["buildOneThreadMs"]
    queries_1m = rows[1_000_000]["allZoomQueriesMs"] / 1e3
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} by `python3 compare.py clusters` (best of several rounds for the library, "
        "median of 3 for the CLI). supercluster's figures are the clustering issue's (supercluster 8.0.1, node 20, "
        "same machine class, medians of three runs): it cannot be installed here, so they are quoted, not re-run.",
        "",
        "| measurement | NewsAtlas | supercluster | speed-up | target |",
        "|---|---:|---:|---:|---|",
        f"| build, 1M random points (library, {os.cpu_count()} threads) | {build_1m:.2f} s | {sc['build_1m_s']:.1f} s | "
        f"{sc['build_1m_s'] / build_1m:.1f}× | ≤ 1.5 s |",
        f"| the same on one thread | {one_1m:.2f} s | | {sc['build_1m_s'] / one_1m:.1f}× "
        f"(threads: {one_1m / build_1m:.2f}×) | |",
        f"| build, 10k points (library, {os.cpu_count()} threads) | {build_10k:.1f} ms | {sc['build_10k_ms']:.0f} ms | "
        f"{sc['build_10k_ms'] / build_10k:.1f}× | ≤ 8 ms |",
        f"| the same on one thread | {one_10k:.1f} ms | | {sc['build_10k_ms'] / one_10k:.1f}× "
        f"(threads: {one_10k / build_10k:.2f}×) | |",
        f"| world clusters at zooms 0–16, 1M points | {queries_1m:.2f} s | {sc['queries_1m_s']:.1f} s | "
        f"{sc['queries_1m_s'] / queries_1m:.1f}× | ≤ 1 s |",
        f"| `newsatlas clusters --points 1M.geojson --zoom 3` ({size_mb:.0f} MB file), wall | {cli_s:.2f} s | "
        f"{sc['cli_1m_s']:.0f} s | {sc['cli_1m_s'] / cli_s:.1f}× | ≤ 5 s |",
        f"| the same, peak memory | {cli_mb:.0f} MB | {sc['cli_1m_mb']:,} MB | {sc['cli_1m_mb'] / cli_mb:.1f}× less | ≤ 600 MB |",
        f"| `newsatlas clusters --zoom 2` (54 markers), cold start | {cold_ms:.1f} ms | — | — | < 20 ms |",
    ]
    replace_block("clusters", lines)


def land_points():
    """The 100,000 land points of the resolve tests (seed 5, positions from the reference file)."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        from reference_land_points import stream
    except ImportError as error:
        raise SystemExit(f"compare.py: {error.name} is missing; install it with: pip install pyshp shapely")
    wanted = [(int(a), b) for a, b in (line.split() for line in open(
        os.path.join(ROOT, "Tests", "NewsAtlasTests", "Fixtures", "land-reference.txt")) if not line.startswith("#"))]
    points, generator, position = [], stream(5), 0
    for index, code in wanted:
        while position <= index:
            point = next(generator)
            position += 1
        points.append((point, code))
    return points


def resolve(compare, newsatlas):
    """Resolve throughput and agreement, beside reverse_geocoder (nearest of ~145k GeoNames cities, cKDTree)."""
    try:
        import reverse_geocoder
    except ImportError:
        raise SystemExit("compare.py: reverse_geocoder is missing; install it with: pip install reverse_geocoder")
    print("running resolve and reverse_geocoder...", file=sys.stderr)
    land = land_points()
    uniform_lat, uniform_lng = sphere_points(6, 1_000_000)
    with tempfile.TemporaryDirectory() as tmp:
        land_path = os.path.join(tmp, "land.csv")
        with open(land_path, "w") as f:
            f.write("".join(f"{lat!r},{lng!r}\n" for (lat, lng), _ in land))
        uniform_path = os.path.join(tmp, "uniform.csv")
        with open(uniform_path, "w") as f:
            f.write("".join(f"{float(a)!r},{float(b)!r}\n" for a, b in zip(uniform_lat, uniform_lng)))
        ours_land = json.loads(run([compare, "resolve", land_path, os.path.join(tmp, "codes.txt")]))
        ours_codes = open(os.path.join(tmp, "codes.txt")).read().split()
        ours_uniform = json.loads(run([compare, "resolve", uniform_path, os.path.join(tmp, "u.txt")]))
        batch_path = os.path.join(tmp, "batch.csv")
        with open(batch_path, "w") as f:
            f.write("latitude,longitude\n")
            f.write("".join(f"{a:.6f},{b:.6f}\n" for a, b in zip(uniform_lat, uniform_lng)))
        batch = best(3, lambda: subprocess.run([newsatlas, "resolve", "--input", batch_path], check=True,
                                               stdout=subprocess.DEVNULL))
        batch_one = best(3, lambda: subprocess.run([newsatlas, "resolve", "--input", batch_path, "--threads", "1"],
                                                   check=True, stdout=subprocess.DEVNULL))
    reference = [code for _, code in land]
    agree = sum(1 for a, b in zip(ours_codes, reference) if a == b)
    coordinates = [point for point, _ in land]
    geocoder = reverse_geocoder.RGeocoder(mode=1, verbose=False)
    start = time.perf_counter()
    answers = geocoder.query(coordinates)
    rg_seconds = time.perf_counter() - start
    rg_codes = [a["cc"].lower() for a in answers]
    rg_differs = sum(1 for a, b in zip(rg_codes, ours_codes) if a != b)
    rg_wrong = sum(1 for a, b in zip(rg_codes, reference) if a != b)
    cold = []
    for _ in range(50):
        start = time.perf_counter()
        subprocess.run([newsatlas, "resolve", "48.58", "7.75"], check=True, stdout=subprocess.DEVNULL)
        cold.append(time.perf_counter() - start)
    n = len(land)
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} by `python3 compare.py resolve` (needs `pip install reverse_geocoder "
        "pyshp shapely`), "
        f"on the {n:,} seeded random land points of the resolve tests and 1,000,000 points uniform on the sphere "
        "(mostly sea); the library figures on one thread, the CLI's as said.",
        "",
        "| measurement | NewsAtlas | reverse_geocoder 1.5.1 |",
        "|---|---:|---:|",
        f"| resolves per second, land points (library) | {ours_land['perSecond']:,.0f} | {n / rg_seconds:,.0f} |",
        f"| resolves per second, uniform points (library) | {ours_uniform['perSecond']:,.0f} | — |",
        f"| agreement with shapely on the full-resolution polygons | {agree / n * 100:.3f} % | "
        f"{(n - rg_wrong) / n * 100:.2f} % |",
        f"| `newsatlas resolve --input` 1M-row CSV, rows per second ({os.cpu_count()} threads, the default) | "
        f"{1e6 / batch:,.0f} | — |",
        f"| the same with `--threads 1` | {1e6 / batch_one:,.0f} ({batch_one / batch:.2f}× slower) | — |",
        f"| `newsatlas resolve 48.58 7.75` cold start (median of 50) | {statistics.median(cold) * 1e3:.1f} ms | — |",
        "",
        f"reverse_geocoder's country differs from ours on {rg_differs:,} of the {n:,} land points "
        f"({rg_differs / n * 100:.2f} %): it answers with the country of the nearest of ~145,000 GeoNames places, "
        "which is wrong near borders and coasts and in sparsely named land. It ran with mode=1 (one process).",
    ]
    replace_block("resolve", lines)


def cache(compare, newsatlas):
    """What the cache costs a cold fetch, and how fast a cached answer comes back through the CLI."""
    print("running the cache measurements...", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        cost = json.loads(run([compare, "cache", os.path.join(tmp, "bench.sqlite")]))
        server = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "Support", "server.py")],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            port = int(server.stdout.readline())
            environment = dict(os.environ, NEWSAPI_KEY="test-key-0123456789abcdef0123456789",
                               NEWSATLAS_API_BASE=f"http://127.0.0.1:{port}", XDG_CACHE_HOME=tmp + "/cache",
                               XDG_CONFIG_HOME=tmp + "/config")
            command = [newsatlas, "headlines", "--country", "fr"]
            subprocess.run(command, check=True, env=environment, stdout=subprocess.DEVNULL)
            times = []
            for _ in range(30):
                start = time.perf_counter()
                subprocess.run(command, check=True, env=environment, stdout=subprocess.DEVNULL)
                times.append(time.perf_counter() - start)
        finally:
            server.stdin.close()
            server.wait()
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} by `python3 compare.py cache`.",
        "",
        "| measurement | result | target |",
        "|---|---:|---|",
        f"| what the cache adds to a cold fetch (a lookup that misses, the request counted, a 20 KB answer stored; "
        f"2,000 in a row) | {cost['millisecondsPerColdFetch']:.3f} ms | < 1 ms |",
        f"| a cached `newsatlas headlines --country fr` end to end (three cached answers: top-headlines, sources, "
        f"top-headlines by source; median of 30) | {statistics.median(times) * 1e3:.1f} ms | < 30 ms |",
    ]
    replace_block("cache", lines)


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, process):
    import socket
    for _ in range(500):
        if process.poll() is not None:
            raise SystemExit("compare.py: the server stopped before it listened")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.01)
    raise SystemExit("compare.py: the server did not listen")


def http(httpbench):
    """The fetch layer on loopback against nginx: a bare curl multi loop, HTTPClient and URLSession."""
    nginx = "/usr/sbin/nginx"
    if not os.path.exists(nginx):
        raise SystemExit("compare.py: nginx is missing; install it with: apt-get install nginx-light")
    print("running the HTTP clients against nginx...", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "html"))
        with open(os.path.join(tmp, "html", "small.json"), "w") as f:
            f.write('{"status":"ok","pad":"' + "x" * 1000 + '"}')
        port = free_port()
        with open(os.path.join(tmp, "nginx.conf"), "w") as f:
            f.write(f"""worker_processes 1; daemon off; error_log {tmp}/error.log; pid {tmp}/nginx.pid;
events {{ worker_connections 1024; }}
http {{ access_log off; keepalive_requests 1000000; server {{ listen 127.0.0.1:{port}; root {tmp}/html; }} }}
""")
        server = subprocess.Popen([nginx, "-c", os.path.join(tmp, "nginx.conf"), "-p", tmp])
        try:
            wait_for_port(port, server)
            row = json.loads(run([httpbench, f"http://127.0.0.1:{port}/small.json", "4000", "32"]))
        finally:
            server.terminate()
            server.wait()
    # 54 requests whose answers take 300 ms each, at the CLI's default concurrency (32).
    slow = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "Support", "server.py")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        slow_port = int(slow.stdout.readline())
        wave = json.loads(run([httpbench, "--wave", f"http://127.0.0.1:{slow_port}/slow?ms=300", "54", "32"]))
    finally:
        slow.stdin.close()
        slow.wait()
    c, ours, session = row["curlLoopPerSecond"], row["clientPerSecond"], row["urlSessionPerSecond"]
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} by `python3 compare.py http`: 4,000 GETs of a 1 KB JSON file from nginx on "
        "127.0.0.1, 32 in flight, best of several rounds, all three in one run.",
        "",
        "| client | requests/s | against the bare curl loop |",
        "|---|---:|---:|",
        f"| bare libcurl multi loop (C, `Sources/CurlLoop`) | {c:,.0f} | 1.00× |",
        f"| NewsAtlas `HTTPClient` (async, one loop thread) | {ours:,.0f} | {c / ours:.2f}× slower |",
        f"| URLSession + TaskGroup | {session:,.0f} | {c / session:.2f}× slower |",
        "",
        f"`HTTPClient` against URLSession: **{ours / session:.1f}×** the throughput. 54 requests whose answers take "
        f"300 ms each, at the CLI's default concurrency (32): all in **{wave['waveSeconds']:.2f} s**.",
    ]
    replace_block("http", lines)


def replace_block(name, lines):
    path = os.path.join(HERE, "README.md")
    text = open(path).read()
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    text = text[: text.index(begin) + len(begin)] + "\n" + "\n".join(lines) + "\n" + text[text.index(end):]
    open(path, "w").write(text)
    print("\n".join(lines))


def fmt(x, digits=0):
    return "—" if x is None else f"{x:,.{digits}f}"


def write_readme(rows, rows_per_second, rows_per_second_one, cold_ms):
    cpu = "unknown CPU"
    try:
        cpu = re.search(r"model name\s*:\s*(.*)", open("/proc/cpuinfo").read()).group(1)
    except (OSError, AttributeError):
        pass
    swift_version = run(["swift", "--version"]).splitlines()[0]
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {cpu}, {os.cpu_count()} cores, {platform.system()} "
        f"{platform.release()}; {swift_version}; Python {platform.python_version()}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, pykdtree {getattr(pykdtree, '__version__', '1.4.3')}; OMP_NUM_THREADS=1.",
        "Command: `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 python3 compare.py` "
        "(from `Benchmarks/`). Nearest neighbour (k = 1) of 100,000 queries, single-threaded, best of several rounds; "
        "GeoIndex's build uses both cores from 65,536 points (its default), the peers' builds one. GeoIndex's "
        "query time includes its exact haversine distance (the peers return a chord).",
        "",
        "| points | GeoIndex build | cKDTree build | pykdtree build | GeoIndex ns/query | cKDTree ns/query "
        "| pykdtree ns/query | GeoIndex brute force ns/query | numpy brute force ns/query |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']:,} | {fmt(r['ours_build_ms'], 2)} ms | {fmt(r['ck_build_ms'], 2)} ms | "
            f"{fmt(r['pk_build_ms'], 2)} ms | {fmt(r['ours_ns'])} | {fmt(r['ck_ns'])} | {fmt(r['pk_ns'])} | "
            f"{fmt(r['ours_brute_ns'])} | {fmt(r['np_brute_ns'])} |")
    lines += [
        "",
        f"CLI, end to end: `newsatlas nearest --input` on 2,000,000 CSV rows: **{rows_per_second / 1e6:.2f} million "
        f"rows/s** on {os.cpu_count()} threads (its default), {rows_per_second_one / 1e6:.2f} million on one "
        f"(`--threads 1`): **{rows_per_second / rows_per_second_one:.2f}×** (parsing and printing included); "
        f"`newsatlas nearest 48.85 2.35` cold start: **{cold_ms:.1f} ms** (median of 50).",
    ]
    replace_block("compare", lines)


if __name__ == "__main__":
    main()
