"""The rest of the API: sketches, queries, evaluation, defaults, progress and Ctrl-C."""

import inspect
import subprocess
import sys
import textwrap

import pytest

import simtui
from test_inputs import IDS, TEXTS


def test_the_signatures_defaults_are_the_engines():
    engine = simtui._simtui.defaults()
    for function in (simtui.pairs, simtui.clusters, simtui.dedup, simtui.sketch, simtui.eval, simtui.Index):
        params = inspect.signature(function).parameters
        for name in ("k", "seed", "min_words", "max_bytes", "keep_case", "letters_only"):
            assert params[name].default == engine[name], (function, name)
    assert inspect.signature(simtui.eval).parameters["bands"].default == engine["bands"]
    assert inspect.signature(simtui.eval).parameters["rows"].default == engine["rows"]


def test_sketch_columns_and_widths():
    table = simtui.sketch(TEXTS, IDS, bands=4, rows=3)
    assert table.column_names == ["id", "tokens", "bytes", "bands", "signature", "shingles"]
    rows = table.to_pylist()
    assert [r["id"] for r in rows] == IDS
    assert all(len(r["signature"]) == 12 and len(r["bands"]) == 4 for r in rows)
    # Identical texts, identical sketches.
    assert rows[0]["bands"] == rows[3]["bands"] and rows[0]["bands"] != rows[2]["bands"]


def test_an_index_answers_queries():
    index = simtui.Index(TEXTS, IDS)
    assert len(index) == 4
    got = index.query([TEXTS[1], "unrelated words only here and there"], top=2).to_pylist()
    first = [r for r in got if r["query"] == 0]
    assert first[0]["id"] == "b" and first[0]["jaccard"] == 1.0
    assert len(first) == 2 and first[1]["id"] in ("a", "d")
    assert not [r for r in got if r["query"] == 1]


def test_eval_scores_the_banding(corpus):
    _, ids, texts = corpus
    table = simtui.eval(texts, ids, threshold=0.75)
    rows = table.to_pylist()
    assert [r["threshold"] for r in rows] == [0.5, 0.6, 0.7, 0.75, 0.8, 0.9]
    at = {r["threshold"]: r for r in rows}
    assert at[0.8]["truth"] > 0 and 0.9 <= at[0.8]["recall"] <= 1.0


def test_progress_goes_to_a_callable(corpus):
    _, ids, texts = corpus
    seen = []
    simtui.pairs(texts, ids, progress=lambda stage, done, total: seen.append(stage))
    assert seen, "no progress was reported"


def test_ctrl_c_stops_a_call():
    script = textwrap.dedent(
        """
        import os, signal, threading, time, random
        import simtui
        rng = random.Random(1)
        words = [f"w{i}" for i in range(5000)]
        texts = [" ".join(rng.choice(words) for _ in range(300)) for _ in range(200000)]
        threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        start = time.monotonic()
        try:
            simtui.pairs(texts)
            print("finished")
        except KeyboardInterrupt:
            print(f"interrupted after {time.monotonic() - start:.1f} s")
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert "interrupted" in out.stdout, out.stdout + out.stderr


def test_engine_errors_are_simtui_errors():
    assert issubclass(simtui.SimtuiError, Exception)
