"""Progress of a call: a tqdm bar per stage of the engine, or a callable of the caller's."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional

Callback = Callable[[str, int, int], None]


class _Bars:
    """One tqdm bar per stage (read, shingle, sketch, band, verify...), as it comes."""

    def __init__(self, tqdm: Any) -> None:
        self._tqdm = tqdm
        self._stage: Optional[str] = None
        self._bar: Any = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self._stage:
            self.close()
            self._stage = stage
            self._bar = self._tqdm(total=total or None, desc=stage, leave=False)
        bar = self._bar
        if total and bar.total != total:
            bar.total = total
        bar.update(done - bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def progress_of(progress: Any) -> Any:
    """None, a callable of the caller's, or (True) tqdm bars when tqdm is installed."""
    if progress is None or progress is False:
        return None
    if callable(progress):
        return progress
    try:
        from tqdm.auto import tqdm
    except ImportError:
        warnings.warn("progress=True needs tqdm (pip install tqdm): no progress shown", stacklevel=3)
        return None
    return _Bars(tqdm)


def close(bar: Any) -> None:
    if isinstance(bar, _Bars):
        bar.close()
