"""simtui for Python: near-duplicate texts with MinHash, LSH and exact Jaccard.

The engine of the ``simtui`` command, in-process: every function takes texts (a list
of str, a pyarrow Array, ChunkedArray or one-column Table, a pandas or polars Series, a
``datasets.Dataset`` of one column, or anything with the Arrow PyCapsule interface),
optional ids (str or int, one per text, unique; default: the row numbers), and the
command's options under the same names and defaults. Results are pyarrow Tables with
the columns of the command's Parquet output, and the settings in force (the banding
chosen for ``threshold`` among them) in the schema's metadata.

The work runs with the GIL released; Ctrl-C stops it. ``progress=True`` draws tqdm
bars (when tqdm is installed), or pass a callable ``f(stage, done, total)``.

Options (keywords of every function):

- ``k`` (5): tokens per shingle; ``unit`` ("word"): "word" (Unicode words) or "char"
  (graphemes).
- ``bands``, ``rows`` (16 × 8): the LSH banding. With ``threshold`` > 0 and neither
  given, the banding is chosen as the command's ``-t`` chooses it: the one with the
  fewest false candidates whose S-curve reaches 0.9 at the threshold within 128
  functions. A given banding that may miss pairs at the threshold gives a warning.
- ``threshold``: keep pairs with exact Jaccard at least this (0 to 1).
- ``sketch`` ("oph"): "oph" (one-permutation hashing) or "minhash"; ``seed`` (1).
- ``keep_case`` (False), ``stopwords`` (None; True for English, or a language),
  ``stem`` (None; a Snowball language), ``letters_only`` (False), ``min_words`` (0),
  ``max_bytes`` (32 MiB): the command's cleaning flags.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple, Optional

import pyarrow as pa

from . import _simtui
from ._explore import explore
from ._input import ids_of, texts_of
from ._progress import close, progress_of
from ._simtui import SimtuiError

__all__ = [
    "Dedup",
    "Index",
    "SimtuiError",
    "clusters",
    "dedup",
    "eval",
    "explore",
    "pairs",
    "sketch",
]
__version__ = _simtui.__version__

_OPTIONS = (
    "k",
    "unit",
    "bands",
    "rows",
    "threshold",
    "sketch",
    "seed",
    "keep_case",
    "stopwords",
    "stem",
    "letters_only",
    "min_words",
    "max_bytes",
)


def _run(function: Any, texts: Any, ids: Any, progress: Any, options: dict, *lead: Any) -> Any:
    """Runs `function` of the extension on the texts, with progress when asked."""
    listed, chunks = texts_of(texts)
    bar = progress_of(progress)
    try:
        return function(
            *lead,
            texts=listed,
            chunks=chunks,
            ids=ids_of(ids),
            options={k: v for k, v in options.items() if v is not None},
            progress=bar,
        )
    finally:
        close(bar)


def _warn(said: Any) -> None:
    for message in said:
        warnings.warn(message, UserWarning, stacklevel=4)


def _call(function: Any, texts: Any, ids: Any, progress: Any, options: dict, *lead: Any) -> Any:
    """`_run`, its warnings given, its record batches as Tables."""
    *batches, said = _run(function, texts, ids, progress, options, *lead)
    _warn(said)
    tables = [pa.Table.from_batches([b]) for b in batches]
    return tables[0] if len(tables) == 1 else tables


def pairs(
    texts: Any,
    ids: Any = None,
    *,
    k: int = 5,
    unit: str = "word",
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    threshold: float = 0.0,
    sketch: str = "oph",
    seed: int = 1,
    keep_case: bool = False,
    stopwords: Any = None,
    stem: Optional[str] = None,
    letters_only: bool = False,
    min_words: int = 0,
    max_bytes: int = 32 << 20,
    max_bucket: Optional[int] = None,
    progress: Any = None,
) -> pa.Table:
    """Every candidate pair with exact Jaccard >= threshold, as ``simtui pairs``.

    Columns ``a``, ``b`` (ids), ``jaccard`` (exact) and ``estimate`` (MinHash), by J
    descending then ids: the rows of ``simtui pairs --format parquet``.
    ``max_bucket``: leave out LSH buckets of more than this many distinct texts.
    """
    options = {name: value for name, value in locals().items() if name in _OPTIONS}
    options["max_bucket"] = max_bucket
    return _call(_simtui.pairs, texts, ids, progress, options)


def clusters(
    texts: Any,
    ids: Any = None,
    *,
    threshold: float,
    keep: str = "longest",
    linkage: str = "components",
    max_bucket: int = 1000,
    k: int = 5,
    unit: str = "word",
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    sketch: str = "oph",
    seed: int = 1,
    keep_case: bool = False,
    stopwords: Any = None,
    stem: Optional[str] = None,
    letters_only: bool = False,
    min_words: int = 0,
    max_bytes: int = 32 << 20,
    progress: Any = None,
) -> pa.Table:
    """Near-duplicates grouped, as ``simtui clusters -t THRESHOLD``.

    One row per member: ``id``, ``cluster`` (from 1, largest first), ``kept`` (the
    member the ``keep`` rule chose: "longest", "shortest" or "first") and
    ``jaccard_to_kept``. ``linkage``: "components" (union-find; chains join) or
    "star" (every member within the threshold of the kept one).
    """
    options = {name: value for name, value in locals().items() if name in _OPTIONS}
    options.update(keep=keep, linkage=linkage, max_bucket=max_bucket)
    return _call(_simtui.clusters, texts, ids, progress, options)


class Dedup(NamedTuple):
    """What ``dedup`` keeps and removes."""

    kept: pa.Table
    """The rows kept, in input order: ``row`` (position in the input) and ``id``."""
    removed: pa.Table
    """The removal list: ``id`` (removed), ``kept`` (the id kept in its place),
    ``jaccard`` and ``cluster``, as ``simtui dedup``'s removal list."""


def dedup(
    texts: Any,
    ids: Any = None,
    *,
    threshold: float,
    keep: str = "longest",
    linkage: str = "star",
    max_bucket: int = 1000,
    k: int = 5,
    unit: str = "word",
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    sketch: str = "oph",
    seed: int = 1,
    keep_case: bool = False,
    stopwords: Any = None,
    stem: Optional[str] = None,
    letters_only: bool = False,
    min_words: int = 0,
    max_bytes: int = 32 << 20,
    progress: Any = None,
) -> Dedup:
    """The texts without their near-duplicates, as ``simtui dedup -t THRESHOLD``.

    Returns ``Dedup(kept, removed)``; ``table.take(result.kept["row"])`` gives the
    rows of a table kept. ``linkage`` is "star" here, as for the command: every text
    removed is within the threshold of the one kept in its place. Texts left out of the
    index (``min_words``, ``max_bytes``) are kept, with a warning.
    """
    options = {name: value for name, value in locals().items() if name in _OPTIONS}
    options.update(keep=keep, linkage=linkage, max_bucket=max_bucket)
    kept, removed = _call(_simtui.dedup, texts, ids, progress, options)
    return Dedup(kept, removed)


def sketch(
    texts: Any,
    ids: Any = None,
    *,
    k: int = 5,
    unit: str = "word",
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    sketch: str = "oph",
    seed: int = 1,
    keep_case: bool = False,
    stopwords: Any = None,
    stem: Optional[str] = None,
    letters_only: bool = False,
    min_words: int = 0,
    max_bytes: int = 32 << 20,
    progress: Any = None,
) -> pa.Table:
    """Each text's sketch, as ``simtui sketch``: ``id``, ``tokens``, ``bytes``,
    ``bands`` (the band keys, list<uint64>; empty for a text with no shingle),
    ``signature`` (list<uint32>) and ``shingles`` (the shingle hashes, list<uint64>)."""
    options = {name: value for name, value in locals().items() if name in _OPTIONS}
    return _call(_simtui.sketch, texts, ids, progress, options)


def eval(  # noqa: A001 - the command's name
    texts: Any,
    ids: Any = None,
    *,
    threshold: float = 0.8,
    k: int = 5,
    unit: str = "word",
    bands: int = 16,
    rows: int = 8,
    sketch: str = "oph",
    seed: int = 1,
    keep_case: bool = False,
    stopwords: Any = None,
    stem: Optional[str] = None,
    letters_only: bool = False,
    min_words: int = 0,
    max_bytes: int = 32 << 20,
    progress: Any = None,
) -> pa.Table:
    """Recall and precision of the banding against every exact pair, as ``simtui eval``.

    One row per threshold (0.5 to 0.9, and ``threshold``): ``threshold``, ``truth``
    (document pairs with J >= it), ``found`` (of those, LSH candidates),
    ``candidates``, ``recall``, ``precision`` and ``predicted`` (the S-curve's recall).
    """
    options = {name: value for name, value in locals().items() if name in _OPTIONS}
    del options["threshold"]
    return _call(_simtui.eval, texts, ids, progress, options, threshold)


class Index:
    """An index of texts in memory, to ask for the nearest of other texts."""

    def __init__(
        self,
        texts: Any,
        ids: Any = None,
        *,
        k: int = 5,
        unit: str = "word",
        bands: int = 16,
        rows: int = 8,
        sketch: str = "oph",
        seed: int = 1,
        keep_case: bool = False,
        stopwords: Any = None,
        stem: Optional[str] = None,
        letters_only: bool = False,
        min_words: int = 0,
        max_bytes: int = 32 << 20,
        progress: Any = None,
    ) -> None:
        options = {name: value for name, value in locals().items() if name in _OPTIONS}
        self._raw = _run(_simtui.RawIndex, texts, ids, progress, options)
        _warn(self._raw.warnings)

    def __len__(self) -> int:
        return len(self._raw)

    def query(
        self,
        texts: Any,
        *,
        top: int = 10,
        exhaustive: bool = False,
        min_jaccard: float = 0.0,
    ) -> pa.Table:
        """The ``top`` nearest texts of the index to each of ``texts``, by exact J, as
        ``simtui query``: ``query`` (the query's row), ``id``, ``jaccard``,
        ``estimate``. ``exhaustive`` fills up fewer than ``top`` LSH candidates from a
        scan of every text; ``min_jaccard`` drops neighbours below it."""
        listed, chunks = texts_of(texts)
        batch = self._raw.query(
            texts=listed, chunks=chunks, top=top, exhaustive=exhaustive, min_jaccard=min_jaccard
        )
        return pa.Table.from_batches([batch])
