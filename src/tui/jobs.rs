//! The jobs the explorer asked for: their ids, which job of each kind is the current one
//! (starting a job supersedes the running one of its kind), and the commands that the
//! event loop (or a test) carries out: start a job on a thread, cancel one.

use super::log::Logger;
use super::worker::{Job, Kind, Work};
use simtui_engine::progress::Stage;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// Something for the event loop to do.
pub enum Cmd {
    Spawn(Box<Job>),
    Cancel(Kind),
}

pub struct Jobs {
    /// The current job of each kind that runs.
    current: HashMap<Kind, u64>,
    next_id: u64,
    outbox: Vec<Cmd>,
    log: Logger,
    /// When each job started, and the stages already logged as finished (with a log).
    started: HashMap<u64, Instant>,
    stages_logged: HashSet<(u64, Stage)>,
}

impl Jobs {
    pub fn new(log: Logger) -> Jobs {
        Jobs {
            current: HashMap::new(),
            next_id: 1,
            outbox: Vec::new(),
            log,
            started: HashMap::new(),
            stages_logged: HashSet::new(),
        }
    }

    pub fn set_log(&mut self, log: Logger) {
        self.log = log;
    }

    /// Queues a job; its id. It becomes the current job of its kind.
    pub fn spawn(&mut self, work: Work) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.current.insert(work.kind(), id);
        if self.log.is_on() {
            if self.log.says_job_starts() {
                self.log
                    .write(&format!("{:?} job {id} started", work.kind()));
            }
            self.started.insert(id, Instant::now());
        }
        self.outbox.push(Cmd::Spawn(Box::new(Job { id, work })));
        id
    }

    /// Cancels the current job of a kind, if one runs.
    pub fn cancel(&mut self, kind: Kind) {
        if self.current.remove(&kind).is_some() {
            self.outbox.push(Cmd::Cancel(kind));
        }
    }

    pub fn cancel_all(&mut self) {
        for kind in self.current.keys().copied().collect::<Vec<_>>() {
            self.cancel(kind);
        }
    }

    /// The job is running (and not superseded by another of its kind).
    pub fn is_current(&self, id: u64) -> bool {
        self.current.values().any(|&j| j == id)
    }

    /// The kind of a current job; `None` for a job superseded, ended or unknown.
    pub fn current_kind(&self, id: u64) -> Option<Kind> {
        self.current
            .iter()
            .find(|(_, j)| **j == id)
            .map(|(k, _)| *k)
    }

    pub fn running(&self, kind: Kind) -> bool {
        self.current.contains_key(&kind)
    }

    /// Some job is running (the event loop then ticks to animate progress).
    pub fn busy(&self) -> bool {
        !self.current.is_empty()
    }

    /// The job ended (done, failed or cancelled): it is current no more.
    pub fn end(&mut self, id: u64) {
        self.current.retain(|_, j| *j != id);
        self.started.remove(&id);
    }

    /// Seconds since job `id` started, for the log.
    pub fn took(&self, id: u64) -> f64 {
        self.started
            .get(&id)
            .map_or(0.0, |t| t.elapsed().as_secs_f64())
    }

    /// True the first time a job's stage is reported finished (to log it once).
    pub fn first_end_of(&mut self, id: u64, stage: Stage) -> bool {
        self.stages_logged.insert((id, stage))
    }

    /// Drains the queued commands.
    pub fn take_outbox(&mut self) -> Vec<Cmd> {
        std::mem::take(&mut self.outbox)
    }

    /// The queued commands, for the tests to look at.
    #[cfg(test)]
    pub fn outbox(&self) -> &[Cmd] {
        &self.outbox
    }
}
