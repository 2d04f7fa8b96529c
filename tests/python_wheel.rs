//! The Python wheel (crates/simtui-py): built, installed in its virtual environment and
//! tested with pytest by crates/simtui-py/test.sh, shipping this build's `simtui`
//! binary. Needs the environment crates/simtui-py/setup-venv.sh makes (maturin,
//! pyarrow and pytest, pinned): `.ci/run` makes it and sets SIMTUI_REQUIRE_PYTHON=1,
//! which makes its absence a failure; elsewhere the test says it was skipped and why.

mod common;

use std::path::Path;
use std::process::Command;

#[test]
fn the_python_module_finds_what_simtui_finds() {
    let required = std::env::var_os("SIMTUI_REQUIRE_PYTHON").is_some();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/simtui-py");
    let venv = here.join(".venv/bin");
    let ready = venv.join("maturin").exists()
        && Command::new(venv.join("python"))
            .args(["-c", "import pyarrow, pytest"])
            .output()
            .is_ok_and(|o| o.status.success());
    if !ready {
        let why = "no crates/simtui-py/.venv with maturin, pyarrow and pytest";
        assert!(
            !required,
            "SIMTUI_REQUIRE_PYTHON is set, but there is {why}"
        );
        println!("skipped: {why}; crates/simtui-py/setup-venv.sh makes it");
        return;
    }
    let stdout = common::script_stdout(
        Command::new(here.join("test.sh")).env("SIMTUI_BIN", env!("CARGO_BIN_EXE_simtui")),
        "crates/simtui-py/test.sh",
    );
    assert!(stdout.contains(" passed"), "{stdout}");
    assert!(!stdout.contains(" failed"), "{stdout}");
}
