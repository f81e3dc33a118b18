#!/usr/bin/env python3
"""Keyless headlines from GDELT, measured against the local GDELT DOC 2.0 imitation (Tests/Support/server.py):
`headlines --all` and `headlines --country fr`, each cold (a fresh cache) and warm (run again on that cache), with
GDELT's default pacing (one request every 5 seconds) and with pacing off (gdelt-spacing = 0), which leaves the
client's and the imitation's own time. Requests are counted in the imitation's log; wall time is the whole
process's. Rounds alternate, the median of ROUNDS is reported.

    python3 Benchmarks/gdelt_bench.py path/to/newsatlas [ROUNDS]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    binary = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory(prefix="newsatlas-gdelt-bench-") as scratch:
        log = os.path.join(scratch, "requests.log")
        server = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "Support", "server.py"), log],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        port = int(server.stdout.readline())  # readiness: the port, once it listens
        figures = {}
        try:
            for n in range(rounds):
                for spacing in (5, 0):
                    for name, arguments in (("--all", ["--all"]), ("--country fr", ["--country", "fr"])):
                        home = os.path.join(scratch, f"{n}-{spacing}-{name.strip('-').replace(' ', '-')}")
                        os.makedirs(home + "/config/newsatlas")
                        with open(home + "/config/newsatlas/config.toml", "w") as f:
                            f.write(f"gdelt-spacing = {spacing}\n")
                        environment = {**os.environ, "XDG_CONFIG_HOME": home + "/config",
                                       "XDG_CACHE_HOME": home + "/cache",
                                       "NEWSATLAS_GDELT_BASE": f"http://127.0.0.1:{port}"}
                        environment.pop("NEWSAPI_KEY", None)
                        for state in ("cold", "warm"):
                            before = count(log)
                            started = time.perf_counter()
                            done = subprocess.run([binary, "headlines", *arguments, "--format", "json"],
                                                  env=environment, capture_output=True, text=True)
                            seconds = time.perf_counter() - started
                            if done.returncode != 0:
                                raise SystemExit(f"{name} {state} failed: {done.stderr}")
                            key = (name, spacing, state)
                            figures.setdefault(key, []).append((count(log) - before, seconds))
        finally:
            server.stdin.close()
            server.wait()
        print("| command | pacing | cache | requests | wall time (median of %d) |" % rounds)
        print("|---|---|---|---:|---:|")
        for (name, spacing, state), runs in figures.items():
            requests = sorted({r for r, _ in runs})
            wall = statistics.median(s for _, s in runs)
            print(f"| `headlines {name}` | {'5 s' if spacing else 'off'} | {state} | "
                  f"{'/'.join(map(str, requests))} | {wall:.2f} s |")


def count(log):
    if not os.path.exists(log):
        return 0
    with open(log) as f:
        return sum(1 for line in f if "/api/v2/doc/doc?" in line)


if __name__ == "__main__":
    main()
