#!/usr/bin/env python3
"""Write-to-visible latency of two `newsatlas serve` builds, alternately in one run (issue 30's targets).

For each build in turn: start it, PUT N seeded points (live_bench.py's), then WRITES times a POST of one feature
followed by a GET of tile 0/0/0 that must carry the new ETag (the time from the POST's first byte to that tile:
the write visible), the server's CPU time over the same span (/proc/PID/stat, all its threads), the dataset's
`buildMilliseconds` (/v1/datasets), the server's minor page faults over the span (memory it was given anew
and touched: a load-robust measure beside CPU), and then a tile at zoom 10, whose k-d tree a build may leave to
its first query (the time of that first deep tile is printed apart). The builds run PAIRS times each,
alternating; the load average is printed with every line. Medians over a build's writes in a round, then each
write's time to its tile (the slowest ones are what a point that reaches others costs). The servers
get this script's environment (GLIBC_TUNABLES, say).

    NEWSATLAS_A=path/to/before NEWSATLAS_B=path/to/after python3 Benchmarks/write_ab.py N [PAIRS] [WRITES]
"""
import json, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from live_bench import TOKEN, Client, collection, median  # noqa: E402

COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
PAIRS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
WRITES = int(sys.argv[3]) if len(sys.argv) > 3 else 7
TICKS = os.sysconf("SC_CLK_TCK")


def stat(pid):
    """The fields of /proc/PID/stat after the command's name (the first is field 3, the state)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def cpu_seconds(pid):
    fields = stat(pid)
    return (int(fields[11]) + int(fields[12])) / TICKS


def minor_faults(pid):
    return int(stat(pid)[7])  # field 10, minflt


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def measure(label, binary, body, scratch):
    server = subprocess.Popen(
        [binary, "serve", "--port", "0", "--no-news", "--datasets-dir", scratch],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "NEWSATLAS_WRITE_TOKEN": TOKEN})
    try:
        port = int(re.search(r":(\d+)\s*$", server.stdout.readline()).group(1))
        client = Client(port)
        client.ask("PUT", "/v1/datasets/live", body, write=True)
        visible, cpus, faults, builds, deep = [], [], [], [], []
        for k in range(WRITES):
            _, before, _ = client.ask("GET", "/tiles/live/0/0/0.mvt")
            cpu = cpu_seconds(server.pid)
            faulted = minor_faults(server.pid)
            begin = time.perf_counter()
            client.ask("POST", "/v1/datasets/live/features", collection(1, seed=k, prefix=f"w{k}-"), write=True)
            _, after, _ = client.ask("GET", "/tiles/live/0/0/0.mvt")
            visible.append(time.perf_counter() - begin)
            cpus.append(cpu_seconds(server.pid) - cpu)
            faults.append(minor_faults(server.pid) - faulted)
            if after == before:
                raise SystemExit("the tile's ETag did not change")
            listing = json.loads(client.ask("GET", "/v1/datasets")[2])
            entry = next(d for d in listing["datasets"] if d["name"] == "live")
            builds.append(entry["buildMilliseconds"])
            begin = time.perf_counter()
            client.ask("GET", "/tiles/live/10/511/400.mvt")
            deep.append(time.perf_counter() - begin)
        print(f"{label} n={COUNT:,} load {load()}: POST to tile 0/0/0 median {median(visible) * 1000:,.1f} ms "
              f"(min {min(visible) * 1000:,.1f}, max {max(visible) * 1000:,.1f}); server CPU median {median(cpus) * 1000:,.0f} ms, minor faults "
              f"{median(faults) / 1000:,.1f}k; build median "
              f"{median(builds):,.1f} ms; first tile 10/511/400 after it median {median(deep) * 1000:,.1f} ms "
              f"(max {max(deep) * 1000:,.1f}); each POST to tile, ms: "
              f"{', '.join(f'{v * 1000:,.0f}' for v in visible)}",
              flush=True)
    finally:
        server.terminate()
        server.wait()


def main():
    binaries = [("A", os.environ["NEWSATLAS_A"]), ("B", os.environ["NEWSATLAS_B"])]
    body = collection(COUNT, seed=COUNT)
    with tempfile.TemporaryDirectory(prefix="newsatlas-write-ab-") as scratch:
        for round in range(PAIRS):
            for label, binary in binaries:
                measure(label, binary, body, f"{scratch}/{label}{round}")


if __name__ == "__main__":
    main()
