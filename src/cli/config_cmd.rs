//! `simtui config --default | --path | --check`: the config file's template, where it
//! is, and whether it is right.

use super::args;
use super::config::{self, DEFAULT_FILE};
use super::startup::Startup;
use crate::output::diag;
use crate::output::error::{NoResult, UsageError};
use crate::output::format::with_stdout;
use clap::{Args, Command};

#[derive(Args, Debug)]
#[group(required = true, multiple = false)]
pub struct ConfigArgs {
    /// Print a config file with every setting, commented out at its built-in value
    #[arg(long)]
    pub default: bool,
    /// Print the path of the config file in use (it may not exist yet)
    #[arg(long)]
    pub path: bool,
    /// Read the config file in use and name every problem in it (exit 2)
    #[arg(long)]
    pub check: bool,
}

/// `cmd` is the full command line definition, to check `[index]` values against the
/// flags they are defaults for.
pub fn run(args: &ConfigArgs, startup: &Startup, cmd: Command) -> anyhow::Result<()> {
    if args.default {
        return Ok(with_stdout(|out| out.write_all(DEFAULT_FILE.as_bytes()))?);
    }
    let Some(at) = &startup.location else {
        // Said even without -v: the user asked for the path and gets none.
        let why = "no config file is in use (--no-config, or no home folder)";
        diag::note(0, why);
        return Err(NoResult(why.into()).into());
    };
    if args.path {
        with_stdout(|out| writeln!(out, "{}", at.path.display()))?;
        if !at.path.exists() {
            diag::note(0, "(it does not exist yet)");
        }
        return Ok(());
    }
    let loaded = config::load(at, |c| args::flag_problems(&cmd, c))
        .map_err(|e| UsageError(e.to_string()))?;
    let verdict = match loaded.path {
        Some(p) => format!("{}: ok", p.display()),
        None => format!("{}: does not exist (built-in defaults)", at.path.display()),
    };
    Ok(with_stdout(|out| writeln!(out, "{verdict}"))?)
}
