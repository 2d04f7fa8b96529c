#!/usr/bin/env bash
# Builds the wheel into crates/simtui-py/dist/: the `simtui` command (the root crate's
# binary, shipped as a script of the wheel, see pyproject.toml) and `import simtui`.
#   crates/simtui-py/build-wheel.sh             # debug (for the tests)
#   crates/simtui-py/build-wheel.sh --release   # optimised (to install, to benchmark)
# $SIMTUI_BIN: ship this simtui binary instead of building one.
# $SIMTUI_WHEEL_OUT: the folder for the wheel (default crates/simtui-py/dist), so that a
# benchmark's release wheel and the tests' debug one do not replace each other.
# Needs maturin: $MATURIN, else crates/simtui-py/.venv's (test.sh makes it), else PATH's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
profile=debug
maturin_profile=(--profile dev)
cargo_profile=()
if [ "${1:-}" = --release ]; then
  profile=release
  maturin_profile=(--release)
  cargo_profile=(--release)
fi
maturin=${MATURIN:-}
if [ -z "$maturin" ]; then
  if [ -x "$here/.venv/bin/maturin" ]; then maturin=$here/.venv/bin/maturin; else maturin=maturin; fi
fi
out=${SIMTUI_WHEEL_OUT:-$here/dist}
# One build at a time: every build empties and fills $here/data (and cargo test runs the
# Python and the Spark tests side by side, each building a wheel).
if command -v flock >/dev/null; then
  mkdir -p "$root/target"
  exec 9>"$root/target/.build-wheel.lock"
  flock 9
fi
rm -rf "$here/data" "$out"
mkdir -p "$here/data/scripts"
if [ -n "${SIMTUI_BIN:-}" ]; then
  # A binary built already (cargo test's own): shipped as it is.
  cp "$SIMTUI_BIN" "$here/data/scripts/simtui"
else
  cargo build --manifest-path "$root/Cargo.toml" --bin simtui "${cargo_profile[@]}"
  cp "${CARGO_TARGET_DIR:-$root/target}/$profile/simtui" "$here/data/scripts/simtui"
fi
"$maturin" build --manifest-path "$here/Cargo.toml" "${maturin_profile[@]}" --out "$out" --quiet
ls "$out"/*.whl
