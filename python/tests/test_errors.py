"""Bad input is a ValueError with one sentence (the core's, as the CLI says it), never a crash."""

import os
import subprocess
import sys

import numpy as np
import pytest

import newsatlas


@pytest.mark.parametrize("function", [newsatlas.resolve, newsatlas.nearest, newsatlas.PointIndex])
def test_coordinates_out_of_range_or_not_numbers(function):
    cases = [
        ([91.0], [0.0],
         "Point 0 (0-based): The latitude 91.0 is outside -90...90; latitudes are degrees north of the equator."),
        ([0.0, -90.5], [0.0, 0.0], "Point 1 (0-based): The latitude -90.5 is outside -90...90"),
        ([0.0], [180.5],
         "Point 0 (0-based): The longitude 180.5 is outside -180...180; longitudes are degrees east of Greenwich."),
        ([np.nan], [0.0],
         "Point 0 (0-based): The latitude nan is not a finite number; give degrees as a decimal number."),
        ([1.0, 2.0], [3.0, np.inf], "Point 1 (0-based): The longitude inf is not a finite number"),
        ([1.0, 2.0], [3.0],
         "The latitudes and longitudes differ in length (2 and 1); give one longitude for each latitude."),
        ([[1.0]], [[2.0]], "Latitudes and longitudes are one-dimensional arrays"),
    ]
    for lat, lon, sentence in cases:
        with pytest.raises(ValueError) as raised:
            function(lat, lon)
        assert str(raised.value).startswith(sentence)


@pytest.mark.parametrize("function", [newsatlas.resolve, newsatlas.nearest, newsatlas.PointIndex])
def test_the_first_bad_point_of_a_long_array_is_named(function):
    """The library checks eight points a step and reads a block with a bad point again point by point: every
    offset of a block, blocks after the first, the tail after the last whole block, two bad points."""
    for offsets, latitude, longitude in [
        ([0], np.nan, 0.0), ([7], 0.0, 181.0), ([8], -91.0, 0.0), ([13, 30], 0.0, -np.inf), ([31], 90.5, 0.0),
        ([32], 0.0, np.nan), ([38], np.inf, 0.0), ([19, 20], 0.0, 200.0),
    ]:
        lat, lon = np.full(39, 45.0), np.full(39, 5.0)
        lat[offsets], lon[offsets] = latitude, longitude
        with pytest.raises(ValueError, match=rf"^Point {offsets[0]} \(0-based\): The l"):
            function(lat, lon)
    function(np.full(39, 90.0), np.full(39, -180.0))  # the edges of the ranges are positions


def test_arguments_out_of_range():
    with pytest.raises(ValueError, match="k must be 1 to 54"):
        newsatlas.nearest([0.0], [0.0], k=55)
    with pytest.raises(ValueError, match="k must be 1 to 54"):
        newsatlas.nearest([0.0], [0.0], k=0)
    with pytest.raises(ValueError, match="threads is 1 to 256"):
        newsatlas.resolve([0.0], [0.0], threads=0)
    index = newsatlas.PointIndex([0.0], [0.0])
    with pytest.raises(ValueError, match="k must be a whole number 1 or more"):
        index.query([0.0], [0.0], k=0)
    with pytest.raises(ValueError, match="max_km must be a distance of 0 kilometres or more"):
        index.query([0.0], [0.0], max_km=-1)
    with pytest.raises(ValueError, match="The radius must be a distance of 0 kilometres or more"):
        index.query_radius([0.0], [0.0], float("nan"))
    with pytest.raises(ValueError):
        newsatlas.resolve(["north"], [0.0])


def test_bad_input_in_a_child_process_leaves_it_running():
    # A trap in the library would kill the interpreter (SIGILL): the child must exit 0 after catching each.
    code = (
        "import numpy as np, newsatlas\n"
        "for lat, lon in [([91.0], [0.0]), ([np.nan], [0.0]), ([0.0], [-1e308])]:\n"
        "    try: newsatlas.resolve(lat, lon)\n"
        "    except ValueError: pass\n"
        "    else: raise SystemExit(3)\n"
        "print('alive')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "alive\n", done.stderr


def test_a_negative_count_is_refused_not_trapped():
    # Through the C interface itself (the package never passes one), in a child: a trap would kill it (SIGILL).
    code = (
        "import ctypes\n"
        "from newsatlas._native import lib, Message\n"
        "lat = (ctypes.c_double * 1)(0.0)\n"
        "out = (ctypes.c_double * 8)()\n"
        "m = Message()\n"
        "status = lib.newsatlas_resolve(-3, lat, lat, 0, 1, out, out, out, out, m.buffer, m.capacity)\n"
        "print(status, m.buffer.value.decode())\n"
        "m = Message()\n"
        "status = lib.newsatlas_resolve(1, lat, lat, 7, 1, out, out, out, out, m.buffer, m.capacity)\n"
        "print(status, m.buffer.value.decode())\n"
        "m = Message()\n"
        "status = lib.newsatlas_nearest(-1, lat, lat, 1, 1, out, out, out, m.buffer, m.capacity)\n"
        "print(status, m.buffer.value.decode())\n"
        "m = Message()\n"
        "print(lib.newsatlas_points_build(-2, lat, lat, 1, m.buffer, m.capacity), m.buffer.value.decode())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "-1 The number of points must be 0 or more, not -3.",
        "-1 world must be 0 (NewsAPI's 54) or 1 (every country GDELT covers), not 7.",
        "-1 The number of points must be 0 or more, not -1.",
        "None The number of points must be 0 or more, not -2.",
    ]


def test_a_library_of_another_interface_version_is_refused():
    """An old package must not load a newer library through NEWSATLAS_LIBRARY, nor this one an older library:
    the other version's arrays have other layouts. The check is what stops it, with a sentence."""
    import ctypes.util

    # A library with no version at all (libm: no newsatlas_* symbol), as the package before version 2 shipped.
    code = "import newsatlas"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "NEWSATLAS_LIBRARY": ctypes.util.find_library("m")})
    assert done.returncode == 1
    assert "ImportError: newsatlas: the Swift library libm.so.6 has no interface version (it is older than " \
           "version 2), and this package needs version 3." in done.stderr, done.stderr

    from newsatlas import _native

    class Library:  # a library of another version
        def __init__(self, version):
            self.newsatlas_abi_version = lambda: version

    with pytest.raises(ImportError, match=r"^newsatlas: the Swift library other.so has interface version 2, "
                                          r"and this package needs version 3\. Install the package"):
        _native.check_abi(Library(2), "other.so")
    _native.check_abi(Library(_native.ABI_VERSION), "this.so")
    assert _native.lib.newsatlas_abi_version() == _native.ABI_VERSION
