"""Indexes as Python objects (issue 43, item 7): copies share the native index safely, pickles rebuild it
from the points and options (what Dask, Spark and multiprocessing do with an index), a closed index raises,
and integers that would wrap in C are refused with their range. Each case crashed the interpreter before
(a double free, a use after free, a wild pointer in a 66-byte pickle) or answered another question."""
import copy
import gc
import pickle
import subprocess
import sys

import numpy as np
import pytest

import newsatlas

LAT = np.array([48.85, 48.86, 51.5, -33.9, 0.0, 0.0])
LON = np.array([2.35, 2.36, -0.12, 151.2, 179.99, -179.99])


def clusters(index):
    items = index.clusters((-180, -85, 180, 85), 3)
    return list(items.ids), list(items.point_counts)


@pytest.mark.parametrize("kind", ["clusters", "points"])
def test_copies_and_pickles_answer_as_the_original(kind):
    index = newsatlas.ClusterIndex(LAT, LON, radius=60, max_zoom=10) if kind == "clusters" \
        else newsatlas.PointIndex(LAT, LON)
    answer = (lambda i: clusters(i)) if kind == "clusters" else (lambda i: [a.tolist() for a in i.query(LAT, LON, k=2)])
    expected = answer(index)
    shallow, deep = copy.copy(index), copy.deepcopy(index)
    pickled = pickle.dumps(index)
    assert len(pickled) > 6 * 16, "the pickle holds the points, not a pointer"
    restored = pickle.loads(pickled)
    del index
    gc.collect()
    # The original gone: its copies still answer (the native index lives while any of them does).
    for twin in (shallow, deep, restored):
        assert answer(twin) == expected
    del shallow
    gc.collect()
    assert answer(deep) == expected


def test_a_pickle_runs_in_another_process():
    pickled = pickle.dumps(newsatlas.ClusterIndex(LAT, LON, radius=60))
    script = "import pickle, sys; i = pickle.loads(sys.stdin.buffer.read()); print(sum(i.clusters((-180,-85,180,85), 0).point_counts))"
    run = subprocess.run([sys.executable, "-c", script], input=pickled, capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == b"6"


def test_a_closed_index_raises_instead_of_crashing():
    index = newsatlas.ClusterIndex(LAT, LON)
    index.__del__()
    with pytest.raises(ValueError, match="was closed"):
        index.clusters((-180, -85, 180, 85), 0)
    with pytest.raises(ValueError, match="was closed"):
        pickle.dumps(index)
    points = newsatlas.PointIndex(LAT, LON)
    twin = copy.copy(points)
    points.close()
    with pytest.raises(ValueError, match="was closed"):
        points.query([0.0], [0.0])
    assert list(twin.query([48.85], [2.35])[1]) == [0]  # a copy is not closed with it
    with pytest.raises(TypeError):
        pickle.dumps(points._owned if points._owned else twin._owned)


@pytest.mark.parametrize("call, name", [
    (lambda: newsatlas.ClusterIndex(LAT, LON, max_zoom=2**64 + 3), "max_zoom"),
    (lambda: newsatlas.ClusterIndex(LAT, LON, min_points=-(2**70)), "min_points"),
    (lambda: newsatlas.ClusterIndex(LAT, LON).children(2**64 + 3), "cluster_id"),
    (lambda: newsatlas.ClusterIndex(LAT, LON).leaves(2**64 + 3), "cluster_id"),
    (lambda: newsatlas.ClusterIndex(LAT, LON).leaves(1, limit=2**64), "limit"),
    (lambda: newsatlas.ClusterIndex(LAT, LON).expansion_zoom(2**63), "cluster_id"),
    (lambda: newsatlas.PointIndex(LAT, LON).query([0.0], [0.0], k=2**64 + 1), "k"),
])
def test_integers_that_would_wrap_are_refused(call, name):
    with pytest.raises(ValueError, match=f"{name} must be from"):
        call()


def test_a_layer_name_with_a_nul_is_refused():
    with pytest.raises(ValueError, match="NUL"):
        newsatlas.ClusterIndex(LAT, LON).tile(0, 0, 0, layer="a\x00b")
