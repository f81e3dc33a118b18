"""The package answers as the CLI does: the same rows, byte for byte, when printed the way the CLI prints them."""

import csv
import io
import json

import numpy as np
import pytest

import newsatlas
from conftest import near_markers, run_cli, sphere_points


def cli_rows(cli, command, latitudes, longitudes, *extra):
    text = "".join(f"{a!r},{b!r}\n" for a, b in zip(latitudes.tolist(), longitudes.tolist()))
    done = run_cli(cli, command, "--input", "-", *extra, stdin=text)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("seed,news_countries", [(1, "newsapi"), (2, "newsapi"), (1, "world")])
def test_resolve_matches_cli_byte_for_byte(cli, seed, news_countries):
    uniform = sphere_points(seed, 20_000)
    borders = near_markers(seed, 20_000)
    lat = np.concatenate([uniform[0], borders[0], [90.0, -90.0, 0.0]])
    lon = np.concatenate([uniform[1], borders[1], [180.0, -180.0, 0.0]])
    expected = cli_rows(cli, "resolve", lat, lon, "--news-countries", news_countries)
    answer = newsatlas.resolve(lat, lon, news_countries=news_countries, threads=2)
    listed = run_cli(cli, "countries", "--news-countries", news_countries, "--format", "json")
    names = {c["code"]: c["name"] for c in json.loads(listed.stdout)["countries"]}
    lines = ["line,latitude,longitude,code,name,method,containing,distance_km,error"]
    for i, (a, b) in enumerate(zip(lat.tolist(), lon.tolist())):
        code = answer.codes[i]
        lines.append(
            f"{i + 1},{a!r},{b!r},{code},{names[code]},{answer.methods[i]},{answer.containing[i]},"
            f"{answer.distances_km[i]:.6f},"
        )
    mine = "\n".join(lines) + "\n"
    if mine != expected:
        for ours, theirs in zip(mine.splitlines(), expected.splitlines()):
            assert ours == theirs, f"seed {seed}"
    assert mine == expected
    assert set(answer.methods) == {"inside", "territorial-sea", "nearest"}  # every branch was exercised
    assert np.array_equal(answer.inside, answer.methods == "inside")
    if news_countries == "world":  # Madrid is in Spain among the world's countries, nearest Portugal among the 54
        assert "es" in set(answer.codes)
        madrid = newsatlas.resolve([40.4], [-3.7], news_countries="world")
        assert madrid.codes[0] == "es" and madrid.methods[0] == "inside"
        assert newsatlas.resolve([40.4], [-3.7]).codes[0] == "pt"
    with pytest.raises(ValueError, match="news_countries must be 'newsapi' or 'world', not 'mars'"):
        newsatlas.resolve(lat, lon, news_countries="mars")


@pytest.mark.parametrize("seed", [3])
def test_nearest_matches_cli_byte_for_byte(cli, seed):
    lat, lon = sphere_points(seed, 20_000)
    expected = cli_rows(cli, "nearest", lat, lon)
    answer = newsatlas.nearest(lat, lon, threads=2)
    names = dict(zip(newsatlas.countries()["code"], newsatlas.countries()["name"]))
    lines = ["line,latitude,longitude,code,name,distance_km,bearing_deg,error"]
    for i, (a, b) in enumerate(zip(lat.tolist(), lon.tolist())):
        code = answer.codes[i]
        lines.append(
            f"{i + 1},{a!r},{b!r},{code},{names[code]},{answer.distances_km[i]:.6f},{answer.bearings_deg[i]:.6f},"
        )
    assert "\n".join(lines) + "\n" == expected


def test_k_nearest_matches_cli_jsonl_exactly(cli):
    lat, lon = sphere_points(4, 2_000)
    text = cli_rows(cli, "nearest", lat, lon, "--count", "5", "--format", "jsonl")
    expected = [json.loads(line) for line in text.splitlines()]
    answer = newsatlas.nearest(lat, lon, k=5)
    assert answer.codes.shape == (2_000, 5)
    for i, row in enumerate(expected):
        assert [r["code"] for r in row["results"]] == answer.codes[i].tolist()
        assert [r["distanceKm"] for r in row["results"]] == answer.distances_km[i].tolist()
        assert [r["bearingDegrees"] for r in row["results"]] == answer.bearings_deg[i].tolist()


def test_one_thread_and_all_cores_agree():
    lat, lon = sphere_points(5, 200_000)
    one = newsatlas.resolve(lat, lon, threads=1)
    every = newsatlas.resolve(lat, lon)
    for a, b in zip(one, every):
        assert np.array_equal(a, b)
    one = newsatlas.nearest(lat, lon, k=2, threads=1)
    every = newsatlas.nearest(lat, lon, k=2, threads=4)
    for a, b in zip(one, every):
        assert np.array_equal(a, b)


def test_countries_table_is_the_clis(cli):
    done = run_cli(cli, "countries", "--format", "json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)["countries"]
    table = newsatlas.countries()
    assert len(table) == 54 == len(listed)
    assert table["code"].tolist() == [c["code"] for c in listed]
    assert table["name"].tolist() == [c["name"] for c in listed]
    assert table["name_fr"].tolist() == [c["nameFr"] for c in listed]
    assert table["latitude"].tolist() == [c["latitude"] for c in listed]
