//! The config file's colours, keys, log and starting threshold.

use super::*;
use crate::output::diag::Log;
use crate::tui::keys::Action;
use crate::tui::options::Settings;
use crate::tui::views;
use crate::tui::views::diff::DiffView;
use crate::tui::views::list::Sort;
use crate::tui::widgets::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Color;
use std::collections::BTreeMap;
use std::sync::Arc;

#[test]
fn config_names_match_actions_and_theme_roles() {
    use crate::output::colorspec::COLOR_ROLES;
    use crate::output::keyspec::ACTIONS;
    // Every action the config file accepts is an Action, and the other way round.
    for name in ACTIONS {
        let found = crate::tui::keys::NAMES.iter().find(|(n, _)| n == name);
        assert!(found.is_some(), "config action {name} is no Action");
        assert_eq!(found.unwrap().1.name(), Some(*name));
    }
    for (name, _) in crate::tui::keys::NAMES {
        assert!(
            ACTIONS.contains(name),
            "{name} is missing from config::ACTIONS"
        );
    }
    // Every action bound in a default table can be rebound, but text entry.
    let global = crate::tui::keys::bindings(&crate::tui::keys::GLOBAL);
    for &ctx in views::KEY_TABLES.iter().filter(|c| !c.text_entry) {
        for b in crate::tui::keys::bindings(ctx).iter().chain(global) {
            assert!(b.action.name().is_some(), "{ctx:?}: {:?}", b.action);
        }
    }
    // Every colour role is a Theme role, and an override of it reaches its style.
    let marker = Color::Rgb(1, 2, 3);
    for role in COLOR_ROLES {
        let style = Theme::new(true).role(role);
        assert!(
            style.is_some(),
            "config colour role {role} is no Theme role"
        );
        assert_ne!(style.unwrap().fg, Some(marker));
        let _i = Installed::new(&[], &[(role, marker)]);
        assert_eq!(
            Theme::new(true).role(role).unwrap().fg,
            Some(marker),
            "{role} ignores its override"
        );
    }
}

#[test]
fn a_remapped_key_drives_the_action_and_shows_in_the_footer_and_help() {
    let (_d, mut app) = loaded((120, 40));
    let _i = Installed::new(&[("cycle_sort", &["o"]), ("bands_down", &["N"])], &[]);
    assert_eq!(app.list().sort(), Sort::Jaccard);
    // The default key no longer sorts; the user's key does.
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(app.list().sort(), Sort::Jaccard);
    press(&mut app, KeyCode::Char('o'));
    assert_eq!(app.list().sort(), Sort::Estimate);
    let f = footer(&app);
    assert!(f.contains(" o sort "), "{f}");
    assert!(!f.contains(" s sort "), "{f}");
    // The help lists the user's key on the action's line.
    app.update(Action::ToggleHelp);
    let s = screen(&app);
    assert!(
        s.lines()
            .any(|l| l.contains("  o ") && l.contains("sort by exact J")),
        "{s}"
    );
    assert!(
        !s.lines()
            .any(|l| l.contains("  s ") && l.contains("sort by")),
        "{s}"
    );
    app.update(Action::Back);
    // A pair of rows ("b/B") is relabelled from both rows' keys, in every view.
    app.update(Action::ToggleTuning);
    let f = footer(&app);
    assert!(f.contains("b/N bands±"), "{f}");
    let bands = app.session().banding().0;
    press(&mut app, KeyCode::Char('N'));
    assert_eq!(app.session().banding().0, bands - 1);
    press(&mut app, KeyCode::Char('B'));
    assert_eq!(app.session().banding().0, bands - 1, "B is no longer bound");
}

#[test]
fn a_colour_override_changes_the_rendered_style_of_its_role() {
    let (_d, mut app) = loaded((100, 30));
    app.set_theme(Theme::new(true));
    let marker = Color::Rgb(10, 200, 30);
    let has = |buf: &Buffer, c: Color| buf.content.iter().any(|cell| cell.fg == c);
    let before = draw(&app);
    assert!(!has(&before, marker));
    assert!(
        has(&before, Color::Yellow),
        "footer keys are yellow by default"
    );
    let _i = Installed::new(&[], &[("key", marker)]);
    let after = draw(&app);
    assert!(has(&after, marker), "{}", text(&after));
    // The footer's keys carry the role's style: the first cell of " q" is the marker.
    let h = after.area.height - 1;
    let keys: Vec<_> = (0..after.area.width)
        .map(|x| &after[(x, h)])
        .filter(|c| c.fg == marker)
        .map(|c| c.symbol().to_string())
        .collect();
    assert!(keys.concat().contains('q'), "{keys:?}");
}

#[test]
fn without_colour_nothing_has_a_foreground_colour_even_with_overrides() {
    let (_d, mut app) = loaded((100, 30));
    let _i = Installed::new(&[], &[("key", Color::Red), ("dim", Color::Blue)]);
    // With colour the views do use foreground colours (so the check below can fail)...
    app.set_theme(Theme::new(true));
    assert!(draw(&app).content.iter().any(|c| c.fg != Color::Reset));
    app.set_theme(Theme::new(false));
    let views: [&[Action]; 4] = [
        &[],
        &[Action::ToggleTuning],
        &[Action::ToggleTuning, Action::Open],
        &[Action::ToggleHelp],
    ];
    for view in views {
        for &a in view {
            app.update(a);
        }
        pump(&mut app);
        let buf = draw(&app);
        let coloured: Vec<_> = buf
            .content
            .iter()
            .filter(|c| c.fg != Color::Reset)
            .map(|c| (c.symbol().to_string(), c.fg))
            .collect();
        assert!(
            coloured.is_empty(),
            "{view:?}: {coloured:?}\n{}",
            text(&buf)
        );
        close_help(&mut app);
        if app.top_as::<DiffView>().is_some() {
            app.update(Action::Back);
        }
        app.list_mut().tuning_mut().close();
    }
}

#[test]
fn the_log_records_start_stages_requests_errors_and_the_threshold_starts_s() {
    let dir = corpus_dir();
    let log_path = dir.path().join("explorer.log");
    let mut app = new_app(dir.path(), (100, 30));
    app.configure(&Settings {
        color: false,
        mouse: false,
        log: Some(Arc::new(Log::open(&log_path).unwrap())),
        verbose: 0,
        colors: BTreeMap::new(),
        keys: BTreeMap::new(),
        threshold: Some(0.72),
        notice: Some("banding chosen".into()),
        max_bucket: Some(1000),
    });
    assert_eq!(app.status(), Some("banding chosen"));
    assert_eq!(app.list().tuning().s_pct(), 72);
    app.log_start();
    app.start();
    pump(&mut app);
    press(&mut app, KeyCode::Char('b'));
    pump(&mut app);
    for _ in 0..10 {
        press(&mut app, KeyCode::Char('R'));
        pump(&mut app);
    }
    let log = std::fs::read_to_string(&log_path).unwrap();
    for want in [
        "explorer: ",
        "params: k=5 bands=16 rows=8",
        "threshold s=0.72",
        "read done: 60 in",
        "indexed 60 documents",
        "re-band requested: bands=17 rows=8",
        "banded b=17 r=8: ",
        "shown: b and r are at least 1",
    ] {
        assert!(log.contains(want), "{want:?} missing:\n{log}");
    }
}
