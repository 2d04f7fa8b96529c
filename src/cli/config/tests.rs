use super::*;
// The explorer's colour type, to check what the names mean.
use ratatui::style::Color;

fn problems(text: &str) -> Vec<Problem> {
    parse(text).expect_err("a bad file")
}

#[test]
fn a_full_file_parses() {
    let c = parse(
        r##"
[index]
k = 7
unit = "char"
threshold = 1
[output]
color = "never"
[explorer]
mouse = false
colors = { title = "#ff8800", dim = "dark-gray" }
[explorer.keys]
quit = "x"
down = ["j", "ctrl-n"]
"##,
    )
    .unwrap();
    assert_eq!(c.default_for("k").unwrap().value, "7");
    assert_eq!(c.default_for("k").unwrap().line, Some(3));
    assert_eq!(c.default_for("unit").unwrap().value, "char");
    assert_eq!(c.threshold(), Some(1.0));
    assert_eq!(c.color, Some(ColorChoice::Never));
    assert_eq!(c.mouse, Some(false));
    assert_eq!(c.colors["title"], ColorSpec(Color::Rgb(0xff, 0x88, 0x00)));
    assert_eq!(c.colors["dim"], ColorSpec(Color::DarkGray));
    assert_eq!(c.keys["quit"], vec!["x".parse().unwrap()]);
    assert_eq!(c.keys["down"].len(), 2);
}

#[test]
fn dotted_keys_work_like_sections() {
    let c = parse("index.bands = 32\nexplorer.mouse = true\n").unwrap();
    assert_eq!(c.default_for("bands").unwrap().value, "32");
    assert_eq!(c.mouse, Some(true));
}

#[test]
fn problems_name_line_and_key() {
    let p = problems("[index]\nk = \"five\"\n\n[explorer]\nmous = true\n");
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!(p[0].line, Some(2));
    assert_eq!(p[0].key.as_deref(), Some("index.k"));
    assert_eq!(p[0].message, "expected an integer, found \"five\"");
    assert_eq!(p[1].line, Some(5));
    assert_eq!(p[1].key.as_deref(), Some("explorer.mous"));
    assert!(p[1].message.contains("unknown key"), "{}", p[1].message);
    assert!(p[1].message.contains("mouse"), "{}", p[1].message);
}

#[test]
fn syntax_errors_name_line_and_key() {
    let p = problems("[index]\nk = 5\nunit = word\n");
    assert_eq!(p[0].line, Some(3));
    assert_eq!(p[0].key.as_deref(), Some("index.unit"));
    let p = problems("[index]\nk = 5\nk = 6\n");
    assert_eq!(p[0].line, Some(3), "{p:?}");
}

#[test]
fn index_keys_at_the_top_say_where_they_belong() {
    let p = problems("k = 5\n");
    assert_eq!(p[0].key.as_deref(), Some("k"));
    assert!(p[0].message.contains("[index]"), "{}", p[0].message);
}

#[test]
fn values_are_checked() {
    let cases = [
        ("[index]\nthreshold = 1.5\n", "between 0 and 1"),
        (
            "[output]\ncolor = \"sometimes\"\n",
            "\"auto\", \"always\" or \"never\"",
        ),
        ("[explorer]\nmouse = \"yes\"\n", "true or false"),
        (
            "[explorer.colors]\ntitle = \"ultraviolet\"\n",
            "colour name",
        ),
        ("[explorer.colors]\nborder = \"red\"\n", "unknown key"),
        ("[explorer.keys]\nquit = \"hyper-q\"\n", "is not a key"),
        ("[explorer.keys]\nfly = \"f\"\n", "unknown key"),
        ("[explorer.keys]\nquit = 5\n", "a key or a list of keys"),
        ("index = 5\n", "expected a table"),
    ];
    for (text, want) in cases {
        let p = problems(text);
        assert_eq!(p.len(), 1, "{text}: {p:?}");
        assert_eq!(
            p[0].line,
            Some(if text.starts_with('[') { 2 } else { 1 }),
            "{text}"
        );
        assert!(p[0].message.contains(want), "{text}: {}", p[0].message);
    }
}

#[test]
fn display_is_file_line_key_message() {
    let e = ConfigError {
        path: PathBuf::from("/c.toml"),
        problems: problems("[index]\nk = true\n"),
    };
    assert_eq!(
        e.to_string(),
        "/c.toml:2: key `index.k`: expected an integer, found true"
    );
}

/// The file with its commented-out settings (`# key = value`) switched on.
fn uncomment(text: &str) -> String {
    let setting = |rest: &str| {
        rest.split_once(" = ")
            .is_some_and(|(k, _)| !k.contains(' '))
    };
    text.lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest) if setting(rest) => rest,
            _ => l,
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The default file, uncommented, is a valid config that sets what it documents.
#[test]
fn the_default_file_is_valid_when_uncommented() {
    let uncommented = uncomment(DEFAULT_FILE);
    let c = parse(&uncommented).unwrap_or_else(|p| panic!("{p:?}\n{uncommented}"));
    let keys: Vec<&str> = c.defaults.iter().map(|d| d.key).collect();
    assert_eq!(keys, INDEX.iter().map(|(k, _)| *k).collect::<Vec<_>>());
    assert_eq!(c.color, Some(ColorChoice::Auto));
    assert_eq!(c.mouse, Some(true));
    assert!(c.keys.contains_key("quit"));
    // As written, every line is a comment: the file changes nothing.
    let c = parse(DEFAULT_FILE).unwrap();
    assert!(c.defaults.is_empty() && c.color.is_none() && c.keys.is_empty());
}

/// The lists in the default file's comments are the lists the parser accepts.
#[test]
fn the_default_file_lists_every_role_and_action() {
    let flat = DEFAULT_FILE.replace("\n# ", " ");
    for (label, list) in [("Roles:", COLOR_ROLES), ("Actions:", ACTIONS)] {
        let start = flat.find(label).unwrap() + label.len();
        let end = start + flat[start..].find('.').unwrap();
        let listed: Vec<&str> = flat[start..end].split(',').map(str::trim).collect();
        assert_eq!(listed, list, "{label}");
    }
}

#[test]
fn locate_follows_flag_env_xdg_home() {
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |k: &str| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    };
    let all = env(&[
        ("SIMTUI_CONFIG", "/env.toml"),
        ("XDG_CONFIG_HOME", "/xdg"),
        ("HOME", "/home/u"),
    ]);
    let flag = locate(Some(Path::new("/flag.toml")), all).unwrap();
    assert_eq!(
        (flag.path.to_str(), flag.origin),
        (Some("/flag.toml"), Origin::Flag)
    );
    let e = locate(None, all).unwrap();
    assert_eq!(
        (e.path.to_str(), e.origin),
        (Some("/env.toml"), Origin::Env)
    );
    let x = locate(None, env(&[("XDG_CONFIG_HOME", "/xdg"), ("HOME", "/h")])).unwrap();
    assert_eq!(x.path, Path::new("/xdg/simtui/config.toml"));
    assert_eq!(x.origin, Origin::Default);
    // A relative XDG_CONFIG_HOME is ignored, as the spec says; so is an empty one.
    for xdg in ["rel", ""] {
        let vars: &'static [(&str, &str)] = if xdg.is_empty() {
            &[("XDG_CONFIG_HOME", ""), ("HOME", "/h")]
        } else {
            &[("XDG_CONFIG_HOME", "rel"), ("HOME", "/h")]
        };
        let h = locate(None, env(vars)).unwrap();
        assert_eq!(h.path, Path::new("/h/.config/simtui/config.toml"));
    }
    assert_eq!(locate(None, env(&[])), None);
}

#[test]
fn a_missing_file_is_no_config_only_in_the_usual_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("none.toml");
    let usual = Location {
        path: path.clone(),
        origin: Origin::Default,
    };
    assert!(load(&usual, |_| Vec::new()).unwrap().path.is_none());
    let asked = Location {
        path,
        origin: Origin::Flag,
    };
    let e = load(&asked, |_| Vec::new()).unwrap_err();
    assert!(e.to_string().contains("--config"), "{e}");
}

/// simtui's own flags: the explorer's IndexArgs at the root and the real `pairs`,
/// `curve` (an optional --threshold) and `gen` (a --seed of its own).
fn commands() -> clap::Command {
    use crate::cli::{args::IndexArgs, curve::CurveArgs, generate::GenArgs, pairs::PairsArgs};
    use clap::{Args, Command};
    IndexArgs::augment_args(Command::new("simtui"))
        .subcommand(PairsArgs::augment_args(Command::new("pairs")))
        .subcommand(CurveArgs::augment_args(Command::new("curve")))
        .subcommand(GenArgs::augment_args(Command::new("gen")))
}

fn with_file(text: &str) -> Result<clap::Command, ConfigError> {
    let mut config = parse(text).unwrap();
    config.path = Some(PathBuf::from("c.toml"));
    crate::cli::args::with_config_defaults(commands(), &config)
}

fn sub(m: &clap::ArgMatches) -> &clap::ArgMatches {
    m.subcommand().unwrap().1
}

#[test]
fn index_settings_become_defaults_and_flags_win() {
    use clap::parser::ValueSource;
    let cmd = with_file("[index]\nk = 7\nseed = 9\nthreshold = 0.8\n").unwrap();
    let m = cmd.clone().get_matches_from(["simtui", "pairs", "x"]);
    assert_eq!(sub(&m).get_one::<u32>("k"), Some(&7));
    assert_eq!(sub(&m).value_source("k"), Some(ValueSource::DefaultValue));
    assert_eq!(sub(&m).get_one::<f64>("threshold"), Some(&0.8));
    let m = cmd
        .clone()
        .get_matches_from(["simtui", "pairs", "x", "-k", "3"]);
    assert_eq!(sub(&m).get_one::<u32>("k"), Some(&3));
    assert_eq!(sub(&m).value_source("k"), Some(ValueSource::CommandLine));
    // The explorer (the root) takes them too.
    let m = cmd.clone().get_matches_from(["simtui"]);
    assert_eq!(m.get_one::<u32>("k"), Some(&7));
    // Not a threshold without a default (curve's switches mode), nor gen's --seed.
    let m = cmd.clone().get_matches_from(["simtui", "curve"]);
    assert_eq!(sub(&m).get_one::<f64>("threshold"), None);
    let m = cmd.get_matches_from(["simtui", "gen", "out"]);
    assert_eq!(sub(&m).get_one::<u64>("seed"), Some(&42));
}

#[test]
fn index_values_are_checked_by_the_flags_parsers() {
    let e = with_file("[index]\nk = 65\n\nsketch = \"lsh\"\n").unwrap_err();
    assert_eq!(e.problems.len(), 2, "{e}");
    assert_eq!(e.problems[0].line, Some(2));
    assert_eq!(e.problems[0].key.as_deref(), Some("index.k"));
    assert!(e.problems[0].message.contains("65 is not in 1..=64"), "{e}");
    assert_eq!(e.problems[1].line, Some(4));
    assert!(e.problems[1].message.contains("minhash, oph"), "{e}");
}

/// The values the default file documents are the flags' built-in defaults.
#[test]
fn the_default_file_states_the_built_in_defaults() {
    let flags = commands();
    let pairs = flags.find_subcommand("pairs").unwrap();
    for d in parse(&uncomment(DEFAULT_FILE)).unwrap().defaults {
        let headless = matches!(d.key, "threshold" | "memory" | "tmp_dir");
        let cmd = if headless { pairs } else { &flags };
        let arg = cmd.get_arguments().find(|a| a.get_id() == d.key).unwrap();
        // --memory's default depends on the machine, --tmp-dir's on the system: the file
        // shows an example, and the flags have no default built in.
        if matches!(d.key, "memory" | "tmp_dir") {
            assert!(arg.get_default_values().is_empty(), "{}", d.key);
            continue;
        }
        // A switch (--letters-only) is false unless given.
        let built_in = match arg.get_default_values().first() {
            Some(v) => v.to_str().unwrap(),
            None if matches!(arg.get_action(), clap::ArgAction::SetTrue) => "false",
            None => panic!("{}: no built-in default", d.key),
        };
        let same = built_in == d.value || built_in.parse::<f64>() == d.value.parse::<f64>();
        assert!(
            same,
            "{}: the file says {}, the flag {built_in}",
            d.key, d.value
        );
    }
}
