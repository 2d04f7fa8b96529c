"""Texts and ids of a call, from whatever column type the caller has, to what the
extension reads: a list of str, or the chunks of an Arrow string array (read in place
through the Arrow C data interface, never turned into Python strings)."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import pyarrow as pa

Chunks = List[pa.Array]


def _module(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def _one_column(table: Any, what: str) -> pa.ChunkedArray:
    names = list(table.column_names)
    if len(names) != 1:
        raise TypeError(
            f"{what} is a table of {len(names)} columns ({', '.join(names[:5])}): "
            f"pass its text column, e.g. table['text']"
        )
    column = table.column(0)
    if isinstance(column, pa.Array):
        return pa.chunked_array([column], type=column.type)
    return column


def _arrow(obj: Any, what: str) -> Optional[pa.ChunkedArray]:
    """`obj` as a pyarrow ChunkedArray, when it is an Arrow-backed column; else None."""
    if isinstance(obj, (pa.Table, pa.RecordBatch)):
        return _one_column(obj, what)
    if isinstance(obj, pa.ChunkedArray):
        return obj
    if isinstance(obj, pa.Array):
        return pa.chunked_array([obj], type=obj.type)
    module = _module(obj)
    try:
        if module == "pandas":
            if hasattr(obj, "columns"):
                raise TypeError(f"{what} is a DataFrame: pass its text column, e.g. df['text']")
            return pa.chunked_array([pa.Array.from_pandas(obj)])
        if module == "polars":
            if hasattr(obj, "columns"):
                raise TypeError(f"{what} is a DataFrame: pass its text column, e.g. df['text']")
            return pa.chunked_array(obj.to_arrow())
        if module == "datasets" and hasattr(obj, "data") and hasattr(obj, "column_names"):
            # A datasets.Dataset: its Arrow table, without a copy.
            return _one_column(obj.data, what)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise TypeError(f"{what} must be strings: {e}") from None
    if hasattr(obj, "__arrow_c_stream__"):
        return pa.chunked_array(obj)
    if hasattr(obj, "__arrow_c_array__"):
        return pa.chunked_array([pa.array(obj)])
    return None


def texts_of(texts: Any) -> Tuple[Optional[list], Optional[Chunks]]:
    """(a list of str, None) or (None, the chunks of an Arrow string column)."""
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a sequence of strings, not one string")
    if isinstance(texts, list):
        return texts, None
    column = _arrow(texts, "texts")
    if column is None:
        return list(texts), None
    chunks = []
    for chunk in column.chunks:
        if pa.types.is_dictionary(chunk.type):
            chunk = chunk.dictionary_decode()
        chunks.append(chunk)
    if not chunks:
        # An empty column: no chunk to read, and no document.
        return [], None
    return None, chunks


def ids_of(ids: Any) -> Optional[List[str]]:
    """The ids as strings (str or int values; None is an error)."""
    if ids is None:
        return None
    column = _arrow(ids, "ids")
    values = column.to_pylist() if column is not None else list(ids)
    out = []
    for i, v in enumerate(values):
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, int) and not isinstance(v, bool):
            out.append(str(v))
        elif v is None:
            raise ValueError(f"ids[{i}] is None: every text needs an id (str or int)")
        else:
            raise TypeError(f"ids[{i}] is {type(v).__name__}: an id is a str or an int")
    return out
