"""Type stubs of simtui's Python API (see __init__.py and doc/python.md)."""

from typing import Any, Callable, Iterable, NamedTuple, Optional, Union

import pyarrow as pa

Texts = Union[Iterable[str], pa.Array, pa.ChunkedArray, pa.Table, pa.RecordBatch, Any]
Ids = Optional[Union[Iterable[Union[str, int]], pa.Array, pa.ChunkedArray, Any]]
Progress = Union[None, bool, Callable[[str, int, int], None]]
Language = Union[None, bool, str]

__version__: str

class SimtuiError(Exception): ...

def pairs(
    texts: Texts,
    ids: Ids = None,
    *,
    k: int = 5,
    unit: str = "word",
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    threshold: float = 0.0,
    sketch: str = "oph",
    seed: int = 1,
    keep_case: bool = False,
    stopwords: Language = None,
    stem: Optional[str] = None,
    letters_only: bool = False,
    min_words: int = 0,
    max_bytes: int = 33554432,
    max_bucket: Optional[int] = None,
    progress: Progress = None,
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
    k: int = 5,
    unit: str = "word",
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    sketch: str = "oph",
    seed: int = 1,
    keep_case: bool = False,
    stopwords: Language = None,
    stem: Optional[str] = None,
    letters_only: bool = False,
    min_words: int = 0,
    max_bytes: int = 33554432,
    progress: Progress = None,
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
    k: int = 5,
    unit: str = "word",
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    sketch: str = "oph",
    seed: int = 1,
    keep_case: bool = False,
    stopwords: Language = None,
    stem: Optional[str] = None,
    letters_only: bool = False,
    min_words: int = 0,
    max_bytes: int = 33554432,
    progress: Progress = None,
) -> Dedup:
    """kept: row, id; removed: id, kept, jaccard, cluster."""

def sketch(
    texts: Texts,
    ids: Ids = None,
    *,
    k: int = 5,
    unit: str = "word",
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    sketch: str = "oph",
    seed: int = 1,
    keep_case: bool = False,
    stopwords: Language = None,
    stem: Optional[str] = None,
    letters_only: bool = False,
    min_words: int = 0,
    max_bytes: int = 33554432,
    progress: Progress = None,
) -> pa.Table:
    """Columns id, tokens, bytes, bands, signature, shingles."""

def eval(
    texts: Texts,
    ids: Ids = None,
    *,
    threshold: float = 0.8,
    k: int = 5,
    unit: str = "word",
    bands: int = 16,
    rows: int = 8,
    sketch: str = "oph",
    seed: int = 1,
    keep_case: bool = False,
    stopwords: Language = None,
    stem: Optional[str] = None,
    letters_only: bool = False,
    min_words: int = 0,
    max_bytes: int = 33554432,
    progress: Progress = None,
) -> pa.Table:
    """Columns threshold, truth, found, candidates, recall, precision, predicted."""

class Index:
    def __init__(
        self,
        texts: Texts,
        ids: Ids = None,
        *,
        k: int = 5,
        unit: str = "word",
        bands: int = 16,
        rows: int = 8,
        sketch: str = "oph",
        seed: int = 1,
        keep_case: bool = False,
        stopwords: Language = None,
        stem: Optional[str] = None,
        letters_only: bool = False,
        min_words: int = 0,
        max_bytes: int = 33554432,
        progress: Progress = None,
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
