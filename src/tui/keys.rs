//! Actions and the key table: the one place that says which key does what in which
//! view. The footer and the help overlay are generated from these tables, so what the
//! explorer documents is what it does.

use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind,
};

/// Everything the user can ask for. `App::update` is the only consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Quit,
    ToggleHelp,
    Up,
    Down,
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
    SimUp,
    SimDown,
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
}

impl Context {
    pub fn name(self) -> &'static str {
        match self {
            Context::Loading => "Indexing",
            Context::List => "Pairs",
            Context::Filter => "Filter",
            Context::Tuning => "Tuning",
            Context::Diff => "Diff",
            Context::Help => "Help",
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
pub const GLOBAL: &[Binding] = &[
    b(&[k('?')], "?", Action::ToggleHelp, "help", "show or hide this help", true),
    b(&[k('q'), CTRL_C], "q", Action::Quit, "quit", "quit (Ctrl-C too), cancelling any work", true),
];

pub const LOADING: &[Binding] = &[];

#[rustfmt::skip]
pub const LIST: &[Binding] = &[
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
    b(&[ESC], "Esc", Action::Back, "clear filter", "clear the filter", false),
];

#[rustfmt::skip]
pub const FILTER: &[Binding] = &[
    b(&[ENTER], "Enter", Action::FilterKeep, "keep", "keep the filter and go back to the list", true),
    b(&[ESC], "Esc", Action::FilterClear, "clear", "clear the filter", true),
    b(&[code(KeyCode::Backspace)], "⌫", Action::FilterBackspace, "delete", "delete the last character", true),
    b(&[UP], "↑", Action::Up, "up", "select the previous pair", false),
    b(&[DOWN], "↓", Action::Down, "down", "select the next pair", false),
];

/// In the tuning panel the letters tune; the arrows still move in the list.
#[rustfmt::skip]
pub const TUNING: &[Binding] = &[
    b(&[k('b')], "b/B", Action::BandsUp, "bands±", "bands b +1 / −1: re-bands the stored signatures at once", true),
    b(&[k('B')], "", Action::BandsDown, "", "", false),
    b(&[k('r')], "r/R", Action::RowsUp, "rows±", "rows per band r +1 / −1 (hashes more if b·r needs it)", true),
    b(&[k('R')], "", Action::RowsDown, "", "", false),
    b(&[k('k')], "k/K", Action::ShingleUp, "k±", "shingle size k +1 / −1: re-indexes in the background", true),
    b(&[k('K')], "", Action::ShingleDown, "", "", false),
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
pub const DIFF: &[Binding] = &[
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

#[rustfmt::skip]
pub const HELP: &[Binding] = &[
    b(&[ESC, k('?')], "Esc/?", Action::Back, "close", "close the help", true),
    b(&[UP, k('k')], "↑/↓", Action::Up, "scroll", "scroll the help", false),
    b(&[DOWN, k('j')], "", Action::Down, "", "", false),
];

pub fn table(ctx: Context) -> &'static [Binding] {
    match ctx {
        Context::Loading => LOADING,
        Context::List => LIST,
        Context::Filter => FILTER,
        Context::Tuning => TUNING,
        Context::Diff => DIFF,
        Context::Help => HELP,
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
    if ctx == Context::Filter {
        // Typing: every printable character is text, even q and ?; Ctrl-C still quits.
        if matches(&CTRL_C, ev) {
            return Some(Action::Quit);
        }
        if let Some(a) = lookup(FILTER, ev) {
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
    lookup(table(ctx), ev).or_else(|| lookup(GLOBAL, ev))
}

/// The footer's entries for a context: (label, name).
pub fn footer(ctx: Context) -> Vec<(&'static str, &'static str)> {
    let globals: &[Binding] = if ctx == Context::Filter { &[] } else { GLOBAL };
    let local = table(ctx);
    // A global key the view binds itself (? closes the help) is listed once.
    let shadowed = |g: &Binding| {
        g.keys
            .iter()
            .any(|k| local.iter().any(|b| b.keys.contains(k)))
    };
    local
        .iter()
        .chain(globals.iter().filter(|g| !shadowed(g)))
        .filter(|b| b.footer)
        .map(|b| (b.label, b.name))
        .collect()
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
