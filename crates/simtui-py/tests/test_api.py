"""The rest of the API: sketches, queries, evaluation, defaults, progress and Ctrl-C."""

import ast
import inspect
import pathlib
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


def _stubs():
    """The type stubs' functions (Index's __init__ under "Index") and Options' keys."""
    tree = ast.parse((pathlib.Path(simtui.__file__).parent / "__init__.pyi").read_text())
    functions, options = {}, set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            functions[node.name] = node
        elif isinstance(node, ast.ClassDef) and node.name == "Options":
            options = {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
        elif isinstance(node, ast.ClassDef) and node.name == "Index":
            functions["Index"] = next(n for n in node.body if getattr(n, "name", "") == "__init__")
    return functions, options


def test_the_stubs_give_every_keyword_with_its_default():
    functions, options = _stubs()
    assert options, "the stubs' Options lists the shared keywords"
    for name in ("pairs", "clusters", "dedup", "sketch", "eval", "Index"):
        runtime = inspect.signature(getattr(simtui, name)).parameters
        stub = functions[name].args
        own = {a.arg: d for a, d in zip(stub.kwonlyargs, stub.kw_defaults)}
        keywords = {n for n, p in runtime.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
        assert keywords == set(own) | options, name
        for arg, default in own.items():
            want = inspect.Parameter.empty if default is None else ast.literal_eval(default)
            assert runtime[arg].default == want, (name, arg)


def test_a_keyword_not_taken_is_a_type_error():
    with pytest.raises(TypeError):
        simtui.pairs(TEXTS, IDS, shingle_size=3)
    with pytest.raises(TypeError):
        simtui.clusters(TEXTS, IDS)  # threshold is required


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
        # Started in the background by a shell without job control, a process inherits
        # SIGINT ignored, and Python then installs no KeyboardInterrupt for it.
        signal.signal(signal.SIGINT, signal.default_int_handler)
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
