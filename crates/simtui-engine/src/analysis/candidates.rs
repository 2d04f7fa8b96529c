//! How many candidate pairs a banding would give, from its buckets alone: no pair listed
//! or verified. `eval --sweep` skips the bandings that would take too long by it.

use crate::Result;
use crate::index::Index;
use crate::rng::Rng;
use rayon::prelude::*;

/// Pairs a sample of [`candidates_estimate`] draws from the buckets.
const SAMPLES: f64 = 4096.0;

/// About how many candidate pairs of contents banding `bands` × `rows` gives (`bands` ×
/// `rows` must fit the functions computed). Each band's bucket of n contents holds
/// n(n − 1)/2 pairs; summed over the bands that counts a pair once per band it shares (a
/// near-copy, in most of 128 bands), so a sample of those pairs, each weighed by one over
/// the number of bands it shares, scales the sum down to the distinct pairs (exact with
/// one band). Two sorts of the contents' keys per band, and b band keys per pair
/// sampled; the same answer every run. An error when a signature cannot be read back.
///
/// # Panics
/// If `bands × rows` is over the number of hash functions computed.
pub fn candidates_estimate(index: &Index, bands: usize, rows: usize) -> Result<u64> {
    assert!(
        bands * rows <= index.num_perm(),
        "{bands} × {rows} over the functions"
    );
    let total = (0..bands).try_fold(0u64, |sum, band| {
        let keys = band_keys(index, band, rows)?;
        Ok::<_, crate::Error>(sum + buckets(&keys).map(|b| pairs(b.len())).sum::<u64>())
    })?;
    if total == 0 || bands == 1 {
        return Ok(total);
    }
    let rate = SAMPLES / total as f64;
    let mut rng = Rng::new(0x5eed_ca4d);
    let (mut drawn, mut weight) = (0u64, 0f64);
    for band in 0..bands {
        for bucket in buckets(&band_keys(index, band, rows)?) {
            let n = bucket.len() as u64;
            let want = pairs(bucket.len()) as f64 * rate;
            let k = want.floor() as u64 + rng.chance(want.fract()) as u64;
            for _ in 0..k.min(pairs(bucket.len())) {
                let i = rng.below(n);
                let mut j = rng.below(n - 1);
                j += (j >= i) as u64;
                let (x, y) = (bucket[i as usize].1, bucket[j as usize].1);
                weight += 1.0 / shared_bands(index, x, y, bands, rows)? as f64;
                drawn += 1;
            }
        }
    }
    if drawn == 0 {
        return Ok(total);
    }
    Ok((total as f64 * weight / drawn as f64).round() as u64)
}

/// Pairs among `n` contents.
fn pairs(n: usize) -> u64 {
    (n as u64) * (n as u64).saturating_sub(1) / 2
}

/// Runs of equal keys: one band's buckets.
fn buckets(keys: &[(u64, u32)]) -> impl Iterator<Item = &[(u64, u32)]> {
    keys.chunk_by(|x, y| x.0 == y.0)
}

/// Every content's key in `band`, with the content, sorted by key.
fn band_keys(index: &Index, band: usize, rows: usize) -> Result<Vec<(u64, u32)>> {
    let mut keys = index
        .groups()
        .nonempty()
        .par_iter()
        .map(|&g| Ok((index.band_key(g, band, rows)?, g)))
        .collect::<Result<Vec<_>>>()?;
    keys.par_sort_unstable();
    Ok(keys)
}

/// The bands two contents share: at least the one they were drawn from.
fn shared_bands(index: &Index, x: u32, y: u32, bands: usize, rows: usize) -> Result<u32> {
    let (rx, ry) = (
        index.signatures().row(x as usize)?,
        index.signatures().row(y as usize)?,
    );
    let band = |b: usize| b * rows..(b + 1) * rows;
    Ok((0..bands)
        .filter(|&b| rx[band(b)] == ry[band(b)])
        .count()
        .max(1) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Params;
    use crate::progress::Silent;
    use crate::source::Corpus;

    #[test]
    fn the_candidates_estimate_is_near_the_candidates_and_exact_with_one_band() {
        let c = simtui_gen::generate(&simtui_gen::GenOptions {
            dup_fraction: 0.5,
            ..simtui_gen::GenOptions::sized(600, 9, 80)
        });
        let texts = c.docs.iter().map(|d| (d.id.clone(), d.text.clone()));
        let params = Params {
            num_perm: 128,
            ..Default::default()
        };
        let idx = Index::builder(&params)
            .build(Corpus::from_texts(texts), &Silent)
            .unwrap();
        for (b, r) in [(1, 2), (1, 1), (16, 8), (32, 4), (64, 2), (128, 1)] {
            // Candidate pairs of contents (identical documents are one content).
            let search = idx.search(b, r, 0.0, None, &Silent).unwrap();
            let estimate = candidates_estimate(&idx, b, r).unwrap() as f64;
            let real = search.group_pairs.len() as f64;
            if b == 1 {
                assert_eq!(estimate, real, "{b}x{r}");
            }
            // Near-copies share most of 128 bands: the plain sum of bucket pairs would
            // count them ~100 times over.
            assert!(
                (estimate - real).abs() <= 0.1 * real + 5.0,
                "{b}x{r}: {estimate} vs {real}"
            );
        }
    }
}
