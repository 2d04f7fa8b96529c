#!/usr/bin/env bash
# crates/simtui-py/.venv (git-ignored) with requirements-test.txt's pinned packages,
# made or brought up to date only when they are missing or differ. Safe to run again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=$here/.venv
wanted=$(grep -v '^#' "$here/requirements-test.txt" | sort)
have=$("$venv/bin/pip" freeze 2>/dev/null | sort || true)
if [ -n "$(comm -23 <(echo "$wanted") <(echo "$have"))" ]; then
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r "$here/requirements-test.txt"
fi
"$venv/bin/python" -c "import pyarrow, pytest; print('pyarrow', pyarrow.__version__, 'pytest', pytest.__version__)"
"$venv/bin/maturin" --version
