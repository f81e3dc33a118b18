"""resolve's `inside` and `containing` against shapely (GEOS) on the same Natural Earth rings, even–odd rule."""

from collections import defaultdict

import numpy as np
import pytest
import shapely

import newsatlas
from conftest import near_markers, sphere_points


@pytest.fixture(scope="module")
def rings():
    rings = newsatlas.border_rings()
    assert len(rings) > 1000 and sum(len(r) for _, r in rings) > 100_000  # full resolution, every country
    return [code for code, _ in rings], shapely.polygons([shapely.linearrings(r) for _, r in rings])


@pytest.mark.parametrize("seed", [21, 22])
def test_inside_matches_shapely(rings, seed):
    codes, polygons = rings
    lat = np.concatenate([sphere_points(seed, 20_000)[0], near_markers(seed, 20_000)[0]])
    lon = np.concatenate([sphere_points(seed, 20_000)[1], near_markers(seed, 20_000)[1]])
    points = shapely.points(lon, lat)
    point_index, ring_index = shapely.STRtree(polygons).query(points, predicate="within")
    parity = defaultdict(int)
    for p, r in zip(point_index.tolist(), ring_index.tolist()):
        parity[(p, codes[r])] ^= 1
    holders = defaultdict(set)
    for (p, code), odd in parity.items():
        if odd:
            holders[p].add(code)
    answer = newsatlas.resolve(lat, lon)
    news = set(newsatlas.countries()["code"])
    inside_somewhere = 0
    for i in range(len(lat)):
        held_by = holders.get(i, set())
        if held_by:
            inside_somewhere += 1
            assert answer.containing[i] in held_by, f"seed {seed}, point {i}: {lat[i]!r}, {lon[i]!r}"
            assert answer.inside[i] == (answer.containing[i] in news)
            if answer.inside[i]:
                assert answer.codes[i] == answer.containing[i]
        else:
            # At sea (or in a hole): never inside; a country is named only for its territorial sea.
            assert not answer.inside[i], f"seed {seed}, point {i}"
            assert answer.methods[i] != "inside"
    assert inside_somewhere > 10_000
