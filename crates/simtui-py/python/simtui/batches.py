"""One Arrow batch in, one out: the engine's steps for the map functions of a
distributed job (Spark's ``mapInArrow``; see spark/simtui_spark.py). Each batch is
sketched on its own, and the same texts give the same band keys, signatures and
shingle hashes on every machine as ``simtui pairs`` computes for the same options.

The 64-bit band keys and shingle hashes are int64 (the same bits; Spark and Java have
no unsigned 64-bit type), the signature's uint32 values int64 too.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from . import _simtui


def _array(column: Any) -> pa.Array:
    """One Arrow array of a column (a ChunkedArray's chunks put together)."""
    if isinstance(column, pa.ChunkedArray):
        return column.combine_chunks()
    return column


def sketch_batch(ids: Any, texts: Any, *, shingles: bool = True, **options: Any) -> pa.RecordBatch:
    """The sketches of a batch of records (two string arrays: ids and texts), as
    ``simtui sketch --stdin`` gives them: ``id``, ``source`` (the id), ``tokens``,
    ``bytes``, ``bands`` (the band keys; none for an empty text), ``signature`` and
    ``shingles`` (the sorted shingle hashes; empty lists when ``shingles`` is False).
    ``options``: the indexing options of ``simtui.sketch`` (``k``, ``unit``, ``bands``,
    ``rows``, ``sketch``, ``seed``, the cleaning flags), same names and defaults; an
    unknown name is a TypeError. Texts over ``max_bytes`` or under ``min_words`` have
    no row."""
    given = {name: value for name, value in options.items() if value is not None}
    return _simtui.sketch_batch(_array(ids), _array(texts), given, shingles)


def verify_batch(
    signature_a: Any,
    signature_b: Any,
    shingles_a: Any = None,
    shingles_b: Any = None,
) -> pa.RecordBatch:
    """Candidate pairs verified, row by row: ``jaccard`` (the exact Jaccard of the two
    shingle sets of ``sketch_batch``) and ``estimate`` (the signatures' estimate).
    Without shingles the estimate stands for the Jaccard too."""
    sets = (
        (None, None) if shingles_a is None else (_array(shingles_a), _array(shingles_b))
    )
    return _simtui.verify_batch(_array(signature_a), _array(signature_b), *sets)


def bucket_pairs(buckets: Any) -> pa.RecordBatch:
    """The pairs of each bucket (a list<string> column of ids): ``a`` and ``b``, every
    two distinct ids of a bucket once, ``a`` < ``b`` (by bytes). Pairs that share more
    than one bucket come once per bucket."""
    return _simtui.bucket_pairs(_array(buckets))
