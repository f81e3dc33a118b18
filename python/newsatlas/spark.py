"""`resolve` on a Spark DataFrame through `mapInArrow`: Arrow batches in, Arrow batches out, no per-row Python.

The library must be installed in the Python that runs Spark's workers (PYSPARK_PYTHON) on every executor.
Each batch uses one core by default (`threads=1`): Spark already runs one task a core.
"""

COLUMNS = ("country", "method", "containing", "distance_km")
"""The columns resolve adds, as newsatlas.dask adds them."""


def _strings(pa, column):
    """An Arrow string array of resolve's strings (a pandas Categorical arrives dictionary-encoded: decoded in
    Arrow, for the schema's StringType)."""
    array = pa.array(column)
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    return array.cast(pa.string())


def _resolve_batches(lat, lon, threads, news_countries):
    def run(batches):
        import pyarrow as pa

        import newsatlas

        for batch in batches:
            answer = newsatlas.resolve(
                batch.column(lat).to_numpy(zero_copy_only=False),
                batch.column(lon).to_numpy(zero_copy_only=False),
                threads=threads, news_countries=news_countries,
            )
            added = [_strings(pa, answer.codes), _strings(pa, answer.methods), _strings(pa, answer.containing),
                     pa.array(answer.distances_km)]
            names = list(batch.schema.names) + list(COLUMNS)
            yield pa.RecordBatch.from_arrays(list(batch.columns) + added, names=names)

    return run


def resolve(df, lat="latitude", lon="longitude", *, threads=1, news_countries="newsapi"):
    """A Spark DataFrame with the news country of each row's point added (COLUMNS), among `news_countries`
    ("newsapi" or "world"). A row whose point is not a position on the earth (a null included) fails its task
    with the library's sentence."""
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    schema = StructType(
        list(df.schema.fields)
        + [StructField(name, StringType(), False) for name in COLUMNS[:3]]
        + [StructField(COLUMNS[3], DoubleType(), False)]
    )
    return df.mapInArrow(_resolve_batches(lat, lon, threads, news_countries), schema)
