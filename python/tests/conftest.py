"""Shared fixtures: the CLI the answers are checked against, seeded points, the repository's golden files."""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
FIXTURES = REPOSITORY / "Tests" / "Fixtures"


@pytest.fixture(scope="session")
def cli():
    """The newsatlas binary (NEWSATLAS_CLI, else the release build's): the oracle for every answer."""
    path = os.environ.get("NEWSATLAS_CLI") or str(REPOSITORY / ".build" / "release" / "newsatlas")
    if not os.access(path, os.X_OK):
        pytest.fail(f"No newsatlas binary at {path}: build it (swift build -c release) or set NEWSATLAS_CLI.")
    return path


def run_cli(cli, *arguments, stdin=None):
    done = subprocess.run([cli, *arguments], input=stdin, capture_output=True, text=True)
    return done


def sphere_points(seed, n):
    """n points uniform on the sphere, from a seeded generator (the seed is in every failure's test id)."""
    rng = np.random.default_rng(seed)
    latitudes = np.degrees(np.arcsin(rng.uniform(-1, 1, n)))
    longitudes = rng.uniform(-180, 180, n)
    return latitudes, longitudes


def near_markers(seed, n, spread_deg=3.0):
    """n points scattered around the 54 markers, where borders and coasts are (the slow, exact cases)."""
    import newsatlas

    table = newsatlas.countries()
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(table), n)
    lat = np.clip(table["latitude"].to_numpy()[pick] + rng.normal(0, spread_deg, n), -90, 90)
    lon = (table["longitude"].to_numpy()[pick] + rng.normal(0, spread_deg, n) + 180) % 360 - 180
    return lat, lon


def unit_vectors(latitudes, longitudes):
    phi, lam = np.radians(latitudes), np.radians(longitudes)
    return np.column_stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)])
