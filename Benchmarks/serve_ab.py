#!/usr/bin/env python3
"""A/B of `newsatlas serve` throughput: GET /v1/resolve and an MVT tile, markers only, wrk -t2 -c64, before and
after alternating in each of ROUNDS rounds (one server a binary a round); the server's CPU µs a request from
/proc/PID/stat around each wrk run. Needs Debian's wrk.

    python3 serve_ab.py BEFORE/newsatlas AFTER/newsatlas ROUNDS SECONDS
"""
import os, re, subprocess, sys, time, socket
BEFORE, AFTER, ROUNDS, SECS = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
TICK = os.sysconf("SC_CLK_TCK")
def start(binary):
    p = subprocess.Popen([binary, "serve", "--port", "0", "--no-news"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    port = int(re.search(r":(\d+)", line.split("http://")[1]).group(1))
    return p, port
def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])
def wrk(port, path):
    out = subprocess.run(["wrk", "-t2", "-c64", f"-d{SECS}s", "--latency", f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+\w+)", out).group(1)
    errors = "Non-2xx" in out or "Socket errors" in out
    return rps, total, p99, errors
rows = {}
for r in range(ROUNDS):
    for name, binary in (("before", BEFORE), ("after", AFTER)) if r % 2 == 0 else (("after", AFTER), ("before", BEFORE)):
        p, port = start(binary)
        try:
            for path in ("/v1/resolve?lat=48.85&lon=2.35", "/tiles/markers/3/4/2.mvt"):
                c0 = cpu(p.pid); rps, total, p99, err = wrk(port, path); c1 = cpu(p.pid)
                us = (c1 - c0) / TICK / total * 1e6
                rows.setdefault((path, name), []).append((rps, us, p99, err))
                print(f"round {r} {name:6} {path:34} {rps:9.0f} req/s  {us:5.1f} µs CPU/req  p99 {p99} {'ERR' if err else ''}", flush=True)
        finally:
            p.terminate(); p.wait()
for (path, name), v in sorted(rows.items()):
    print(path, name, "req/s", sorted(round(x[0]) for x in v), "µs", sorted(round(x[1], 1) for x in v))
