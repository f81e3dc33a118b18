"""`resolve` on a Dask DataFrame: every partition answered by the library on the worker that holds it.

The library must be installed on every worker (`pip install` the same wheel there). Each task uses one core
by default (`threads=1`): the scheduler already runs one task a core.
"""

import newsatlas

COLUMNS = ("country", "method", "containing", "distance_km")
"""The columns resolve adds: the news country's code, how it was chosen, the border country holding the
point ("" at sea), and the great-circle distance to the news country's marker in km."""


def resolve_partition(frame, lat="latitude", lon="longitude", threads=1, news_countries="newsapi"):
    """One pandas DataFrame with the news country of each row's point added (the columns in COLUMNS), among
    `news_countries` (as `newsatlas.resolve` takes it)."""
    answer = newsatlas.resolve(
        frame[lat].to_numpy(dtype="float64"), frame[lon].to_numpy(dtype="float64"), threads=threads,
        news_countries=news_countries,
    )
    return frame.assign(
        country=answer.codes, method=answer.methods, containing=answer.containing, distance_km=answer.distances_km
    )


def resolve(ddf, lat="latitude", lon="longitude", *, threads=1, news_countries="newsapi"):
    """A Dask DataFrame with the news country of each row's point added (COLUMNS), lazily, partition by
    partition, among `news_countries` ("newsapi" or "world"). A row whose point is not a position on the earth
    fails its task with the library's sentence."""
    meta = resolve_partition(ddf._meta, lat, lon, threads, news_countries)
    return ddf.map_partitions(resolve_partition, lat, lon, threads, news_countries, meta=meta)
