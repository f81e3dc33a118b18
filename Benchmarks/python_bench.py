"""The Python package against the Python tools people use instead, in one run, alternately, same points.

    OMP_NUM_THREADS=1 .build/python-venv/bin/python Benchmarks/python_bench.py [--rounds 3] [--dask] [--spark]

Needs, beside the package (pip install ./python): geopandas, pykdtree, scipy (and dask, distributed for --dask).
Each figure is the median of the rounds, Python call overhead included (arrays in, arrays out); the peers run
on one core (OMP_NUM_THREADS=1 for pykdtree, workers=1 for cKDTree) unless a row says two.
"""

import argparse
import os
import platform
import statistics
import subprocess
import time

import numpy as np

import newsatlas


def sphere(seed, n):
    rng = np.random.default_rng(seed)
    return np.degrees(np.arcsin(rng.uniform(-1, 1, n))), rng.uniform(-180, 180, n)


def embed(lat, lon):
    phi, lam = np.radians(lat), np.radians(lon)
    return np.column_stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)])


def timed(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def geopandas_partition(part):
    """The geopandas twin of newsatlas.dask.resolve for one partition: sjoin within the same rings."""
    import geopandas as gpd
    import pandas as pd
    import shapely

    import newsatlas as na

    rings = na.border_rings()
    shapes = gpd.GeoDataFrame({"code": [c for c, _ in rings]},
                              geometry=shapely.polygons([shapely.linearrings(r) for _, r in rings]))
    pts = gpd.GeoDataFrame(part, geometry=gpd.points_from_xy(part["longitude"], part["latitude"]))
    joined = gpd.sjoin(pts, shapes, predicate="within", how="left")
    return pd.DataFrame({"code": joined["code"].astype(str)})


def geopandas_batches(batches):
    """The geopandas twin of newsatlas.spark.resolve for one Spark partition: the polygons built once, then
    sjoin within the same rings for each Arrow batch."""
    import geopandas as gpd
    import pandas as pd
    import shapely

    import newsatlas as na

    rings = na.border_rings()
    shapes = gpd.GeoDataFrame({"code": [c for c, _ in rings]},
                              geometry=shapely.polygons([shapely.linearrings(r) for _, r in rings]))
    for part in batches:
        pts = gpd.GeoDataFrame(part, geometry=gpd.points_from_xy(part["longitude"], part["latitude"]))
        joined = gpd.sjoin(pts, shapes, predicate="within", how="left")
        yield pd.DataFrame({"code": joined["code"].astype(str)})


def main():

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--dask", action="store_true", help="also the 1M-point Parquet job on a 2-worker LocalCluster")
    parser.add_argument("--spark", action="store_true", help="also the 1M-point Parquet job on Spark in local[2]")
    parser.add_argument("--only", default="", help="run only the cases whose names contain this text")
    options = parser.parse_args()
    N = options.points




    lat, lon = sphere(1, N)
    qlat, qlon = sphere(2, N)
    xyz, qxyz = embed(lat, lon), embed(qlat, qlon)

    # geopandas: the same border rings resolve uses, one polygon a ring, joined with predicate="within".
    import geopandas
    import shapely
    from pykdtree.kdtree import KDTree
    from scipy.spatial import cKDTree

    rings = newsatlas.border_rings()
    countries = geopandas.GeoDataFrame(
        {"code": [code for code, _ in rings]}, geometry=shapely.polygons([shapely.linearrings(r) for _, r in rings]),
        crs="EPSG:4326",
    )
    countries.sindex  # built before timing, as a long-lived job would keep it
    # And one MultiPolygon a country, as Natural Earth's files hold them (each ring a part: holes, which the
    # even–odd rule makes, are few; the join's cost is what is measured).
    by_country = {}
    for code, ring in rings:
        by_country.setdefault(code, []).append(shapely.polygons(shapely.linearrings(ring)))
    country_shapes = geopandas.GeoDataFrame(
        {"code": list(by_country)}, geometry=[shapely.multipolygons(parts) for parts in by_country.values()],
        crs="EPSG:4326",
    )
    country_shapes.sindex
    points = geopandas.GeoDataFrame(geometry=geopandas.points_from_xy(lon, lat), crs="EPSG:4326")



    cases = {
        "resolve, newsatlas, 1 thread": lambda: newsatlas.resolve(lat, lon, threads=1),
        "resolve, newsatlas, 2 threads": lambda: newsatlas.resolve(lat, lon, threads=2),
        "resolve, geopandas sjoin within one polygon a ring, 1 core":
            lambda: geopandas.sjoin(points, countries, predicate="within"),
        "resolve, geopandas sjoin within one MultiPolygon a country, 1 core":
            lambda: geopandas.sjoin(points, country_shapes, predicate="within"),
        "PointIndex build, newsatlas, 1 thread": lambda: newsatlas.PointIndex(lat, lon, threads=1),
        "PointIndex build, newsatlas, 2 threads": lambda: newsatlas.PointIndex(lat, lon, threads=2),
        "build, cKDTree (3D)": lambda: cKDTree(xyz),
        "build, pykdtree (3D)": lambda: KDTree(xyz),
        "nearest over the 54 markers, newsatlas, 1 thread": lambda: newsatlas.nearest(qlat, qlon, threads=1),
        "nearest over the 54 markers, newsatlas, 2 threads": lambda: newsatlas.nearest(qlat, qlon, threads=2),
    }
    index = newsatlas.PointIndex(lat, lon)
    ckd, pyk = cKDTree(xyz), KDTree(xyz)
    markers = newsatlas.countries()
    marker_tree = cKDTree(embed(markers["latitude"].to_numpy(), markers["longitude"].to_numpy()))
    cases.update({
        "query 1M k=1, newsatlas PointIndex, 1 thread": lambda: index.query(qlat, qlon, threads=1),
        "query 1M k=1, newsatlas PointIndex, 2 threads": lambda: index.query(qlat, qlon, threads=2),
        "query 1M k=1, cKDTree (3D), workers=1": lambda: ckd.query(qxyz, workers=1),
        "query 1M k=1, cKDTree (3D), workers=2": lambda: ckd.query(qxyz, workers=2),
        "query 1M k=1, pykdtree (3D), 1 thread": lambda: pyk.query(qxyz, k=1),
        "query 1M k=10, newsatlas PointIndex, 1 thread": lambda: index.query(qlat, qlon, k=10, threads=1),
        "query 1M k=10, cKDTree (3D), workers=1": lambda: ckd.query(qxyz, k=10, workers=1),
        "query 1M k=10, pykdtree (3D), 1 thread": lambda: pyk.query(qxyz, k=10),
        "nearest over the 54 markers, cKDTree (3D), workers=1, no bearings": lambda: marker_tree.query(qxyz, workers=1),
    })

    if options.dask:
        import tempfile

        import dask.dataframe as dd
        import pandas as pd
        from distributed import Client, LocalCluster

        from newsatlas import dask as newsatlas_dask

        folder = tempfile.mkdtemp()
        frame = pd.DataFrame({"latitude": lat, "longitude": lon})
        for part in range(4):
            frame.iloc[part * N // 4:(part + 1) * N // 4].to_parquet(f"{folder}/part-{part}.parquet", index=False)
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, host="127.0.0.1")
        client = Client(cluster)

        cases["Dask 1M Parquet, 2 workers, newsatlas.dask.resolve"] = (
            lambda: newsatlas_dask.resolve(dd.read_parquet(folder)).country.count().compute()
        )
        cases["Dask 1M Parquet, 2 workers, geopandas sjoin in map_partitions"] = lambda: dd.read_parquet(
            folder
        ).map_partitions(geopandas_partition, meta={"code": "str"}).code.count().compute()

    if options.spark:
        import sys
        import tempfile

        import pandas as pd

        from newsatlas import spark as newsatlas_spark

        folder = tempfile.mkdtemp()
        frame = pd.DataFrame({"latitude": lat, "longitude": lon})
        for part in range(4):
            frame.iloc[part * N // 4:(part + 1) * N // 4].to_parquet(f"{folder}/part-{part}.parquet", index=False)
        os.environ["PYSPARK_PYTHON"] = sys.executable
        os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
        from pyspark.sql import SparkSession
        from pyspark.sql import functions as F

        start = time.perf_counter()
        spark = (
            SparkSession.builder.master("local[2]").appName("newsatlas-bench")
            .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.memory", "2g").getOrCreate()
        )
        spark.range(2).count()  # the JVM, and a first job, before timing
        print(f"Spark local[2]: JVM start and a first job {time.perf_counter() - start:.1f} s (not in the rows)")
        spark.sparkContext.setLogLevel("ERROR")

        def spark_newsatlas():
            resolved = newsatlas_spark.resolve(spark.read.parquet(folder))
            return resolved.select(F.count("country")).collect()

        def spark_geopandas():
            frame = spark.read.parquet(folder)
            return frame.mapInPandas(geopandas_batches, "code string").select(F.count("code")).collect()

        cases["Spark 1M Parquet, local[2], newsatlas.spark.resolve (mapInArrow)"] = spark_newsatlas
        cases["Spark 1M Parquet, local[2], geopandas sjoin in mapInPandas"] = spark_geopandas

    if options.only:
        cases = {name: case for name, case in cases.items() if options.only in name}
    times = {name: [] for name in cases}
    for round_ in range(options.rounds):
        for name, case in cases.items():  # alternately: every case once a round
            times[name].append(timed(case))

    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"toolchain: {swift[0] if swift else 'unknown'}; python {platform.python_version()}, numpy {np.__version__}, "
          f"geopandas {geopandas.__version__}, shapely {shapely.__version__}")
    print(f"{N:,} points, median of {options.rounds} alternating rounds\n")
    print("| case | seconds | M points/s |")
    print("|---|---:|---:|")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"| {name} | {median:.3f} | {N / median / 1e6:.2f} |")


if __name__ == "__main__":
    main()
