"""NewsAtlas's engine on numpy arrays: the 54 news countries, your own points, supercluster.

Every function takes arrays of latitudes and longitudes in degrees and answers in the Swift library the CLI
uses, with the GIL released and, for large arrays, every core working (`threads=` to say how many). Bad
input raises ValueError with one sentence; nothing here is computed in Python.
"""

from typing import NamedTuple

import numpy as np

from . import _native
from ._native import DONE, Message, lib, pointer

__all__ = [
    "nearest", "resolve", "countries", "PointIndex", "ClusterIndex", "Nearest", "Resolved", "Items",
    "METHODS", "border_rings",
]

_country_count = lib.newsatlas_country_count()
_country_columns = [
    [lib.newsatlas_country_text(i, field).decode() for i in range(_country_count)] for field in range(4)
]
_codes = np.array(_country_columns[0])
_names = np.array(_country_columns[1])
# Every country GDELT covers: the news countries of resolve(news_countries="world").
_world_codes = np.array([lib.newsatlas_world_text(i, 0).decode() for i in range(lib.newsatlas_world_count())])
NEWS_COUNTRIES = ("newsapi", "world")
"""The news countries resolve reads among: NewsAPI's 54, or every country GDELT covers (237)."""
# Border countries, with "" last: the library's offset for a point in no country.
_border_codes = np.array([lib.newsatlas_border_text(i, 0).decode() for i in range(lib.newsatlas_border_count())]
                         + [""])

METHODS = np.array(["inside", "territorial-sea", "nearest"])
"""How resolve chose a country, by the library's method number (as the CLI's `method` column spells it)."""


class Nearest(NamedTuple):
    """The nearest news countries: ISO codes, great-circle distances to their markers (km), initial bearings
    (degrees clockwise from north); shaped (n,) for k=1, else (n, k), nearest first."""

    codes: np.ndarray
    distances_km: np.ndarray
    bearings_deg: np.ndarray


class Resolved(NamedTuple):
    """Each point's news country, as `newsatlas resolve` answers it.

    With pandas installed, `codes`, `containing` and `methods` are `pandas.Categorical` arrays (one small
    integer a point and the table of names, as a pandas DataFrame column of dtype "category" holds them): they
    index, iterate, compare (`methods == "inside"`) and convert (`np.asarray`, `.astype(str)`) as the strings
    they stand for. Without pandas they are numpy arrays of strings, whose million-point answer is about 80 MB
    to allocate and fill, a quarter of the call."""

    codes: object
    """The news country's ISO code ("fr")."""
    inside: np.ndarray
    """True where the point is inside that country's borders (method "inside")."""
    containing: object
    """The code of the country (of all ~240 with borders) holding the point, "" at sea: "dz" for Algiers,
    which resolves to a news country by distance."""
    methods: object
    """"inside", "territorial-sea" (within 12 nautical miles of its coast) or "nearest" (its marker)."""
    distances_km: np.ndarray
    """The great-circle distance to the chosen country's marker."""


class Items(NamedTuple):
    """Clusters and lone points, in supercluster's order: `ids` are cluster ids where `is_cluster`, else
    the point's offset in the input; a lone point has a `point_counts` of 1 and its own position."""

    ids: np.ndarray
    point_counts: np.ndarray
    is_cluster: np.ndarray
    latitudes: np.ndarray
    longitudes: np.ndarray

    def __len__(self):  # the number of items, not of fields
        return len(self.ids)


_string_tables = {"codes": _codes, "world": _world_codes, "containing": _border_codes, "methods": METHODS}
_pandas = None


def _strings(offsets, table):
    """The strings of `_string_tables[table]` at `offsets`: a pandas Categorical when pandas is installed (the
    offsets themselves and the table, nothing made a point), else a numpy string array."""
    global _pandas
    if _pandas is None:
        try:
            import pandas
        except ImportError:
            _pandas = False
        else:
            _pandas = (pandas, {name: pandas.CategoricalDtype(list(names)) for name, names in _string_tables.items()})
    if not _pandas:
        # take, not fancy indexing: five times faster on strings.
        return _string_tables[table].take(offsets)
    pandas, dtypes = _pandas
    return pandas.Categorical.from_codes(offsets, dtype=dtypes[table])


def resolve(latitudes, longitudes, *, news_countries="newsapi", threads=None):
    """Resolves every point to a news country: the one it is in (or in the territorial sea of), else the
    nearest marker. `news_countries` is NewsAPI's 54 ("newsapi") or every country GDELT covers ("world":
    Madrid is in Spain, whose news GDELT has). The same answers as `newsatlas resolve --input
    --news-countries NEWS_COUNTRIES`; see `Resolved` for the arrays' types."""
    if news_countries not in NEWS_COUNTRIES:
        raise ValueError(f"news_countries must be 'newsapi' or 'world', not {news_countries!r}.")
    world = news_countries == "world"
    lat, lon = _native.points(latitudes, longitudes)
    cores = _native.threads(threads)
    n = lat.shape[0]
    # Every item is written by the library: no zeroing.
    countries = np.empty(n, dtype=np.int16)
    methods = np.empty(n, dtype=np.int8)
    containing = np.empty(n, dtype=np.int16)
    distances = np.empty(n, dtype=np.float64)
    if n:
        message = Message()
        status = lib.newsatlas_resolve(
            n, pointer(lat), pointer(lon), int(world), cores, pointer(countries), pointer(methods),
            pointer(containing), pointer(distances), message.buffer, message.capacity,
        )
        if status != DONE:
            raise message.error()
    return Resolved(_strings(countries, "world" if world else "codes"), methods == 0, _strings(containing, "containing"),
                    _strings(methods, "methods"), distances)


def nearest(latitudes, longitudes, k=1, *, threads=None):
    """The k news countries nearest each point by great-circle distance to their markers (as `newsatlas
    nearest`), nearest first, equal distances in the country list's order."""
    lat, lon = _native.points(latitudes, longitudes)
    cores = _native.threads(threads)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= _country_count:
        raise ValueError(f"k must be 1 to {_country_count} (the news countries), not {k!r}.")
    n = lat.shape[0]
    # Every item is written by the library: no zeroing. The codes come as the strings themselves.
    codes = np.empty((n, k), dtype="U2")
    distances = np.empty((n, k), dtype=np.float64)
    bearings = np.empty((n, k), dtype=np.float64)
    if n:
        message = Message()
        status = lib.newsatlas_nearest(
            n, pointer(lat), pointer(lon), int(k), cores, pointer(codes), pointer(distances),
            pointer(bearings), message.buffer, message.capacity,
        )
        if status != DONE:
            raise message.error()
    if k == 1:
        codes, distances, bearings = codes[:, 0], distances[:, 0], bearings[:, 0]
    return Nearest(codes, distances, bearings)


def countries():
    """The 54 news countries (code, name, name_fr, language, marker latitude and longitude): a pandas
    DataFrame when pandas is installed, else a list of dicts."""
    rows = []
    for i in range(_country_count):
        lat, lon = _native.ctypes.c_double(), _native.ctypes.c_double()
        lib.newsatlas_country_marker(i, _native.ctypes.byref(lat), _native.ctypes.byref(lon))
        code, name, name_fr, language = (column[i] for column in _country_columns)
        rows.append(dict(code=code, name=name, name_fr=name_fr, language=language, latitude=lat.value,
                         longitude=lon.value))
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)


def border_rings(tolerance_deg=0.0):
    """The border rings resolve uses (Natural Earth 1:10m admin-0 as compiled in), simplified to tolerance_deg
    (0: every point): a list of (country_code, ring) with ring an (m, 2) array of longitude, latitude. A
    country holds a point when an odd number of its rings do. For drawing, and for checking resolve against
    another geometry library."""
    offsets, countries, _, _, lons, lats = _native.result_lists(lib.newsatlas_border_rings(float(tolerance_deg)))
    rings = []
    for start, end in zip(offsets[:-1], offsets[1:]):
        rings.append((_border_codes[countries[start]], np.column_stack([lons[start:end], lats[start:end]])))
    return rings


_INT64 = (-(1 << 63), (1 << 63) - 1)


def _whole(name, value, low=_INT64[0], high=_INT64[1]):
    """value as a Python int when it is a whole number from low to high; ValueError naming the range otherwise
    (ctypes would wrap a larger one silently: max_zoom=2**64+3 was 3)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} is a whole number, not {value!r}.")
    value = int(value)
    if not low <= value <= high:
        raise ValueError(f"{name} must be from {low} to {high}, not {value}.")
    return value


class _Native:
    """One native index and its release: shared by an index and its copies, freed once, when the last of them
    lets go. It is never copied or pickled itself (a pointer means nothing in another process)."""

    __slots__ = ("pointer", "_free")

    def __init__(self, pointer, free):
        self.pointer = pointer
        self._free = free

    def __del__(self):
        pointer, self.pointer = self.pointer, None
        if pointer:
            self._free(pointer)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        raise TypeError("A native index handle cannot be pickled; pickle the PointIndex or ClusterIndex itself.")


class _Index:
    """What PointIndex and ClusterIndex share: the native handle, copies that share it, pickles that rebuild
    from the points and options, and a clear error after close()."""

    _owned = None

    @property
    def _handle(self):
        owned = self._owned
        if owned is None or not owned.pointer:
            raise ValueError(f"This {type(self).__name__} was closed; build a new one.")
        return owned.pointer

    def close(self):
        """Lets go of the native index now (it is freed when no copy uses it); later calls raise ValueError."""
        self._owned = None

    def __del__(self):
        self._owned = None

    def __copy__(self):
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin

    def __deepcopy__(self, memo):
        return self.__copy__()  # the index is immutable: a copy shares it, as the points and options

    def __reduce__(self):
        self._handle  # a closed index is not pickled as if it were open
        return (_rebuild, (type(self), self._points, self._options))


def _rebuild(kind, points, options):
    return kind(points[0], points[1], **options)


class PointIndex(_Index):
    """A great-circle k-d tree over your points, queried like scipy's cKDTree (distances in kilometres)."""

    def __init__(self, latitudes, longitudes, *, threads=None):
        lat, lon = _native.points(latitudes, longitudes)
        message = Message()
        self.n = lat.shape[0]
        handle = lib.newsatlas_points_build(
            self.n, pointer(lat), pointer(lon), _native.threads(threads), message.buffer, message.capacity
        )
        if not handle:
            raise message.error()
        self._owned = _Native(handle, lib.newsatlas_points_free)
        # What a pickle rebuilds from (a Dask, Spark or multiprocessing worker gets its own index).
        self._points = (np.array(lat, copy=True), np.array(lon, copy=True))
        self._options = {}

    def __len__(self):
        return self.n

    def query(self, latitudes, longitudes, k=1, max_km=None, *, threads=None):
        """The k points nearest each query, nearest first (equal distances by lowest index): (distances_km,
        indices), shaped (n,) for k=1 else (n, k); where fewer than k lie within max_km, the distance is
        infinity and the index is len(self), as cKDTree.query pads."""
        lat, lon = _native.points(latitudes, longitudes)
        cores = _native.threads(threads)
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a whole number 1 or more, not {k!r}.")
        k = _whole("k", k, 1, _INT64[1])
        limit = np.inf if max_km is None else float(max_km)
        if not limit >= 0:
            raise ValueError(f"max_km must be a distance of 0 kilometres or more, not {max_km!r}.")
        n = lat.shape[0]
        distances = np.zeros((n, k), dtype=np.float64)
        indices = np.zeros((n, k), dtype=np.int64)
        if n:
            message = Message()
            status = lib.newsatlas_points_query(
                self._handle, n, pointer(lat), pointer(lon), int(k), limit, cores, pointer(distances),
                pointer(indices), message.buffer, message.capacity,
            )
            if status != DONE:
                raise message.error()
        if k == 1:
            return distances[:, 0], indices[:, 0]
        return distances, indices

    def query_radius(self, latitudes, longitudes, r_km, *, return_distance=False, threads=None):
        """Every point within r_km of each query (inclusive), nearest first: an object array of index arrays
        (and one of distance arrays with return_distance), as scikit-learn's BallTree.query_radius."""
        lat, lon = _native.points(latitudes, longitudes)
        cores = _native.threads(threads)
        message = Message()
        handle = lib.newsatlas_points_radius(
            self._handle, lat.shape[0], pointer(lat), pointer(lon), float(r_km), cores, message.buffer,
            message.capacity,
        )
        if not handle:
            raise message.error()
        offsets, indices, _, _, distances, _ = _native.result_lists(handle)
        split_indices = np.empty(lat.shape[0], dtype=object)
        split_indices[:] = np.split(indices, offsets[1:-1]) if lat.shape[0] else []
        if not return_distance:
            return split_indices
        split_distances = np.empty(lat.shape[0], dtype=object)
        split_distances[:] = np.split(distances, offsets[1:-1]) if lat.shape[0] else []
        return split_indices, split_distances


class ClusterIndex(_Index):
    """supercluster (mapbox/supercluster 8) over your points, with its options and defaults: the same
    clusters, ids, centres and order as the CLI's `clusters` and supercluster itself."""

    def __init__(self, latitudes, longitudes, *, radius=40.0, extent=512, min_zoom=0, max_zoom=16, min_points=2,
                 node_size=64, threads=None):
        lat, lon = _native.points(latitudes, longitudes)
        min_zoom, max_zoom, min_points, node_size = (
            _whole(name, value) for name, value in
            (("min_zoom", min_zoom), ("max_zoom", max_zoom), ("min_points", min_points), ("node_size", node_size)))
        message = Message()
        handle = lib.newsatlas_clusters_build(
            lat.shape[0], pointer(lat), pointer(lon), float(radius), float(extent), min_zoom, max_zoom,
            min_points, node_size, _native.threads(threads), message.buffer, message.capacity,
        )
        if not handle:
            raise message.error()
        self._owned = _Native(handle, lib.newsatlas_clusters_free)
        self._points = (np.array(lat, copy=True), np.array(lon, copy=True))
        self._options = dict(radius=float(radius), extent=float(extent), min_zoom=min_zoom, max_zoom=max_zoom,
                             min_points=min_points, node_size=node_size)

    @staticmethod
    def _items(handle, message):
        if not handle:
            raise message.error()
        _, ids, counts, kinds, lats, lons = _native.result_lists(handle)
        return Items(ids, counts, kinds == 1, lats, lons)

    def clusters(self, bbox, zoom):
        """The clusters and lone points in bbox = (west, south, east, north) at zoom (supercluster's
        getClusters: longitudes wrap, a box across the antimeridian works, a fractional zoom is floored)."""
        west, south, east, north = (float(v) for v in bbox)
        message = Message()
        handle = lib.newsatlas_clusters_in_box(
            self._handle, west, south, east, north, float(zoom), message.buffer, message.capacity
        )
        return self._items(handle, message)

    def children(self, cluster_id):
        """What a cluster splits into one zoom in (getChildren)."""
        message = Message()
        return self._items(
            lib.newsatlas_clusters_children(
                self._handle, _whole("cluster_id", cluster_id), message.buffer, message.capacity),
            message,
        )

    def leaves(self, cluster_id, limit=10, offset=0):
        """The input offsets of a cluster's points (getLeaves: at most limit, after skipping offset; a limit of
        0 means 10, as in supercluster; pass limit=None for all)."""
        limit = (1 << 62) if limit is None else _whole("limit", limit)
        message = Message()
        handle = lib.newsatlas_clusters_leaves(
            self._handle, _whole("cluster_id", cluster_id), limit, _whole("offset", offset), message.buffer,
            message.capacity,
        )
        if not handle:
            raise message.error()
        return _native.result_lists(handle)[1]

    def expansion_zoom(self, cluster_id):
        """The zoom at which a cluster splits into several items (getClusterExpansionZoom)."""
        message = Message()
        zoom = lib.newsatlas_clusters_expansion_zoom(
            self._handle, _whole("cluster_id", cluster_id), message.buffer, message.capacity)
        if zoom < 0:
            raise message.error()
        return zoom

    def tile(self, z, x, y, *, layer="points"):
        """Map tile z/x/y as Mapbox Vector Tile 2.1 bytes (supercluster's getTile, encoded as `newsatlas tiles`
        and the service's /tiles/{name}/{z}/{x}/{y}.mvt encode it: one layer named layer, clusters with
        cluster, cluster_id, point_count and point_count_abbreviated and their id, lone points with no
        properties), or None for an empty tile. A bad z/x/y raises ValueError."""
        for value in (z, x, y):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"A tile's z, x and y are whole numbers, not {value!r}.")
        layer = str(layer)
        if "\x00" in layer:
            raise ValueError(f"A layer's name cannot hold a NUL character: {layer!r}.")
        message = Message()
        handle = _native.ctypes.c_void_p()
        status = lib.newsatlas_clusters_tile(
            self._handle, f"{int(z)}/{int(x)}/{int(y)}".encode(), layer.encode("utf-8", "replace"),
            _native.ctypes.byref(handle), message.buffer, message.capacity,
        )
        if status != DONE:
            raise message.error()
        return _native.result_bytes(handle.value) if handle.value else None
