"""Parquet and GeoParquet (issue 45, item 5): `python -m newsatlas resolve` and `newsatlas.read_points`, read
through pyarrow, against `newsatlas.resolve` on the same points; WKB as GeoParquet writers write it (shapely's
OGC, ISO and EWKB forms, both byte orders); bad rows kept with their reason; no half file left."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
shapely = pytest.importorskip("shapely")

import newsatlas  # noqa: E402
import newsatlas.parquet as npq  # noqa: E402

GEO = {"version": "1.0.0", "primary_column": "geometry",
       "columns": {"geometry": {"encoding": "WKB", "geometry_types": ["Point"]}}}


def geoparquet(path, names, blobs):
    table = pa.table({"name": names, "geometry": pa.array(blobs, type=pa.binary())})
    pq.write_table(table.replace_schema_metadata({b"geo": json.dumps(GEO).encode()}), path)


def run_module(*arguments):
    environment = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "newsatlas", *arguments], capture_output=True, text=True,
                          env=environment)


def test_geoparquet_points_of_every_wkb_form(tmp_path):
    blobs = [
        shapely.to_wkb(shapely.Point(2.35, 48.85)),
        shapely.to_wkb(shapely.Point(-3.7, 40.4), byte_order=0),
        shapely.to_wkb(shapely.Point(151.21, -33.87, 10), output_dimension=3),
        shapely.to_wkb(shapely.set_srid(shapely.Point(139.69, 35.68), 4326), include_srid=True),
        shapely.to_wkb(shapely.LineString([(0, 0), (1, 1)])),
        None,
        shapely.to_wkb(shapely.Point()),
        b"\x05junk",
        shapely.to_wkb(shapely.Point(0, 91)),
    ]
    names = ["paris", "madrid", "sydney", "tokyo", "line", "null", "empty", "junk", "north"]
    source, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    geoparquet(source, names, blobs)
    summary = npq.resolve_file(str(source), str(out), batch_rows=3)  # several batches
    assert summary == npq.Summary(rows=9, failed=5, first_failed=5)
    rows = pq.read_table(out).to_pylist()
    assert [r["name"] for r in rows] == names and rows[0]["geometry"] == blobs[0]  # every row, columns kept
    assert [r["country"] for r in rows[:4]] == ["fr", "pt", "au", "jp"]
    assert [r["containing"] for r in rows[:4]] == ["fr", "es", "au", "jp"]
    assert [r["error"] for r in rows[4:]] == [
        "the geometry is a LineString, not a Point", "the geometry is null", "the geometry is an empty Point",
        "the geometry is not WKB", "the latitude 91 is outside -90...90"]
    assert all(r["country"] is None and r["inside"] is None for r in rows[4:])
    assert json.loads(pq.read_schema(out).metadata[b"geo"]) == GEO  # still GeoParquet
    assert sorted(os.listdir(tmp_path)) == ["in.parquet", "out.parquet"]  # no partial file left


def test_answers_are_the_librarys(tmp_path):
    rng = np.random.default_rng(45)
    lat = rng.uniform(-90, 90, 20_000)
    lon = rng.uniform(-180, 180, 20_000)
    source, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    pq.write_table(pa.table({"y": lat, "x": lon, "id": np.arange(20_000)}), source, row_group_size=7_000)
    assert npq.resolve_file(str(source), str(out), lat="y", lon="x", batch_rows=4_096).failed == 0
    got = pq.read_table(out)
    want = newsatlas.resolve(lat, lon)
    assert got.column("country").to_pylist() == list(np.asarray(want.codes, dtype=str))
    assert got.column("containing").to_pylist() == list(np.asarray(want.containing, dtype=str))
    assert np.array_equal(got.column("distance_km").to_numpy(), want.distances_km)
    assert np.array_equal(got.column("inside").to_numpy(), want.inside)
    assert got.column("id").to_pylist() == list(range(20_000))


def test_read_points_feeds_an_index(tmp_path):
    path = tmp_path / "p.parquet"
    geoparquet(path, ["a", "b", "c"], [shapely.to_wkb(shapely.Point(x, y)) for x, y in [(2.35, 48.85), (2.3, 48.8),
                                                                                         (139.7, 35.7)]])
    lat, lon = npq.read_points(str(path))
    assert np.allclose(lat, [48.85, 48.8, 35.7]) and np.allclose(lon, [2.35, 2.3, 139.7])
    index = newsatlas.ClusterIndex(lat, lon)
    assert len(index.clusters((-180, -90, 180, 90), 0)) == 2  # Paris's two points clustered, Tokyo alone
    geoparquet(path, ["a", "bad"], [shapely.to_wkb(shapely.Point(1, 2)), shapely.to_wkb(shapely.Point(1, 95))])
    with pytest.raises(ValueError, match=r"Row 2 of .* is no point on the earth: the latitude 95 is outside"):
        npq.read_points(str(path))


def test_the_module_as_a_command(tmp_path):
    source = tmp_path / "ll.parquet"
    pq.write_table(pa.table({"lat": [48.85, None], "lon": [2.35, 1.0]}), source)
    out = tmp_path / "out.parquet"
    done = run_module("resolve", "--input", str(source), "--output", str(out), "--lat", "lat", "--lon", "lon")
    assert done.returncode == 65, done.stderr
    assert done.stderr == "newsatlas: 1 of 2 rows failed (the first is row 2); their error column says why.\n"
    assert pq.read_table(out).column("country").to_pylist() == ["fr", None]
    # No GeoParquet metadata and no columns named: one sentence, 65, no file.
    other = tmp_path / "other.parquet"
    refused = run_module("resolve", "--input", str(source), "--output", str(other))
    assert refused.returncode == 65 and "--lat COL --lon COL" in refused.stderr and not other.exists()
    assert run_module("resolve", "--input", str(tmp_path / "none.parquet"), "--output", str(other)).returncode == 66
    missing = run_module("resolve", "--input", str(source), "--output", str(other), "--lat", "nope", "--lon", "lon")
    assert missing.returncode == 65 and "no column 'nope'; its columns are lat, lon" in missing.stderr
    numbers = run_module("resolve", "--input", str(source), "--output", str(other), "--geometry", "lat")
    assert numbers.returncode == 65 and "holds double, not WKB" in numbers.stderr, numbers.stderr
    assert run_module("resolve", "--input", str(source)).returncode == 64
    assert sorted(os.listdir(tmp_path)) == ["ll.parquet", "out.parquet"]  # no partial file left
    # Among every country GDELT covers, Madrid is in Spain; among NewsAPI's 54 (the default), nearest Portugal.
    madrid = tmp_path / "madrid.parquet"
    pq.write_table(pa.table({"lat": [40.4], "lon": [-3.7]}), madrid)
    for news_countries, code in [("world", "es"), ("newsapi", "pt")]:
        world = tmp_path / f"madrid-{news_countries}.parquet"
        done = run_module("resolve", "--input", str(madrid), "--output", str(world), "--lat", "lat", "--lon", "lon",
                          "--news-countries", news_countries)
        assert done.returncode == 0, done.stderr
        assert pq.read_table(world).column("country").to_pylist() == [code]
