//! `simtui man [COMMAND]`: the man page (roff) on stdout. clap_mangen renders the
//! sections it knows from the command definition; the examples, exit status, files and
//! environment come from `cli::help`, as in `--help`, but as roff sections of their own
//! (clap_mangen would fill the after-help text into one paragraph).

use super::help;
use crate::output::error::UsageError;
use crate::output::format::with_stdout;
use clap::{Args, Command};
use clap_mangen::Man;
use std::io::{self, Write};

#[derive(Args, Debug)]
pub struct ManArgs {
    /// A command's own page (simtui-pairs(1) for pairs); without it, simtui(1)
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

pub fn run(args: &ManArgs, mut cmd: Command) -> anyhow::Result<()> {
    // Building names the subcommands as their pages need (simtui-pairs, `simtui pairs`).
    cmd.build();
    let version = cmd.get_version().unwrap_or_default().to_string();
    let source = format!("simtui {version}");
    let name = args.command.as_deref().unwrap_or("");
    let page = if name.is_empty() {
        cmd
    } else {
        // A command's page carries simtui's version, as simtui's page does.
        let sub = cmd.find_subcommand(name).cloned();
        sub.map(|s| s.version(version)).ok_or_else(|| {
            let names: Vec<&str> = cmd
                .get_subcommands()
                .map(|s| s.get_name())
                .filter(|n| *n != "help")
                .collect();
            UsageError(format!(
                "no command {name:?}; commands: {}",
                names.join(", ")
            ))
        })?
    };
    let mut roff = Vec::new();
    render(
        &Man::new(page).source(source).manual("simtui manual"),
        name,
        &mut roff,
    )?;
    with_stdout(|out| out.write_all(&roff))?;
    Ok(())
}

fn render(man: &Man, name: &str, w: &mut dyn Write) -> io::Result<()> {
    man.render_title(w)?;
    man.render_name_section(w)?;
    man.render_synopsis_section(w)?;
    man.render_description_section(w)?;
    man.render_options_section(w)?;
    if name.is_empty() {
        man.render_subcommands_section(w)?;
    }
    if let Some(examples) = help::examples(name) {
        writeln!(w, ".SH EXAMPLES\n.nf")?;
        for line in examples.lines() {
            writeln!(w, "{}", escape(line))?;
        }
        writeln!(w, ".fi")?;
    }
    writeln!(w, ".SH \"EXIT STATUS\"\n{}", escape(help::EXIT_STATUS))?;
    if name.is_empty() {
        writeln!(w, ".SH FILES\n{}", escape(help::CONFIG_NOTE))?;
        writeln!(w, ".SH ENVIRONMENT")?;
        for (var, what) in [
            (
                "SIMTUI_CONFIG",
                "The config file to read, unless --config is given.",
            ),
            (
                "XDG_CONFIG_HOME",
                "Where the config file is looked for (simtui/config.toml in it).",
            ),
            (
                "NO_COLOR",
                "When set and not empty, --color auto means no colour.",
            ),
        ] {
            writeln!(w, ".TP\n\\fB{var}\\fR\n{}", escape(what))?;
        }
    }
    man.render_version_section(w)
}

/// Text as roff: backslashes and minus signs escaped, and no line read as a request.
fn escape(text: &str) -> String {
    text.lines()
        .map(|line| {
            let line = line.replace('\\', "\\e").replace('-', "\\-");
            if line.starts_with(['.', '\'']) {
                format!("\\&{line}")
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn roff_escapes() {
        assert_eq!(escape("a-b \\x"), "a\\-b \\ex");
        assert_eq!(escape(".TH\n'x"), "\\&.TH\n\\&'x");
    }
}
