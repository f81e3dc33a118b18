"""resolve's string answers: pandas Categoricals when pandas is installed, numpy string arrays without it, the
same strings either way (the CLI oracle checks the Categorical path; this checks the other against it)."""

import numpy as np
import pandas
import pytest

import newsatlas
from conftest import near_markers, sphere_points


@pytest.fixture
def without_pandas(monkeypatch):
    """newsatlas as it answers where pandas is not installed."""
    monkeypatch.setattr(newsatlas, "_pandas", False)


def points():
    uniform, borders = sphere_points(5, 20_000), near_markers(5, 20_000)
    return np.concatenate([uniform[0], borders[0]]), np.concatenate([uniform[1], borders[1]])


def test_categoricals_hold_the_strings_numpy_arrays_hold(monkeypatch):
    lat, lon = points()
    categorical = newsatlas.resolve(lat, lon)
    monkeypatch.setattr(newsatlas, "_pandas", False)
    plain = newsatlas.resolve(lat, lon)
    for field in ("codes", "containing", "methods"):
        got, expected = getattr(categorical, field), getattr(plain, field)
        assert isinstance(got, pandas.Categorical), field
        assert isinstance(expected, np.ndarray) and expected.dtype.kind == "U", field
        assert np.array_equal(np.asarray(got, dtype=str), expected), field
    assert np.array_equal(categorical.inside, plain.inside)
    assert np.array_equal(categorical.inside, categorical.methods == "inside")
    assert np.array_equal(categorical.distances_km, plain.distances_km)
    # At sea the containing country is "" (a category of its own, never a missing value).
    assert (plain.containing == "").any() and not pandas.isna(categorical.containing).any()
    assert set(categorical.methods) == {"inside", "territorial-sea", "nearest"}


def test_without_pandas_the_answers_are_numpy_strings(without_pandas):
    r = newsatlas.resolve([48.85, 36.75, 0.0], [2.35, 3.06, -30.0])
    assert r.codes.tolist() == ["fr", "pt", "br"]
    assert r.containing.tolist() == ["fr", "dz", ""]
    assert r.methods.tolist() == ["inside", "nearest", "nearest"]


def test_an_empty_call_is_empty_either_way(monkeypatch):
    for pandas_present in (True, False):
        if not pandas_present:
            monkeypatch.setattr(newsatlas, "_pandas", False)
        r = newsatlas.resolve([], [])
        assert len(r.codes) == len(r.containing) == len(r.methods) == len(r.inside) == 0
