"""The corpus the tests share: `simtui gen` as JSON Lines, read back as ids and texts."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def command() -> str:
    """The `simtui` command the wheel installed beside this Python."""
    here = Path(sys.executable).parent / "simtui"
    found = str(here) if here.exists() else shutil.which("simtui")
    if found is None:
        pytest.fail("no `simtui` command beside this Python: is the wheel installed?")
    return found


def run(*args: str) -> str:
    out = subprocess.run([command(), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    """(folder, ids, texts) of 400 generated documents with planted near-duplicates."""
    folder = tmp_path_factory.mktemp("gen") / "corpus"
    run("gen", str(folder), "--docs", "400", "--seed", "7", "--format", "jsonl", "--words", "120")
    ids, texts = [], []
    for file in sorted(folder.glob("*.jsonl")):
        for line in file.read_text().splitlines():
            record = json.loads(line)
            ids.append(str(record["id"]))
            texts.append(record["text"])
    assert len(texts) == 400
    return folder, ids, texts


@pytest.fixture(scope="session")
def reference_binary():
    """target/debug/simtui, which the command in the wheel must behave as."""
    path = os.environ.get("SIMTUI_REF_BIN")
    if not path:
        pytest.skip("SIMTUI_REF_BIN is not set (test.sh sets it)")
    return path
