#!/usr/bin/env python3
"""`newsatlas tiles` read back by independent readers: Python's sqlite3 and PyPI's mapbox-vector-tile.

For the 54 markers and the shared 10,000 seeded points (Tests/Fixtures/points-10k.json), zooms 0-8: every
tile in the MBTiles file, gunzipped, is byte for byte what `newsatlas serve` answers at the same address, and
mapbox-vector-tile decodes it (layer name, version 2, extent, features); no non-empty tile is missing (every
tile whose buffered box holds one of the server's clusters or points at that zoom is in the file, or the
server answers 204 for it); TMS rows, and the metadata MBTiles 1.3 asks for.

    python3 Tests/MBTiles/verify_mbtiles.py [path/to/newsatlas]

Ends with a line "N passed, N failed" and exits non-zero when a check fails.
"""
import gzip
import json
import math
import os
import sqlite3
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

import mapbox_vector_tile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Support"))
from harness import binary, check, finish, shared_points_geojson  # noqa: E402

MAX_ZOOM = 8


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def candidates(features, z, buffer):
    """Tiles whose box widened by the buffer holds a feature, from its longitude and latitude."""
    n = 1 << z
    tiles = set()
    for feature in features:
        lon, lat = feature["geometry"]["coordinates"]
        x = (lon / 360 + 0.5) * n
        sin = math.sin(math.radians(lat))
        y = min(max(0.5 - 0.25 * math.log((1 + sin) / (1 - sin)) / math.pi, 0), 1) * n
        for tx in range(math.floor(x - 1 - buffer), math.floor(x + buffer) + 1):
            for ty in range(max(0, math.floor(y - 1 - buffer)), min(n - 1, math.floor(y + buffer)) + 1):
                if tx - buffer <= x <= tx + 1 + buffer and ty - buffer <= y <= ty + 1 + buffer:
                    tiles.add((tx % n, ty))
    return tiles


def verify(executable, name, points, scratch):
    mbtiles = os.path.join(scratch, f"{name}.mbtiles")
    arguments = ["tiles", "--out", mbtiles, "--max-zoom", str(MAX_ZOOM)]
    serve = ["serve", "--port", "0", "--max-zoom", str(MAX_ZOOM), "--no-news"]
    if points:
        arguments += ["--points", points, "--layer", name]
        serve += ["--points", f"{name}={points}"]
    made = subprocess.run([executable] + arguments, capture_output=True, text=True)
    check(made.returncode == 0, f"{name}: tiles exits 0 ({made.stdout.strip() or made.stderr.strip()})")
    server = subprocess.Popen([executable] + serve, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    base = server.stdout.readline().strip().rsplit(" ", 1)[-1]  # readiness line
    try:
        db = sqlite3.connect(mbtiles)
        metadata = dict(db.execute("SELECT name, value FROM metadata"))
        layers = json.loads(metadata["json"])["vector_layers"]
        check(metadata.get("format") == "pbf" and metadata.get("minzoom") == "0"
              and metadata.get("maxzoom") == str(MAX_ZOOM) and layers[0]["id"] == name
              and "point_count" in layers[0]["fields"] and len(metadata["bounds"].split(",")) == 4,
              f"{name}: metadata (format, zooms, bounds, json vector_layers)")
        rows = db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles").fetchall()
        stored = {}
        same = decoded = 0
        for z, x, row, data in rows:
            y = (1 << z) - 1 - row  # TMS rows
            tile = gzip.decompress(data)
            stored[(z, x, y)] = tile
            status, served = get(f"{base}/tiles/{name}/{z}/{x}/{y}.mvt")
            same += status == 200 and served == tile
            layer = mapbox_vector_tile.decode(tile).get(name, {})
            decoded += layer.get("extent") == 512 and layer.get("version") == 2 and len(layer.get("features", [])) > 0
        check(rows and same == len(rows), f"{name}: {same} of {len(rows)} tiles equal the server's, byte for byte")
        check(decoded == len(rows), f"{name}: {decoded} of {len(rows)} tiles decode with mapbox-vector-tile")
        missing = 0
        checked = 0
        for z in range(0, MAX_ZOOM + 1):
            status, body = get(f"{base}/v1/datasets/{name}/clusters?zoom={z}")
            for (x, y) in candidates(json.loads(body)["features"], z, 40 / 512):
                if (z, x, y) not in stored:
                    checked += 1
                    status, _ = get(f"{base}/tiles/{name}/{z}/{x}/{y}.mvt")
                    missing += status != 204
        check(missing == 0, f"{name}: no non-empty tile missing ({checked} neighbours outside the file are empty)")
    finally:
        server.terminate()
        server.wait()


def main():
    executable = binary()
    with tempfile.TemporaryDirectory(prefix="newsatlas-mbtiles-") as scratch:
        path = shared_points_geojson(scratch)
        verify(executable, "markers", None, scratch)
        verify(executable, "points", path, scratch)
    finish()


if __name__ == "__main__":
    main()
