//! `simtui completions SHELL`: a completion script on stdout (clap_complete).

use crate::output::format::with_stdout;
use clap::{Args, Command};
use clap_complete::Shell;

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(args: &CompletionsArgs, mut cmd: Command) -> anyhow::Result<()> {
    // clap_complete panics on a write error; generating into memory first lets a closed
    // pipe end quietly, like every other command.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "simtui", &mut script);
    with_stdout(|out| out.write_all(&script))?;
    Ok(())
}
