//! The PySpark job (spark/simtui_spark.py) in Spark's local mode gives the pairs and the
//! clusters `simtui pairs` and `simtui clusters` give on one machine (issue 18), running
//! simtui's Python module in its executors from a wheel built here from the tree. Needs
//! Java, pyspark with pyarrow (.ci/spark-setup) and maturin (crates/simtui-py/.venv,
//! made by crates/simtui-py/setup-venv.sh): `.ci/run` installs them (pinned) when
//! missing and sets SIMTUI_REQUIRE_SPARK=1, which makes their absence a failure;
//! elsewhere the test says it was skipped and why.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python that has pyspark and pyarrow: $SIMTUI_SPARK_PYTHON, else spark/.venv's.
fn spark_python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SIMTUI_SPARK_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("spark/.venv/bin/python");
    let has_pyspark = Command::new(&venv)
        .args(["-c", "import pyspark, pyarrow, pandas"])
        .output()
        .is_ok_and(|o| o.status.success());
    has_pyspark.then_some(venv)
}

/// The wheel, built from this tree (debug, in target/python as the Python test builds
/// it) around this build's simtui binary, by crates/simtui-py/build-wheel.sh.
fn build_wheel(maturin: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let here = root.join("crates/simtui-py");
    let stdout = common::script_stdout(
        Command::new(here.join("build-wheel.sh"))
            .env("SIMTUI_BIN", env!("CARGO_BIN_EXE_simtui"))
            .env("MATURIN", maturin)
            .env("CARGO_TARGET_DIR", root.join("target/python"))
            // Not the Python test's dist/, which it installs from as this runs beside it.
            .env("SIMTUI_WHEEL_OUT", root.join("target/python/spark-wheel")),
        "crates/simtui-py/build-wheel.sh",
    );
    let wheel = stdout.lines().last().unwrap_or_default().trim();
    assert!(wheel.ends_with(".whl"), "no wheel: {stdout}");
    PathBuf::from(wheel)
}

fn has_java() -> bool {
    Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_spark_job_finds_what_simtui_finds() {
    let required = std::env::var_os("SIMTUI_REQUIRE_SPARK").is_some();
    let python = spark_python();
    let maturin = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/simtui-py/.venv/bin/maturin");
    let why = match (&python, has_java(), maturin.exists()) {
        (None, _, _) => Some("no pyspark (spark/.venv, or SIMTUI_SPARK_PYTHON)"),
        (_, false, _) => Some("no Java"),
        (_, _, false) => Some("no maturin to build the wheel (crates/simtui-py/.venv)"),
        _ => None,
    };
    if let Some(why) = why {
        assert!(!required, "SIMTUI_REQUIRE_SPARK is set, but there is {why}");
        println!("skipped: {why}; .ci/run installs them");
        return;
    }
    let wheel = build_wheel(&maturin);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("spark/test_local.py");
    let stdout = common::script_stdout(
        Command::new(python.unwrap())
            .arg(script)
            .arg(env!("CARGO_BIN_EXE_simtui"))
            .arg("--wheel")
            .arg(&wheel)
            .args(["--docs", "400"]),
        "spark/test_local.py",
    );
    assert!(
        stdout.contains("the Spark job and simtui agree"),
        "{stdout}"
    );
}
