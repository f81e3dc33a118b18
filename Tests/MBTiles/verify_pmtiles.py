#!/usr/bin/env python3
"""`newsatlas tiles --out FILE.pmtiles` read back by an independent reader: PyPI's `pmtiles` (Protomaps').

For the 54 markers (zooms 0-8, 309 tiles: the root directory alone), the shared 10,000 seeded points (zooms 0-8,
21,577 tiles) and 20,000 seeded points (zooms 0-11, 108,220 tiles), whose entries no longer fit in the first
16 KiB, so leaf directories are written: the
archive holds exactly the tiles of the MBTiles export of the same input and options, byte for byte (`all_tiles`
walks the directories and yields them all and no other; `Reader.get(z, x, y)` finds each, or 500 of a large
archive's); its header says PMTiles v3,
clustered, gzip for the directories and the tiles, MVT, the zooms and bounds; its metadata holds the same
`vector_layers` as the MBTiles `json` member. A tile that is not there reads as nothing.

    python3 Tests/MBTiles/verify_pmtiles.py [path/to/newsatlas]

Ends with a line "N passed, N failed" and exits non-zero when a check fails.
"""
import json
import math
import os
import random
import sqlite3
import subprocess
import sys
import tempfile

from pmtiles.reader import MmapSource, Reader, all_tiles

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Support"))
from harness import binary, check, finish, shared_points_geojson  # noqa: E402


def verify(executable, name, points, max_zoom, scratch, expect_leaves=False):
    outputs = {}
    for kind in ("mbtiles", "pmtiles"):
        out = os.path.join(scratch, f"{name}.{kind}")
        arguments = ["tiles", "--out", out, "--max-zoom", str(max_zoom)]
        if points:
            arguments += ["--points", points, "--layer", name]
        made = subprocess.run([executable] + arguments, capture_output=True, text=True)
        check(made.returncode == 0, f"{name}: tiles --out {kind} exits 0 ({made.stdout.strip() or made.stderr.strip()})")
        outputs[kind] = out
    db = sqlite3.connect(outputs["mbtiles"])
    expected = {(z, x, (1 << z) - 1 - row): data
                for z, x, row, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles")}
    metadata = dict(db.execute("SELECT name, value FROM metadata"))
    db.close()
    leftovers = [f for f in os.listdir(scratch) if ".partial-" in f or ".tiles-" in f]
    check(not leftovers, f"{name}: no scratch or partial file left ({leftovers})")
    with open(outputs["pmtiles"], "rb") as f:
        source = MmapSource(f)
        reader = Reader(source)
        header = reader.header()
        check(header["version"] == 3 and header["clustered"] and header["internal_compression"].value == 2
              and header["tile_compression"].value == 2 and header["tile_type"].value == 1,
              f"{name}: header says v3, clustered, gzip directories and tiles, MVT")
        check(header["min_zoom"] == 0 and header["max_zoom"] == max_zoom
              and header["addressed_tiles_count"] == len(expected) == header["tile_contents_count"],
              f"{name}: header zooms 0-{max_zoom} and {len(expected)} tiles")
        west, south, east, north = (float(v) for v in metadata["bounds"].split(","))
        check(abs(header["min_lon_e7"] / 1e7 - west) < 1e-6 and abs(header["max_lat_e7"] / 1e7 - north) < 1e-6,
              f"{name}: header bounds are the MBTiles bounds")
        check((header["leaf_directory_length"] > 0) == expect_leaves,
              f"{name}: leaf directories {'written' if expect_leaves else 'not needed'} "
              f"({header['leaf_directory_length']} bytes)")
        found = {(z, x, y): data for (z, x, y), data in all_tiles(source)}
        check(found.keys() == expected.keys(), f"{name}: the archive's tiles are the MBTiles tiles ({len(found)})")
        check(all(found[key] == data for key, data in expected.items() if key in found),
              f"{name}: every tile byte for byte")
        # Reader.get, as a map asks for one tile: every tile of a small archive, 500 of a large one (the reader
        # reads and inflates a leaf directory for each, 10 ms in Python).
        keys = sorted(expected)
        asked = keys if len(keys) <= 5_000 else random.Random(1).sample(keys, 500)
        misses = [key for key in asked if reader.get(*key) != expected[key]]
        check(not misses, f"{name}: {len(asked)} tiles by Reader.get, byte for byte ({len(misses)} differ: "
              f"{misses[:3]})")
        z = max_zoom
        empty = next((x, y) for x in range(1 << z) for y in range(1 << z) if (z, x, y) not in expected)
        check(reader.get(z, *empty) is None, f"{name}: a tile not there reads as nothing")
        meta = reader.metadata()
        check(meta.get("vector_layers") == json.loads(metadata["json"])["vector_layers"]
              and meta.get("name") == metadata["name"] and meta.get("format") == "pbf",
              f"{name}: metadata (name, format, vector_layers as MBTiles' json)")


def main():
    executable = binary()
    with tempfile.TemporaryDirectory(prefix="newsatlas-pmtiles-") as scratch:
        path = shared_points_geojson(scratch)
        rng = random.Random(45)
        many = os.path.join(scratch, "many.csv")
        with open(many, "w") as f:
            f.write("latitude,longitude\n")
            for _ in range(20_000):
                f.write(f"{math.degrees(math.asin(2 * rng.random() - 1)):.6f},{rng.random() * 360 - 180:.6f}\n")
        verify(executable, "markers", None, 8, scratch)
        verify(executable, "points", path, 8, scratch, expect_leaves=True)
        verify(executable, "many", many, 11, scratch, expect_leaves=True)
    finish()


if __name__ == "__main__":
    main()
