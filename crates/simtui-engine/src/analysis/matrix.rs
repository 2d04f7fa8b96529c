//! The similarity matrix of a handful of documents: every pair compared, no candidates.

use crate::index::Index;
use crate::sketch::simhash::fingerprints::Fingerprints;
use rayon::prelude::*;

/// What the matrix holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Exact Jaccard of the shingle sets (1 on the diagonal).
    Jaccard,
    /// MinHash estimate of it.
    Estimate,
    /// Hamming distance of the SimHash fingerprints (0 on the diagonal).
    Hamming,
}

/// A symmetric n × n matrix over documents of an index: row and column `i` are the `i`th
/// document (in index order, or as given to [`compute_docs`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    /// Number of rows and of columns.
    pub n: usize,
    values: Vec<f64>,
}

impl Matrix {
    /// The value of documents `i` and `j`, equal to `get(j, i)`. Panics unless both are
    /// below `n`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.values[i * self.n + j]
    }

    /// Row `i`: the `n` values of document `i` with every document.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.n..(i + 1) * self.n]
    }
}

/// Computes the matrix over every document of the index. `fps` are needed for
/// [`Measure::Hamming`]. A document is compared with itself like any pair, so an empty
/// document has Jaccard 0 even on the diagonal: it is similar to nothing.
pub fn compute(index: &Index, measure: Measure, fps: Option<&Fingerprints>) -> Matrix {
    let docs: Vec<u32> = (0..index.docs.len() as u32).collect();
    compute_docs(index, &docs, measure, fps)
}

/// The matrix over some documents of the index (row and column `i` are `docs[i]`): the
/// explorer's heatmap of a cluster.
pub fn compute_docs(
    index: &Index,
    docs: &[u32],
    measure: Measure,
    fps: Option<&Fingerprints>,
) -> Matrix {
    assert!(
        measure != Measure::Hamming || fps.is_some(),
        "the Hamming matrix needs fingerprints"
    );
    let n = docs.len();
    let group = |d: usize| index.docs.group(docs[d] as usize);
    let value = |i: usize, j: usize| -> f64 {
        let (gi, gj) = (group(i), group(j));
        match measure {
            Measure::Jaccard => index.group_similarity(gi, gj).0,
            Measure::Estimate => index.group_similarity(gi, gj).1,
            Measure::Hamming => fps.unwrap().distance(gi, gj) as f64,
        }
    };
    // The upper triangle, mirrored: each pair once.
    let upper: Vec<Vec<f64>> = (0..n)
        .into_par_iter()
        .map(|i| (i..n).map(|j| value(i, j)).collect())
        .collect();
    let mut values = vec![0.0; n * n];
    for (i, row) in upper.iter().enumerate() {
        for (k, &v) in row.iter().enumerate() {
            let j = i + k;
            values[i * n + j] = v;
            values[j * n + i] = v;
        }
    }
    Matrix { n, values }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Params;
    use crate::progress::Silent;
    use crate::sketch::simhash::fingerprint::{SimHasher, Weight};
    use crate::source::Corpus;

    #[test]
    fn symmetric_with_the_right_diagonal() {
        let base = "a b c d e f g h i j k l m n o p q r s t";
        let texts = vec![
            ("x".to_string(), base.to_string()),
            ("y".to_string(), base.replace(" k ", " kk ")),
            (
                "z".to_string(),
                "something else entirely, with other words".to_string(),
            ),
            ("w".to_string(), base.to_string()),
        ];
        let index = Index::builder(&Params::default())
            .fingerprints(SimHasher::new(64, 1, Weight::Tf))
            .build(Corpus::from_texts(texts), &Silent)
            .unwrap();
        let fps = index.fingerprints().unwrap().clone();
        let j = compute(&index, Measure::Jaccard, None);
        let e = compute(&index, Measure::Estimate, None);
        let h = compute(&index, Measure::Hamming, Some(&fps));
        for i in 0..4 {
            assert_eq!(j.get(i, i), 1.0);
            assert_eq!(e.get(i, i), 1.0);
            assert_eq!(h.get(i, i), 0.0);
            for k in 0..4 {
                assert_eq!(j.get(i, k), j.get(k, i));
                assert_eq!(h.get(i, k), h.get(k, i));
                assert_eq!(j.get(i, k), index.similarity(i as u32, k as u32).0);
            }
        }
        assert_eq!(j.get(0, 3), 1.0);
        assert!(j.get(0, 1) > 0.0 && j.get(0, 1) < 1.0);
        assert_eq!(j.get(0, 2), 0.0);
        assert_eq!(j.row(1).len(), 4);
    }
}
