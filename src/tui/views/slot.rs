//! A view's job slot: the one generic place where a view keeps a job it started (its
//! kind's name and id, how far it has come) and what the job brought back. The views
//! start, wait for and read their jobs through it, so that the bookkeeping the App
//! relies on (`View::waiting`, `jobs`, `progress`) is written once.

use super::view::Cx;
use crate::tui::worker::{JobError, Kind, Reply, Task, Work};
use simtui_engine::progress::Progress;
use std::any::Any;

pub struct Slot<T> {
    /// The job kind's name: one job of a name runs at a time.
    name: &'static str,
    /// The job still waited for; none before it starts and once it replied.
    job: Option<u64>,
    /// How far the job has come: `done` of `total`, in its own units.
    done: u64,
    total: u64,
    /// What the last job brought back; none while one runs.
    value: Option<T>,
}

impl<T: Any> Slot<T> {
    pub fn new(name: &'static str) -> Slot<T> {
        Slot {
            name,
            job: None,
            done: 0,
            total: 0,
            value: None,
        }
    }

    /// Starts `run` on a worker (superseding the running job of the slot's name); the
    /// value is gone until it replies.
    pub fn start(
        &mut self,
        cx: &mut Cx,
        run: impl FnOnce(&dyn Progress) -> Result<Reply, JobError> + Send + 'static,
    ) {
        let task = Task {
            name: self.name,
            run: Box::new(run),
        };
        self.value = None;
        (self.done, self.total) = (0, 0);
        self.job = Some(cx.jobs.spawn(Work::Task(task)));
    }

    pub fn kind(&self) -> Kind {
        Kind::Task(self.name)
    }

    /// The job waited for, and its kind (what `View::waiting` answers).
    pub fn waiting(&self) -> Option<(Kind, u64)> {
        self.job.map(|job| (self.kind(), job))
    }

    pub fn is_running(&self) -> bool {
        self.job.is_some()
    }

    /// The job replied: it is waited for no more, and its value is kept.
    pub fn done(&mut self, reply: Reply) {
        self.value = self.end(reply);
    }

    /// The job replied with a value the view turns into something else itself: it is
    /// waited for no more, and the reply is the view's.
    pub fn end<R: Any>(&mut self, reply: Reply) -> Option<R> {
        self.finish();
        reply.take()
    }

    /// The job replied, and the view has read the reply: it is waited for no more.
    pub fn finish(&mut self) {
        self.job = None;
    }

    /// How much the running job has to do, before it reports (in its own units).
    pub fn expect(&mut self, total: u64) {
        self.total = total;
    }

    /// Progress of a job: kept if it is the slot's.
    pub fn progress(&mut self, job: u64, done: u64, total: u64) {
        if self.job == Some(job) {
            (self.done, self.total) = (done, total);
        }
    }

    /// How far the running job has come: (done, total).
    pub fn how_far(&self) -> (u64, u64) {
        (self.done, self.total)
    }

    pub fn value(&self) -> Option<&T> {
        self.value.as_ref()
    }

    /// Puts in a value as if a job had brought it (a view that reads the reply itself).
    pub fn set(&mut self, value: T) {
        self.job = None;
        self.value = Some(value);
    }
}

/// The [`View`](super::view::View) methods of a view that waits for one job's value in
/// its slot `$slot` and starts that job with its method `$start`: what it waits for, the
/// reply kept, and the job started again when a view above had superseded it.
macro_rules! waits_in_slot {
    ($slot:ident, $start:ident) => {
        fn waiting(&self) -> Option<($crate::tui::worker::Kind, u64)> {
            self.$slot.waiting()
        }

        fn done(&mut self, reply: $crate::tui::worker::Reply, _: &mut Cx) {
            self.$slot.done(reply);
        }

        fn restart(&mut self, cx: &mut Cx) {
            self.$start(cx);
        }
    };
}
pub(crate) use waits_in_slot;
