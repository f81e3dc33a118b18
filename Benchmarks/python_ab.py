"""Two builds of the library side by side, in one process, against geopandas: CPU seconds (time.process_time,
which leaves out the time spent waiting for a core on a loaded machine) and wall seconds, least of the rounds.

    env -u OPENBLAS_CORETYPE OMP_NUM_THREADS=1 .build/python-venv/bin/python Benchmarks/python_ab.py ROUNDS \
        BEFORE/libNewsAtlasC.so AFTER/libNewsAtlasC.so [BEFORE_PYTHON_FOLDER]

Each library is loaded through the package in python/ (NEWSATLAS_LIBRARY), so Python's overhead is the same;
with BEFORE_PYTHON_FOLDER (the python/ folder of the before checkout, e.g. from `git worktree add`), the before
library is loaded through its own package, for a change to the Python side.
"""
import importlib
import os
import sys
import time
from pathlib import Path

import numpy as np

PYTHON_FOLDER = str(Path(__file__).resolve().parents[1] / "python")


def load(path, folder=PYTHON_FOLDER):
    os.environ["NEWSATLAS_LIBRARY"] = path
    for name in [k for k in sys.modules if k.startswith("newsatlas")]:
        del sys.modules[name]
    sys.path.insert(0, folder)
    try:
        return importlib.import_module("newsatlas")
    finally:
        sys.path.remove(folder)


def sphere(seed, n):
    rng = np.random.default_rng(seed)
    return np.degrees(np.arcsin(rng.uniform(-1, 1, n))), rng.uniform(-180, 180, n)


def main():
    rounds = int(sys.argv[1])
    old = load(sys.argv[2], *sys.argv[4:5])
    new = load(sys.argv[3])
    n = 1_000_000
    lat, lon = sphere(1, n)
    qlat, qlon = sphere(2, n)

    import geopandas
    import shapely

    rings = new.border_rings()
    by_country = {}
    for code, ring in rings:
        by_country.setdefault(code, []).append(shapely.polygons(shapely.linearrings(ring)))
    shapes = geopandas.GeoDataFrame(
        {"code": list(by_country)}, geometry=[shapely.multipolygons(p) for p in by_country.values()],
        crs="EPSG:4326",
    )
    shapes.sindex
    ring_shapes = geopandas.GeoDataFrame(
        {"code": [c for c, _ in rings]}, geometry=shapely.polygons([shapely.linearrings(r) for _, r in rings]),
        crs="EPSG:4326",
    )
    ring_shapes.sindex
    points = geopandas.GeoDataFrame(geometry=geopandas.points_from_xy(lon, lat), crs="EPSG:4326")
    cases = {
        "resolve before, 1 thread": lambda: old.resolve(lat, lon, threads=1),
        "resolve after, 1 thread": lambda: new.resolve(lat, lon, threads=1),
        "resolve after, 2 threads": lambda: new.resolve(lat, lon, threads=2),
        "geopandas sjoin, MultiPolygon a country": lambda: geopandas.sjoin(points, shapes, predicate="within"),
        "geopandas sjoin, polygon a ring": lambda: geopandas.sjoin(points, ring_shapes, predicate="within"),
        "nearest before, 1 thread": lambda: old.nearest(qlat, qlon, threads=1),
        "nearest after, 1 thread": lambda: new.nearest(qlat, qlon, threads=1),
        "nearest after, 2 threads": lambda: new.nearest(qlat, qlon, threads=2),
    }
    wall = {k: [] for k in cases}
    cpu = {k: [] for k in cases}
    for _ in range(rounds):
        for name, case in cases.items():  # alternately: every case once a round
            w, c = time.perf_counter(), time.process_time()
            case()
            wall[name].append(time.perf_counter() - w)
            cpu[name].append(time.process_time() - c)
    print("| case | wall s (min) | CPU s (min) | M points/s by CPU |")
    print("|---|---:|---:|---:|")
    for name in cases:
        print(f"| {name} | {min(wall[name]):.3f} | {min(cpu[name]):.3f} | {n / min(cpu[name]) / 1e6:.2f} |")
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main()
