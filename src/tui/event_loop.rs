//! Starting the explorer and running it: the checks made before the terminal is taken,
//! then one loop on the UI thread that waits on one channel for keys, workers' messages
//! and signals, applies them to the App, starts and cancels jobs, and draws when
//! something changed (or every tick while work runs).

use super::app::App;
use super::jobs::Cmd;
use super::options::ExploreOptions;
use super::session::Opening;
use super::widgets::theme;
use super::worker::{self, Msg, Workers};
use super::{keys, terminal, views};
use crate::output::error::{Interrupted, UsageError, store_error};
use anyhow::{Context as _, bail};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How often the screen refreshes while work runs (rates, ETAs). Idle, it waits.
const TICK: Duration = Duration::from_millis(200);

pub fn run(opts: ExploreOptions) -> anyhow::Result<()> {
    // Errors the user can fix come before the terminal is touched.
    for root in &opts.roots {
        std::fs::metadata(root)
            .or_else(|_| std::fs::symlink_metadata(root))
            .map_err(|e| UsageError(format!("{}: {e}", root.display())))?;
    }
    let store = store_job(opts.index_file.as_deref(), &opts.roots)?;
    check_terminal(&opts)?;
    let size = ratatui::crossterm::terminal::size().context("cannot read the terminal size")?;
    let settings = &opts.settings;
    // The views and the key handling run on this thread: install the user's colours
    // and keys for it.
    theme::install_colors(
        &settings
            .colors
            .iter()
            .map(|(role, c)| (*role, c.0))
            .collect(),
    );
    keys::install(&settings.keys, views::KEY_TABLES);
    let mut app = App::new(
        Opening {
            roots: opts.roots.clone(),
            walk: opts.walk.clone(),
            params: opts.params.clone(),
            bands: opts.bands,
            rows: opts.rows,
        },
        theme::Theme::new(settings.color),
        size,
    );
    app.configure(settings);
    app.set_budget(opts.budget.clone());
    app.set_paths(opts.paths.clone());
    if let Some(review) = &opts.review {
        app.open_review(review.clone());
    }
    if let Some(file) = &opts.pairs_file {
        app.open_pairs_file(file.clone());
    }
    app.set_store(store);
    app.log_start();
    app.start();

    let (tx, rx) = mpsc::channel();
    spawn_signals(tx.clone());
    let mut workers = Workers::new(tx.clone());
    let mut session =
        terminal::Session::enter(settings.mouse).context("cannot set up the terminal")?;
    spawn_input(tx)?;
    let result = event_loop(&mut session, &mut app, &rx, &mut workers);
    workers.cancel_all();
    drop(session);
    // The review's marks not yet in its keep-list are written now; if they cannot be,
    // the exit says where they are (exit 1).
    let saved = match &opts.review {
        Some(review) => review.keep_list.finish(),
        None => Ok(()),
    };
    let result = match (result, saved) {
        (Ok(()), saved) => saved,
        (Err(e), Err(unsaved)) => {
            crate::output::diag::say(format_args!("simtui: {unsaved:#}"));
            Err(e)
        }
        (Err(e), Ok(())) => Err(e),
    };
    match &result {
        Ok(()) => app.log("quit"),
        Err(e) => app.log(&format!("quit with an error: {e:#}")),
    }
    result
}

/// The saved index for the first load. Only its header is checked here, where a bad
/// file is still a usage error before the terminal is touched: decoding takes long on a
/// large index (about 0.5 s at 100,000 documents), and the first frame must not wait
/// for it. The Load worker decodes it, with the loading view on screen.
pub(super) fn store_job(
    index_file: Option<&std::path::Path>,
    roots: &[PathBuf],
) -> anyhow::Result<Option<worker::StoreJob>> {
    let Some(file) = index_file else {
        return Ok(None);
    };
    if roots.is_empty() {
        return Err(UsageError("--index needs the PATH of the corpus it indexes".into()).into());
    }
    if file.exists() {
        simtui_engine::store::check(file).map_err(store_error)?;
    }
    Ok(Some(worker::StoreJob {
        file: file.to_path_buf(),
    }))
}

fn check_terminal(opts: &ExploreOptions) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    let which = match (
        std::io::stdin().is_terminal(),
        std::io::stdout().is_terminal(),
    ) {
        (true, true) => return Ok(()),
        (false, false) => "standard input and output are not terminals",
        (false, true) => "standard input is not a terminal",
        (true, false) => "standard output is not a terminal",
    };
    let paths = if opts.roots.is_empty() {
        "PATH".to_string()
    } else {
        opts.roots
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    bail!(
        "the explorer needs a terminal, but {which}; for scripts and pipes use `simtui pairs {paths}`"
    )
}

/// Signals reach the event loop as messages, from a thread of their own. Without it,
/// SIGTERM (or SIGINT/SIGHUP sent with `kill`) ended the process at once and left the
/// terminal raw, on the alternate screen, mouse captured (issue 5), and so did SIGQUIT
/// (issue 20); the loop returns an error and the session's Drop restores the terminal.
/// SIGTSTP (`kill -TSTP`; in raw mode Ctrl-Z is a key) suspends the explorer properly:
/// the terminal restored before it stops, raw mode and a full redraw when it goes on.
/// If the handlers cannot be set, signals keep their default action.
fn spawn_signals(tx: mpsc::Sender<Msg>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP};
    let Ok(mut signals) =
        signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP])
    else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("simtui-signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                let msg = if signal == SIGTSTP {
                    Msg::Suspend
                } else {
                    Msg::Signal
                };
                if tx.send(msg).is_err() {
                    return;
                }
            }
        });
}

/// Reads terminal events on their own thread, so the event loop can wait on one channel
/// for keys and worker messages alike (and use no CPU while idle).
fn spawn_input(tx: mpsc::Sender<Msg>) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name("simtui-input".into())
        .spawn(move || {
            loop {
                match ratatui::crossterm::event::read() {
                    Ok(ev) => {
                        if tx.send(Msg::Input(ev)).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Msg::InputFailed(e.to_string()));
                        return;
                    }
                }
            }
        })
        .context("cannot start the input thread")?;
    Ok(())
}

/// The error that ends the explorer after a thread panicked, once the panic hooks under
/// way have printed their reports.
fn panic_exit() -> anyhow::Error {
    terminal::wait_for_reports();
    let report = terminal::panic_report().unwrap_or_else(|| "see above".into());
    anyhow::anyhow!("a thread panicked: {report}")
}

fn event_loop(
    session: &mut terminal::Session,
    app: &mut App,
    rx: &Receiver<Msg>,
    workers: &mut Workers,
) -> anyhow::Result<()> {
    let mut dirty = true;
    loop {
        for cmd in app.take_outbox() {
            match cmd {
                Cmd::Spawn(job) => workers
                    .spawn(*job)
                    .context("cannot start a worker thread")?,
                Cmd::Cancel(kind) => workers.cancel(kind),
            }
        }
        if let Some(e) = app.take_fatal() {
            if e.usage {
                return Err(UsageError(e.message).into());
            }
            bail!(e.message);
        }
        if app.quitting() {
            return Ok(());
        }
        if dirty {
            // No frame while a panicking thread restores the terminal, nor after.
            let Some(_drawing) = terminal::drawing() else {
                return Err(panic_exit());
            };
            app.set_now(Instant::now());
            session.terminal.draw(|f| app.render(f))?;
            dirty = false;
        }
        if terminal::panicked() {
            return Err(panic_exit());
        }
        let msg = if app.busy() {
            match rx.recv_timeout(TICK) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    dirty = true; // rates and ETAs move on
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => bail!("the workers' channel closed"),
            }
        } else {
            rx.recv().context("the workers' channel closed")?
        };
        app.set_now(Instant::now());
        if matches!(msg, Msg::Signal) {
            return Err(Interrupted.into());
        }
        if matches!(msg, Msg::Suspend) || is_ctrl_z(&msg) {
            suspend(session, app)?;
            dirty = true;
            continue;
        }
        let mut changed = app.handle(msg);
        // Apply everything already queued, then draw once.
        for _ in 0..1000 {
            match rx.try_recv() {
                Ok(Msg::Signal) => return Err(Interrupted.into()),
                Ok(m) => changed |= app.handle(m),
                Err(_) => break,
            }
        }
        dirty |= changed;
    }
}

/// Ctrl-Z, typed: in raw mode the terminal sends it as a key, not as SIGTSTP.
fn is_ctrl_z(msg: &Msg) -> bool {
    use ratatui::crossterm::event::{Event, KeyCode, KeyEventKind, KeyModifiers};
    matches!(msg, Msg::Input(Event::Key(k))
        if k.kind == KeyEventKind::Press
            && k.code == KeyCode::Char('z')
            && k.modifiers.contains(KeyModifiers::CONTROL))
}

/// Stops the process as the shell's Ctrl-Z would, with the terminal as it was before the
/// explorer took it; when continued (`fg`), takes it back and redraws everything, at
/// the size it has now.
fn suspend(session: &mut terminal::Session, app: &mut App) -> anyhow::Result<()> {
    terminal::restore().context("cannot restore the terminal")?;
    signal_hook::low_level::raise(signal_hook::consts::SIGSTOP)
        .context("cannot stop the process")?;
    session.resume().context("cannot take the terminal back")?;
    if let Ok((w, h)) = ratatui::crossterm::terminal::size() {
        app.handle(Msg::Input(ratatui::crossterm::event::Event::Resize(w, h)));
    }
    Ok(())
}
