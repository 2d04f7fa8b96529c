#!/usr/bin/env bash
# The Python module's tests: builds the wheel (debug), installs it into
# crates/simtui-py/.venv and runs the pytest suite against the command it ships.
#   crates/simtui-py/setup-venv.sh && crates/simtui-py/test.sh
# $SIMTUI_BIN: a built simtui binary to ship (cargo test passes its own), else built here.
# The wheel's Rust is built in target/python: a build of its own, so that this can run
# inside `cargo test` (tests/python_wheel.rs) without waiting on its lock of target/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=$here/.venv
if ! [ -x "$venv/bin/maturin" ] || ! "$venv/bin/python" -c "import pyarrow, pytest" 2>/dev/null; then
  echo "no test environment in $venv: run $here/setup-venv.sh first" >&2
  exit 2
fi
export CARGO_TARGET_DIR=${SIMTUI_PY_TARGET:-$root/target/python}
MATURIN=$venv/bin/maturin "$here/build-wheel.sh"
"$venv/bin/pip" install -q --force-reinstall --no-deps "$here"/dist/simtui-*.whl
export SIMTUI_REF_BIN=${SIMTUI_BIN:-$CARGO_TARGET_DIR/debug/simtui}
cd "$here/tests"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider
