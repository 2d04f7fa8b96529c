//! Start-up: the global flags, the config file, and the command line parsed with the
//! file's values as defaults.
//!
//! Precedence, highest first: a flag on the command line; the config file
//! (`--config FILE`, else `SIMTUI_CONFIG`, else the usual place); the built-in default.
//! The command line is parsed twice: once as it is (so `--help`, `--version` and usage
//! errors behave as without a config, and `--config` is known), then, if the file sets
//! flag defaults, again with them installed as clap defaults. The second parse cannot
//! fail where the first passed, since the defaults were checked with the flags' parsers.

use super::args;
use super::config::{self, Config, Location, Origin};
use crate::output::color::{self, ColorChoice};
use crate::output::diag;
use crate::output::error::UsageError;
use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, Args, Command, FromArgMatches};
use std::path::PathBuf;

const GLOBAL: &str = "Global options";

/// Flags every command takes, before or after its name.
#[derive(Args, Clone, Debug)]
pub struct GlobalArgs {
    /// Colour tables and the explorer: auto, always or never
    ///
    /// auto: only on a terminal, and not when NO_COLOR is set (and not empty) or TERM is
    /// dumb. always and never win over NO_COLOR. Also: [output] color in the config file.
    #[arg(help_heading = GLOBAL, long, value_name = "WHEN", value_enum, default_value_t = ColorChoice::Auto, global = true, hide_possible_values = true)]
    pub color: ColorChoice,
    /// Read defaults from this config file (also: SIMTUI_CONFIG)
    #[arg(help_heading = GLOBAL, long, value_name = "FILE", global = true)]
    pub config: Option<PathBuf>,
    /// Read no config file
    #[arg(help_heading = GLOBAL, long, global = true, conflicts_with = "config")]
    pub no_config: bool,
    /// More on stderr: -v the config in use and skipped files, -vv each stage's time
    #[arg(help_heading = GLOBAL, short, long, action = ArgAction::Count, global = true)]
    pub verbose: u8,
}

/// What start-up resolved, beside the parsed command line.
#[derive(Debug)]
pub struct Startup {
    pub config: Config,
    /// The config file in use (it may not exist); `None` with `--no-config` or no home.
    pub location: Option<Location>,
    /// `--color`, else the file's `[output] color`, else auto.
    pub color: ColorChoice,
    pub verbose: u8,
    /// -b or -r on the command line, or bands or rows in the config file: a banding the
    /// user chose (else one may be chosen for a threshold: `cli::banding`).
    pub banding_given: bool,
}

/// Commands that must work with a broken config file, to find and fix it (or to
/// install completions): they don't read it (`config --check` reads it itself).
const CONFIG_FREE: &[&str] = &["config", "completions", "man"];

/// Parses the command line of `cmd` (the decorated `Cli::command()`) into `T`.
/// `--help` and `--version` print and exit here, as clap does; a usage error becomes
/// one line (see [`one_line`]).
pub fn parse<T: FromArgMatches>(cmd: Command) -> Result<(T, Startup), UsageError> {
    let plain = cmd.clone();
    let one_line = |e: clap::Error| one_line(e, &plain);
    let first = cmd.clone().try_get_matches().map_err(one_line)?;
    reject_explorer_args(&cmd, &first).map_err(one_line)?;
    let globals = GlobalArgs::from_arg_matches(deepest(&first)).map_err(one_line)?;
    diag::set_level(globals.verbose);
    let location = if globals.no_config {
        None
    } else {
        config::locate(globals.config.as_deref(), |k| std::env::var_os(k))
    };
    let reads_config = !first
        .subcommand_name()
        .is_some_and(|n| CONFIG_FREE.contains(&n));
    let config = match &location {
        Some(at) if reads_config => config::load(at, |c| args::flag_problems(&cmd, c))
            .map_err(|e| UsageError(e.to_string()))?,
        _ => Config::default(),
    };
    if reads_config {
        announce(&config, location.as_ref());
    }
    let matches = if config.defaults.is_empty() {
        first
    } else {
        args::with_config_defaults(cmd, &config)
            .map_err(|e| UsageError(e.to_string()))?
            .try_get_matches()
            .map_err(one_line)?
    };
    let parsed = T::from_arg_matches(&matches).map_err(one_line)?;
    let deepest_matches = deepest(&matches);
    let banding_given = ["bands", "rows"].iter().any(|id| {
        deepest_matches.ids().any(|i| i.as_str() == *id)
            && deepest_matches.value_source(id) == Some(ValueSource::CommandLine)
    }) || config
        .defaults
        .iter()
        .any(|d| d.key == "bands" || d.key == "rows");
    let from_flag = deepest(&matches).value_source("color") == Some(ValueSource::CommandLine);
    let color = match config.color {
        Some(c) if !from_flag => c,
        _ => globals.color,
    };
    color::init(color);
    // The explorer routes notes to its log (or nowhere) once it knows; commands to stderr.
    if matches.subcommand_name().is_some() {
        diag::to_stderr();
    }
    Ok((
        parsed,
        Startup {
            config,
            location,
            color,
            verbose: globals.verbose,
            banding_given,
        },
    ))
}

/// The explorer's arguments (a PATH, `-k` before the command name) given with a
/// command are a usage error, so `simtui -k 3 pairs data/` cannot silently ignore
/// `-k 3`. (clap's `args_conflicts_with_subcommands` would do it, but it counts global
/// flags too, and `simtui -v pairs data/` must work.)
fn reject_explorer_args(cmd: &Command, m: &ArgMatches) -> Result<(), clap::Error> {
    let Some(name) = m.subcommand_name() else {
        return Ok(());
    };
    let given = cmd.get_arguments().find(|a| {
        !a.is_global_set() && m.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine)
    });
    if let Some(arg) = given {
        let what = match (arg.get_long(), arg.get_value_names()) {
            (Some(long), _) => format!("--{long}"),
            (None, Some([value, ..])) => value.to_string(),
            _ => arg.get_id().to_string(),
        };
        let message = format!(
            "'{what}' is for the explorer, not `{name}`; a command's flags go after its name \
             (simtui {name} ...)"
        );
        return Err(cmd.clone().error(ErrorKind::ArgumentConflict, message));
    }
    Ok(())
}

/// Prints help or the version as clap renders it and exits 0; a write that fails (a
/// full disk) exits 1 with one line, a closed pipe quietly with 0.
fn print_and_exit(e: &clap::Error) -> ! {
    use std::io::IsTerminal;
    // As clap's own printing: styled on a terminal (unless NO_COLOR), plain in a pipe.
    let styled = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let text = if styled {
        e.render().ansi().to_string()
    } else {
        e.render().to_string()
    };
    let written = crate::output::format::with_stdout(|out| out.write_all(text.as_bytes()));
    match written {
        Ok(()) => std::process::exit(0),
        Err(err) => {
            crate::output::diag::say(format_args!("simtui: {err}"));
            std::process::exit(1)
        }
    }
}

/// A clap error as one line, e.g. `unexpected argument '--foo' found (see 'simtui pairs
/// --help')`: clap's message (with its continuation lines, such as the missing arguments
/// or the possible values, joined on), a "similar name" suggestion if clap has one, and
/// which `--help` to read, in place of clap's tips, usage and "For more information"
/// lines. `--help` and `--version` (and help shown for a missing argument) are not
/// errors: they print as clap prints them and exit here.
fn one_line(e: clap::Error, cmd: &Command) -> UsageError {
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        print_and_exit(&e);
    }
    // The command named on the line, found by a parse that stops at no error.
    let mut path = vec![cmd.get_name().to_string()];
    if let Ok(mut m) = cmd.clone().ignore_errors(true).try_get_matches() {
        while let Some((name, sub)) = m.remove_subcommand() {
            path.push(name);
            m = sub;
        }
    }
    UsageError(format!(
        "{} (see '{} --help')",
        message_line(&e.render().to_string()),
        path.join(" ")
    ))
}

/// clap's rendered (plain) error as one line: paragraphs are separated by blank lines;
/// the first is the message, and a tip naming a similar argument, value or command is
/// kept.
fn message_line(rendered: &str) -> String {
    let mut paragraphs = rendered.split("\n\n").filter(|p| !p.trim().is_empty());
    let first = paragraphs.next().unwrap_or_default().trim();
    let mut line = first
        .strip_prefix("error:")
        .unwrap_or(first)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    for p in paragraphs {
        for tip in p.lines().filter_map(|l| l.trim().strip_prefix("tip: ")) {
            if tip.contains("similar") {
                line.push_str("; ");
                line.push_str(tip);
            }
        }
    }
    line
}

/// The matches of the subcommand that runs: global flags are complete there, with
/// their sources, wherever on the line they were given.
fn deepest(m: &ArgMatches) -> &ArgMatches {
    match m.subcommand() {
        Some((_, sub)) => deepest(sub),
        None => m,
    }
}

/// `-v`: which file is in use and what it sets, to answer "why is this the default?".
fn announce(config: &Config, location: Option<&Location>) {
    match (location, &config.path) {
        (None, _) => diag::note(1, "config: none"),
        (Some(at), None) => diag::note(
            1,
            format_args!("config: none ({} does not exist)", at.path.display()),
        ),
        (Some(at), Some(path)) => {
            let how = match at.origin {
                Origin::Flag => " (--config)",
                Origin::Env => " (SIMTUI_CONFIG)",
                Origin::Default => "",
            };
            diag::note(1, format_args!("config: {}{how}", path.display()));
            for d in &config.defaults {
                diag::note(1, format_args!("config: index.{} = {}", d.key, d.value));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::message_line;

    #[test]
    fn clap_errors_become_one_line() {
        let unexpected = "error: unexpected argument '--treshold' found\n\n  \
            tip: a similar argument exists: '--threshold'\n\n\
            Usage: simtui pairs [OPTIONS] <PATH>...\n\n\
            For more information, try '--help'.\n";
        assert_eq!(
            message_line(unexpected),
            "unexpected argument '--treshold' found; a similar argument exists: '--threshold'"
        );
        let missing = "error: the following required arguments were not provided:\n  \
            <PATH>...\n\nUsage: simtui pairs [OPTIONS] <PATH>...\n\n\
            For more information, try '--help'.\n";
        assert_eq!(
            message_line(missing),
            "the following required arguments were not provided: <PATH>..."
        );
        let value = "error: invalid value 'x' for '--format <FORMAT>'\n  \
            [possible values: auto, table]\n\n  tip: to pass 'x' as a value, use '-- x'\n";
        assert_eq!(
            message_line(value),
            "invalid value 'x' for '--format <FORMAT>' [possible values: auto, table]"
        );
    }
}
