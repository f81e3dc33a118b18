"""A cached `newsatlas headlines --country fr`, end to end, for two or more builds run alternately.

Usage: python3 Benchmarks/cached_headlines_ab.py [--runs N] NAME=BINARY NAME=BINARY [...]

Each build gets its own settings and cache folders; one local imitation of NewsAPI (Tests/Support/server.py)
answers the first run of each, which fills its cache; then every round runs each build once, the order
reversed every other round, and records the run's wall time and its CPU time (user + system, from wait4).
Prints the medians and, for each build against the first, the median of the round-by-round ratios.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
arguments = sys.argv[1:]
runs = 60
if arguments[:1] == ["--runs"]:
    runs, arguments = int(arguments[1]), arguments[2:]
builds = dict(argument.split("=", 1) for argument in arguments)
if len(builds) < 2:
    sys.exit("Give two builds or more, as NAME=BINARY.")

with tempfile.TemporaryDirectory() as tmp:
    server = subprocess.Popen(
        [sys.executable, os.path.join(root, "Tests", "Support", "server.py")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline())
    environments = {}
    for name in builds:
        environments[name] = dict(
            os.environ, NEWSAPI_KEY="test-key-0123456789abcdef0123456789",
            NEWSATLAS_API_BASE=f"http://127.0.0.1:{port}", XDG_CACHE_HOME=f"{tmp}/{name}/cache",
            XDG_CONFIG_HOME=f"{tmp}/{name}/config", LANG="C.UTF-8")
        subprocess.run([builds[name], "headlines", "--country", "fr"], check=True, env=environments[name],
                       stdout=subprocess.DEVNULL)
    cpu = {name: [] for name in builds}
    wall = {name: [] for name in builds}
    order = list(builds)
    for round in range(runs):
        for name in (order if round % 2 == 0 else order[::-1]):
            start = time.perf_counter()
            child = subprocess.Popen([builds[name], "headlines", "--country", "fr"], env=environments[name],
                                     stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            wall[name].append(time.perf_counter() - start)
            if status != 0:
                sys.exit(f"{name} failed")
            cpu[name].append(usage.ru_utime + usage.ru_stime)
    server.stdin.close()
    server.wait()

first = order[0]
print(f"{runs} rounds, load average at the end {os.getloadavg()[0]:.1f}")
for name in order:
    line = f"{name}: wall median {statistics.median(wall[name]) * 1e3:.1f} ms, CPU median {statistics.median(cpu[name]) * 1e3:.1f} ms"
    if name != first:
        w = statistics.median(a / b for a, b in zip(wall[name], wall[first]))
        c = statistics.median(a / b for a, b in zip(cpu[name], cpu[first]))
        line += f"; against {first}: wall {w:.2f}, CPU {c:.2f}"
    print(line)
