//! Actions, and key tables as data: each view says which key does what in a `static`
//! [`KeyTable`] of its own (beside its update, which acts on the actions), written with
//! the helpers here; this file maps keys to actions by those tables. The footer and the
//! help overlay are generated from the same tables, so what the explorer documents is
//! what it does.
//!
//! `[explorer.keys]` in the config file replaces an action's default keys in every
//! table ([`install`]); the footer and the help, generated from the tables, then show
//! the user's keys. The tables in force are per thread (the UI thread; each test its
//! own), so rendering can keep asking for them by view alone.

use crate::output::keyspec::KeyStroke;
use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind,
};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Everything the user can ask for: `App::update` takes the global ones (quit, help,
/// resize) and hands the rest to the view on top.
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
    /// Band as `-t s` does: the banding every command chooses for the similarity s.
    ThresholdBanding,
    /// The nearest neighbours of the selected pair's first (left) document.
    Neighbours,
    /// The nearest neighbours of its second (right) document.
    NeighboursOther,
    /// The clusters of the listed pairs.
    Clusters,
    /// The similarity heatmap of the selected cluster, or of a document and its neighbours.
    Heatmap,
    /// Write the list on screen (pairs or clusters) to a file.
    Export,
    /// Switch how candidates are found: MinHash LSH or SimHash.
    SwitchMethod,
    /// Switch MinHash LSH's sketch: one-permutation hashing or classic MinHash.
    SwitchSketch,
    /// The review: mark the selected removal wrong (or not).
    MarkWrong,
    /// The diff: hard-wrapped paragraphs joined, or the texts' own lines.
    ToggleLines,
    /// Mouse wheel (only delivered when mouse capture is on).
    WheelUp,
    WheelDown,
    Resize(u16, u16),
}

/// A key table: a view's keys (or a part's, such as the filter being typed), its name
/// (the help's title) and whether characters are text there. Each view defines its own
/// as a `static`; `[explorer.keys]` remaps them all ([`install`]).
pub struct KeyTable {
    pub name: &'static str,
    /// Characters are text here (a filter, a file name), not commands.
    pub text_entry: bool,
    /// The bindings before `[explorer.keys]`.
    pub defaults: &'static [Binding],
}

impl KeyTable {
    /// A view's table: `name` in the help, its bindings before `[explorer.keys]`.
    pub const fn new(name: &'static str, defaults: &'static [Binding]) -> KeyTable {
        KeyTable {
            name,
            text_entry: false,
            defaults,
        }
    }

    /// The table while text is typed (a filter, a file name): characters are the text.
    pub const fn typing(name: &'static str, defaults: &'static [Binding]) -> KeyTable {
        KeyTable {
            text_entry: true,
            ..KeyTable::new(name, defaults)
        }
    }
}

/// Which table applies: one of the views' `static` tables, told apart by address.
pub type Context = &'static KeyTable;

impl PartialEq for KeyTable {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl std::fmt::Debug for KeyTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeyTable({:?})", self.name)
    }
}

/// A key: a code and the modifiers that must be held (Shift is implied by the
/// character for letters and ignored for characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key(pub KeyCode, pub KeyModifiers);

/// A character key.
pub const fn k(c: char) -> Key {
    Key(KeyCode::Char(c), KeyModifiers::NONE)
}
/// A key by its code, no modifier held.
pub const fn code(c: KeyCode) -> Key {
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

/// A row of a key table.
pub const fn b(
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

pub const UP: Key = code(KeyCode::Up);
pub const DOWN: Key = code(KeyCode::Down);
pub const PGUP: Key = code(KeyCode::PageUp);
pub const PGDN: Key = code(KeyCode::PageDown);
pub const HOME: Key = code(KeyCode::Home);
pub const END: Key = code(KeyCode::End);
pub const ENTER: Key = code(KeyCode::Enter);
pub const ESC: Key = code(KeyCode::Esc);

/// The keys of every view (but text entry takes characters as text).
#[rustfmt::skip]
pub static GLOBAL: KeyTable = KeyTable::new("Everywhere", &[
    b(&[k('?')], "?", Action::ToggleHelp, "help", "show or hide this help", true),
    b(&[k('q'), CTRL_C], "q", Action::Quit, "quit", "quit (Ctrl-C too), cancelling any work", true),
]);

/// Moving in a list view, the same keys everywhere: the first six rows of the
/// neighbours', clusters' and members' tables (`$what` names a row in the help).
macro_rules! list_moves {
    ($what:literal) => {{
        use $crate::tui::keys::{Action, DOWN, END, HOME, PGDN, PGUP, UP, b, k};
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
    }};
}
pub(crate) use list_moves;

/// The key table of a list view: `$name` in the help, the moves of [`list_moves`] over
/// rows `$what` names, then the view's own bindings.
macro_rules! list_keys {
    ($name:literal, $what:literal, [$($binding:expr),* $(,)?]) => {
        $crate::tui::keys::KeyTable {
            name: $name,
            text_entry: false,
            defaults: &{
                let m = $crate::tui::keys::list_moves!($what);
                [m[0], m[1], m[2], m[3], m[4], m[5], $($binding),*]
            },
        }
    };
}
pub(crate) use list_keys;

/// Esc (or Backspace) leaves a view: `label` in the footer, `help` in the help.
pub const fn back(label: &'static str, help: &'static str) -> Binding {
    const KEYS: &[Key] = &[ESC, code(KeyCode::Backspace)];
    b(KEYS, "Esc", Action::Back, label, help, true)
}

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
    ("threshold_banding", Action::ThresholdBanding),
    ("neighbours", Action::Neighbours),
    ("neighbours_other", Action::NeighboursOther),
    ("clusters", Action::Clusters),
    ("heatmap", Action::Heatmap),
    ("export", Action::Export),
    ("switch_method", Action::SwitchMethod),
    ("switch_sketch", Action::SwitchSketch),
    ("mark_wrong", Action::MarkWrong),
    ("toggle_lines", Action::ToggleLines),
];

impl Action {
    /// The config file's name for the action, if it takes keys.
    pub fn name(self) -> Option<&'static str> {
        NAMES.iter().find(|(_, a)| *a == self).map(|(n, _)| *n)
    }
}

thread_local! {
    /// The tables with `[explorer.keys]` applied, for this thread (the UI thread; each
    /// test its own); a table not here has its defaults.
    static INSTALLED: RefCell<Vec<(Context, &'static [Binding])>> = const { RefCell::new(Vec::new()) };
}

/// The bindings of a table in force on this thread.
pub fn bindings(table: Context) -> &'static [Binding] {
    INSTALLED.with(|i| {
        i.borrow()
            .iter()
            .find(|(t, _)| *t == table)
            .map_or(table.defaults, |(_, b)| *b)
    })
}

/// Installs `[explorer.keys]` (action name → keys) for this thread: each named action's
/// default keys are replaced by these in the global table and every one of `tables`,
/// and the labels of the rows changed are written from the new keys. Called once when
/// the explorer starts (the tables are leaked: they live as long as the explorer); an
/// empty map restores the defaults.
pub fn install(keys: &BTreeMap<&'static str, Vec<KeyStroke>>, tables: &[Context]) {
    let installed = if keys.is_empty() {
        Vec::new()
    } else {
        std::iter::once(&GLOBAL)
            .chain(tables.iter().copied())
            // Typing a filter or a file name, characters are text: only other keys act.
            .map(|t| (t, remap(t.defaults, keys, !t.text_entry)))
            .collect()
    };
    INSTALLED.with(|i| *i.borrow_mut() = installed);
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
    if ctx.text_entry {
        // Typing: every printable character is text, even q and ?; Ctrl-C (the quit
        // keys that aren't text) still quits.
        let quit = bindings(&GLOBAL)
            .iter()
            .filter(|b| b.action == Action::Quit)
            .flat_map(|b| b.keys)
            .any(|k| !is_text(k) && matches(k, ev));
        if quit {
            return Some(Action::Quit);
        }
        if let Some(a) = lookup(bindings(ctx), ev) {
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
    lookup(bindings(ctx), ev).or_else(|| lookup(bindings(&GLOBAL), ev))
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
    let globals: &[Binding] = if ctx.text_entry {
        &[]
    } else {
        bindings(&GLOBAL)
    };
    let local = bindings(ctx);
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
    bindings(ctx)
        .iter()
        .filter(|b| !b.label.is_empty() && keep(b.action))
        .map(|b| (b.label, b.help))
        .collect()
}
