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

import functools
import inspect
import warnings
from typing import Any, Callable, NamedTuple

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

# The options every function takes, with their defaults: the command's cleaning and
# sketching flags (a test checks the defaults against the engine's). Each function's
# signature is its own keywords, then these, then ``progress``.
_SHARED = {
    "k": 5,
    "unit": "word",
    "sketch": "oph",
    "seed": 1,
    "keep_case": False,
    "stopwords": None,
    "stem": None,
    "letters_only": False,
    "min_words": 0,
    "max_bytes": 32 << 20,
}
# The banding, chosen for the threshold unless given.
_CHOSEN = {"bands": None, "rows": None}
# A keyword without a default: the caller must give it.
_REQUIRED = inspect.Parameter.empty


def _keywords(**own: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Gives ``function(texts, ids, progress, options)`` the signature a caller sees:
    ``(texts, ids=None, *, <own>, <shared>, progress=None)``. A call is bound against
    it (an unknown or missing keyword is a TypeError, as for any function) and the
    function gets every option, defaults filled in: one list of options, not one per
    function."""
    kind = inspect.Parameter.KEYWORD_ONLY
    keywords = {**own, **_SHARED, "progress": None}
    signature = inspect.Signature(
        [
            inspect.Parameter("texts", inspect.Parameter.POSITIONAL_OR_KEYWORD),
            inspect.Parameter("ids", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None),
        ]
        + [inspect.Parameter(name, kind, default=default) for name, default in keywords.items()]
    )

    def wrap(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def bound(*args: Any, **kwargs: Any) -> Any:
            call = signature.bind(*args, **kwargs)
            call.apply_defaults()
            options = dict(call.arguments)
            texts, ids, progress = options.pop("texts"), options.pop("ids"), options.pop("progress")
            return function(texts, ids, progress, options)

        bound.__signature__ = signature  # type: ignore[attr-defined]
        return bound

    return wrap


def _run(command: str, texts: Any, ids: Any, progress: Any, options: dict, **lead: Any) -> Any:
    """Runs the engine's `command` on the texts, with progress when asked."""
    listed, chunks = texts_of(texts)
    bar = progress_of(progress)
    try:
        return _simtui.call(
            command,
            texts=listed,
            chunks=chunks,
            ids=ids_of(ids),
            options={k: v for k, v in options.items() if v is not None},
            progress=bar,
            **lead,
        )
    finally:
        close(bar)


def _warn(said: Any) -> None:
    for message in said:
        warnings.warn(message, UserWarning, stacklevel=5)


def _call(command: str, texts: Any, ids: Any, progress: Any, options: dict, **lead: Any) -> Any:
    """`_run`, its warnings given, its record batches as Tables."""
    *batches, said = _run(command, texts, ids, progress, options, **lead)
    _warn(said)
    tables = [pa.Table.from_batches([b]) for b in batches]
    return tables[0] if len(tables) == 1 else tables


@_keywords(threshold=0.0, max_bucket=None, **_CHOSEN)
def pairs(texts: Any, ids: Any, progress: Any, options: dict) -> pa.Table:
    """Every candidate pair with exact Jaccard >= threshold, as ``simtui pairs``.

    Columns ``a``, ``b`` (ids), ``jaccard`` (exact) and ``estimate`` (MinHash), by J
    descending then ids: the rows of ``simtui pairs --format parquet``.
    ``max_bucket``: leave out LSH buckets of more than this many distinct texts.
    """
    return _call("pairs", texts, ids, progress, options)


@_keywords(threshold=_REQUIRED, keep="longest", linkage="components", max_bucket=1000, **_CHOSEN)
def clusters(texts: Any, ids: Any, progress: Any, options: dict) -> pa.Table:
    """Near-duplicates grouped, as ``simtui clusters -t THRESHOLD``.

    One row per member: ``id``, ``cluster`` (from 1, largest first), ``kept`` (the
    member the ``keep`` rule chose: "longest", "shortest" or "first") and
    ``jaccard_to_kept``. ``linkage``: "components" (union-find; chains join) or
    "star" (every member within the threshold of the kept one).
    """
    return _call("clusters", texts, ids, progress, options)


class Dedup(NamedTuple):
    """What ``dedup`` keeps and removes."""

    kept: pa.Table
    """The rows kept, in input order: ``row`` (position in the input) and ``id``."""
    removed: pa.Table
    """The removal list: ``id`` (removed), ``kept`` (the id kept in its place),
    ``jaccard`` and ``cluster``, as ``simtui dedup``'s removal list."""


@_keywords(threshold=_REQUIRED, keep="longest", linkage="star", max_bucket=1000, **_CHOSEN)
def dedup(texts: Any, ids: Any, progress: Any, options: dict) -> Dedup:
    """The texts without their near-duplicates, as ``simtui dedup -t THRESHOLD``.

    Returns ``Dedup(kept, removed)``; ``table.take(result.kept["row"])`` gives the
    rows of a table kept. ``linkage`` is "star" here, as for the command: every text
    removed is within the threshold of the one kept in its place. Texts left out of the
    index (``min_words``, ``max_bytes``) are kept, with a warning.
    """
    kept, removed = _call("dedup", texts, ids, progress, options)
    return Dedup(kept, removed)


@_keywords(**_CHOSEN)
def sketch(texts: Any, ids: Any, progress: Any, options: dict) -> pa.Table:
    """Each text's sketch, as ``simtui sketch``: ``id``, ``tokens``, ``bytes``,
    ``bands`` (the band keys, list<uint64>; empty for a text with no shingle),
    ``signature`` (list<uint32>) and ``shingles`` (the shingle hashes, list<uint64>)."""
    return _call("sketch", texts, ids, progress, options)


@_keywords(threshold=0.8, bands=16, rows=8)
def eval(texts: Any, ids: Any, progress: Any, options: dict) -> pa.Table:  # noqa: A001
    """Recall and precision of the banding against every exact pair, as ``simtui eval``.

    One row per threshold (0.5 to 0.9, and ``threshold``): ``threshold``, ``truth``
    (document pairs with J >= it), ``found`` (of those, LSH candidates),
    ``candidates``, ``recall``, ``precision`` and ``predicted`` (the S-curve's recall).
    The banding is the one given (16 x 8 by default), not chosen for ``threshold``.
    """
    threshold = options.pop("threshold")
    return _call("eval", texts, ids, progress, options, threshold=threshold)


@_keywords(bands=16, rows=8)
def _index(texts: Any, ids: Any, progress: Any, options: dict) -> Any:
    raw = _run("index", texts, ids, progress, options)
    _warn(raw.warnings)
    return raw


class Index:
    """An index of texts in memory, to ask for the nearest of other texts."""

    __signature__ = _index.__signature__

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._raw = _index(*args, **kwargs)

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
