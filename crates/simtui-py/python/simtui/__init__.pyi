"""Type stubs of simtui's Python API (see __init__.py and doc/python.md)."""

from typing import Any, Callable, Iterable, NamedTuple, Optional, Union

from typing_extensions import TypedDict, Unpack

import pyarrow as pa

Texts = Union[Iterable[str], pa.Array, pa.ChunkedArray, pa.Table, pa.RecordBatch, Any]
Ids = Optional[Union[Iterable[Union[str, int]], pa.Array, pa.ChunkedArray, Any]]
Progress = Union[None, bool, Callable[[str, int, int], None]]
Language = Union[None, bool, str]

__version__: str

class SimtuiError(Exception): ...

class Options(TypedDict, total=False):
    """The options every function takes (the command's flags under the same names)."""

    k: int
    """Tokens per shingle (5)."""
    unit: str
    """"word" (Unicode words, the default) or "char" (graphemes)."""
    sketch: str
    """"oph" (one-permutation hashing, the default) or "minhash"."""
    seed: int
    """The hash functions' seed (1)."""
    keep_case: bool
    stopwords: Language
    """None (the default); True for English, or a language."""
    stem: Optional[str]
    """None (the default) or a Snowball language."""
    letters_only: bool
    min_words: int
    """Texts of fewer words are left out (0)."""
    max_bytes: int
    """Texts of more bytes are left out (32 MiB)."""
    progress: Progress
    """True for tqdm bars, or a callable f(stage, done, total)."""

def pairs(
    texts: Texts,
    ids: Ids = None,
    *,
    threshold: float = 0.0,
    max_bucket: Optional[int] = None,
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    **options: Unpack[Options],
) -> pa.Table:
    """Columns a, b, jaccard, estimate: every candidate pair with J >= threshold."""

def clusters(
    texts: Texts,
    ids: Ids = None,
    *,
    threshold: float,
    keep: str = "longest",
    linkage: str = "components",
    max_bucket: int = 1000,
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    **options: Unpack[Options],
) -> pa.Table:
    """Columns id, cluster, kept, jaccard_to_kept: one row per member."""

class Dedup(NamedTuple):
    kept: pa.Table
    removed: pa.Table

def dedup(
    texts: Texts,
    ids: Ids = None,
    *,
    threshold: float,
    keep: str = "longest",
    linkage: str = "star",
    max_bucket: int = 1000,
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    **options: Unpack[Options],
) -> Dedup:
    """kept: row, id; removed: id, kept, jaccard, cluster."""

def sketch(
    texts: Texts,
    ids: Ids = None,
    *,
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    **options: Unpack[Options],
) -> pa.Table:
    """Columns id, tokens, bytes, bands, signature, shingles."""

def eval(
    texts: Texts,
    ids: Ids = None,
    *,
    threshold: float = 0.8,
    bands: int = 16,
    rows: int = 8,
    **options: Unpack[Options],
) -> pa.Table:
    """Columns threshold, truth, found, candidates, recall, precision, predicted."""

class Index:
    def __init__(
        self,
        texts: Texts,
        ids: Ids = None,
        *,
        bands: int = 16,
        rows: int = 8,
        **options: Unpack[Options],
    ) -> None: ...
    def __len__(self) -> int: ...
    def query(
        self,
        texts: Texts,
        *,
        top: int = 10,
        exhaustive: bool = False,
        min_jaccard: float = 0.0,
    ) -> pa.Table:
        """Columns query, id, jaccard, estimate."""

def explore(
    texts: Texts,
    ids: Ids = None,
    titles: Optional[Iterable[str]] = None,
    args: Optional[list[str]] = None,
) -> int: ...
