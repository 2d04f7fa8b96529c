"""The module finds what the command finds on the same corpus: the same pairs,
clusters and removals, with the same banding chosen for a threshold."""

import json
import subprocess

import pyarrow.parquet as pq
import pytest

import simtui
from conftest import command, run


def cli_pairs(folder, *flags):
    out = run("pairs", str(folder), "--id-field", "id", "--format", "jsonl", *flags)
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("threshold", [0.0, 0.5, 0.8])
def test_pairs_are_the_commands(corpus, threshold):
    folder, ids, texts = corpus
    expected = cli_pairs(folder, "-t", str(threshold))
    got = simtui.pairs(texts, ids, threshold=threshold).to_pylist()
    assert len(got) == len(expected) > 0
    for g, e in zip(got, expected):
        assert (g["a"], g["b"]) == (e["a"], e["b"])
        assert g["jaccard"] == pytest.approx(e["jaccard"], abs=1e-12)
        assert g["estimate"] == pytest.approx(e["estimate"], abs=1e-12)


def test_the_banding_chosen_for_a_threshold_is_the_commands(corpus):
    folder, ids, texts = corpus
    table = simtui.pairs(texts, ids, threshold=0.8)
    meta = {k.decode(): v.decode() for k, v in table.schema.metadata.items()}
    stderr = subprocess.run(
        [command(), "pairs", str(folder), "--id-field", "id", "-t", "0.8", "--format", "jsonl"],
        capture_output=True,
        text=True,
    ).stderr
    assert f"banding {meta['bands']}x{meta['rows']}" in stderr


def test_other_settings_are_the_commands(corpus):
    folder, ids, texts = corpus
    expected = cli_pairs(folder, "-k", "3", "--unit", "char", "-b", "20", "-r", "5", "--sketch", "minhash", "--seed", "9", "--stopwords")
    got = simtui.pairs(texts, ids, k=3, unit="char", bands=20, rows=5, sketch="minhash", seed=9, stopwords=True).to_pylist()
    assert [(g["a"], g["b"], g["jaccard"]) for g in got] == [(e["a"], e["b"], e["jaccard"]) for e in expected]


def test_clusters_are_the_commands(corpus, tmp_path):
    folder, ids, texts = corpus
    out = tmp_path / "clusters.parquet"
    run("clusters", str(folder), "--id-field", "id", "-t", "0.7", "-o", str(out))
    expected = pq.read_table(out)
    got = simtui.clusters(texts, ids, threshold=0.7)
    assert got.num_rows == expected.num_rows > 0
    assert got.to_pylist() == expected.to_pylist()


def test_star_clusters_keeping_the_shortest_are_the_commands(corpus, tmp_path):
    folder, ids, texts = corpus
    out = tmp_path / "clusters.parquet"
    run("clusters", str(folder), "--id-field", "id", "-t", "0.6", "--cluster", "star", "--keep", "shortest", "-o", str(out))
    got = simtui.clusters(texts, ids, threshold=0.6, linkage="star", keep="shortest")
    assert got.to_pylist() == pq.read_table(out).to_pylist()


def test_removals_are_the_commands(corpus, tmp_path):
    folder, ids, texts = corpus
    out = tmp_path / "clean"
    run("dedup", str(folder), "-o", str(out), "-t", "0.7", "--id-field", "id")
    lists = list(tmp_path.glob("*.removed.jsonl"))
    assert len(lists) == 1, list(tmp_path.iterdir())
    expected = [json.loads(line) for line in lists[0].read_text().splitlines()]
    result = simtui.dedup(texts, ids, threshold=0.7)
    got = result.removed.to_pylist()
    assert len(got) == len(expected) > 0
    key = lambda r: r["id"]  # noqa: E731
    for g, e in zip(sorted(got, key=key), sorted(expected, key=key)):
        assert (g["id"], g["kept"], g["cluster"]) == (e["id"], e["kept"], e["cluster"])
        assert g["jaccard"] == pytest.approx(e["jaccard"], abs=1e-9)
    removed = {r["id"] for r in got}
    kept = result.kept.to_pylist()
    assert [r["id"] for r in kept] == [i for i in ids if i not in removed]
    assert all(ids[r["row"]] == r["id"] for r in kept)


def test_the_command_in_the_wheel_is_the_built_binary(corpus, reference_binary):
    folder, _, _ = corpus
    args = ["pairs", str(folder), "--id-field", "id", "-t", "0.5", "--format", "jsonl"]
    shipped = subprocess.run([command(), *args], capture_output=True, text=True)
    built = subprocess.run([reference_binary, *args], capture_output=True, text=True)
    assert shipped.returncode == built.returncode == 0
    assert shipped.stdout == built.stdout and shipped.stdout
    version = lambda b: subprocess.run([b, "--version"], capture_output=True, text=True).stdout  # noqa: E731
    assert version(command()) == version(reference_binary)
