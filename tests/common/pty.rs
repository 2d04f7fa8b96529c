//! Running simtui in a pseudo-terminal (stdin and stdout a terminal) to its end: what it
//! wrote there, and how it ended.

use portable_pty::{CommandBuilder, ExitStatus, PtySize, native_pty_system};
use std::io::Read;
use std::time::Duration;

/// simtui with `args`, as a terminal starts it (`TERM` set).
pub fn command(args: &[&str]) -> CommandBuilder {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_simtui"));
    cmd.args(args);
    cmd.env("TERM", "xterm-256color");
    cmd
}

/// Runs `cmd` in a terminal of `rows` × `cols` until it exits; panics after a minute.
pub fn run(cmd: CommandBuilder, rows: u16, cols: u16) -> (ExitStatus, String) {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows,
            cols,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("open a pty");
    let argv = format!("{:?}", cmd.get_argv());
    let mut child = pair.slave.spawn_command(cmd).expect("spawn simtui");
    // Only the child holds the slave: the reader sees the end when it exits.
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().expect("pty reader");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        // Linux ends a pty's output with EIO rather than EOF: what was read is kept.
        let _ = reader.read_to_end(&mut out);
        let _ = tx.send(out);
    });
    let Ok(out) = rx.recv_timeout(Duration::from_secs(60)) else {
        let _ = child.kill();
        panic!("{argv} did not finish in a pty");
    };
    let status = child.wait().expect("wait for simtui");
    (status, String::from_utf8_lossy(&out).into_owned())
}
