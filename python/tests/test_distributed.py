"""Dask (a LocalCluster of two worker processes) and Spark (local[2]) resolve a Parquet file of 1M points
written here, with the answers the CLI gives for the same points."""

import os
import shutil
import sys

import numpy as np
import pandas as pd
import pytest

import newsatlas.dask
import newsatlas.spark
from conftest import run_cli, sphere_points

N = 1_000_000


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    """1M seeded points in four Parquet files, and the CLI's answers for them (code, method, containing,
    distance as printed)."""
    folder = tmp_path_factory.mktemp("points")
    lat, lon = sphere_points(31, N)
    frame = pd.DataFrame({"id": np.arange(N), "latitude": lat, "longitude": lon})
    for part in range(4):
        frame.iloc[part * N // 4:(part + 1) * N // 4].to_parquet(folder / f"part-{part}.parquet", index=False)
    yield folder, frame
    shutil.rmtree(folder)


@pytest.fixture(scope="module")
def cli_answers(cli, parquet):
    _, frame = parquet
    text = "".join(f"{a!r},{b!r}\n" for a, b in zip(frame["latitude"].tolist(), frame["longitude"].tolist()))
    done = run_cli(cli, "resolve", "--input", "-", "--news-countries", "newsapi", stdin=text)
    assert done.returncode == 0, done.stderr
    import io

    return pd.read_csv(io.StringIO(done.stdout), dtype=str, keep_default_na=False)


def check_against_cli(result, cli_answers):
    result = result.sort_values("id").reset_index(drop=True)
    assert len(result) == N and result["id"].tolist() == list(range(N))
    assert np.array_equal(result["country"].to_numpy(dtype=str), cli_answers["code"].to_numpy(dtype=str))
    assert np.array_equal(result["method"].to_numpy(dtype=str), cli_answers["method"].to_numpy(dtype=str))
    assert np.array_equal(result["containing"].to_numpy(dtype=str), cli_answers["containing"].to_numpy(dtype=str))
    printed = np.char.mod("%.6f", result["distance_km"].to_numpy())
    assert np.array_equal(printed, cli_answers["distance_km"].to_numpy(dtype=str))


def test_dask_local_cluster(parquet, cli_answers):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    folder, _ = parquet
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      host="127.0.0.1") as cluster, Client(cluster) as client:
        ddf = dd.read_parquet(str(folder))
        assert ddf.npartitions >= 2
        resolved = newsatlas.dask.resolve(ddf, lat="latitude", lon="longitude")
        assert list(resolved.columns[-4:]) == list(newsatlas.dask.COLUMNS)
        result = resolved.compute()
        workers = client.run(lambda: os.getpid())
        assert len(workers) == 2
    check_against_cli(result, cli_answers)


def test_dask_bad_point_fails_the_task_with_the_sentence():
    import dask.dataframe as dd

    frame = pd.DataFrame({"latitude": [1.0, 95.0], "longitude": [2.0, 3.0]})
    with pytest.raises(ValueError, match="The latitude 95.0 is outside -90...90"):
        newsatlas.dask.resolve(dd.from_pandas(frame, npartitions=1)).compute(scheduler="sync")


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None:
        pytest.fail("Spark needs a JVM: scripts/bootstrap installs Debian's default-jre-headless.")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]").appName("newsatlas-test")
        .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1").config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "2g").getOrCreate()
    )
    yield session
    session.stop()


def test_spark_local_2(spark, parquet, cli_answers):
    folder, _ = parquet
    df = spark.read.parquet(str(folder))
    resolved = newsatlas.spark.resolve(df, lat="latitude", lon="longitude")
    assert resolved.columns[-4:] == list(newsatlas.spark.COLUMNS)
    result = resolved.toPandas()
    check_against_cli(result, cli_answers)
