//! Tests of the explorer, without a terminal: actions in, state and screen text out.
//! Jobs run synchronously on the test thread (the same `worker::execute` the threads
//! run), so every state is reached as the user reaches it and frames depend on the corpus
//! alone. Helpers here; the tests by subject in the files below.

mod config;
mod copies;
mod fuzz;
mod history;
mod load;
mod newswire;
mod opened;
mod pairs_file;
mod render;
mod review;
mod screenshots;
mod state;

use crate::output::keyspec::KeyStroke;
use crate::tui::app::App;
use crate::tui::jobs::Cmd;
use crate::tui::keys::Action;
use crate::tui::session::Opening;
use crate::tui::views;
use crate::tui::views::help::HelpView;
use crate::tui::widgets::theme::Theme;
use crate::tui::worker::{self, Job, JobError, Msg, Reporter};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Color;
use simtui_engine::index::Params;
use simtui_engine::search::found::Pair;
use simtui_engine::source::WalkOptions;
use simtui_gen::{GenOptions, Generated, generate};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;

/// The tests' generated corpus of `docs` documents, with planted near-duplicates.
pub fn generated(docs: usize) -> Generated {
    generate(&GenOptions {
        dup_fraction: 0.4,
        ..GenOptions::sized(docs, 7, 120)
    })
}

/// A small generated corpus with planted near-duplicates, written to a folder.
pub fn corpus_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let g = generated(60);
    simtui_gen::write(&g, &dir.path().join("c"), &dir.path().join("truth.jsonl")).unwrap();
    dir
}

pub fn new_app(dir: &Path, size: (u16, u16)) -> App {
    App::new(
        Opening {
            roots: vec![dir.join("c")],
            walk: WalkOptions::default(),
            params: Params::default(),
            bands: 16,
            rows: 8,
        },
        Theme::mono(),
        size,
    )
}

/// Runs every queued job to completion, feeding progress and results back, until the
/// app queues nothing more.
pub fn pump(app: &mut App) {
    for _ in 0..100 {
        let cmds = app.take_outbox();
        if cmds.is_empty() {
            return;
        }
        for cmd in cmds {
            if let Cmd::Spawn(job) = cmd {
                run_job(app, *job);
            }
        }
    }
    panic!("jobs keep queueing more jobs");
}

/// Runs one job as a worker would, feeding its progress, then its result, to the app.
/// True if the app took the result (false: a job superseded or cancelled meanwhile).
pub fn run_job(app: &mut App, job: Job) -> bool {
    let (tx, rx) = mpsc::channel();
    let reporter = Reporter::new(job.id, tx, Arc::new(AtomicBool::new(false)));
    let out = worker::execute(job.work, &reporter);
    for m in rx.try_iter() {
        app.handle(m);
    }
    app.handle(match out {
        Ok(out) => Msg::Done {
            id: job.id,
            out: Box::new(out),
        },
        Err(JobError::Cancelled) => Msg::Cancelled { id: job.id },
        Err(JobError::Failed(error)) => Msg::Failed {
            id: job.id,
            error,
            usage: false,
        },
        Err(JobError::Usage(error)) => Msg::Failed {
            id: job.id,
            error,
            usage: true,
        },
    })
}

pub fn loaded(size: (u16, u16)) -> (tempfile::TempDir, App) {
    let dir = corpus_dir();
    let mut app = new_app(dir.path(), size);
    app.start();
    pump(&mut app);
    assert!(
        app.session().results().is_some(),
        "the first load produces results"
    );
    assert!(
        !app.list().visible().is_empty(),
        "the corpus has near-duplicates"
    );
    (dir, app)
}

pub fn draw(app: &App) -> Buffer {
    let mut term = Terminal::new(TestBackend::new(app.size().0, app.size().1)).unwrap();
    term.draw(|f| app.render(f)).unwrap();
    term.backend().buffer().clone()
}

pub fn text(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

pub fn screen(app: &App) -> String {
    text(&draw(app))
}

/// Closes the help if it is open, as Esc does.
pub fn close_help(app: &mut App) {
    if app.top_as::<HelpView>().is_some() {
        app.update(Action::Back);
    }
}

/// The screen shows `text` (the screen in the message when not).
pub fn assert_shows(app: &App, text: &str) {
    let s = screen(app);
    assert!(s.contains(text), "wanted {text:?} on the screen:\n{s}");
}

/// A number of each pair the list shows, in its order.
pub fn shown(app: &App, value: impl Fn(&Pair) -> f64) -> Vec<f64> {
    let pairs = app.list().pairs_shown(app.session());
    pairs.iter().map(value).collect()
}

/// The action, then the jobs it started, to their end.
pub fn act(app: &mut App, action: Action) {
    app.update(action);
    pump(app);
}

/// The action `n` times.
pub fn repeat(app: &mut App, action: Action, n: usize) {
    for _ in 0..n {
        app.update(action);
    }
}

pub fn ids(app: &App, pos: usize) -> (String, String) {
    let r = app.session().results().unwrap();
    let p = app.list().pairs_shown(app.session())[pos];
    (
        r.index.docs().at(p.a as usize).id.clone(),
        r.index.docs().at(p.b as usize).id.clone(),
    )
}

// ---------------------------------------------------------------------------------------
// The config file's colours and keys

/// Installs `[explorer.keys]` and `[explorer.colors]` for this test's thread, and puts
/// the defaults back when dropped (even when the test fails).
pub struct Installed;

impl Installed {
    pub fn new(keys: &[(&'static str, &[&str])], colors: &[(&'static str, Color)]) -> Installed {
        let keys: BTreeMap<&'static str, Vec<KeyStroke>> = keys
            .iter()
            .map(|(a, ks)| (*a, ks.iter().map(|k| k.parse().unwrap()).collect()))
            .collect();
        crate::tui::keys::install(&keys, views::KEY_TABLES);
        crate::tui::widgets::theme::install_colors(&colors.iter().copied().collect());
        Installed
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        crate::tui::keys::install(&BTreeMap::new(), views::KEY_TABLES);
        crate::tui::widgets::theme::install_colors(&BTreeMap::new());
    }
}

pub fn press(app: &mut App, code: KeyCode) {
    app.handle(Msg::Input(Event::Key(KeyEvent::new(
        code,
        KeyModifiers::NONE,
    ))));
}

/// The screen's last line: the footer.
pub fn footer(app: &App) -> String {
    screen(app).lines().last().unwrap().to_string()
}
