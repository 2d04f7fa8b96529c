"""``simtui.explore``: the explorer on in-memory records. The records go, as JSON Lines,
into a private temporary folder, and the ``simtui`` command the wheel ships opens them
on this terminal (it restores the terminal when it ends, whatever the way); the folder
is removed afterwards."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from typing import Any, List, Optional

from ._input import ids_of, texts_of
from ._simtui import SimtuiError


def command() -> str:
    """The `simtui` command installed with this package (the scripts folder of this
    Python's environment), else the one on PATH."""
    for folder in (os.path.dirname(sys.executable), sysconfig.get_path("scripts")):
        path = os.path.join(folder, "simtui")
        if os.access(path, os.X_OK):
            return path
    found = shutil.which("simtui")
    if found is None:
        raise SimtuiError("the simtui command is not installed beside this Python (pip install the wheel)")
    return found


def _on_a_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno()) and os.isatty(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        # Replaced streams (a notebook, a captured stdout) have no file descriptor.
        return False


def _strings(texts: Any) -> List[str]:
    listed, chunks = texts_of(texts)
    if listed is None:
        listed = [v for chunk in chunks for v in chunk.to_pylist()]
    for i, t in enumerate(listed):
        if not isinstance(t, str):
            what = "None" if t is None else type(t).__name__
            raise TypeError(f"texts[{i}] is {what}, not str: every text must be a string")
    return listed


def explore(texts: Any, ids: Any = None, titles: Any = None, args: Optional[List[str]] = None) -> int:
    """Opens the explorer on ``texts`` (with ``ids`` and ``titles``, optional, one per
    text) from this terminal, and returns when it is closed (its exit status).
    ``args``: more of the command's flags (e.g. ``["-t", "0.7"]``). Refuses (a
    SimtuiError) when standard input or output is not a terminal."""
    if not _on_a_terminal():
        raise SimtuiError(
            "explore needs a terminal: standard input and output must both be a terminal "
            "(a notebook or a redirected stream is not); use pairs() or clusters() there"
        )
    texts = _strings(texts)
    names = ids_of(ids) or [str(i) for i in range(len(texts))]
    heads = None if titles is None else _strings(titles)
    for what, values in (("ids", names), ("titles", heads)):
        if values is not None and len(values) != len(texts):
            raise ValueError(f"{what} has {len(values)} values for {len(texts)} texts: one per text")
    folder = tempfile.mkdtemp(prefix="simtui-explore-")  # readable by this user only
    try:
        path = os.path.join(folder, "records.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for i, text in enumerate(texts):
                record = {"id": names[i], "text": text}
                if heads is not None:
                    record["title"] = heads[i]
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
        cmd = [command(), path, "--id-field", "id"]
        if heads is not None:
            cmd += ["--title-field", "title"]
        return subprocess.run(cmd + list(args or [])).returncode
    finally:
        shutil.rmtree(folder, ignore_errors=True)
