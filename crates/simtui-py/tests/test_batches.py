"""simtui.batches, the Spark job's map functions: the same sketches as simtui.sketch
(64-bit values as int64, the same bits), the exact Jaccard of pairs as simtui.pairs
gives it, and each bucket's pairs once."""

import pyarrow as pa
import pytest

import simtui
from simtui import batches


def signed(values):
    return [v - (1 << 64) if v >= 1 << 63 else v for v in values]


def test_sketch_batch_is_the_sketch_command_in_int64(corpus):
    _, ids, texts = corpus
    got = batches.sketch_batch(pa.array(ids[:100]), pa.array(texts[:100]), bands=16, rows=8)
    assert isinstance(got, pa.RecordBatch)
    assert got.schema.names == ["id", "source", "tokens", "bytes", "bands", "signature", "shingles"]
    assert all(got.schema.field(n).type == pa.list_(pa.int64()) for n in ("bands", "signature", "shingles"))
    want = simtui.sketch(texts[:100], ids[:100], bands=16, rows=8).to_pylist()
    rows = got.to_pylist()
    assert [r["id"] for r in rows] == ids[:100] == [r["source"] for r in rows]
    for g, w in zip(rows, want):
        assert (g["tokens"], g["bytes"]) == (w["tokens"], w["bytes"])
        assert g["bands"] == signed(w["bands"])
        assert g["signature"] == w["signature"]
        assert g["shingles"] == signed(w["shingles"])
    bare = batches.sketch_batch(pa.array(ids[:3]), pa.array(texts[:3]), shingles=False)
    assert bare.column("shingles").to_pylist() == [[], [], []]


def test_verify_batch_gives_the_pairs_jaccard_and_estimate(corpus):
    _, ids, texts = corpus
    want = simtui.pairs(texts, ids, threshold=0.3, bands=16, rows=8).to_pylist()
    assert want, "the corpus has near-duplicates"
    sk = {r["id"]: r for r in batches.sketch_batch(pa.array(ids), pa.array(texts)).to_pylist()}
    col = lambda side, name: pa.array([sk[p[side]][name] for p in want], pa.list_(pa.int64()))
    got = batches.verify_batch(col("a", "signature"), col("b", "signature"),
                               col("a", "shingles"), col("b", "shingles")).to_pylist()
    for p, g in zip(want, got):
        assert g["jaccard"] == pytest.approx(p["jaccard"], abs=1e-12)
        assert g["estimate"] == pytest.approx(p["estimate"], abs=1e-12)
    estimates = batches.verify_batch(col("a", "signature"), col("b", "signature")).to_pylist()
    assert [e["jaccard"] for e in estimates] == [g["estimate"] for g in got]


def test_bucket_pairs_once_each_smaller_first():
    buckets = pa.array([["c", "a", "b"], ["x"], ["b", "a", "a"]], pa.list_(pa.string()))
    got = batches.bucket_pairs(buckets).to_pylist()
    assert [(r["a"], r["b"]) for r in got] == [("a", "b"), ("a", "c"), ("b", "c"), ("a", "b")]


def test_bad_batches_are_clear_errors():
    with pytest.raises(ValueError, match="ids has a null"):
        batches.sketch_batch(pa.array(["a", None]), pa.array(["x y", "y z"]))
    with pytest.raises(ValueError, match="2 ids for 1 texts"):
        batches.sketch_batch(pa.array(["a", "b"]), pa.array(["x y"]))
    with pytest.raises(TypeError, match='unexpected option "kk"'):
        batches.sketch_batch(pa.array(["a"]), pa.array(["x y"]), kk=3)
    with pytest.raises(TypeError, match="list<int64>"):
        batches.verify_batch(pa.array([1]), pa.array([2]))
