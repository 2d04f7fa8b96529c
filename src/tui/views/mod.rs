//! The explorer's views, one file each, each with its state, its key table, its update
//! and its render (`view` says what a view is). The App keeps them on a stack above the
//! pairs list and sends each action to the view on top.
//!
//! The pairs list (`list`) holds two parts with key tables of their own, the filter
//! (`filter`) and the tuning panel (`tuning`), and shows the loading view (`loading`)
//! until it has pairs. From it open the diff, the neighbours, the clusters (then their
//! members and heatmap) and the export prompt; the help opens over any of them.

use crate::tui::keys::Context;

/// Declares the view modules, and the list of their key tables (each module's `KEYS`),
/// from one list of names: a new view is a file and its name here.
macro_rules! views {
    ($($view:ident),* $(,)?; also $($extra:path),* $(,)?) => {
        $(pub mod $view;)*

        /// Every view's key table (and a view's other tables): `[explorer.keys]` remaps
        /// them all (`keys::install`), the tests check them all.
        pub static KEY_TABLES: &[Context] = &[$(&$view::KEYS,)* $(&$extra),*];
    };
}

views!(
    clusters, diff, export, filter, heatmap, help, list, loading, members, neighbours, pairs_file,
    review, tuning;
    also diff::REVIEW_KEYS,
);

/// What a view is, and what it may ask of the App.
pub mod view;

/// A view's job: the one generic slot every view keeps its background work in.
mod slot;

/// Ids read from a file, found in the index on screen (the review, the pairs file).
mod id_pairs;

/// Why no id of a list names a document of the corpus (the review, the pairs file).
mod unmatched;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::keys::{Action, Key, bindings, footer, map_event, map_key};
    use ratatui::crossterm::event::{
        Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind,
    };

    fn press(c: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(c, m)
    }

    #[test]
    fn same_letter_means_different_things_per_view() {
        let n = press(KeyCode::Char('n'), KeyModifiers::NONE);
        assert_eq!(map_key(&list::KEYS, &n), Some(Action::Neighbours));
        assert_eq!(map_key(&diff::KEYS, &n), Some(Action::NextPair));
        assert_eq!(map_key(&filter::KEYS, &n), Some(Action::FilterChar('n')));
    }

    /// A key that moves in one view (j/k, h/l, g/G, n/p, ...) starts no heavy work in
    /// another: a habit from one view must not re-index, re-sketch or re-band in the next
    /// (issue 28: k moved up in the list and re-indexed in the tuning panel).
    #[test]
    fn no_key_that_moves_in_a_view_starts_heavy_work_in_another() {
        use Action::*;
        let moves = [
            Up, Down, Left, Right, PageUp, PageDown, Top, Bottom, NextPair, PrevPair, NextChange,
            PrevChange,
        ];
        let heavy = [
            ShingleUp,
            ShingleDown,
            ToggleUnit,
            SwitchSketch,
            SwitchMethod,
            BandsUp,
            BandsDown,
            RowsUp,
            RowsDown,
            ThresholdBanding,
        ];
        let moving: Vec<Key> = KEY_TABLES
            .iter()
            .flat_map(|&ctx| bindings(ctx).iter())
            .filter(|b| moves.contains(&b.action))
            .flat_map(|b| b.keys.iter().copied())
            .collect();
        for &ctx in KEY_TABLES {
            for b in bindings(ctx).iter().filter(|b| heavy.contains(&b.action)) {
                for key in b.keys {
                    assert!(
                        !moving.contains(key),
                        "{ctx:?}: {key:?} moves elsewhere, {:?} here",
                        b.action
                    );
                }
            }
        }
        // In the tuning panel k and j move in the list, as with the panel closed; the
        // shingle size is + and -.
        let key = |c| press(KeyCode::Char(c), KeyModifiers::NONE);
        for ctx in [&list::KEYS, &tuning::KEYS] {
            assert_eq!(map_key(ctx, &key('k')), Some(Action::Up), "{ctx:?}");
            assert_eq!(map_key(ctx, &key('j')), Some(Action::Down), "{ctx:?}");
        }
        assert_eq!(map_key(&tuning::KEYS, &key('+')), Some(Action::ShingleUp));
        assert_eq!(map_key(&tuning::KEYS, &key('-')), Some(Action::ShingleDown));
    }

    #[test]
    fn quit_everywhere_but_q_is_text_in_the_filter() {
        let q = press(KeyCode::Char('q'), KeyModifiers::NONE);
        let ctrl_c = press(KeyCode::Char('c'), KeyModifiers::CONTROL);
        for ctx in [
            &loading::KEYS,
            &list::KEYS,
            &tuning::KEYS,
            &diff::KEYS,
            &help::KEYS,
        ] {
            assert_eq!(map_key(ctx, &q), Some(Action::Quit), "{ctx:?}");
            assert_eq!(map_key(ctx, &ctrl_c), Some(Action::Quit), "{ctx:?}");
        }
        assert_eq!(map_key(&filter::KEYS, &q), Some(Action::FilterChar('q')));
        assert_eq!(map_key(&filter::KEYS, &ctrl_c), Some(Action::Quit));
    }

    #[test]
    fn releases_and_unasked_mouse_are_ignored() {
        let mut rel = press(KeyCode::Char('q'), KeyModifiers::NONE);
        rel.kind = KeyEventKind::Release;
        assert_eq!(map_event(&list::KEYS, &Event::Key(rel), true), None);
        let wheel = Event::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollDown,
            column: 0,
            row: 0,
            modifiers: KeyModifiers::NONE,
        });
        assert_eq!(map_event(&list::KEYS, &wheel, false), None);
        assert_eq!(
            map_event(&list::KEYS, &wheel, true),
            Some(Action::WheelDown)
        );
    }

    #[test]
    fn every_table_has_a_footer_and_documented_bindings() {
        for &ctx in KEY_TABLES {
            assert!(!footer(ctx).is_empty(), "{ctx:?}");
            for b in bindings(ctx) {
                assert!(
                    b.label.is_empty() || !b.help.is_empty(),
                    "{ctx:?} {:?}",
                    b.action
                );
            }
        }
        // No key is bound twice in one table (the first would silently win).
        for &ctx in KEY_TABLES {
            let keys: Vec<Key> = bindings(ctx)
                .iter()
                .flat_map(|b| b.keys.iter().copied())
                .collect();
            for (i, x) in keys.iter().enumerate() {
                assert!(!keys[i + 1..].contains(x), "{ctx:?}: {x:?} bound twice");
            }
        }
    }

    #[test]
    fn every_key_table_has_a_name_of_its_own() {
        let names: Vec<&str> = KEY_TABLES.iter().map(|t| t.name).collect();
        for (i, name) in names.iter().enumerate() {
            assert!(!names[i + 1..].contains(name), "{name} twice");
        }
    }
}
