"""ClusterIndex.tile against `newsatlas tiles` (whose tiles are the service's, byte for byte: Tests/MBTiles), read
back with PyPI's mapbox-vector-tile."""

import gzip
import json
import sqlite3

import mapbox_vector_tile
import numpy as np
import pytest

import newsatlas
from conftest import near_markers, run_cli

MAX_ZOOM = 6
OPTIONS = dict(radius=60.0, extent=4096, max_zoom=MAX_ZOOM, min_points=3)


@pytest.fixture(scope="module")
def points():
    # Clumps around the markers (clusters and lone points at every zoom), the poles and both sides of the
    # antimeridian (the tiles that wrap points from the other edge of the world).
    lat, lon = near_markers(seed=29, n=3000, spread_deg=4.0)
    lat = np.concatenate([lat, [89.9, -89.9, 10.0, 10.0, -35.0, -35.0]])
    lon = np.concatenate([lon, [0.0, 45.0, 179.99, -179.99, 179.5, -179.5]])
    return lat, lon


@pytest.fixture(scope="module")
def cli_tiles(cli, points, tmp_path_factory):
    """Every non-empty tile of zooms 0..MAX_ZOOM as the CLI writes it, gunzipped, by (z, x, y) in XYZ rows."""
    folder = tmp_path_factory.mktemp("tiles")
    lat, lon = points
    features = [
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [float(x), float(y)]}}
        for y, x in zip(lat, lon)
    ]
    source = folder / "points.geojson"
    source.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    out = folder / "points.mbtiles"
    done = run_cli(
        cli, "tiles", "--points", str(source), "--out", str(out), "--layer", "clumps", "--radius", "60",
        "--extent", "4096", "--max-zoom", str(MAX_ZOOM), "--min-points", "3",
    )
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(out) as db:
        rows = db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles").fetchall()
    tiles = {(z, x, (1 << z) - 1 - row): gzip.decompress(data) for z, x, row, data in rows}
    assert len(tiles) > 100
    return tiles


def test_tiles_are_the_cli_and_service_bytes(points, cli_tiles):
    index = newsatlas.ClusterIndex(*points, **OPTIONS)
    for z in range(MAX_ZOOM + 1):
        for x in range(1 << z):
            for y in range(1 << z):
                tile = index.tile(z, x, y, layer="clumps")
                assert tile == cli_tiles.get((z, x, y)), f"tile {z}/{x}/{y}"


def test_tiles_decode_as_mapbox_vector_tiles(points):
    lat, lon = points
    index = newsatlas.ClusterIndex(lat, lon, **OPTIONS)
    decoded = mapbox_vector_tile.decode(index.tile(0, 0, 0), default_options={"y_coord_down": True})
    layer = decoded["points"]
    assert layer["extent"] == 4096 and layer["version"] == 2
    items = index.clusters((-180, -90, 180, 90), 0)
    clusters = {f["id"]: f["properties"] for f in layer["features"] if f["properties"].get("cluster")}
    expected = {int(i): int(n) for i, n, c in zip(items.ids, items.point_counts, items.is_cluster) if c}
    # Every cluster of zoom 0 is in the world tile with its id and count (and nothing else is a cluster).
    assert {i: p["point_count"] for i, p in clusters.items()} == expected
    assert all(p["cluster_id"] == i for i, p in clusters.items())
    lone = [f for f in layer["features"] if not f["properties"]]
    assert len(lone) >= int((~items.is_cluster).sum())  # and the points wrapped in from the other edge
    assert all(f["geometry"]["type"] == "Point" for f in layer["features"])


def test_empty_tile_is_none():
    index = newsatlas.ClusterIndex([10.0], [20.0], max_zoom=4)
    assert index.tile(4, 0, 0) is None
    assert index.tile(0, 0, 0) is not None


@pytest.mark.parametrize(
    "address, sentence",
    [
        ((31, 0, 0), "A tile takes Z/X/Y with a zoom from 0 to 30 (for example 2/1/1), not '31/0/0'."),
        ((-1, 0, 0), "A tile takes Z/X/Y with a zoom from 0 to 30 (for example 2/1/1), not '-1/0/0'."),
        ((2, 4, 0), "At zoom 2 a tile's x and y run from 0 to 3; '2/4/0' is off the map."),
        ((2, 0, -1), "A tile takes Z/X/Y with a zoom from 0 to 30 (for example 2/1/1), not '2/0/-1'."),
        ((1, 1.5, 0), "A tile's z, x and y are whole numbers, not 1.5."),
    ],
)
def test_bad_tile_addresses_raise_the_cli_sentence(cli, address, sentence):
    index = newsatlas.ClusterIndex([10.0], [20.0])
    with pytest.raises(ValueError) as raised:
        index.tile(*address)
    assert str(raised.value) == sentence
    if all(isinstance(v, int) for v in address):
        # The CLI's own words for the same address (its --tile names the option where the library says "A tile").
        done = run_cli(cli, "clusters", "--tile", "/".join(map(str, address)))
        assert done.returncode != 0
        assert sentence.replace("A tile takes", "--tile takes") in done.stderr


def test_bad_layer_names_raise():
    index = newsatlas.ClusterIndex([10.0], [20.0])
    with pytest.raises(ValueError, match="A layer name is letters, digits, '-' and '_' \\(64 at most\\), not 'a b'."):
        index.tile(0, 0, 0, layer="a b")
    with pytest.raises(ValueError, match="not ''"):
        index.tile(0, 0, 0, layer="")
