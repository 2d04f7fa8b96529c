//! The command-line conventions of issue 8, end to end: `--help` of every command,
//! completions and the man page (insta snapshots, so interface changes show in review),
//! the config file (values apply, flags win, bad files are named by line and key),
//! colour, verbosity and exit codes.
//!
//! Update the snapshots after an intended change with
//! `INSTA_UPDATE=always cargo test --test cli_conventions`, and review the diff of
//! tests/snapshots/. Under CI=true a missing or different snapshot fails.

mod common;

use std::path::Path;
use std::process::{Command, Output};

/// Runs simtui in a controlled environment: no user config (HOME and XDG_CONFIG_HOME
/// point into `home`), no NO_COLOR, and help wrapped at 100 columns.
fn run_in(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_simtui"));
    cmd.args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("COLUMNS", "100")
        .env_remove("SIMTUI_CONFIG")
        .env_remove("NO_COLOR")
        .env_remove("TERM");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run simtui")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 on stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A home with no config, and a small corpus with one exact and one near duplicate.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("corpus");
        std::fs::create_dir(&c).unwrap();
        let words: Vec<String> = (0..60).map(|i| format!("w{i}")).collect();
        let text = words.join(" ");
        std::fs::write(c.join("a.txt"), &text).unwrap();
        std::fs::write(c.join("b.txt"), &text).unwrap();
        // Three words changed: J about 0.7 with word 5-shingles.
        let near = text
            .replace("w10 ", "x ")
            .replace("w30 ", "y ")
            .replace("w50 ", "z ");
        std::fs::write(c.join("c.txt"), near).unwrap();
        let other: Vec<String> = (0..60).map(|i| format!("v{i}")).collect();
        std::fs::write(c.join("d.txt"), other.join(" ")).unwrap();
        Fixture { dir }
    }

    fn home(&self) -> &Path {
        self.dir.path()
    }

    fn corpus(&self) -> String {
        self.dir.path().join("corpus").to_str().unwrap().to_string()
    }

    /// Writes a config file here and returns its path.
    fn config(&self, name: &str, text: &str) -> String {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    }

    fn run(&self, args: &[&str]) -> Output {
        run_in(self.home(), args, &[])
    }

    /// Runs simtui, asserts it succeeded, and returns its stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        common::assert_ok(&out);
        stdout(&out)
    }

    fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        run_in(self.home(), args, env)
    }
}

/// The command names listed under "Commands:" in the root help.
fn command_names(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("    "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn help_of_every_command() {
    let f = Fixture::new();
    let root_help = f.ok(&["--help"]);
    insta::assert_snapshot!("help", root_help);
    let names = command_names(&root_help);
    for must in ["pairs", "curve", "completions", "man", "config"] {
        assert!(names.iter().any(|n| n == must), "{must} in {names:?}");
    }
    for name in &names {
        let out = f.run(&[name, "--help"]);
        assert!(out.status.success(), "{name} --help");
        let help = stdout(&out);
        // Tidy: no long "Possible values" blocks.
        assert!(!help.contains("Possible values:"), "{name}:\n{help}");
        insta::assert_snapshot!(format!("help_{name}"), help);
    }
    // -h, the summary: one line per flag (the details are in --help).
    insta::assert_snapshot!("help_short_pairs", f.ok(&["pairs", "-h"]));
}

/// The flags (and arguments and commands) of a help text whose description wraps onto
/// a second line, at the 100 columns `run_in` sets.
fn wrapped_entries(help: &str) -> Vec<String> {
    let mut wrapped = Vec::new();
    let mut entry: Option<&str> = None;
    for line in help.lines().take_while(|l| !l.starts_with("Examples:")) {
        let indent = line.len() - line.trim_start().len();
        let text = line.trim_start();
        if (2..=6).contains(&indent) && !text.is_empty() {
            entry = Some(line); // `  -k, --k <K>  ...`, `  <PATH>...  ...`, `  pairs  ...`
        } else if indent >= 10 && !text.is_empty() {
            wrapped.extend(entry.take().map(str::to_string));
        } else {
            entry = None;
        }
    }
    wrapped
}

/// The summaries of the flags in a `-h` text, without clap's `[default: …]`.
fn summaries(help: &str) -> Vec<String> {
    help.lines()
        .take_while(|l| !l.starts_with("Examples:"))
        .filter(|l| l.trim_start().starts_with('-') && !l.contains("--help"))
        .filter_map(|l| l.trim().split_once("  "))
        .map(|(_, text)| {
            let text = text.trim();
            text.split(" [default: ").next().unwrap().to_string()
        })
        .collect()
}

#[test]
fn short_help_gives_one_line_per_flag() {
    let f = Fixture::new();
    let root = stdout(&f.run(&["-h"]));
    let mut names = command_names(&root);
    names.insert(0, String::new());
    for name in &names {
        let args: Vec<&str> = [name.as_str(), "-h"]
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect();
        let out = f.run(&args);
        assert!(out.status.success(), "{args:?}");
        let help = stdout(&out);
        assert_eq!(
            wrapped_entries(&help),
            Vec::<String>::new(),
            "{args:?}:\n{help}"
        );
        // --help starts each flag's text with its -h summary, then the details.
        let long_args = [&args[..args.len() - 1], &["--help"]].concat();
        let long = stdout(&f.run(&long_args));
        for summary in summaries(&help) {
            assert!(
                long.lines().any(|l| l.trim().starts_with(&summary)),
                "{args:?}: {summary:?} not a line of --help"
            );
        }
    }
    // The checker finds a wrapped flag.
    let wrapped = "Options:\n      --a <A>  one\n               two\n      --b  three\n";
    assert_eq!(wrapped_entries(wrapped), ["      --a <A>  one"]);
}

#[test]
fn help_has_examples_and_exit_codes() {
    let f = Fixture::new();
    let root = stdout(&f.run(&["--help"]));
    for want in [
        "simtui data/",
        "simtui pairs data/ --threshold 0.8 --format jsonl | jq",
        "simtui curve --threshold 0.8 --perms 128",
        "Exit status: 0 success; 1 no result",
        "2 a usage or input error",
    ] {
        assert!(root.contains(want), "{want:?} in\n{root}");
    }
    for name in ["pairs", "query", "clusters"] {
        let help = stdout(&f.run(&[name, "--help"]));
        assert!(help.contains("--fail-empty"), "{help}");
        assert!(help.contains("Examples:"), "{help}");
    }
}

#[test]
fn version() {
    let f = Fixture::new();
    assert_eq!(
        f.ok(&["--version"]),
        format!("simtui {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completions() {
    let f = Fixture::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = f.run(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = stdout(&out);
        assert!(
            script.contains("pairs") && script.contains("fail-empty"),
            "{shell}"
        );
        insta::assert_snapshot!(format!("completions_{shell}"), script);
    }
    let bad = f.run(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(stderr(&bad).lines().count(), 1, "{}", stderr(&bad));
}

#[test]
fn man_page() {
    let f = Fixture::new();
    let page = f.ok(&["man"]);
    // The header: title, name, synopsis and description (the options follow).
    let header: String = page
        .lines()
        .take_while(|l| !l.starts_with(".SH OPTIONS"))
        .map(|l| format!("{l}\n"))
        .collect();
    insta::assert_snapshot!("man_header", header);
    for section in [
        ".SH EXAMPLES",
        ".SH \"EXIT STATUS\"",
        ".SH FILES",
        ".SH ENVIRONMENT",
    ] {
        assert!(page.contains(section), "{section}");
    }
    let pairs = stdout(&f.run(&["man", "pairs"]));
    assert!(pairs.contains(".TH simtui-pairs 1"), "{pairs}");
    assert!(pairs.contains("fail\\-empty"), "{pairs}");
    let bad = f.run(&["man", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("no command \"nope\""));
}

/// `--stats` says which k and threshold a run used.
fn stats_of(out: &Output) -> String {
    assert!(out.status.success(), "{}", stderr(out));
    stderr(out)
}

#[test]
fn config_values_apply_and_flags_override_them() {
    let f = Fixture::new();
    let c = f.corpus();
    let cfg = f.config("c.toml", "[index]\nk = 3\nthreshold = 0.9\n");
    // From --config.
    let used = stats_of(&f.run(&["pairs", &c, "--config", &cfg, "--stats"]));
    assert!(used.contains("(k = 3)"), "{used}");
    assert!(used.contains("with J >= 0.9"), "{used}");
    // From SIMTUI_CONFIG, and before the command name too.
    let env = [("SIMTUI_CONFIG", cfg.as_str())];
    let used = stats_of(&f.run_env(&["-v", "pairs", &c, "--stats"], &env));
    assert!(used.contains("(k = 3)"), "{used}");
    assert!(used.contains("config: "), "-v names the config: {used}");
    // Flags win.
    let args = ["pairs", &c, "--stats", "-k", "7", "-t", "0.5"];
    let flagged = stats_of(&f.run_env(&args, &env));
    assert!(flagged.contains("(k = 7)"), "{flagged}");
    assert!(flagged.contains("with J >= 0.5"), "{flagged}");
    // --no-config reads none.
    let none = stats_of(&f.run_env(&["pairs", &c, "--stats", "--no-config"], &env));
    assert!(none.contains("(k = 5)"), "{none}");
}

#[test]
fn config_is_found_in_xdg_then_home() {
    let f = Fixture::new();
    let home = f.home();
    let xdg = home.join("xdg");
    std::fs::create_dir_all(xdg.join("simtui")).unwrap();
    std::fs::create_dir_all(home.join(".config/simtui")).unwrap();
    std::fs::write(xdg.join("simtui/config.toml"), "[index]\nk = 4\n").unwrap();
    std::fs::write(home.join(".config/simtui/config.toml"), "[index]\nk = 6\n").unwrap();
    let c = f.corpus();
    let xdg_env = [("XDG_CONFIG_HOME", xdg.to_str().unwrap())];
    let used = stats_of(&f.run_env(&["pairs", &c, "--stats"], &xdg_env));
    assert!(used.contains("(k = 4)"), "{used}");
    let path = stdout(&f.run_env(&["config", "--path"], &xdg_env));
    assert_eq!(
        path.trim(),
        xdg.join("simtui/config.toml").to_str().unwrap()
    );
    // Without XDG_CONFIG_HOME: ~/.config, on every OS.
    let no_xdg = [("XDG_CONFIG_HOME", "")];
    let used = stats_of(&f.run_env(&["pairs", &c, "--stats"], &no_xdg));
    assert!(used.contains("(k = 6)"), "{used}");
}

#[test]
fn bad_config_files_name_line_and_key_and_exit_2() {
    let f = Fixture::new();
    let c = f.corpus();
    let cases = [
        (
            "[index]\nk = \"five\"\n",
            ":2: key `index.k`: expected an integer",
        ),
        (
            "[index]\nk = 0\n",
            ":2: key `index.k`: invalid value 0: 0 is not in 1..=64",
        ),
        (
            "\n[index]\nunit = \"words\"\n",
            ":3: key `index.unit`: expected one of word, char",
        ),
        ("[index]\nbands =\n", ":2: key `index.bands`:"),
        (
            "[output]\ncolour = \"never\"\n",
            ":2: key `output.colour`: unknown key",
        ),
        (
            "[explorer.keys]\nquit = \"hyper-q\"\n",
            ":2: key `explorer.keys.quit`:",
        ),
        ("[pairs]\nthreshold = 0.5\n", ":1: key `pairs`: unknown key"),
    ];
    for (text, want) in cases {
        let cfg = f.config("bad.toml", text);
        let out = f.run(&["pairs", &c, "--config", &cfg]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{text}: {err}");
        assert!(out.stdout.is_empty(), "{text}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(err.contains(&format!("{cfg}{want}")), "{text}: {err}");
    }
    // All problems at once, each on its line.
    let cfg = f.config("bad.toml", "[index]\nk = \"x\"\nkk = 1\n");
    let err = stderr(&f.run(&["pairs", &c, "--config", &cfg]));
    assert!(err.contains(":2: key `index.k`"), "{err}");
    assert!(err.contains(":3: key `index.kk`: unknown key"), "{err}");
    // An explicit file must exist; the usual place may be empty.
    let out = f.run(&["pairs", &c, "--config", "/no/such/simtui.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/no/such/simtui.toml"));
    assert!(f.run(&["pairs", &c]).status.success());
}

#[test]
fn a_broken_config_does_not_block_the_commands_that_fix_it() {
    let f = Fixture::new();
    let cfg = f.config("bad.toml", "[index]\nk = 0\n");
    let env = [("SIMTUI_CONFIG", cfg.as_str())];
    for args in [
        &["config", "--path"][..],
        &["config", "--default"],
        &["completions", "bash"],
        &["man"],
    ] {
        let out = f.run_env(args, &env);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let check = f.run_env(&["config", "--check"], &env);
    assert_eq!(check.status.code(), Some(2));
    assert!(stderr(&check).contains(":2: key `index.k`"));
}

#[test]
fn the_default_config_file_is_valid_and_changes_nothing() {
    let f = Fixture::new();
    let text = f.ok(&["config", "--default"]);
    assert!(
        text.lines()
            .all(|l| l.is_empty() || l.starts_with('#') || l.starts_with('['))
    );
    let cfg = f.config("default.toml", &text);
    let check = f.run(&["config", "--check", "--config", &cfg]);
    assert!(check.status.success(), "{}", stderr(&check));
    assert!(stdout(&check).ends_with(": ok\n"));
}

#[test]
fn colour_follows_flag_config_and_no_color() {
    let f = Fixture::new();
    let c = f.corpus();
    let table = ["pairs", &c, "--format", "table"];
    let coloured = |o: &Output| stdout(o).contains("\x1b[");
    // Piped: auto means none.
    assert!(!coloured(&f.run(&table)));
    let always: Vec<&str> = table.iter().copied().chain(["--color", "always"]).collect();
    let out = f.run(&always);
    assert!(coloured(&out));
    // The header is bold; the exact duplicate's J is green.
    assert!(stdout(&out).starts_with("\x1b[1m"), "{}", stdout(&out));
    assert!(stdout(&out).contains("\x1b[32m 1.0000\x1b[0m"));
    // An explicit request wins over NO_COLOR.
    assert!(coloured(&f.run_env(&always, &[("NO_COLOR", "1")])));
    // The config file's colour, and the flag over it.
    let cfg = f.config("c.toml", "[output]\ncolor = \"always\"\n");
    let env = [("SIMTUI_CONFIG", cfg.as_str())];
    assert!(coloured(&f.run_env(&table, &env)));
    let never: Vec<&str> = table.iter().copied().chain(["--color", "never"]).collect();
    assert!(!coloured(&f.run_env(&never, &env)));
    // Machine formats are never coloured.
    let jsonl = ["pairs", &c, "--format", "jsonl", "--color", "always"];
    assert!(!coloured(&f.run(&jsonl)));
}

#[test]
fn fail_empty_exits_1_only_without_pairs() {
    let f = Fixture::new();
    let c = f.corpus();
    let found = f.run(&["pairs", &c, "--fail-empty"]);
    assert_eq!(found.status.code(), Some(0));
    // One document: no pair at all.
    let lonely = f.home().join("lonely");
    std::fs::create_dir(&lonely).unwrap();
    std::fs::write(lonely.join("a.txt"), "just one document here").unwrap();
    let none = f.run(&["pairs", lonely.to_str().unwrap(), "--fail-empty"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(stderr(&none).is_empty(), "quiet without -v");
    let told = f.run(&["pairs", lonely.to_str().unwrap(), "--fail-empty", "-v"]);
    assert_eq!(told.status.code(), Some(1));
    assert!(stderr(&told).contains("no pair"), "{}", stderr(&told));
}

#[test]
fn verbosity_levels() {
    let f = Fixture::new();
    let c = f.corpus();
    std::fs::write(f.home().join("corpus/bin.dat"), b"\0\0binary").unwrap();
    let quiet = f.run(&["pairs", &c]);
    assert!(stderr(&quiet).is_empty(), "{}", stderr(&quiet));
    let v = stderr(&f.run(&["pairs", &c, "-v"]));
    assert!(v.contains("skipped") && v.contains("bin.dat"), "{v}");
    assert!(!v.contains("read done"), "{v}");
    let vv = stderr(&f.run(&["pairs", &c, "-vv"]));
    assert!(vv.contains("read done") && vv.contains("band done"), "{vv}");
}

#[test]
fn explorer_flags_with_a_command_are_usage_errors() {
    let f = Fixture::new();
    let c = f.corpus();
    for args in [
        &["-k", "3", "pairs", &c][..],
        &["--log", "x.log", "pairs", &c],
    ] {
        let out = f.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("is for the explorer"),
            "{}",
            stderr(&out)
        );
    }
    // An unwritable log is reported before the terminal is touched.
    let out = f.run(&["--log", "/no/such/dir/simtui.log", &c]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--log /no/such/dir/simtui.log"),
        "{}",
        stderr(&out)
    );
}

/// A table of every command that prints one, on the fixture.
fn tables(f: &Fixture) -> Vec<Vec<String>> {
    let c = f.corpus();
    let table = ["--format", "table"];
    let with = |args: &[&str], more: &[&str]| -> Vec<String> {
        args.iter().chain(more).map(|s| s.to_string()).collect()
    };
    vec![
        with(&["pairs", &c], &table),
        with(&["pairs", &c, "--method", "simhash"], &table),
        with(&["query", &c, "a.txt"], &table),
        with(&["clusters", &c, "-t", "0.5"], &table),
        with(&["matrix", &c], &table),
        with(&["eval", &c, "--sweep"], &table),
        with(&["curve"], &[]),
        with(&["curve", "-t", "0.8"], &[]),
    ]
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn every_table_is_coloured_as_color_says() {
    let f = Fixture::new();
    let esc = |o: &Output| stdout(o).contains('\x1b');
    for args in tables(&f) {
        let args = strs(&args);
        let plain = f.run(&args);
        assert!(plain.status.success(), "{args:?}: {}", stderr(&plain));
        assert!(!esc(&plain), "{args:?} piped: {}", stdout(&plain));
        let always = f.run(&[&args[..], &["--color", "always"]].concat());
        // A bold header or title, at least.
        assert!(
            stdout(&always).contains("\x1b[1m"),
            "{args:?}: {}",
            stdout(&always)
        );
        let never = f.run(&[&args[..], &["--color", "never"]].concat());
        assert!(!esc(&never), "{args:?} --color never");
        let no_color = f.run_env(&args, &[("NO_COLOR", "1")]);
        assert!(!esc(&no_color), "{args:?} NO_COLOR=1");
        // Plain output is the same with or without the flag (eval's times aside).
        if args[0] != "eval" {
            assert_eq!(stdout(&never), stdout(&plain), "{args:?}");
        }
    }
    // Similarities are coloured by value: the exact duplicates' J = 1 in green.
    let c = f.corpus();
    let query = f.run(&[
        "query", &c, "a.txt", "--format", "table", "--color", "always",
    ]);
    assert!(
        stdout(&query).contains("\x1b[32m 1.0000\x1b[0m"),
        "{}",
        stdout(&query)
    );
    let clusters = f.run(&[
        "clusters", &c, "-t", "0.9", "--format", "table", "--color", "always",
    ]);
    assert!(stdout(&clusters).contains("mean J \x1b[32m1.0000\x1b[0m"));
}

/// Runs simtui in a pseudo-terminal and returns all it wrote there.
fn run_pty(home: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let mut cmd = common::pty::command(args);
    cmd.env("HOME", home);
    cmd.env("XDG_CONFIG_HOME", home.join(".config"));
    cmd.env_remove("SIMTUI_CONFIG");
    cmd.env_remove("NO_COLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (status, out) = common::pty::run(cmd, 50, 200);
    assert!(status.success(), "simtui {args:?}: {out}");
    out
}

#[test]
fn on_a_terminal_auto_colours_tables_unless_no_color() {
    let f = Fixture::new();
    for args in tables(&f) {
        // Auto, as on a terminal: the format too (matrix and the others' auto is a table).
        let args: Vec<&str> = strs(&args)
            .into_iter()
            .filter(|a| *a != "--format" && *a != "table")
            .collect();
        let auto = run_pty(f.home(), &args, &[]);
        assert!(auto.contains("\x1b[1m"), "{args:?}: {auto}");
        let no_color = run_pty(f.home(), &args, &[("NO_COLOR", "1")]);
        assert!(
            !no_color.contains('\x1b'),
            "{args:?} NO_COLOR=1: {no_color}"
        );
        let dumb = run_pty(f.home(), &args, &[("TERM", "dumb")]);
        assert!(!dumb.contains('\x1b'), "{args:?} TERM=dumb: {dumb}");
        let never = run_pty(f.home(), &[&args[..], &["--color", "never"]].concat(), &[]);
        assert!(!never.contains('\x1b'), "{args:?} --color never: {never}");
    }
}

#[test]
fn usage_errors_are_one_line_and_help_is_not_an_error() {
    let f = Fixture::new();
    let c = f.corpus();
    let cases: [&[&str]; 8] = [
        &["pairs", &c, "--zzz"],
        &["pairs"],
        &["--zzz"],
        &["-k", "3", "pairs", &c],
        &["query", &c, "a.txt", "--top", "x"],
        &["pairs", &c, "--color", "sometimes"],
        &["completions"],
        &["clusters", &c, "-t", "0.5", "-0"],
    ];
    for args in cases {
        let out = f.run(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("simtui: "), "{args:?}: {err}");
        assert!(err.trim_end().ends_with(" --help')"), "{args:?}: {err}");
    }
    // clap's message, and which help to read.
    let err = stderr(&f.run(&["pairs", &c, "--zzz"]));
    assert_eq!(
        err,
        "simtui: unexpected argument '--zzz' found (see 'simtui pairs --help')\n"
    );
    let err = stderr(&f.run(&["--zzz"]));
    assert!(err.ends_with("(see 'simtui --help')\n"), "{err}");
    // clap's "did you mean" stays, on the line.
    let err = stderr(&f.run(&["pairs", &c, "--treshold", "0.5"]));
    assert!(
        err.contains("a similar argument exists: '--threshold'"),
        "{err}"
    );
    let err = stderr(&f.run(&["query", &c]));
    assert!(err.contains("not provided: <QUERY>..."), "{err}");
    // --help and --version are not errors.
    for args in [
        &["--help"][..],
        &["-h"],
        &["--version"],
        &["pairs", "--help"],
        &["help", "pairs"],
    ] {
        let out = f.run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(out.stderr.is_empty(), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).starts_with("simtui") || stdout(&out).contains("Usage:"));
    }
}

#[test]
fn gen_into_a_used_or_impossible_folder_is_an_input_error() {
    let f = Fixture::new();
    let home = f.home();
    std::fs::write(home.join("a-file"), "x").unwrap();
    let used = f.corpus();
    let a_file = home.join("a-file");
    let under_a_file = a_file.join("corpus");
    let cases = [
        (used.as_str(), "is not empty"),
        (a_file.to_str().unwrap(), "is not a folder"),
        (under_a_file.to_str().unwrap(), "cannot create"),
    ];
    for (out_dir, want) in cases {
        let out = f.run(&["gen", out_dir, "--docs", "5"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{out_dir}: {err}");
        assert_eq!(err.lines().count(), 1, "{out_dir}: {err}");
        assert!(err.starts_with("simtui: ") && err.contains(want), "{err}");
    }
    // Nothing was written: no truth file beside the refused folder.
    assert!(!home.join("corpus.truth.jsonl").exists());
    assert_eq!(std::fs::read_dir(&used).unwrap().count(), 4);
    // Bad numbers too.
    let fresh = home.join("fresh");
    let fresh = fresh.to_str().unwrap();
    for bad in [&["--docs", "0"][..], &["--dup-fraction", "2"]] {
        let out = f.run(&[&["gen", fresh][..], bad].concat());
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    }
    // An empty folder is fine.
    std::fs::create_dir(fresh).unwrap();
    let out = f.run(&["gen", fresh, "--docs", "5"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(home.join("fresh.truth.jsonl").exists());
}
