//! The banding for a similarity threshold: chosen when `-t` comes without `-b/-r`,
//! checked (and warned about) when both are given, so that `-t` never silently loses
//! pairs (`pairs`, `clusters`, the explorer's starting s).

use super::args::{IndexArgs, MAX_FUNCTIONS, MethodArg};
use simtui_engine::search::curve::{
    self, DEFAULT_FUNCTIONS, WANTED_RECALL, probability, threshold,
};

/// The banding that reaches [`WANTED_RECALL`] at `t` with the fewest false candidates
/// within `perms` functions, else within [`MAX_FUNCTIONS`]: what a warning suggests.
pub fn reaching(t: f64, perms: usize) -> Option<(usize, usize)> {
    curve::reaching(t, perms.min(MAX_FUNCTIONS))
        .or_else(|| curve::reaching(t, MAX_FUNCTIONS))
        .map(|b| (b.bands, b.rows))
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
/// without a given banding, sets the engine's banding for t ([`curve::for_threshold`],
/// which the explorer, `curve --threshold` and `eval --sweep` use too); with one, checks
/// its S-curve at t. Says what it did, or nothing
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
        // The engine's one rule (the explorer's, `curve --threshold`'s and the sweep's).
        let choice = curve::for_threshold(t, DEFAULT_FUNCTIONS);
        let (b, r) = (choice.banding.bands, choice.banding.rows);
        let how = if choice.reaches {
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

/// [`for_threshold`] for a command's `-t T` (pairs, clusters, dedup, eval): only when its
/// candidates come from MinHash banding (SimHash has no banding to choose).
pub fn for_t(
    method: MethodArg,
    t: f64,
    index: &mut IndexArgs,
    banding_given: bool,
) -> Option<Note> {
    (method == MethodArg::Minhash)
        .then(|| for_threshold(t, &format!("-t {t}"), index, banding_given))
        .flatten()
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
    fn a_suggestion_past_the_functions_given_reaches_the_recall() {
        assert_eq!(reaching(0.8, 128), Some((13, 8)));
        // No banding within 128 reaches 0.9 at J = 0.01; within 4,096 one does.
        let (b, r) = reaching(0.01, 128).unwrap();
        assert!(b * r > 128 && b * r <= MAX_FUNCTIONS);
        assert!(probability(0.01, b, r) >= WANTED_RECALL);
    }
}
