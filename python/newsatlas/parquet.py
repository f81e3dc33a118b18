"""Parquet and GeoParquet through pyarrow (the one Parquet reader this machine has): points read for an index,
and files resolved batch by batch into a new file.

Points are a GeoParquet geometry column of WKB points (the file's `geo` metadata names its primary column), or
latitude and longitude columns. Nothing here holds a whole file: both read record batches (`batch_rows` at a
time) and `resolve_file` writes each batch before reading the next.

    python -m newsatlas resolve --input IN.parquet --output OUT.parquet [--lat COL --lon COL | --geometry COL]
"""

import json
import math
import os
import struct
from typing import NamedTuple

import numpy as np

import newsatlas

BATCH_ROWS = 65_536

COLUMNS = ("country", "inside", "containing", "method", "distance_km", "error")
"""The columns `resolve_file` adds to each row, as `newsatlas resolve --input` writes them: the news country's
code, whether the point is inside it, the border country holding the point ("" at sea), how the country was
chosen, the great-circle distance to its marker in km, and why the row has no answer (null when it has one)."""


class Summary(NamedTuple):
    """What `resolve_file` wrote: rows in all, rows that failed (their `error` column says why), and the first
    failed row's number (from 1, as a CSV line would be counted without its header), 0 when none failed."""

    rows: int
    failed: int
    first_failed: int


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise ImportError("newsatlas: reading Parquet needs pyarrow; install it with 'pip install pyarrow'.") from None
    return pyarrow, pyarrow.parquet


def _geometry_column(parquet_file, geometry):
    """The WKB column to read: `geometry` when given, else the GeoParquet metadata's primary column."""
    if geometry:
        return geometry
    metadata = parquet_file.schema_arrow.metadata or {}
    if b"geo" in metadata:
        try:
            geo = json.loads(metadata[b"geo"])
            column = geo["primary_column"]
            encoding = geo["columns"][column].get("encoding", "WKB")
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"The file's GeoParquet metadata cannot be read ({error}); name the column with "
                             "--geometry, or give --lat and --lon.") from None
        if str(encoding).upper() != "WKB":
            raise ValueError(f"The geometry column {column!r} is encoded as {encoding}; NewsAtlas reads WKB "
                             "points, or latitude and longitude columns (--lat, --lon).")
        return column
    raise ValueError("The file has no GeoParquet metadata: give the geometry column (--geometry COL) or the "
                     "latitude and longitude columns (--lat COL --lon COL).")


def _columns(parquet_file, lat, lon, geometry):
    """(kind, names): ("lat-lon", [lat, lon]) or ("wkb", [geometry]), each checked against the file's schema."""
    if (lat is None) != (lon is None):
        raise ValueError("Give both --lat and --lon, or neither (to read the geometry column).")
    if lat is not None and geometry:
        raise ValueError("Give --lat and --lon, or --geometry, not both.")
    names = parquet_file.schema_arrow.names
    wanted = [lat, lon] if lat is not None else [_geometry_column(parquet_file, geometry)]
    for name in wanted:
        if name not in names:
            shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
            raise ValueError(f"The file has no column {name!r}; its columns are {shown}.")
    return ("lat-lon" if lat is not None else "wkb"), wanted


def _wkb_points(column):
    """Latitudes, longitudes and per-row errors (None where the row is a point) of a binary column of WKB.

    The common form, a little-endian 2D point (21 bytes: byte order 1, type 1, x, y), is read for the whole
    batch at once with numpy; any other row (big-endian, ISO or EWKB Z/M/SRID points) one at a time."""
    n = len(column)
    if str(column.type) not in ("binary", "large_binary"):
        raise ValueError(f"The geometry column holds {column.type}, not WKB (binary); give --lat and --lon for "
                         "coordinate columns.")
    latitudes = np.full(n, np.nan)
    longitudes = np.full(n, np.nan)
    errors = [None] * n
    column = column.cast("binary") if str(column.type) == "large_binary" else column
    valid = np.asarray(column.is_valid())
    offsets = np.frombuffer(column.buffers()[1], dtype=np.int32, count=n + 1, offset=column.offset * 4)
    data = np.frombuffer(column.buffers()[2], dtype=np.uint8) if column.buffers()[2] is not None else np.zeros(0, np.uint8)
    lengths = np.diff(offsets)
    starts = offsets[:-1]
    simple = valid & (lengths == 21)
    if n and simple.all() and offsets[-1] - offsets[0] == 21 * n:
        # Every row a 21-byte point, one after another: read as an (n, 21) array, without an index per byte.
        rows = data[offsets[0]:offsets[-1]].reshape(n, 21)
        if (rows[:, 0] == 1).all() and (rows[:, 1:5] == [1, 0, 0, 0]).all():
            xy = np.ascontiguousarray(rows[:, 5:21]).view("<f8")
            longitudes, latitudes = xy[:, 0].copy(), xy[:, 1].copy()
            for i in np.flatnonzero(np.isnan(longitudes) & np.isnan(latitudes)):
                errors[i] = "the geometry is an empty Point"
            return latitudes, longitudes, errors
    if simple.any():
        s = starts[simple]
        header_ok = (data[s] == 1) & (data[s + 1] == 1) & (data[s + 2] == 0) & (data[s + 3] == 0) & (data[s + 4] == 0)
        index = np.flatnonzero(simple)[header_ok]
        s = s[header_ok]
        raw = data[(s[:, None] + np.arange(5, 21)[None, :])].copy()
        xy = raw.view("<f8").reshape(-1, 2)
        longitudes[index] = xy[:, 0]
        latitudes[index] = xy[:, 1]
        for i in index[np.isnan(xy[:, 0]) & np.isnan(xy[:, 1])]:
            errors[i] = "the geometry is an empty Point"
        simple[np.flatnonzero(simple)[~header_ok]] = False
    for i in np.flatnonzero(~simple):
        if not valid[i]:
            errors[i] = "the geometry is null"
            continue
        point = _one_wkb_point(bytes(data[starts[i]:starts[i] + lengths[i]]))
        if isinstance(point, str):
            errors[i] = point
        else:
            longitudes[i], latitudes[i] = point
    return latitudes, longitudes, errors


def _one_wkb_point(blob):
    """(x, y) of one WKB point (OGC, ISO Z/M/ZM or PostGIS EWKB with flags and SRID), else why not."""
    if len(blob) < 5 or blob[0] not in (0, 1):
        return "the geometry is not WKB"
    order = "<" if blob[0] == 1 else ">"
    kind = struct.unpack(order + "I", blob[1:5])[0]
    offset = 5
    if kind & 0x20000000:  # EWKB: an SRID follows
        offset += 4
    dims = 2 + bool(kind & 0x80000000) + bool(kind & 0x40000000)  # EWKB's Z and M flags
    base = kind & 0x0FFFFFFF
    if base >= 1000:  # ISO: 1001 Z, 2001 M, 3001 ZM
        dims = 2 + (base // 1000 in (1, 3)) + (base // 1000 in (2, 3))
        base %= 1000
    if base != 1:
        names = {2: "a LineString", 3: "a Polygon", 4: "a MultiPoint", 5: "a MultiLineString", 6: "a MultiPolygon",
                 7: "a GeometryCollection"}
        return f"the geometry is {names.get(base, 'not a point')}, not a Point"
    if len(blob) < offset + 8 * dims:
        return "the geometry is a Point cut short"
    x, y = struct.unpack(order + "dd", blob[offset:offset + 16])
    if math.isnan(x) and math.isnan(y):
        return "the geometry is an empty Point"
    return x, y


def _lat_lon(batch, names):
    """Latitudes, longitudes and per-row errors of two numeric columns (a null is an error)."""
    latitudes, longitudes, errors = [], [], [None] * batch.num_rows
    for name in names:
        column = batch.column(name)
        try:
            values = column.cast("float64").to_numpy(zero_copy_only=False)
        except Exception:  # noqa: BLE001  (pyarrow's ArrowInvalid, ArrowNotImplementedError: not numbers)
            raise ValueError(f"The column {name!r} holds {column.type}, not numbers.") from None
        (latitudes if name == names[0] else longitudes).append(values)
    latitudes, longitudes = latitudes[0].astype(np.float64), longitudes[0].astype(np.float64)
    for i in np.flatnonzero(np.isnan(latitudes) | np.isnan(longitudes)):
        errors[i] = "the latitude is null or not a number" if np.isnan(latitudes[i]) else \
            "the longitude is null or not a number"
    return latitudes, longitudes, errors


def _checked(latitudes, longitudes, errors):
    """`errors` with a sentence added where a point is not a position on the earth (as the CLI's rows say)."""
    finite = np.isfinite(latitudes) & np.isfinite(longitudes)
    bad = ~finite | (np.abs(latitudes) > 90) | (np.abs(longitudes) > 180)
    for i in np.flatnonzero(bad):
        if errors[i] is not None:
            continue
        if not np.isfinite(latitudes[i]) or abs(latitudes[i]) > 90:
            errors[i] = f"the latitude {latitudes[i]:g} is outside -90...90"
        else:
            errors[i] = f"the longitude {longitudes[i]:g} is outside -180...180"
    return ~bad  # (a row with an error of its reader has no coordinates: NaN, so it is among the bad)


def _batches(path, lat, lon, geometry, batch_rows):
    """The file's record batches, each with its latitudes, longitudes and per-row errors."""
    _, parquet = _pyarrow()
    parquet_file = parquet.ParquetFile(path)
    kind, names = _columns(parquet_file, lat, lon, geometry)
    for batch in parquet_file.iter_batches(batch_size=batch_rows):
        if kind == "wkb":
            latitudes, longitudes, errors = _wkb_points(batch.column(names[0]))
        else:
            latitudes, longitudes, errors = _lat_lon(batch, names)
        ok = _checked(latitudes, longitudes, errors)
        yield batch, latitudes, longitudes, errors, ok


def read_points(path, *, lat=None, lon=None, geometry=None, batch_rows=BATCH_ROWS):
    """The latitudes and longitudes (float64 arrays) of a Parquet file's points, for `PointIndex` or
    `ClusterIndex`: its GeoParquet geometry column (WKB points), or `lat` and `lon` columns. A row that is not a
    point on the earth raises ValueError naming it (row numbers from 1) and how many there are."""
    latitudes, longitudes = [], []
    start = 0
    for batch, lat_values, lon_values, errors, ok in _batches(path, lat, lon, geometry, batch_rows):
        if not ok.all():
            bad = np.flatnonzero(~ok)
            raise ValueError(f"Row {start + bad[0] + 1} of {path} is no point on the earth: {errors[bad[0]]} "
                             f"({len(bad)} such rows in its batch of {batch.num_rows}).")
        latitudes.append(lat_values)
        longitudes.append(lon_values)
        start += batch.num_rows
    if not latitudes:
        return np.zeros(0), np.zeros(0)
    return np.concatenate(latitudes), np.concatenate(longitudes)


def _strings(pyarrow, answer, field, ok):
    """A column of `answer`'s strings (a pandas Categorical, else numpy strings), null where not `ok`:
    dictionary-encoded, as Parquet stores a column of few distinct values (codes, methods)."""
    n = len(ok)
    if answer is None:
        return pyarrow.nulls(n, pyarrow.dictionary(pyarrow.int16(), pyarrow.string()))
    values = getattr(answer, field)
    if hasattr(values, "codes") and hasattr(values, "categories"):  # pandas.Categorical: no string made a row
        indices, table = np.asarray(values.codes, dtype=np.int16), list(values.categories)
    else:
        table, indices = np.unique(np.asarray(values, dtype=str), return_inverse=True)
        table, indices = list(table), indices.astype(np.int16)
    if ok.all():
        full = indices
    else:
        full = np.zeros(n, dtype=np.int16)
        full[ok] = indices
    return pyarrow.DictionaryArray.from_arrays(pyarrow.array(full, mask=~ok), pyarrow.array(table, pyarrow.string()))


def _values(pyarrow, answer, field, ok, kind):
    """A column of `answer`'s numbers or booleans, null where not `ok`."""
    n = len(ok)
    if answer is None:
        return pyarrow.nulls(n, kind)
    values = np.asarray(getattr(answer, field))
    if ok.all():
        return pyarrow.array(values, type=kind)
    full = np.zeros(n, dtype=values.dtype)
    full[ok] = values
    return pyarrow.array(full, type=kind, mask=~ok)


def resolve_file(input, output, *, lat=None, lon=None, geometry=None, batch_rows=BATCH_ROWS, threads=None,
                 news_countries="newsapi"):
    """Writes `output`: every row of `input` with its news country added (COLUMNS), batch by batch, as
    `newsatlas resolve --input` answers each line; a row that is no point keeps its columns and says why in
    `error`. The file's own schema metadata (GeoParquet's `geo` among it) is kept. Returns a `Summary`."""
    pyarrow, parquet = _pyarrow()
    if os.path.exists(output) and os.path.exists(input) and os.path.samefile(input, output):
        raise ValueError(f"The output {output} is the input file; give another path.")
    # Written beside the output and moved there once whole: a failure leaves no half file, nor an old one cut.
    partial = f"{output}.partial-{os.getpid()}"
    writer = None
    rows = failed = first_failed = 0
    done = False
    try:
        for batch, latitudes, longitudes, errors, ok in _batches(input, lat, lon, geometry, batch_rows):
            n = batch.num_rows
            mask = ~ok
            answer = (newsatlas.resolve(latitudes[ok], longitudes[ok], news_countries=news_countries, threads=threads)
                      if ok.any() else None)
            added = [_strings(pyarrow, answer, "codes", ok), _values(pyarrow, answer, "inside", ok, pyarrow.bool_()),
                     _strings(pyarrow, answer, "containing", ok), _strings(pyarrow, answer, "methods", ok),
                     _values(pyarrow, answer, "distances_km", ok, pyarrow.float64()),
                     pyarrow.array(errors, type=pyarrow.string()) if mask.any() else pyarrow.nulls(n, pyarrow.string())]
            table = pyarrow.Table.from_batches([batch])
            for name, values in zip(COLUMNS, added):
                if name in table.column_names:
                    raise ValueError(f"The file already has a column {name!r}, which resolve adds; rename it first.")
                table = table.append_column(name, values)
            if writer is None:
                schema = table.schema.with_metadata(batch.schema.metadata or {})
                writer = parquet.ParquetWriter(partial, schema)
            writer.write_table(table.replace_schema_metadata(writer.schema.metadata))
            bad = np.flatnonzero(mask)
            if len(bad) and not failed:
                first_failed = rows + bad[0] + 1
            failed += len(bad)
            rows += n
        if writer is None:  # no batch at all: an empty file with the added columns
            parquet_file_schema = parquet.ParquetFile(input).schema_arrow
            fields = list(parquet_file_schema) + [
                pyarrow.field("country", pyarrow.string()), pyarrow.field("inside", pyarrow.bool_()),
                pyarrow.field("containing", pyarrow.string()), pyarrow.field("method", pyarrow.string()),
                pyarrow.field("distance_km", pyarrow.float64()), pyarrow.field("error", pyarrow.string())]
            writer = parquet.ParquetWriter(partial, pyarrow.schema(fields, metadata=parquet_file_schema.metadata))
        writer.close()
        writer = None
        with open(partial, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(partial, output)
        done = True
    finally:
        if writer is not None:
            writer.close()
        if not done and os.path.exists(partial):
            os.unlink(partial)
    return Summary(rows, failed, int(first_failed))
