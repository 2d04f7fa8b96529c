//! The config file: defaults for the flags, colour, and the explorer's colours, mouse
//! and keys, in TOML (`default_config.toml` beside this file documents every setting).
//!
//! Values are checked here for their TOML type, and the `[index]` ones again by the
//! flags' own clap parsers when they become defaults (`args::with_config_defaults`), so
//! the file accepts exactly what the command line does. Every problem names the file,
//! the line and the key; all of them are reported at once.

use crate::output::color::ColorChoice;
use crate::output::colorspec::{COLOR_ROLES, ColorSpec};
use crate::output::keyspec::{ACTIONS, KeyStroke};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use toml_edit::{Document, Item, TableLike, Value};

/// The commented default file, printed by `simtui config --default`.
pub const DEFAULT_FILE: &str = include_str!("default_config.toml");

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Integer,
    /// A float, or an integer written without a point.
    Number,
    Text,
    Bool,
}

/// `[index]`: each key is the id of the flag it gives a default to.
const INDEX: &[(&str, Kind)] = &[
    ("k", Kind::Integer),
    ("unit", Kind::Text),
    ("bands", Kind::Integer),
    ("rows", Kind::Integer),
    ("seed", Kind::Integer),
    ("sketch", Kind::Text),
    ("threshold", Kind::Number),
    ("letters_only", Kind::Bool),
    ("stopwords", Kind::Text),
    ("stem", Kind::Text),
    ("memory", Kind::Text),
    ("tmp_dir", Kind::Text),
];

/// An `[index]` setting: the default for the flag `key`, as command-line text.
#[derive(Clone, Debug, PartialEq)]
pub struct FlagDefault {
    pub key: &'static str,
    pub value: String,
    pub line: Option<usize>,
}

/// What a config file says. Empty when there is no file.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The file read, if any.
    pub path: Option<PathBuf>,
    pub defaults: Vec<FlagDefault>,
    pub color: Option<ColorChoice>,
    pub mouse: Option<bool>,
    /// Role (one of [`COLOR_ROLES`]) → colour.
    pub colors: BTreeMap<&'static str, ColorSpec>,
    /// Action (one of [`ACTIONS`]) → the keys that replace its defaults (maybe none).
    pub keys: BTreeMap<&'static str, Vec<KeyStroke>>,
}

impl Config {
    pub fn default_for(&self, key: &str) -> Option<&FlagDefault> {
        self.defaults.iter().find(|d| d.key == key)
    }

    /// `[index] threshold`, for the explorer's starting similarity.
    pub fn threshold(&self) -> Option<f64> {
        self.default_for("threshold")?.value.parse().ok()
    }
}

/// One problem, at a line and key when they are known.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub line: Option<usize>,
    pub key: Option<String>,
    pub message: String,
}

/// Everything wrong with a config file.
#[derive(Debug)]
pub struct ConfigError {
    pub path: PathBuf,
    pub problems: Vec<Problem>,
}

impl fmt::Display for ConfigError {
    /// One line per problem, `FILE:LINE: key `KEY`: MESSAGE`, the form editors jump to.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}", self.path.display())?;
            if let Some(line) = p.line {
                write!(f, ":{line}")?;
            }
            if let Some(key) = &p.key {
                write!(f, ": key `{key}`")?;
            }
            write!(f, ": {}", p.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// Where the config file comes from: an explicit choice must exist, the usual place
/// may be empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Flag,
    Env,
    Default,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub path: PathBuf,
    pub origin: Origin,
}

/// The file to read: `--config FILE`, else `SIMTUI_CONFIG`, else
/// `$XDG_CONFIG_HOME/simtui/config.toml`, else `~/.config/simtui/config.toml` (on every
/// OS, so one dotfile works everywhere). `None` when there is no home to look in.
pub fn locate(flag: Option<&Path>, env: impl Fn(&str) -> Option<OsString>) -> Option<Location> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let at = |path: PathBuf, origin| Some(Location { path, origin });
    if let Some(p) = flag {
        return at(p.to_path_buf(), Origin::Flag);
    }
    if let Some(p) = set("SIMTUI_CONFIG") {
        return at(p, Origin::Env);
    }
    let file = |dir: PathBuf| dir.join("simtui").join("config.toml");
    // The XDG spec says to ignore a relative XDG_CONFIG_HOME.
    if let Some(x) = set("XDG_CONFIG_HOME").filter(|p| p.is_absolute()) {
        return at(file(x), Origin::Default);
    }
    let home = set("HOME").or_else(|| set("USERPROFILE"))?;
    at(file(home.join(".config")), Origin::Default)
}

/// Reads and checks the file; a missing file in the usual place is no config.
/// `check` adds the problems only the flags can see (their parsers' ranges and values),
/// so that every problem in the file is reported at once.
pub fn load(
    at: &Location,
    check: impl FnOnce(&Config) -> Vec<Problem>,
) -> Result<Config, ConfigError> {
    if at.origin == Origin::Default && !reachable(&at.path) {
        return Ok(Config::default());
    }
    let from = match at.origin {
        Origin::Flag => " (given by --config)",
        Origin::Env => " (given by SIMTUI_CONFIG)",
        Origin::Default => "",
    };
    // A regular file within a limit: `--config /dev/zero` or a FIFO is an error, not a
    // read without end or a wait for a writer.
    let limit = crate::input::side_input::CONFIG_LIMIT;
    let text = crate::input::side_input::text(&at.path, limit).map_err(|why| ConfigError {
        path: at.path.clone(),
        problems: vec![Problem {
            line: None,
            key: None,
            message: format!("cannot read the config file{from}: {why}"),
        }],
    })?;
    let (mut config, mut problems) = parse_partial(&text);
    config.path = Some(at.path.clone());
    problems.extend(check(&config));
    if problems.is_empty() {
        return Ok(config);
    }
    problems.sort_by_key(|p| p.line);
    problems.dedup();
    Err(ConfigError {
        path: at.path.clone(),
        problems,
    })
}

/// Whether there may be a file at the usual place: not when there is none, or when a
/// folder on the way cannot be searched (an unreadable `$HOME`) or is a file. No config
/// file there is no error; a file that exists but cannot be read is one.
fn reachable(path: &Path) -> bool {
    use std::io::ErrorKind;
    match std::fs::metadata(path) {
        Ok(_) => true,
        Err(e) => !matches!(
            e.kind(),
            ErrorKind::NotFound | ErrorKind::PermissionDenied | ErrorKind::NotADirectory
        ),
    }
}

/// Parses and checks a config file's text (the tests' entry; `load` reads files).
#[cfg(test)]
pub fn parse(text: &str) -> Result<Config, Vec<Problem>> {
    match parse_partial(text) {
        (config, problems) if problems.is_empty() => Ok(config),
        (_, problems) => Err(problems),
    }
}

/// What is valid in the file, and the problems with the rest (sorted by line).
fn parse_partial(text: &str) -> (Config, Vec<Problem>) {
    let doc = match Document::parse(text) {
        Ok(doc) => doc,
        Err(e) => {
            let line = e.span().map(|s| line_at(text, s.start));
            let problem = Problem {
                line,
                key: line.and_then(|l| key_on_line(text, l)),
                message: e.message().trim().replace('\n', "; "),
            };
            return (Config::default(), vec![problem]);
        }
    };
    let mut walk = Walk {
        text,
        config: Config::default(),
        problems: Vec::new(),
    };
    walk.table("", doc.as_table(), Walk::root);
    walk.problems.sort_by_key(|p| p.line);
    (walk.config, walk.problems)
}

/// The 1-based line of a byte offset.
fn line_at(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The dotted key written on a line (`index.k` for `k = ...` under `[index]`), so a
/// syntax error can name its key too.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let this = lines.get(line - 1)?;
    let (key, _) = this.split_once('=')?;
    let key = key.trim().trim_matches(['"', '\'']);
    if key.is_empty() || key.starts_with('#') {
        return None;
    }
    let section = lines[..line - 1]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('[') && !l.starts_with("[["))
        .and_then(|l| l.get(1..l.find(']')?))
        .map(str::trim);
    Some(match section {
        Some(s) if !s.is_empty() => format!("{s}.{key}"),
        _ => key.to_string(),
    })
}

/// A walk over the document that fills `config` and collects `problems`.
struct Walk<'t> {
    text: &'t str,
    config: Config,
    problems: Vec<Problem>,
}

/// A handler for one key of a table: (walk, dotted key, line, item).
type Entry<'t> = fn(&mut Walk<'t>, &str, Option<usize>, &Item);

impl<'t> Walk<'t> {
    fn problem(&mut self, line: Option<usize>, key: &str, message: impl Into<String>) {
        self.problems.push(Problem {
            line,
            key: Some(key.to_string()),
            message: message.into(),
        });
    }

    /// Calls `entry` for each key of a table, with its dotted name and line.
    fn table(&mut self, prefix: &str, table: &dyn TableLike, entry: Entry<'t>) {
        for (name, item) in table.iter() {
            let span = table
                .get_key_value(name)
                .and_then(|(k, _)| k.span())
                .or_else(|| item.span());
            let line = span.map(|s| line_at(self.text, s.start));
            let dotted = if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{prefix}.{name}")
            };
            entry(self, &dotted, line, item);
        }
    }

    /// Walks a sub-table, or says that `key` must be one.
    fn section(&mut self, key: &str, line: Option<usize>, item: &Item, entry: Entry<'t>) {
        match item.as_table_like() {
            Some(t) => self.table(key, t, entry),
            None => self.problem(
                line,
                key,
                format!("expected a table ([{key}]), found {}", item.type_name()),
            ),
        }
    }

    /// "expected WANT, found VALUE", with the value as written in the file.
    fn expected(&self, want: &str, item: &Item) -> String {
        let written = item.span().and_then(|s| self.text.get(s));
        match written {
            Some(w) if item.is_value() => format!("expected {want}, found {}", w.trim()),
            _ => format!("expected {want}, found a {}", item.type_name()),
        }
    }

    fn unknown(&mut self, line: Option<usize>, key: &str, known: &[&str]) {
        self.problem(
            line,
            key,
            format!("unknown key; known here: {}", known.join(", ")),
        );
    }

    fn root(&mut self, key: &str, line: Option<usize>, item: &Item) {
        match key {
            "index" => self.section(key, line, item, Walk::index),
            "output" => self.section(key, line, item, Walk::output),
            "explorer" => self.section(key, line, item, Walk::explorer),
            _ if INDEX.iter().any(|(k, _)| *k == key) => self.problem(
                line,
                key,
                format!("unknown key; put it under [index] (index.{key})"),
            ),
            _ => self.unknown(line, key, &["index", "output", "explorer"]),
        }
    }

    fn index(&mut self, key: &str, line: Option<usize>, item: &Item) {
        let name = key.rsplit('.').next().unwrap_or(key);
        let Some(&(id, kind)) = INDEX.iter().find(|(k, _)| *k == name) else {
            let known: Vec<&str> = INDEX.iter().map(|(k, _)| *k).collect();
            return self.unknown(line, key, &known);
        };
        let value = item.as_value();
        let text = match (kind, value) {
            (Kind::Integer, Some(Value::Integer(i))) => i.value().to_string(),
            (Kind::Number, Some(Value::Integer(i))) => i.value().to_string(),
            (Kind::Number, Some(Value::Float(f))) => f.value().to_string(),
            (Kind::Text, Some(Value::String(s))) => s.value().clone(),
            (Kind::Bool, Some(Value::Boolean(b))) => b.value().to_string(),
            _ => {
                let want = match kind {
                    Kind::Integer => "an integer",
                    Kind::Number => "a number",
                    Kind::Text => "a string",
                    Kind::Bool => "true or false",
                };
                let message = self.expected(want, item);
                return self.problem(line, key, message);
            }
        };
        // A similarity: the flags check it only when they run, too late to name the line.
        if id == "threshold" && !text.parse::<f64>().is_ok_and(|t| (0.0..=1.0).contains(&t)) {
            return self.problem(line, key, format!("must be between 0 and 1, got {text}"));
        }
        self.config.defaults.push(FlagDefault {
            key: id,
            value: text,
            line,
        });
    }

    fn output(&mut self, key: &str, line: Option<usize>, item: &Item) {
        if key != "output.color" {
            return self.unknown(line, key, &["color"]);
        }
        use clap::ValueEnum;
        match item.as_str().map(|s| ColorChoice::from_str(s, false)) {
            Some(Ok(c)) => self.config.color = Some(c),
            _ => {
                let message = self.expected(r#""auto", "always" or "never""#, item);
                self.problem(line, key, message)
            }
        }
    }

    fn explorer(&mut self, key: &str, line: Option<usize>, item: &Item) {
        match key {
            "explorer.mouse" => match item.as_bool() {
                Some(b) => self.config.mouse = Some(b),
                None => {
                    let message = self.expected("true or false", item);
                    self.problem(line, key, message)
                }
            },
            "explorer.colors" => self.section(key, line, item, Walk::color),
            "explorer.keys" => self.section(key, line, item, Walk::keys),
            _ => self.unknown(line, key, &["mouse", "colors", "keys"]),
        }
    }

    fn color(&mut self, key: &str, line: Option<usize>, item: &Item) {
        let name = key.rsplit('.').next().unwrap_or(key);
        let Some(role) = COLOR_ROLES.iter().find(|r| **r == name) else {
            return self.unknown(line, key, COLOR_ROLES);
        };
        match item.as_str().map(|s| s.parse::<ColorSpec>()) {
            Some(Ok(c)) => {
                self.config.colors.insert(role, c);
            }
            _ => {
                let want = "a colour name, an index 0 to 255 or \"#rrggbb\"";
                let message = self.expected(want, item);
                self.problem(line, key, message)
            }
        }
    }

    fn keys(&mut self, key: &str, line: Option<usize>, item: &Item) {
        let name = key.rsplit('.').next().unwrap_or(key);
        let Some(action) = ACTIONS.iter().find(|a| **a == name) else {
            return self.unknown(line, key, ACTIONS);
        };
        let names: Option<Vec<&str>> = match item.as_value() {
            Some(Value::String(s)) => Some(vec![s.value().as_str()]),
            Some(Value::Array(a)) => a.iter().map(|v| v.as_str()).collect(),
            _ => None,
        };
        let Some(names) = names else {
            let message = self.expected("a key or a list of keys", item);
            return self.problem(line, key, message);
        };
        match names.iter().map(|n| n.parse()).collect() {
            Ok(keys) => {
                self.config.keys.insert(action, keys);
            }
            Err(e) => self.problem(line, key, e),
        }
    }
}

#[cfg(test)]
mod tests;
