"""Every input type gives the same result as a list of str; bad input is a clear error."""

import pyarrow as pa
import pytest

import simtui

TEXTS = [
    "the quick brown fox jumps over the lazy dog while the cat sleeps on the mat",
    "the quick brown fox jumps over the lazy dog while the cat sleeps on the rug",
    "nothing in common with the others at all, a sentence of its own entirely",
    "the quick brown fox jumps over the lazy dog while the cat sleeps on the mat",
]
IDS = ["a", "b", "c", "d"]


def expected():
    return simtui.pairs(TEXTS, IDS).to_pylist()


def test_a_list_finds_the_planted_pairs():
    got = expected()
    assert {(p["a"], p["b"]) for p in got} == {("a", "d"), ("a", "b"), ("b", "d")}
    assert got[0]["jaccard"] == 1.0


@pytest.mark.parametrize(
    "make",
    [
        lambda: tuple(TEXTS),
        lambda: iter(TEXTS),
        lambda: pa.array(TEXTS),
        lambda: pa.array(TEXTS, type=pa.large_string()),
        lambda: pa.array(TEXTS, type=pa.string_view()),
        lambda: pa.array(TEXTS).dictionary_encode(),
        lambda: pa.chunked_array([TEXTS[:1], TEXTS[1:3], [], TEXTS[3:]]),
        lambda: pa.table({"text": TEXTS}),
        lambda: pa.record_batch({"text": TEXTS}),
    ],
    ids=["tuple", "iterator", "array", "large_string", "string_view", "dictionary", "chunked", "table", "record_batch"],
)
def test_arrow_and_sequences_give_the_same_pairs(make):
    assert simtui.pairs(make(), IDS).to_pylist() == expected()


def test_ids_from_arrow_and_ints():
    assert simtui.pairs(TEXTS, pa.array(IDS)).to_pylist() == expected()
    got = simtui.pairs(TEXTS, [10, 11, 12, 13]).to_pylist()
    assert {(p["a"], p["b"]) for p in got} == {("10", "13"), ("10", "11"), ("11", "13")}


def test_without_ids_the_rows_are_the_ids():
    got = simtui.pairs(TEXTS).to_pylist()
    assert {(p["a"], p["b"]) for p in got} == {("0", "3"), ("0", "1"), ("1", "3")}


def test_pandas_series():
    pd = pytest.importorskip("pandas")
    assert simtui.pairs(pd.Series(TEXTS), pd.Series(IDS)).to_pylist() == expected()
    assert simtui.pairs(pd.Series(TEXTS, dtype="string"), IDS).to_pylist() == expected()
    with pytest.raises(ValueError, match="null"):
        simtui.pairs(pd.Series([TEXTS[0], None]))


def test_polars_series():
    pl = pytest.importorskip("polars")
    assert simtui.pairs(pl.Series(TEXTS), pl.Series(IDS)).to_pylist() == expected()


def test_datasets_dataset():
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"text": TEXTS})
    assert simtui.pairs(ds, IDS).to_pylist() == expected()
    assert simtui.pairs(ds.data.column("text"), IDS).to_pylist() == expected()


def test_none_in_a_list():
    with pytest.raises(TypeError, match=r"texts\[1\] is None, not str"):
        simtui.pairs([TEXTS[0], None])


def test_a_null_in_a_column_names_its_row():
    column = pa.chunked_array([TEXTS[:2], [TEXTS[2], None]])
    with pytest.raises(ValueError, match="null .* at row 3"):
        simtui.pairs(column)


def test_values_that_are_not_strings():
    with pytest.raises(TypeError, match=r"texts\[1\] is int, not str"):
        simtui.pairs([TEXTS[0], 5])
    with pytest.raises(TypeError, match="column of strings, not Int64"):
        simtui.pairs(pa.array([1, 2, 3]))
    with pytest.raises(TypeError, match="not one string"):
        simtui.pairs("one text")
    with pytest.raises(TypeError, match="2 columns"):
        simtui.pairs(pa.table({"id": IDS, "text": TEXTS}))


def test_bad_ids():
    with pytest.raises(ValueError, match="ids has 3 values for 4 texts"):
        simtui.pairs(TEXTS, IDS[:3])
    with pytest.raises(ValueError, match=r"ids must be unique: \"a\" is at rows 0 and 1"):
        simtui.pairs(TEXTS, ["a", "a", "b", "c"])
    with pytest.raises(ValueError, match=r"ids\[2\] is None"):
        simtui.pairs(TEXTS, ["a", "b", None, "c"])
    with pytest.raises(TypeError, match=r"ids\[0\] is float"):
        simtui.pairs(TEXTS, [1.5, 2, 3, 4])


def test_bad_options_say_what_the_command_says():
    with pytest.raises(ValueError, match="threshold must be between 0 and 1, got 1.5"):
        simtui.pairs(TEXTS, threshold=1.5)
    with pytest.raises(ValueError, match='unit must be "word" or "char"'):
        simtui.pairs(TEXTS, unit="line")
    with pytest.raises(ValueError, match="4096 hash functions|at most 4096"):
        simtui.pairs(TEXTS, bands=4096, rows=2)
    with pytest.raises(ValueError, match="no Snowball stemmer"):
        simtui.pairs(TEXTS, stem="klingon")


def test_a_banding_that_may_miss_pairs_warns():
    with pytest.warns(UserWarning, match="may miss pairs with J >= 0.5") as said:
        simtui.pairs(TEXTS, threshold=0.5, bands=2, rows=8)
    # The warning points at the caller's line, not into the module.
    assert said[0].filename == __file__
    with pytest.warns(UserWarning) as said:
        simtui.Index(TEXTS, min_words=3 * 10**6)
    assert said[0].filename == __file__


def test_texts_left_out_are_said_and_kept_by_dedup():
    with pytest.warns(UserWarning, match="1 texts left out"):
        result = simtui.dedup(TEXTS + ["short"], threshold=0.8, min_words=3)
    assert "4" in [r["id"] for r in result.kept.to_pylist()]


def test_empty_input():
    assert simtui.pairs([]).num_rows == 0
    assert simtui.pairs(pa.array([], type=pa.string())).column_names == ["a", "b", "jaccard", "estimate"]
