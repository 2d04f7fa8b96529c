//! Entering and leaving the full-screen terminal, on every path out: a normal quit, an
//! error (the session's Drop), and a panic on any thread (the panic hook restores first,
//! then lets the previous hook print the message where it can be read).

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::{cursor, event, execute, terminal};
use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, Once, OnceLock};
use std::thread::ThreadId;

/// The terminal is in raw mode on the alternate screen.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Mouse capture is on.
static MOUSE: AtomicBool = AtomicBool::new(false);
/// Some thread panicked: stop drawing (the hook already left the alternate screen).
static PANICKED: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();
/// Held by the UI thread while it draws, and by a panicking thread while it restores the
/// terminal and prints its report: a worker that panicked mid-frame used to leave the
/// alternate screen while the UI thread was still writing the frame, whose tail then
/// overwrote the report on the primary screen.
static DRAWING: Mutex<()> = Mutex::new(());
/// Panic hooks still running. The UI thread sees [`PANICKED`] as soon as a hook starts,
/// and would otherwise return and end the process before a worker's hook had printed
/// its report.
static IN_HOOK: AtomicUsize = AtomicUsize::new(0);
/// The thread that draws (the one that entered the session).
static UI_THREAD: OnceLock<ThreadId> = OnceLock::new();
/// The first panic's message and place, repeated in the final error: a long backtrace
/// (RUST_BACKTRACE=1) can scroll the hook's own report off a small screen.
static PANIC_REPORT: Mutex<Option<String>> = Mutex::new(None);

pub fn panicked() -> bool {
    PANICKED.load(Ordering::SeqCst)
}

/// What the first panic said, and where.
pub fn panic_report() -> Option<String> {
    PANIC_REPORT.lock().ok().and_then(|r| r.clone())
}

/// Taken by the UI thread around each frame; returns `None` once a thread has panicked
/// (the terminal is restored or being restored: nothing may be drawn any more).
pub fn drawing() -> Option<MutexGuard<'static, ()>> {
    let guard = DRAWING.lock().unwrap_or_else(|e| e.into_inner());
    (!panicked()).then_some(guard)
}

/// Waits (at most 2 s) for the panic hooks under way to print their reports.
pub fn wait_for_reports() {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while IN_HOOK.load(Ordering::SeqCst) > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Restores the terminal if this process changed it. Safe to call more than once and
/// from any thread.
pub fn restore() -> io::Result<()> {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return Ok(());
    }
    let raw = terminal::disable_raw_mode();
    let mut out = io::stdout();
    if MOUSE.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, event::DisableMouseCapture);
    }
    let screen = execute!(out, terminal::LeaveAlternateScreen, cursor::Show);
    raw.and(screen)
}

/// Installs (once) a panic hook that restores the terminal before the previous hook
/// prints the panic, so the message is not lost on the alternate screen.
pub fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            IN_HOOK.fetch_add(1, Ordering::SeqCst);
            PANICKED.store(true, Ordering::SeqCst);
            if let Ok(mut report) = PANIC_REPORT.lock() {
                let place = info
                    .location()
                    .map(|l| format!(" at {}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_string());
                report.get_or_insert(format!("{message}{place}"));
            }
            // Another thread waits for a frame being drawn to end (the UI thread checks
            // `panicked` before it draws again); the UI thread itself cannot be drawing
            // anything but the frame it panicked in, and must not wait for its own lock.
            let on_ui_thread = UI_THREAD.get() == Some(&std::thread::current().id());
            let _guard = (!on_ui_thread).then(|| DRAWING.lock().unwrap_or_else(|e| e.into_inner()));
            let _ = restore();
            previous(info);
            IN_HOOK.fetch_sub(1, Ordering::SeqCst);
        }));
    });
}

/// The full-screen session. Dropping it restores the terminal.
pub struct Session {
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
    /// Whether the mouse is captured (taken again on resume).
    mouse: bool,
}

impl Session {
    pub fn enter(mouse: bool) -> io::Result<Session> {
        let _ = UI_THREAD.set(std::thread::current().id());
        install_panic_hook();
        terminal::enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        // From here on, Drop (or the hook) undoes whatever was done.
        let mut session = Session {
            terminal: Terminal::new(CrosstermBackend::new(io::stdout()))?,
            mouse,
        };
        let out = session.terminal.backend_mut();
        execute!(out, terminal::EnterAlternateScreen, cursor::Hide)?;
        if mouse {
            MOUSE.store(true, Ordering::SeqCst);
            execute!(out, event::EnableMouseCapture)?;
        }
        // Not Terminal::clear: it asks the terminal where the cursor is, and a terminal
        // that never answers would stall the start.
        execute!(
            session.terminal.backend_mut(),
            terminal::Clear(terminal::ClearType::All)
        )?;
        Ok(session)
    }
}

impl Session {
    /// Takes the terminal back after a suspension: raw mode, the alternate screen, the
    /// cursor hidden, the mouse captured if it was, and a cleared screen with the last
    /// frame forgotten, so the next draw writes every cell.
    pub fn resume(&mut self) -> io::Result<()> {
        terminal::enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let out = self.terminal.backend_mut();
        execute!(out, terminal::EnterAlternateScreen, cursor::Hide)?;
        if self.mouse {
            MOUSE.store(true, Ordering::SeqCst);
            execute!(out, event::EnableMouseCapture)?;
        }
        execute!(out, terminal::Clear(terminal::ClearType::All))?;
        self.terminal.swap_buffers();
        Ok(())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = restore();
    }
}
