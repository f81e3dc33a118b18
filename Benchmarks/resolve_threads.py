"""resolve on 1M uniform points, one thread against two, alternately, by wall clock, when the machine is quiet.

    OMP_NUM_THREADS=1 python3 Benchmarks/resolve_threads.py PAIRS [MAX_LOAD] [WAIT_SECONDS]

Waits (up to WAIT_SECONDS, default 3600) until the 1-minute load average is below MAX_LOAD (default 1.5), then
times PAIRS pairs of calls (1 thread, 2 threads, alternately) with time.perf_counter. With each pair it prints
the load average and the share of the machine's CPU time that was idle during the pair (from /proc/stat), so
a pair that ran beside someone else's work can be told apart. The answers of both are compared first.
"""
import os
import sys
import time

import numpy as np

import newsatlas


def idle_and_total():
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    return fields[3] + fields[4], sum(fields)


def main():
    pairs = int(sys.argv[1])
    max_load = float(sys.argv[2]) if len(sys.argv) > 2 else 1.5
    wait = float(sys.argv[3]) if len(sys.argv) > 3 else 3600
    rng = np.random.default_rng(1)  # python_ab.py's resolve points
    n = 1_000_000
    lat = np.degrees(np.arcsin(rng.uniform(-1, 1, n)))
    lon = rng.uniform(-180, 180, n)
    one, two = newsatlas.resolve(lat, lon, threads=1), newsatlas.resolve(lat, lon, threads=2)
    for a, b in zip(one, two):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    start = time.time()
    while os.getloadavg()[0] >= max_load and time.time() - start < wait:
        time.sleep(5)
    print(f"waited {time.time() - start:.0f} s; load {os.getloadavg()}")
    ratios = []
    for _ in range(pairs):
        walls = []
        idle0, total0 = idle_and_total()
        for threads in (1, 2):
            w = time.perf_counter()
            newsatlas.resolve(lat, lon, threads=threads)
            walls.append(time.perf_counter() - w)
        idle1, total1 = idle_and_total()
        idle = (idle1 - idle0) / max(1, total1 - total0)
        ratios.append(walls[0] / walls[1])
        print(f"1 thread {walls[0] * 1e3:.1f} ms, 2 threads {walls[1] * 1e3:.1f} ms, ratio {ratios[-1]:.2f}, "
              f"idle {idle * 100:.0f} %, load {os.getloadavg()[0]:.2f}", flush=True)
    ratios.sort()
    print(f"median ratio {ratios[len(ratios) // 2]:.2f} over {pairs} pairs; load {os.getloadavg()}")


if __name__ == "__main__":
    main()
