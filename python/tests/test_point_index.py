"""PointIndex against scipy's cKDTree on 3D unit vectors (an independent nearest-neighbour oracle)."""

import numpy as np
import pytest
from scipy.spatial import cKDTree

import newsatlas
from conftest import sphere_points, unit_vectors

EARTH_KM = 6371.0088


def chord_to_km(chord):
    return 2 * EARTH_KM * np.arcsin(np.minimum(1.0, chord / 2))


@pytest.mark.parametrize("seed", [11, 12])
def test_nearest_matches_ckdtree(seed):
    lat, lon = sphere_points(seed, 100_000)
    qlat, qlon = sphere_points(seed + 1000, 50_000)
    index = newsatlas.PointIndex(lat, lon)
    assert len(index) == 100_000
    distances, indices = index.query(qlat, qlon)
    chord, expected = cKDTree(unit_vectors(lat, lon)).query(unit_vectors(qlat, qlon))
    assert np.array_equal(indices, expected), f"seed {seed}"
    np.testing.assert_allclose(distances, chord_to_km(chord), rtol=1e-9, atol=1e-9)


def test_k_nearest_and_max_km_pad_as_ckdtree():
    lat, lon = sphere_points(13, 20_000)
    qlat, qlon = sphere_points(14, 5_000)
    index = newsatlas.PointIndex(lat, lon)
    tree = cKDTree(unit_vectors(lat, lon))
    distances, indices = index.query(qlat, qlon, k=8)
    chord, expected = tree.query(unit_vectors(qlat, qlon), k=8)
    assert np.array_equal(indices, expected)
    np.testing.assert_allclose(distances, chord_to_km(chord), rtol=1e-9)
    # Within 100 km: fewer than 8 found, padded with infinity and len(index), as cKDTree pads.
    distances, indices = index.query(qlat, qlon, k=8, max_km=100)
    bound = 2 * np.sin(100 / EARTH_KM / 2)
    chord, expected = tree.query(unit_vectors(qlat, qlon), k=8, distance_upper_bound=bound)
    assert (indices == len(index)).any() and np.isinf(distances).any()
    assert np.array_equal(indices, expected)
    assert np.array_equal(np.isinf(distances), np.isinf(chord))


def test_query_radius_matches_ball_query():
    lat, lon = sphere_points(15, 50_000)
    qlat, qlon = sphere_points(16, 2_000)
    index = newsatlas.PointIndex(lat, lon)
    found, distances = index.query_radius(qlat, qlon, 150.0, return_distance=True)
    tree = cKDTree(unit_vectors(lat, lon))
    expected = tree.query_ball_point(unit_vectors(qlat, qlon), 2 * np.sin(150 / EARTH_KM / 2))
    assert sum(len(f) for f in found) > 2_000
    for i in range(len(qlat)):
        assert sorted(found[i].tolist()) == sorted(expected[i])
        assert np.all(np.diff(distances[i]) >= 0)  # nearest first
        assert np.all(distances[i] <= 150.0)


def test_edge_cases():
    # One point; duplicates (lowest index first); poles and the antimeridian.
    index = newsatlas.PointIndex([10.0], [20.0])
    d, i = index.query([10.0, -10.0], [20.0, -160.0])
    # Haversine near the antipode is good to about 0.2 m.
    assert i.tolist() == [0, 0] and d[0] == 0.0 and abs(d[1] - np.pi * EARTH_KM) < 1e-3
    index = newsatlas.PointIndex([5.0, 5.0, 90.0, 0.0], [5.0, 5.0, 0.0, 180.0])
    d, i = index.query([5.0, 89.9, 0.0], [5.0, 100.0, -179.99], k=2)
    assert i[0].tolist() == [0, 1]
    assert i[1, 0] == 2 and i[2, 0] == 3
    empty = newsatlas.PointIndex([], [])
    d, i = empty.query([1.0], [2.0])
    assert i.tolist() == [0] and np.isinf(d).all()
    d, i = index.query([], [])
    assert d.shape == (0,) and i.shape == (0,)
