"""simtui.explore: refused without a terminal; on a terminal (a pseudo-terminal here) it
opens the explorer on the records, quits on q, and leaves no temporary file."""

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

import pytest

import simtui

STORY = " ".join(f"word{i}" for i in range(60))
TEXTS = [STORY + " today", STORY + " now", "entirely different words about cooking pasta with garlic"]


def test_explore_refuses_without_a_terminal():
    # Under pytest's capture stdout is no terminal; in a child with pipes neither is.
    code = (
        "import simtui, sys\n"
        "try:\n"
        "    simtui.explore(['a b c'])\n"
        "except simtui.SimtuiError as e:\n"
        "    print('refused:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert "refused: explore needs a terminal" in out.stdout


def test_explore_checks_its_records_before_it_opens(monkeypatch):
    monkeypatch.setattr(simtui._explore, "_on_a_terminal", lambda: True)
    with pytest.raises(ValueError, match="titles has 1 values for 3 texts"):
        simtui.explore(TEXTS, titles=["one"])
    with pytest.raises(TypeError, match=r"texts\[1\] is None"):
        simtui.explore(["a", None])


def read_until(fd, wanted, seconds):
    seen = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if re.search(wanted, seen):
                return seen
    return seen


def test_explore_opens_the_explorer_on_a_terminal(tmp_path):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 110, 0, 0))
    code = (
        "import glob, os, tempfile, simtui\n"
        f"status = simtui.explore({TEXTS!r}, ids=['x', 'y', 'z'], titles=['Fox one', 'Fox two', 'Pasta'])\n"
        "left = glob.glob(os.path.join(tempfile.gettempdir(), 'simtui-explore-*'))\n"
        "print('EXPLORED', status, len(left))\n"
    )
    env = dict(os.environ, TMPDIR=str(tmp_path), TERM="xterm-256color")
    child = subprocess.Popen([sys.executable, "-c", code], stdin=slave, stdout=slave,
                             stderr=slave, env=env, close_fds=True)
    os.close(slave)
    try:
        screen = read_until(master, b"Fox two", 60)
        assert b"Fox two" in screen, screen[-2000:]
        os.write(master, b"q")
        # The whole line: the marker can arrive before the numbers after it.
        tail = read_until(master, rb"EXPLORED \S+ \S+\r?\n", 30)
        assert b"EXPLORED 0 0" in tail, tail[-2000:]
        assert child.wait(timeout=30) == 0
    finally:
        if child.poll() is None:
            child.kill()
        os.close(master)
