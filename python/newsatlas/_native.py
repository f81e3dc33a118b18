"""The Swift library (Sources/NewsAtlasC) through ctypes: its functions, typed, and the calling helpers.

ctypes releases the GIL for the length of every call into a CDLL, so other Python threads run while the engine
works. Every function that can refuse its input writes one sentence into a buffer; it becomes a ValueError.
"""

import ctypes
import os
from pathlib import Path

import numpy as np

_path = os.environ.get("NEWSATLAS_LIBRARY") or str(Path(__file__).resolve().parent / "libNewsAtlasC.so")
try:
    lib = ctypes.CDLL(_path)
except OSError as error:
    raise ImportError(
        f"newsatlas: cannot load its Swift library {_path}: {error}. Reinstall with 'pip install ./python' "
        "from a NewsAtlas checkout."
    ) from error

ABI_VERSION = 3
"""The version of the library's C interface this package is written for (`newsatlas_abi_version`)."""


def check_abi(library, path):
    """Raises ImportError unless `library` speaks this package's version of the C interface: a library built
    from another checkout (NEWSATLAS_LIBRARY, or a stale install) would be called with the wrong arguments, or
    read with the wrong layout, without any error."""
    try:
        version_of = library.newsatlas_abi_version
    except AttributeError:
        version = None
    else:
        version_of.argtypes = []
        version_of.restype = ctypes.c_ssize_t
        version = version_of()
    if version != ABI_VERSION:
        found = "has no interface version (it is older than version 2)" if version is None else \
            f"has interface version {version}"
        raise ImportError(
            f"newsatlas: the Swift library {path} {found}, and this package needs version {ABI_VERSION}. "
            "Install the package and the library from the same NewsAtlas checkout ('pip install ./python'), or "
            "point NEWSATLAS_LIBRARY at a library built from this package's checkout."
        )


check_abi(lib, _path)

_i = ctypes.c_ssize_t
_d = ctypes.c_double
_p = ctypes.c_void_p
_s = ctypes.c_char_p

_signatures = {
    "newsatlas_abi_version": ([], _i),
    "newsatlas_country_count": ([], _i),
    "newsatlas_country_text": ([_i, _i], _s),
    "newsatlas_country_marker": ([_i, _p, _p], ctypes.c_bool),
    "newsatlas_world_count": ([], _i),
    "newsatlas_world_text": ([_i, _i], _s),
    "newsatlas_border_count": ([], _i),
    "newsatlas_border_text": ([_i, _i], _s),
    "newsatlas_border_rings": ([_d], _p),
    "newsatlas_resolve": ([_i, _p, _p, _i, _i, _p, _p, _p, _p, _p, _i], _i),
    "newsatlas_nearest": ([_i, _p, _p, _i, _i, _p, _p, _p, _p, _i], _i),
    "newsatlas_points_build": ([_i, _p, _p, _i, _p, _i], _p),
    "newsatlas_points_free": ([_p], None),
    "newsatlas_points_query": ([_p, _i, _p, _p, _i, _d, _i, _p, _p, _p, _i], _i),
    "newsatlas_points_radius": ([_p, _i, _p, _p, _d, _i, _p, _i], _p),
    "newsatlas_result_length": ([_p, _i], _i),
    "newsatlas_result_copy": ([_p, _p, _p, _p, _p, _p, _p], None),
    "newsatlas_result_free": ([_p], None),
    "newsatlas_result_copy_bytes": ([_p, _p], None),
    "newsatlas_clusters_build": ([_i, _p, _p, _d, _d, _i, _i, _i, _i, _i, _p, _i], _p),
    "newsatlas_clusters_free": ([_p], None),
    "newsatlas_clusters_in_box": ([_p, _d, _d, _d, _d, _d, _p, _i], _p),
    "newsatlas_clusters_children": ([_p, _i, _p, _i], _p),
    "newsatlas_clusters_leaves": ([_p, _i, _i, _i, _p, _i], _p),
    "newsatlas_clusters_expansion_zoom": ([_p, _i, _p, _i], _i),
    "newsatlas_clusters_tile": ([_p, _s, _s, _p, _p, _i], _i),
}
for _name, (_arguments, _result) in _signatures.items():
    _function = getattr(lib, _name)
    _function.argtypes = _arguments
    _function.restype = _result

DONE = -2
"""What a call returns when it did its work (else the offset of the first bad point, or -1)."""


class Message:
    """A buffer for the library's sentence."""

    capacity = 1024

    def __init__(self):
        self.buffer = ctypes.create_string_buffer(self.capacity)

    def error(self):
        return ValueError(self.buffer.value.decode("utf-8", "replace"))


def pointer(array):
    """The address of a C-contiguous numpy array's data (a null pointer for an empty one is never read)."""
    return array.ctypes.data


def points(latitudes, longitudes):
    """Both arrays as contiguous 1-D float64, or a ValueError saying what is wrong with their shapes."""
    lat = np.ascontiguousarray(np.atleast_1d(np.asarray(latitudes, dtype=np.float64)))
    lon = np.ascontiguousarray(np.atleast_1d(np.asarray(longitudes, dtype=np.float64)))
    if lat.ndim != 1 or lon.ndim != 1:
        raise ValueError(
            f"Latitudes and longitudes are one-dimensional arrays, not of shapes {lat.shape} and {lon.shape}."
        )
    if lat.shape != lon.shape:
        raise ValueError(
            f"The latitudes and longitudes differ in length ({lat.shape[0]} and {lon.shape[0]}); "
            "give one longitude for each latitude."
        )
    return lat, lon


def threads(value):
    """`threads=` as the library takes it: 0 for all cores, else 1 to 256."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= 256:
        raise ValueError(f"threads is 1 to 256 (or None for every core), not {value!r}.")
    return int(value)


def result_lists(handle):
    """A result handle's lists as numpy arrays (offsets, integers, counts, kinds, first, second); frees it."""
    try:
        offsets = np.empty(lib.newsatlas_result_length(handle, 0), dtype=np.int64)
        n = lib.newsatlas_result_length(handle, 1)
        integers, counts, kinds = (np.zeros(n, dtype=np.int64) for _ in range(3))
        first, second = np.full(n, np.nan), np.full(n, np.nan)
        lib.newsatlas_result_copy(
            handle, pointer(offsets), pointer(integers), pointer(counts), pointer(kinds), pointer(first),
            pointer(second),
        )
        return offsets, integers, counts, kinds, first, second
    finally:
        lib.newsatlas_result_free(handle)


def result_bytes(handle):
    """A result handle's bytes; frees it."""
    try:
        data = ctypes.create_string_buffer(lib.newsatlas_result_length(handle, 2))
        lib.newsatlas_result_copy_bytes(handle, data)
        return data.raw
    finally:
        lib.newsatlas_result_free(handle)
