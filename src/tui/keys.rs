//! Actions and the key table: the one place that says which key does what in which
//! view. The footer and the help overlay are generated from these tables, so what the
//! explorer documents is what it does.
//!
//! `[explorer.keys]` in the config file replaces an action's default keys in every
//! table ([`install`]); the footer and the help, generated from the tables, then show
//! the user's keys. The tables in force are per thread (the UI thread; each test its
//! own), so rendering can keep asking for them by view alone.

use crate::output::keyspec::KeyStroke;
use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind,
};
use std::cell::Cell;
use std::collections::BTreeMap;

/// Everything the user can ask for. `App::update` is the only consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Quit,
    ToggleHelp,
    Up,
    Down,
    /// Sideways (the heatmap's cursor).
    Left,
    Right,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// Open the selected pair's diff.
    Open,
    /// Leave the current view or overlay.
    Back,
    NextPair,
    PrevPair,
    NextChange,
    PrevChange,
    StartFilter,
    FilterChar(char),
    FilterBackspace,
    /// Enter while typing a filter: keep it.
    FilterKeep,
    /// Esc while typing a filter: clear it.
    FilterClear,
    CycleSort,
    ToggleTuning,
    BandsUp,
    BandsDown,
    RowsUp,
    RowsDown,
    ShingleUp,
    ShingleDown,
    /// Word ↔ character shingles (re-indexes, with that unit's k).
    ToggleUnit,
    SimUp,
    SimDown,
    /// The nearest neighbours of the selected pair's first (left) document.
    Neighbours,
    /// The nearest neighbours of its second (right) document.
    NeighboursOther,
    /// The clusters of the listed pairs.
    Clusters,
    /// The similarity heatmap of the selected cluster.
    Heatmap,
    /// Write the list on screen (pairs or clusters) to a file.
    Export,
    /// Switch how candidates are found: MinHash LSH or SimHash.
    SwitchMethod,
    /// Mouse wheel (only delivered when mouse capture is on).
    WheelUp,
    WheelDown,
    Resize(u16, u16),
}

/// Which table applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    Loading,
    List,
    Filter,
    Tuning,
    Diff,
    Help,
    Neighbours,
    Clusters,
    /// One cluster's members.
    Members,
    Heatmap,
    /// Typing the export file's name.
    Prompt,
}

impl Context {
    /// Every view (tests check each one's keys).
    #[cfg(test)]
    pub const ALL: [Context; 11] = [
        Context::Loading,
        Context::List,
        Context::Filter,
        Context::Tuning,
        Context::Diff,
        Context::Help,
        Context::Neighbours,
        Context::Clusters,
        Context::Members,
        Context::Heatmap,
        Context::Prompt,
    ];

    /// Characters are text here (a filter, a file name), not commands.
    pub fn is_text_entry(self) -> bool {
        matches!(self, Context::Filter | Context::Prompt)
    }

    pub fn name(self) -> &'static str {
        match self {
            Context::Loading => "Indexing",
            Context::List => "Pairs",
            Context::Filter => "Filter",
            Context::Tuning => "Tuning",
            Context::Diff => "Diff",
            Context::Help => "Help",
            Context::Neighbours => "Neighbours",
            Context::Clusters => "Clusters",
            Context::Members => "Cluster members",
            Context::Heatmap => "Heatmap",
            Context::Prompt => "Export",
        }
    }
}

/// A key: a code and the modifiers that must be held (Shift is implied by the
/// character for letters and ignored for characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key(pub KeyCode, pub KeyModifiers);

const fn k(c: char) -> Key {
    Key(KeyCode::Char(c), KeyModifiers::NONE)
}
const fn code(c: KeyCode) -> Key {
    Key(c, KeyModifiers::NONE)
}
const CTRL_C: Key = Key(KeyCode::Char('c'), KeyModifiers::CONTROL);

/// One row of a key table.
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    pub keys: &'static [Key],
    /// How the keys are written in the footer and the help.
    pub label: &'static str,
    pub action: Action,
    /// Short name (the footer).
    pub name: &'static str,
    /// One line for the help overlay.
    pub help: &'static str,
    /// Shown in the footer (the rest only in the help).
    pub footer: bool,
}

const fn b(
    keys: &'static [Key],
    label: &'static str,
    action: Action,
    name: &'static str,
    help: &'static str,
    footer: bool,
) -> Binding {
    Binding {
        keys,
        label,
        action,
        name,
        help,
        footer,
    }
}

const UP: Key = code(KeyCode::Up);
const DOWN: Key = code(KeyCode::Down);
const PGUP: Key = code(KeyCode::PageUp);
const PGDN: Key = code(KeyCode::PageDown);
const HOME: Key = code(KeyCode::Home);
const END: Key = code(KeyCode::End);
const ENTER: Key = code(KeyCode::Enter);
const ESC: Key = code(KeyCode::Esc);

#[rustfmt::skip]
const DEFAULT_GLOBAL: &[Binding] = &[
    b(&[k('?')], "?", Action::ToggleHelp, "help", "show or hide this help", true),
    b(&[k('q'), CTRL_C], "q", Action::Quit, "quit", "quit (Ctrl-C too), cancelling any work", true),
];

const DEFAULT_LOADING: &[Binding] = &[];

#[rustfmt::skip]
const DEFAULT_LIST: &[Binding] = &[
    b(&[UP, k('k')], "↑/k", Action::Up, "up", "select the previous pair", false),
    b(&[DOWN, k('j')], "↓/j", Action::Down, "down", "select the next pair", true),
    b(&[PGUP], "PgUp", Action::PageUp, "page up", "one page up", false),
    b(&[PGDN], "PgDn", Action::PageDown, "page down", "one page down", false),
    b(&[k('g'), HOME], "g/Home", Action::Top, "top", "first pair", false),
    b(&[k('G'), END], "G/End", Action::Bottom, "bottom", "last pair", false),
    b(&[ENTER], "Enter", Action::Open, "diff", "open the pair side by side", true),
    b(&[k('/')], "/", Action::StartFilter, "filter", "filter by path substring (capitals: case-sensitive)", true),
    b(&[k('s')], "s", Action::CycleSort, "sort", "sort by exact J, estimate, or path", true),
    b(&[k('t')], "t", Action::ToggleTuning, "tune", "open the tuning panel (b, r, k, S-curve, recall)", true),
    b(&[k('b')], "b/B", Action::BandsUp, "bands", "bands b +1 / −1 (re-bands at once)", false),
    b(&[k('B')], "", Action::BandsDown, "", "", false),
    b(&[k('r')], "r/R", Action::RowsUp, "rows", "rows per band r +1 / −1", false),
    b(&[k('R')], "", Action::RowsDown, "", "", false),
    b(&[k('n')], "n/N", Action::Neighbours, "neighbours", "nearest neighbours of the left / right document", true),
    b(&[k('N')], "", Action::NeighboursOther, "", "", false),
    b(&[k('c')], "c", Action::Clusters, "clusters", "clusters of the listed pairs (union-find at a threshold)", true),
    b(&[k('e')], "e", Action::Export, "export", "write the listed pairs to a CSV or JSON Lines file", false),
    b(&[k('m')], "m", Action::SwitchMethod, "method", "switch candidates between MinHash LSH and SimHash (Hamming column)", false),
    b(&[ESC], "Esc", Action::Back, "clear filter", "clear the filter", false),
];

#[rustfmt::skip]
const DEFAULT_FILTER: &[Binding] = &[
    b(&[ENTER], "Enter", Action::FilterKeep, "keep", "keep the filter and go back to the list", true),
    b(&[ESC], "Esc", Action::FilterClear, "clear", "clear the filter", true),
    b(&[code(KeyCode::Backspace)], "⌫", Action::FilterBackspace, "delete", "delete the last character", true),
    b(&[UP], "↑", Action::Up, "up", "select the previous pair", false),
    b(&[DOWN], "↓", Action::Down, "down", "select the next pair", false),
];

/// In the tuning panel the letters tune; the arrows still move in the list.
#[rustfmt::skip]
const DEFAULT_TUNING: &[Binding] = &[
    b(&[k('b')], "b/B", Action::BandsUp, "bands±", "bands b +1 / −1: re-bands the stored signatures at once", true),
    b(&[k('B')], "", Action::BandsDown, "", "", false),
    b(&[k('r')], "r/R", Action::RowsUp, "rows±", "rows per band r +1 / −1 (hashes more if b·r needs it)", true),
    b(&[k('R')], "", Action::RowsDown, "", "", false),
    b(&[k('k')], "k/K", Action::ShingleUp, "k±", "shingle size k +1 / −1: re-indexes in the background", true),
    b(&[k('K')], "", Action::ShingleDown, "", "", false),
    b(&[k('u')], "u", Action::ToggleUnit, "unit", "shingle unit word ↔ char: re-indexes in the background; each unit keeps its own k (char starts at 9, word at 5)", true),
    b(&[code(KeyCode::Right), k('>')], "←/→", Action::SimUp, "s±", "move the similarity s where recall is shown (±0.05)", true),
    b(&[code(KeyCode::Left), k('<')], "", Action::SimDown, "", "", false),
    b(&[UP], "↑/↓", Action::Up, "", "move in the pair list", false),
    b(&[DOWN], "", Action::Down, "", "", false),
    b(&[PGUP], "PgUp", Action::PageUp, "", "one page up", false),
    b(&[PGDN], "PgDn", Action::PageDown, "", "one page down", false),
    b(&[k('g'), HOME], "g/Home", Action::Top, "", "first pair", false),
    b(&[k('G'), END], "G/End", Action::Bottom, "", "last pair", false),
    b(&[ENTER], "Enter", Action::Open, "diff", "open the selected pair side by side", false),
    b(&[k('s')], "s", Action::CycleSort, "sort", "cycle the sort", false),
    b(&[k('/')], "/", Action::StartFilter, "filter", "filter by path substring", false),
    b(&[k('t'), ESC], "t/Esc", Action::ToggleTuning, "close", "close the tuning panel", true),
];

#[rustfmt::skip]
const DEFAULT_DIFF: &[Binding] = &[
    b(&[UP, k('k')], "↑/↓", Action::Up, "scroll", "scroll both sides together (j/k too)", true),
    b(&[DOWN, k('j')], "", Action::Down, "", "", false),
    b(&[PGUP], "PgUp", Action::PageUp, "", "one page up", false),
    b(&[PGDN, code(KeyCode::Char(' '))], "PgDn/Space", Action::PageDown, "", "one page down", false),
    b(&[k('g'), HOME], "g/Home", Action::Top, "", "top", false),
    b(&[k('G'), END], "G/End", Action::Bottom, "", "bottom", false),
    b(&[k(']')], "]/[", Action::NextChange, "change", "jump to the next / previous difference", true),
    b(&[k('[')], "", Action::PrevChange, "", "", false),
    b(&[k('n')], "n/p", Action::NextPair, "pair", "next / previous pair, in list order", true),
    b(&[k('p')], "", Action::PrevPair, "", "", false),
    b(&[ESC, code(KeyCode::Backspace)], "Esc", Action::Back, "back", "back to the pair list", true),
];

/// Moving in a list view: the same keys everywhere.
macro_rules! list_moves {
    ($what:literal) => {
        [
            b(
                &[UP, k('k')],
                "↑/↓",
                Action::Up,
                "move",
                concat!("select the previous / next ", $what, " (j/k too)"),
                true,
            ),
            b(&[DOWN, k('j')], "", Action::Down, "", "", false),
            b(
                &[PGUP],
                "PgUp/PgDn",
                Action::PageUp,
                "",
                "one page up / down",
                false,
            ),
            b(&[PGDN], "", Action::PageDown, "", "", false),
            b(
                &[k('g'), HOME],
                "g/G",
                Action::Top,
                "",
                "first / last (Home/End too)",
                false,
            ),
            b(&[k('G'), END], "", Action::Bottom, "", "", false),
        ]
    };
}

#[rustfmt::skip]
const DEFAULT_NEIGHBOURS: &[Binding] = &{
    let m = list_moves!("neighbour");
    [
        m[0], m[1], m[2], m[3], m[4], m[5],
        b(&[ENTER], "Enter", Action::Open, "diff", "the document and the neighbour side by side", true),
        b(&[k('n')], "n", Action::Neighbours, "their neighbours", "the neighbours of the selected neighbour", true),
        b(&[ESC, code(KeyCode::Backspace)], "Esc", Action::Back, "back", "back to where you came from", true),
    ]
};

#[rustfmt::skip]
const DEFAULT_CLUSTERS: &[Binding] = &{
    let m = list_moves!("cluster");
    [
        m[0], m[1], m[2], m[3], m[4], m[5],
        b(&[ENTER], "Enter", Action::Open, "members", "the cluster's members, its representative first", true),
        b(&[k('h')], "h", Action::Heatmap, "heatmap", "the similarity of every pair of members", true),
        b(&[code(KeyCode::Right), k('>')], "←/→", Action::SimUp, "threshold±", "the clusters' threshold on exact J (±0.05)", true),
        b(&[code(KeyCode::Left), k('<')], "", Action::SimDown, "", "", false),
        b(&[k('e')], "e", Action::Export, "export", "write the clusters to a CSV or JSON Lines file", true),
        b(&[ESC, code(KeyCode::Backspace)], "Esc", Action::Back, "back", "back to the pair list", true),
    ]
};

#[rustfmt::skip]
const DEFAULT_MEMBERS: &[Binding] = &{
    let m = list_moves!("member");
    [
        m[0], m[1], m[2], m[3], m[4], m[5],
        b(&[ENTER], "Enter", Action::Open, "diff", "the representative and the member side by side", true),
        b(&[k('n')], "n", Action::Neighbours, "neighbours", "the nearest neighbours of the member", true),
        b(&[k('h')], "h", Action::Heatmap, "heatmap", "the similarity of every pair of members", true),
        b(&[ESC, code(KeyCode::Backspace)], "Esc", Action::Back, "back", "back to the clusters", true),
    ]
};

#[rustfmt::skip]
const DEFAULT_HEATMAP: &[Binding] = &[
    b(&[UP, k('k')], "←↑↓→", Action::Up, "move", "move the cursor (h/j/k/l too)", true),
    b(&[DOWN, k('j')], "", Action::Down, "", "", false),
    b(&[code(KeyCode::Left), k('h')], "", Action::Left, "", "", false),
    b(&[code(KeyCode::Right), k('l')], "", Action::Right, "", "", false),
    b(&[ENTER], "Enter", Action::Open, "diff", "the pair under the cursor side by side", true),
    b(&[ESC, code(KeyCode::Backspace)], "Esc", Action::Back, "back", "back to the clusters", true),
];

#[rustfmt::skip]
const DEFAULT_PROMPT: &[Binding] = &[
    b(&[ENTER], "Enter", Action::FilterKeep, "write", "write the file (.jsonl/.ndjson: JSON Lines, else CSV)", true),
    b(&[ESC], "Esc", Action::FilterClear, "cancel", "cancel the export", true),
    b(&[code(KeyCode::Backspace)], "⌫", Action::FilterBackspace, "delete", "delete the last character", true),
];

#[rustfmt::skip]
const DEFAULT_HELP: &[Binding] = &[
    b(&[ESC, k('?')], "Esc/?", Action::Back, "close", "close the help", true),
    b(&[UP, k('k')], "↑/↓", Action::Up, "scroll", "scroll the help", false),
    b(&[DOWN, k('j')], "", Action::Down, "", "", false),
];

/// The action names of `[explorer.keys]` (`output::keyspec::ACTIONS`): the variants in
/// snake_case, less text entry, the wheel and resizing.
pub const NAMES: &[(&str, Action)] = &[
    ("quit", Action::Quit),
    ("toggle_help", Action::ToggleHelp),
    ("up", Action::Up),
    ("down", Action::Down),
    ("left", Action::Left),
    ("right", Action::Right),
    ("page_up", Action::PageUp),
    ("page_down", Action::PageDown),
    ("top", Action::Top),
    ("bottom", Action::Bottom),
    ("open", Action::Open),
    ("back", Action::Back),
    ("next_pair", Action::NextPair),
    ("prev_pair", Action::PrevPair),
    ("next_change", Action::NextChange),
    ("prev_change", Action::PrevChange),
    ("start_filter", Action::StartFilter),
    ("cycle_sort", Action::CycleSort),
    ("toggle_tuning", Action::ToggleTuning),
    ("bands_up", Action::BandsUp),
    ("bands_down", Action::BandsDown),
    ("rows_up", Action::RowsUp),
    ("rows_down", Action::RowsDown),
    ("shingle_up", Action::ShingleUp),
    ("shingle_down", Action::ShingleDown),
    ("toggle_unit", Action::ToggleUnit),
    ("sim_up", Action::SimUp),
    ("sim_down", Action::SimDown),
    ("neighbours", Action::Neighbours),
    ("neighbours_other", Action::NeighboursOther),
    ("clusters", Action::Clusters),
    ("heatmap", Action::Heatmap),
    ("export", Action::Export),
    ("switch_method", Action::SwitchMethod),
];

impl Action {
    /// The config file's name for the action, if it takes keys.
    pub fn name(self) -> Option<&'static str> {
        NAMES.iter().find(|(_, a)| *a == self).map(|(n, _)| *n)
    }
}

/// Every view's table.
struct Tables {
    global: &'static [Binding],
    loading: &'static [Binding],
    list: &'static [Binding],
    filter: &'static [Binding],
    tuning: &'static [Binding],
    diff: &'static [Binding],
    help: &'static [Binding],
    neighbours: &'static [Binding],
    clusters: &'static [Binding],
    members: &'static [Binding],
    heatmap: &'static [Binding],
    prompt: &'static [Binding],
}

static DEFAULTS: Tables = Tables {
    global: DEFAULT_GLOBAL,
    loading: DEFAULT_LOADING,
    list: DEFAULT_LIST,
    filter: DEFAULT_FILTER,
    tuning: DEFAULT_TUNING,
    diff: DEFAULT_DIFF,
    help: DEFAULT_HELP,
    neighbours: DEFAULT_NEIGHBOURS,
    clusters: DEFAULT_CLUSTERS,
    members: DEFAULT_MEMBERS,
    heatmap: DEFAULT_HEATMAP,
    prompt: DEFAULT_PROMPT,
};

thread_local! {
    static TABLES: Cell<&'static Tables> = const { Cell::new(&DEFAULTS) };
}

fn tables() -> &'static Tables {
    TABLES.with(|t| t.get())
}

/// Installs `[explorer.keys]` (action name → keys) for this thread: each named action's
/// default keys are replaced by these in every table, and the labels of the rows
/// changed are written from the new keys. Called once when the explorer starts (the
/// tables are leaked: they live as long as the explorer); an empty map restores the
/// defaults.
pub fn install(keys: &BTreeMap<&'static str, Vec<KeyStroke>>) {
    let tables: &'static Tables = if keys.is_empty() {
        &DEFAULTS
    } else {
        Box::leak(Box::new(Tables {
            global: remap(DEFAULT_GLOBAL, keys, true),
            loading: remap(DEFAULT_LOADING, keys, true),
            list: remap(DEFAULT_LIST, keys, true),
            // Typing a filter, characters are text: only other keys move.
            filter: remap(DEFAULT_FILTER, keys, false),
            tuning: remap(DEFAULT_TUNING, keys, true),
            diff: remap(DEFAULT_DIFF, keys, true),
            help: remap(DEFAULT_HELP, keys, true),
            neighbours: remap(DEFAULT_NEIGHBOURS, keys, true),
            clusters: remap(DEFAULT_CLUSTERS, keys, true),
            members: remap(DEFAULT_MEMBERS, keys, true),
            heatmap: remap(DEFAULT_HEATMAP, keys, true),
            // Typing a file name: characters are text.
            prompt: remap(DEFAULT_PROMPT, keys, false),
        }))
    };
    TABLES.with(|t| t.set(tables));
}

/// A key a text field takes as text.
fn is_text(key: &Key) -> bool {
    matches!(key.0, KeyCode::Char(_))
        && !key.1.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

/// How a key is written in the footer and the help (as the default labels write it).
fn key_label(key: &Key) -> String {
    if key.1.is_empty() {
        let named = match key.0 {
            KeyCode::Up => "↑",
            KeyCode::Down => "↓",
            KeyCode::Left => "←",
            KeyCode::Right => "→",
            KeyCode::PageUp => "PgUp",
            KeyCode::PageDown => "PgDn",
            KeyCode::Home => "Home",
            KeyCode::End => "End",
            KeyCode::Enter => "Enter",
            KeyCode::Esc => "Esc",
            KeyCode::Backspace => "⌫",
            KeyCode::Tab => "Tab",
            KeyCode::Char(' ') => "Space",
            KeyCode::Char(c) => return c.to_string(),
            _ => "",
        };
        if !named.is_empty() {
            return named.to_string();
        }
    }
    KeyStroke {
        code: key.0,
        modifiers: key.1,
    }
    .to_string()
}

/// A table with the user's keys in place of the defaults of the actions they name.
fn remap(
    table: &'static [Binding],
    keys: &BTreeMap<&'static str, Vec<KeyStroke>>,
    text: bool,
) -> &'static [Binding] {
    let mut rows = table.to_vec();
    let mut changed = vec![false; rows.len()];
    for (row, changed) in rows.iter_mut().zip(&mut changed) {
        let Some(strokes) = row.action.name().and_then(|n| keys.get(n)) else {
            continue;
        };
        let new: Vec<Key> = strokes
            .iter()
            .map(|s| Key(s.code, s.modifiers))
            .filter(|k| text || !is_text(k))
            .collect();
        row.keys = Box::leak(new.into_boxed_slice());
        if row.action == Action::Quit {
            row.help = "quit, cancelling any work";
        }
        *changed = true;
    }
    // A row with a label and the unlabelled rows after it are one entry ("b/B"): its
    // label is rewritten if any of them changed.
    let mut start = 0;
    while start < rows.len() {
        let end = start
            + 1
            + rows[start + 1..]
                .iter()
                .take_while(|b| b.label.is_empty())
                .count();
        if !rows[start].label.is_empty() && changed[start..end].iter().any(|c| *c) {
            let group = &rows[start..end];
            let parts: Vec<String> = if group.len() == 1 {
                group[0].keys.iter().map(key_label).collect()
            } else {
                group
                    .iter()
                    .filter_map(|b| b.keys.first().map(key_label))
                    .collect()
            };
            rows[start].label = Box::leak(parts.join("/").into_boxed_str());
        }
        start = end;
    }
    Box::leak(rows.into_boxed_slice())
}

/// The global table in force (`keys::GLOBAL.iter()`), like the views' [`table`]s.
pub struct Global;
pub const GLOBAL: Global = Global;

impl std::ops::Deref for Global {
    type Target = [Binding];
    fn deref(&self) -> &[Binding] {
        tables().global
    }
}

pub fn table(ctx: Context) -> &'static [Binding] {
    let t = tables();
    match ctx {
        Context::Loading => t.loading,
        Context::List => t.list,
        Context::Filter => t.filter,
        Context::Tuning => t.tuning,
        Context::Diff => t.diff,
        Context::Help => t.help,
        Context::Neighbours => t.neighbours,
        Context::Clusters => t.clusters,
        Context::Members => t.members,
        Context::Heatmap => t.heatmap,
        Context::Prompt => t.prompt,
    }
}

fn matches(key: &Key, ev: &KeyEvent) -> bool {
    let relevant = KeyModifiers::CONTROL | KeyModifiers::ALT;
    if key.0 != ev.code {
        return false;
    }
    match key.0 {
        // Letters carry Shift in the character itself; ignore it.
        KeyCode::Char(_) => ev.modifiers & relevant == key.1,
        _ => ev.modifiers & (relevant | KeyModifiers::SHIFT) == key.1,
    }
}

fn lookup(table: &[Binding], ev: &KeyEvent) -> Option<Action> {
    table
        .iter()
        .find(|b| b.keys.iter().any(|k| matches(k, ev)))
        .map(|b| b.action)
}

/// Maps a terminal event to an action in a context. Key releases and repeats of other
/// platforms are ignored: only presses act.
pub fn map_event(ctx: Context, ev: &Event, mouse: bool) -> Option<Action> {
    match ev {
        Event::Key(key) if key.kind == KeyEventKind::Press => map_key(ctx, key),
        Event::Mouse(MouseEvent { kind, .. }) if mouse => match kind {
            MouseEventKind::ScrollUp => Some(Action::WheelUp),
            MouseEventKind::ScrollDown => Some(Action::WheelDown),
            _ => None,
        },
        Event::Resize(w, h) => Some(Action::Resize(*w, *h)),
        _ => None,
    }
}

pub fn map_key(ctx: Context, ev: &KeyEvent) -> Option<Action> {
    if ctx.is_text_entry() {
        // Typing: every printable character is text, even q and ?; Ctrl-C (the quit
        // keys that aren't text) still quits.
        let quit = tables()
            .global
            .iter()
            .filter(|b| b.action == Action::Quit)
            .flat_map(|b| b.keys)
            .any(|k| !is_text(k) && matches(k, ev));
        if quit {
            return Some(Action::Quit);
        }
        if let Some(a) = lookup(table(ctx), ev) {
            return Some(a);
        }
        if let KeyCode::Char(c) = ev.code
            && !ev
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return Some(Action::FilterChar(c));
        }
        return None;
    }
    lookup(table(ctx), ev).or_else(|| lookup(tables().global, ev))
}

/// The footer's entries for a context: (label, name).
#[cfg(test)]
pub fn footer(ctx: Context) -> Vec<Entry> {
    let (mut local, global) = footer_parts(ctx);
    local.extend(global);
    local
}

/// A footer entry: (key label, short name).
pub type Entry = (&'static str, &'static str);

/// The footer's entries in two parts: the view's own keys, then the global ones (help,
/// quit), which a narrow footer keeps and drops view keys for.
pub fn footer_parts(ctx: Context) -> (Vec<Entry>, Vec<Entry>) {
    let globals: &[Binding] = if ctx.is_text_entry() {
        &[]
    } else {
        tables().global
    };
    let local = table(ctx);
    // A global key the view binds itself (? closes the help) is listed once.
    let shadowed = |g: &Binding| {
        g.keys
            .iter()
            .any(|k| local.iter().any(|b| b.keys.contains(k)))
    };
    // An action unbound by the config file has no label left: nothing to show.
    let shown = |b: &&Binding| b.footer && !b.label.is_empty();
    (
        local
            .iter()
            .filter(shown)
            .map(|b| (b.label, b.name))
            .collect(),
        globals
            .iter()
            .filter(|g| !shadowed(g))
            .filter(shown)
            .map(|b| (b.label, b.name))
            .collect(),
    )
}

/// The help's entries for a context: (label, description), skipping continuation rows
/// (a second key of a pair is documented on the first one's line).
pub fn help(ctx: Context) -> Vec<(&'static str, &'static str)> {
    help_where(ctx, |_| true)
}

/// The help's entries for the actions of a context that `keep` selects.
pub fn help_where(
    ctx: Context,
    keep: impl Fn(Action) -> bool,
) -> Vec<(&'static str, &'static str)> {
    table(ctx)
        .iter()
        .filter(|b| !b.label.is_empty() && keep(b.action))
        .map(|b| (b.label, b.help))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(c: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(c, m)
    }

    #[test]
    fn same_letter_means_different_things_per_view() {
        let kk = press(KeyCode::Char('k'), KeyModifiers::NONE);
        assert_eq!(map_key(Context::List, &kk), Some(Action::Up));
        assert_eq!(map_key(Context::Tuning, &kk), Some(Action::ShingleUp));
        assert_eq!(map_key(Context::Filter, &kk), Some(Action::FilterChar('k')));
        let big_k = press(KeyCode::Char('K'), KeyModifiers::SHIFT);
        assert_eq!(map_key(Context::Tuning, &big_k), Some(Action::ShingleDown));
    }

    #[test]
    fn quit_everywhere_but_q_is_text_in_the_filter() {
        let q = press(KeyCode::Char('q'), KeyModifiers::NONE);
        let ctrl_c = press(KeyCode::Char('c'), KeyModifiers::CONTROL);
        for ctx in [
            Context::Loading,
            Context::List,
            Context::Tuning,
            Context::Diff,
            Context::Help,
        ] {
            assert_eq!(map_key(ctx, &q), Some(Action::Quit), "{ctx:?}");
            assert_eq!(map_key(ctx, &ctrl_c), Some(Action::Quit), "{ctx:?}");
        }
        assert_eq!(map_key(Context::Filter, &q), Some(Action::FilterChar('q')));
        assert_eq!(map_key(Context::Filter, &ctrl_c), Some(Action::Quit));
    }

    #[test]
    fn releases_and_unasked_mouse_are_ignored() {
        let mut rel = press(KeyCode::Char('q'), KeyModifiers::NONE);
        rel.kind = KeyEventKind::Release;
        assert_eq!(map_event(Context::List, &Event::Key(rel), true), None);
        let wheel = Event::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollDown,
            column: 0,
            row: 0,
            modifiers: KeyModifiers::NONE,
        });
        assert_eq!(map_event(Context::List, &wheel, false), None);
        assert_eq!(
            map_event(Context::List, &wheel, true),
            Some(Action::WheelDown)
        );
    }

    #[test]
    fn every_table_has_a_footer_and_documented_bindings() {
        for ctx in [
            Context::List,
            Context::Filter,
            Context::Tuning,
            Context::Diff,
            Context::Help,
        ] {
            assert!(!footer(ctx).is_empty(), "{ctx:?}");
            for b in table(ctx) {
                assert!(
                    b.label.is_empty() || !b.help.is_empty(),
                    "{ctx:?} {:?}",
                    b.action
                );
            }
        }
        // No key is bound twice in one table (the first would silently win).
        for ctx in [Context::List, Context::Tuning, Context::Diff, Context::Help] {
            let keys: Vec<Key> = table(ctx)
                .iter()
                .flat_map(|b| b.keys.iter().copied())
                .collect();
            for (i, x) in keys.iter().enumerate() {
                assert!(!keys[i + 1..].contains(x), "{ctx:?}: {x:?} bound twice");
            }
        }
    }
}
