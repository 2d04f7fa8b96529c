//! Progress of the pipeline: per-stage counts, rates and ETAs (the loading view and the
//! title bar draw them).

use simtui_engine::progress::Stage;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageState {
    pub done: u64,
    pub total: u64,
    pub started: Option<Instant>,
    pub updated: Option<Instant>,
    /// Expected to run in the current job.
    pub wanted: bool,
    /// Counted in bytes of files, not in items (reading files of many documents).
    pub bytes: bool,
}

impl StageState {
    pub fn finished(&self) -> bool {
        self.started.is_some() && self.done >= self.total
    }
}

/// The stages of the running jobs.
#[derive(Clone, Debug)]
pub struct Board {
    pub stages: [StageState; 5],
    /// The last report of any stage: a stage's first report is usually sent when its
    /// first chunk is done, so it started when the stage before it last reported.
    last: Option<Instant>,
    /// When the walk (or demo generation) started; None once reading began.
    pub walking: Option<Instant>,
    pub started: Instant,
}

impl Board {
    pub fn new(now: Instant) -> Board {
        Board {
            stages: [StageState::default(); 5],
            last: None,
            walking: None,
            started: now,
        }
    }

    /// Clears the given stages for a new job.
    pub fn reset(&mut self, stages: &[Stage], now: Instant) {
        self.last = Some(now);
        for &s in stages {
            self.stages[s as usize] = StageState {
                wanted: true,
                ..Default::default()
            };
        }
    }

    pub fn update(&mut self, stage: Stage, done: u64, total: u64, now: Instant) {
        self.walking = None;
        let s = &mut self.stages[stage as usize];
        // A report of nothing done marks the start itself (e.g. reading after the walk).
        s.started.get_or_insert(if done == 0 {
            now
        } else {
            self.last.unwrap_or(now)
        });
        self.last = Some(now);
        // Reports from parallel workers may arrive out of order.
        s.done = if s.total == total {
            s.done.max(done)
        } else {
            done
        };
        // Never more done than in all: a total is an estimate while files of many
        // documents are read (the loading view marks it so).
        s.total = total.max(s.done);
        s.updated = Some(now);
        s.wanted = true;
    }

    /// When any stage last reported (or the board was reset).
    pub fn last_report(&self) -> Option<Instant> {
        self.last
    }

    pub fn get(&self, stage: Stage) -> &StageState {
        &self.stages[stage as usize]
    }

    /// Whether a stage's total is an estimate: it counts documents while files of many
    /// documents are read (their records are counted as they come), until it ends.
    pub fn estimated(&self, stage: Stage) -> bool {
        let s = self.get(stage);
        matches!(stage, Stage::Shingle | Stage::Sketch)
            && self.get(Stage::Read).bytes
            && !s.finished()
    }
}

/// Units per second, once there is something to measure.
pub fn rate(s: &StageState, now: Instant) -> Option<f64> {
    let start = s.started?;
    let end = if s.finished() { s.updated? } else { now };
    let secs = end.duration_since(start).as_secs_f64();
    (secs > 0.05 && s.done > 0).then(|| s.done as f64 / secs)
}

pub fn eta(s: &StageState, now: Instant) -> Option<Duration> {
    if s.finished() {
        return None;
    }
    let r = rate(s, now)?;
    Some(Duration::from_secs_f64((s.total - s.done) as f64 / r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_etas_and_out_of_order_reports() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut b = Board::new(t0);
        b.reset(&[Stage::Read, Stage::Shingle], t0);
        // The first report comes after the first chunk: the stage began at the reset.
        b.update(Stage::Read, 100, 1000, at(1000));
        let r = rate(b.get(Stage::Read), at(2000)).unwrap();
        assert!((r - 50.0).abs() < 1e-6, "{r}");
        let e = eta(b.get(Stage::Read), at(2000)).unwrap();
        assert_eq!(e.as_secs(), 18);
        // A late report from another worker does not move progress back.
        b.update(Stage::Read, 50, 1000, at(2100));
        assert_eq!(b.get(Stage::Read).done, 100);
        // Shingling started when reading last reported.
        b.update(Stage::Shingle, 100, 1000, at(2500));
        assert_eq!(b.get(Stage::Shingle).started, Some(at(2100)));
        b.update(Stage::Read, 1000, 1000, at(5000));
        let s = b.get(Stage::Read);
        assert!(s.finished());
        assert_eq!(eta(s, at(9000)), None);
        // A finished stage's rate is over its own duration, not until now.
        assert!((rate(s, at(9000)).unwrap() - 200.0).abs() < 1e-6);
    }

    #[test]
    fn done_is_never_above_the_total_and_estimates_are_marked() {
        let t0 = Instant::now();
        let mut b = Board::new(t0);
        b.reset(&Stage::ALL, t0);
        b.update(Stage::Shingle, 500_087, 500_000, t0);
        let s = b.get(Stage::Shingle);
        assert_eq!((s.done, s.total), (500_087, 500_087));
        // Documents of files of many are counted as read: estimated until the end.
        b.stages[Stage::Read as usize].bytes = true;
        b.update(Stage::Sketch, 10, 20, t0);
        assert!(b.estimated(Stage::Sketch));
        b.update(Stage::Sketch, 20, 20, t0);
        assert!(!b.estimated(Stage::Sketch));
    }

    #[test]
    fn a_zero_report_marks_the_start() {
        let t0 = Instant::now();
        let mut b = Board::new(t0);
        b.reset(&Stage::ALL, t0);
        b.walking = Some(t0);
        let later = t0 + Duration::from_secs(3);
        b.update(Stage::Read, 0, 500, later);
        assert_eq!(b.get(Stage::Read).started, Some(later));
        assert!(b.walking.is_none());
    }
}
