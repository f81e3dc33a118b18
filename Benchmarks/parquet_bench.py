#!/usr/bin/env python3
"""Resolving a Parquet file of points: NewsAtlas's `python -m newsatlas resolve` (pyarrow batches, the Swift
library) against geopandas' `read_parquet` + `sjoin` (GEOS, an STRtree) on the same borders, in one run,
alternating, best and median of ROUNDS (issue 45, item 5).

    python3 Benchmarks/parquet_bench.py [ROWS] [ROUNDS]      (default 10,000,000 and 3)

Both read the same GeoParquet file (WKB points, uniform over the globe, seeded) and write their answer as Parquet.
geopandas gets the borders NewsAtlas resolves with (`newsatlas.border_rings()`: Natural Earth 1:10m, every point,
made into shapely polygons, a country holding a point when an odd number of its rings do) as a GeoDataFrame
built before the clock starts, and answers the containing country only (`predicate="within"`); NewsAtlas also
answers the nearest news country, its distance and the territorial sea. Needs geopandas (pip install geopandas).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import shapely

GEO = {"version": "1.0.0", "primary_column": "geometry",
       "columns": {"geometry": {"encoding": "WKB", "geometry_types": ["Point"], "crs": None}}}


def write_points(path, rows):
    rng = np.random.default_rng(45)
    writer = None
    for start in range(0, rows, 1_000_000):
        n = min(1_000_000, rows - start)
        lat = np.degrees(np.arcsin(rng.uniform(-1, 1, n)))
        lon = rng.uniform(-180, 180, n)
        table = pa.table({"id": np.arange(start, start + n), "geometry": shapely.to_wkb(shapely.points(lon, lat))})
        table = table.replace_schema_metadata({b"geo": json.dumps(GEO).encode()})
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()


def borders():
    import geopandas
    import newsatlas
    by_country = {}
    for code, ring in newsatlas.border_rings():
        by_country.setdefault(code, []).append(shapely.Polygon(ring))
    codes, shapes = [], []
    for code, polygons in by_country.items():
        shape = polygons[0]
        for polygon in polygons[1:]:
            shape = shape.symmetric_difference(polygon)  # odd number of rings: inside
        codes.append(code)
        shapes.append(shapely.make_valid(shape))
    return geopandas.GeoDataFrame({"containing": codes}, geometry=shapes, crs=None)


def geopandas_run(source, out, countries):
    import geopandas
    points = geopandas.read_parquet(source)
    joined = geopandas.sjoin(points, countries, how="left", predicate="within")
    joined.drop(columns=["index_right"]).to_parquet(out)


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    folder = tempfile.mkdtemp(prefix="newsatlas-parquet-bench-")
    source = os.path.join(folder, "points.parquet")
    write_points(source, rows)
    print(f"{rows:,} points, {os.path.getsize(source) / 1e6:.0f} MB of GeoParquet", flush=True)
    started = time.monotonic()
    countries = borders()
    print(f"geopandas' borders built in {time.monotonic() - started:.1f} s (not timed below)", flush=True)
    times = {"newsatlas": [], "geopandas": []}
    for round_ in range(rounds):
        for name in (["newsatlas", "geopandas"] if round_ % 2 == 0 else ["geopandas", "newsatlas"]):
            out = os.path.join(folder, f"{name}.parquet")
            started = time.monotonic()
            if name == "newsatlas":
                subprocess.run([sys.executable, "-m", "newsatlas", "resolve", "--input", source, "--output", out],
                               check=True)
            else:
                geopandas_run(source, out, countries)
            times[name].append(time.monotonic() - started)
            print(f"  round {round_ + 1} {name}: {times[name][-1]:.2f} s", flush=True)
    ours = pq.read_table(os.path.join(folder, "newsatlas.parquet"), columns=["containing", "method"]).to_pandas()
    theirs = pq.read_table(os.path.join(folder, "geopandas.parquet"), columns=["containing"]).to_pandas()
    landed = theirs["containing"].notna().to_numpy()
    same = (ours["containing"].astype(str).to_numpy()[landed] == theirs["containing"].astype(str).to_numpy()[landed])
    sea = (ours["method"].astype(str).to_numpy() == "territorial-sea")
    for name, values in times.items():
        print(f"{name}: best {min(values):.2f} s, median {statistics.median(values):.2f} s, "
              f"{rows / min(values) / 1e6:.2f} M rows/s")
    print(f"speed-up (best): {min(times['geopandas']) / min(times['newsatlas']):.1f}x")
    print(f"where geopandas finds a country ({landed.sum():,} rows), NewsAtlas's containing country is the same on "
          f"{same.mean() * 100:.4f} %; NewsAtlas also places {sea.sum():,} points in a territorial sea (12 nautical "
          "miles), which `within` the land leaves out")
    for name in os.listdir(folder):
        os.unlink(os.path.join(folder, name))
    os.rmdir(folder)


if __name__ == "__main__":
    main()
