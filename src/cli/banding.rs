//! The banding for a similarity threshold: chosen when `-t` comes without `-b/-r`,
//! checked (and warned about) when both are given, so that `-t` never silently loses
//! pairs (`pairs`, `clusters`, the explorer's starting s).

use super::args::{IndexArgs, MAX_FUNCTIONS};
use simtui_engine::search::curve::{banding_for, probability, threshold};

/// The functions a banding is chosen within: the default 16 × 8.
pub const DEFAULT_FUNCTIONS: usize = 128;
// The rule itself is the engine's, shared with the Python module.
pub use simtui_engine::search::curve::{WANTED_RECALL, best_within};

/// [`best_within`] `perms` functions, else within [`MAX_FUNCTIONS`].
pub fn reaching(t: f64, perms: usize) -> Option<(usize, usize)> {
    best_within(t, perms.min(MAX_FUNCTIONS)).or_else(|| best_within(t, MAX_FUNCTIONS))
}

/// What `for_threshold` did, for stderr.
#[derive(Debug, PartialEq)]
pub enum Note {
    /// No banding was given: this one was chosen for T.
    Chosen(String),
    /// The given banding's S-curve at T is below [`WANTED_RECALL`].
    Warning(String),
}

/// For a command run with similarity threshold `t` > 0 (`flag` names it, e.g. "-t 0.5"):
/// without a given banding, sets the strictest one reaching [`WANTED_RECALL`] at t within
/// [`DEFAULT_FUNCTIONS`] (else the one `simtui curve --threshold t` recommends); with one,
/// checks its S-curve at t. Says what it did, or nothing
/// when a given banding reaches [`WANTED_RECALL`] at t.
pub fn for_threshold(
    t: f64,
    flag: &str,
    index: &mut IndexArgs,
    banding_given: bool,
) -> Option<Note> {
    if t <= 0.0 {
        return None;
    }
    let better = |b: usize, r: usize| match reaching(t, (b * r).max(DEFAULT_FUNCTIONS)) {
        Some((rb, rr)) => format!("; -b {rb} -r {rr} reaches {WANTED_RECALL} at J = {t}"),
        None => String::new(),
    };
    if !banding_given {
        let chosen = banding_for(t, DEFAULT_FUNCTIONS);
        let (b, r) = (chosen.bands, chosen.rows);
        let how = if chosen.reaches {
            format!(
                "the one with the fewest false candidates whose S-curve reaches {WANTED_RECALL} at J = {t} within {DEFAULT_FUNCTIONS} functions"
            )
        } else {
            format!(
                "as `simtui curve --threshold {t}` recommends (no banding of {DEFAULT_FUNCTIONS} functions reaches {WANTED_RECALL} at J = {t})"
            )
        };
        index.bands = b as u32;
        index.rows = r as u32;
        let p = probability(t, b, r);
        let more = if p < WANTED_RECALL {
            better(b, r)
        } else {
            String::new()
        };
        return Some(Note::Chosen(format!(
            "{flag} without -b/-r: banding {b}x{r} (threshold {:.3}), {how}; the S-curve at J = {t} is {p:.3}, the least share of pairs with J >= {t} found{more}",
            threshold(b, r)
        )));
    }
    let (b, r) = (index.bands as usize, index.rows as usize);
    let p = probability(t, b, r);
    (p < WANTED_RECALL).then(|| {
        Note::Warning(format!(
            "-b {b} -r {r} (threshold {:.3}) may miss pairs with J >= {t}: the S-curve at J = {t} is {p:.3} (pairs at J = {t} are found with that probability, more similar ones more often){}",
            threshold(b, r),
            better(b, r)
        ))
    })
}

/// Writes the note on stderr, as `simtui CMD: ...` (a warning says so).
pub fn say(cmd: &str, note: Option<Note>) {
    match note {
        Some(Note::Chosen(s)) => {
            crate::output::diag::say(format_args!("simtui {cmd}: {s}"));
        }
        Some(Note::Warning(s)) => {
            crate::output::diag::say(format_args!("simtui {cmd}: warning: {s}"));
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banding_reaching_recall_is_the_strictest_that_does() {
        // At 0.5 within 128 functions: r = 4 needs b = 36 (144 functions); r = 3, b = 18.
        assert_eq!(reaching(0.5, 128), Some((18, 3)));
        assert_eq!(reaching(0.8, 128), Some((13, 8)));
        // Not one function (1x1 reaches 0.9 at 0.9, with a straight line of candidates).
        assert_eq!(reaching(0.9, 128), Some((9, 14)));
        let (b, r) = reaching(0.8, 128).unwrap();
        assert!(probability(0.8, b, r) >= WANTED_RECALL && b * r <= 128);
        // No banding within 128 reaches 0.9 at J = 0.01; within 4,096 one does.
        let (b, r) = reaching(0.01, 128).unwrap();
        assert!(b * r > 128 && b * r <= MAX_FUNCTIONS);
    }
}
