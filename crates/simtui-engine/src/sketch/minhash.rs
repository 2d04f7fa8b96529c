//! MinHash signatures.
//!
//! Hash function i maps a shingle hash x to h_i(x) = ((a_i · x' + b_i) mod 2^64) >> 32,
//! where x' is x folded to 32 bits and a_i, b_i are random 64-bit numbers: Dietzfelbinger's
//! multiply-add-shift, which is 2-independent for 32-bit keys. It is chosen because its
//! inner loop is one multiply, one add and one shift per hash function, with no modulo
//! and no data-dependent branch, so it vectorises: a 32×64-bit multiply is two `pmuludq`
//! on x86 (the textbook `(a·x + b) mod (2^61 − 1)` needs a 128-bit product and a
//! reduction, and datasketch's wrapping 64-bit variant of it is not the textbook family).
//! Keys are themselves uniform hashes, so 2-independence is plenty in practice, which the
//! property tests check (estimator error and LSH collision rates).
//!
//! Signatures are u32 (the top half of the product), so a 128-permutation signature is
//! 512 bytes and a collision of two different minima costs 2^-32 of bias.

use crate::error::Result;
use crate::progress::{Progress, Stage, check};
use crate::rng::Rng;
use crate::shingle::ShingleSets;
use crate::storage::Spilled;
use crate::storage::file::SpillFile;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::Arc;

/// The parameters of `n` MinHash functions. Function i depends only on the seed and i,
/// so a larger hasher extends a smaller one and signatures can grow in place.
#[derive(Clone, Debug)]
pub struct MinHasher {
    seed: u64,
    a: Vec<u64>,
    b: Vec<u64>,
}

impl MinHasher {
    /// The first `n` hash functions of `seed`.
    pub fn new(seed: u64, n: usize) -> Self {
        let (a, b) = (0..n)
            .map(|i| {
                let mut r = Rng::derive(seed, i as u64);
                (r.next_u64(), r.next_u64())
            })
            .unzip();
        MinHasher { seed, a, b }
    }

    /// The seed the functions derive from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Number of hash functions.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Whether there are no hash functions.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// Writes the signature of a shingle set over functions `from..from + out.len()`,
    /// which must exist (it panics otherwise). An empty set's signature is all `u32::MAX`.
    pub fn sketch_range(&self, shingles: &[u64], from: usize, out: &mut [u32]) {
        let to = from + out.len();
        let (a, b) = (&self.a[from..to], &self.b[from..to]);
        out.fill(u32::MAX);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above), which is all that
            // `sketch_avx2` requires. Measured: the sketch stage of 50k documents took
            // 0.27 s with the compiler-vectorised loop, 0.17 s with this one.
            unsafe { sketch_avx2(shingles, a, b, out) };
            return;
        }
        sketch_portable(shingles, a, b, out);
    }

    /// The signature of a shingle set over all functions.
    pub fn sketch(&self, shingles: &[u64]) -> Vec<u32> {
        let mut out = vec![0; self.len()];
        self.sketch_range(shingles, 0, &mut out);
        out
    }
}

/// Which sketch computes the signatures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SketchKind {
    /// Classic MinHash: N hash functions per shingle.
    MinHash,
    /// One-permutation hashing with optimal densification: one hash per shingle
    /// (see [`crate::sketch::oph`]). The default: measured with `simtui eval --runs`, its recall
    /// is MinHash's (within the spread over seeds) at a third of the sketching time.
    #[default]
    Oph,
}

impl SketchKind {
    /// `"minhash"` or `"oph"`, as `--sketch` names it.
    pub fn name(self) -> &'static str {
        match self {
            SketchKind::MinHash => "minhash",
            SketchKind::Oph => "oph",
        }
    }
}

/// Computes signatures of width `n` with the chosen sketch.
#[derive(Clone, Debug)]
pub struct Sketcher {
    kind: SketchKind,
    seed: u64,
    n: usize,
    minhash: MinHasher,
}

impl Sketcher {
    /// Signatures of `n` values (MinHash functions, or OPH bins) of the sketch `kind`,
    /// with hash functions derived from `seed`.
    pub fn new(kind: SketchKind, seed: u64, n: usize) -> Self {
        let minhash = MinHasher::new(seed, if kind == SketchKind::MinHash { n } else { 0 });
        Sketcher {
            kind,
            seed,
            n,
            minhash,
        }
    }

    /// The sketch computed.
    pub fn kind(&self) -> SketchKind {
        self.kind
    }

    /// Number of values in each signature.
    pub fn width(&self) -> usize {
        self.n
    }

    /// The signature of one set over functions (MinHash) `from..from + out.len()`; an
    /// OPH signature is computed whole (`from` must be 0, `out.len()` the width).
    fn sketch_range(&self, shingles: &[u64], from: usize, out: &mut [u32]) {
        match self.kind {
            SketchKind::MinHash => self.minhash.sketch_range(shingles, from, out),
            SketchKind::Oph => {
                debug_assert!(from == 0 && out.len() == self.n);
                crate::sketch::oph::sketch(self.seed, shingles, out)
            }
        }
    }

    /// The whole signature of one set.
    pub fn sketch(&self, shingles: &[u64]) -> Vec<u32> {
        let mut out = vec![0; self.n];
        self.sketch_range(shingles, 0, &mut out);
        out
    }
}

/// Folds a 64-bit shingle hash to the 32-bit key of the hash family.
#[inline(always)]
fn fold32(x: u64) -> u64 {
    (x ^ (x >> 32)) & 0xffff_ffff
}

/// Hash functions handled per pass over the shingles: their parameters and running minima
/// stay in registers (16 × u64 a, b and 16 × u32 minima fill ten AVX2 registers), so the
/// inner loop does no loads or stores but the shingle itself.
const BLOCK: usize = 16;

#[inline(always)]
fn sketch_body(shingles: &[u64], a: &[u64], b: &[u64], out: &mut [u32]) {
    let mut a_blocks = a.chunks_exact(BLOCK);
    let mut b_blocks = b.chunks_exact(BLOCK);
    let mut out_blocks = out.chunks_exact_mut(BLOCK);
    for ((a, b), out) in (&mut a_blocks).zip(&mut b_blocks).zip(&mut out_blocks) {
        let a: &[u64; BLOCK] = a.try_into().unwrap();
        let b: &[u64; BLOCK] = b.try_into().unwrap();
        let mut min = [u32::MAX; BLOCK];
        for &x in shingles {
            let x = fold32(x);
            for l in 0..BLOCK {
                min[l] = min[l].min((a[l].wrapping_mul(x).wrapping_add(b[l]) >> 32) as u32);
            }
        }
        out.copy_from_slice(&min);
    }
    let (a, b, out) = (
        a_blocks.remainder(),
        b_blocks.remainder(),
        out_blocks.into_remainder(),
    );
    for &x in shingles {
        let x = fold32(x);
        for ((o, &a), &b) in out.iter_mut().zip(a).zip(b) {
            *o = (*o).min((a.wrapping_mul(x).wrapping_add(b) >> 32) as u32);
        }
    }
}

/// The portable loop (SSE2 on x86-64, NEON on aarch64).
pub(crate) fn sketch_portable(shingles: &[u64], a: &[u64], b: &[u64], out: &mut [u32]) {
    sketch_body(shingles, a, b, out)
}

/// The AVX2 loop, 8 hash functions per register, 16 per pass. `((a·x + b) mod 2^64) >> 32`
/// for a 32-bit `x` is `hi32(a_lo·x + b) + lo32(a_hi·x)` (mod 2^32; `a_lo·x + b` cannot
/// overflow past the wrap that mod 2^64 does anyway), which is two 32×32→64 multiplies
/// (`vpmuludq`, even and odd functions), one 32-bit multiply (`vpmulld`), a shift, a blend
/// and three adds per 8 functions: bit-identical to [`sketch_portable`], and about twice as fast as what
/// the compiler makes of it (which spills its 64-bit lanes to the stack).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sketch_avx2(shingles: &[u64], a: &[u64], b: &[u64], out: &mut [u32]) {
    use std::arch::x86_64::*;
    // The constants of 8 functions: `vpmuludq` multiplies the low halves of 64-bit lanes,
    // so the even functions' `a` and `b` go in one register and the odd ones' in another.
    let lanes = |a: &[u64], b: &[u64]| {
        let pick = |v: &[u64], first: usize| {
            _mm256_setr_epi64x(
                v[first] as i64,
                v[first + 2] as i64,
                v[first + 4] as i64,
                v[first + 6] as i64,
            )
        };
        let hi = |i: usize| (a[i] >> 32) as i32;
        let a_high = _mm256_setr_epi32(hi(0), hi(1), hi(2), hi(3), hi(4), hi(5), hi(6), hi(7));
        (pick(a, 0), pick(a, 1), pick(b, 0), pick(b, 1), a_high)
    };
    // Function i's hash of `x` (in every 32-bit lane) in 32-bit lane i.
    macro_rules! hash8 {
        ($l:expr, $x:expr) => {{
            let (a_even, a_odd, b_even, b_odd, a_high) = $l;
            let even = _mm256_add_epi64(_mm256_mul_epu32(a_even, $x), b_even);
            let odd = _mm256_add_epi64(_mm256_mul_epu32(a_odd, $x), b_odd);
            let high = _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(even), odd);
            _mm256_add_epi32(high, _mm256_mullo_epi32(a_high, $x))
        }};
    }
    let store = |min: __m256i, out: &mut [u32]| {
        out.copy_from_slice(&[
            _mm256_extract_epi32::<0>(min) as u32,
            _mm256_extract_epi32::<1>(min) as u32,
            _mm256_extract_epi32::<2>(min) as u32,
            _mm256_extract_epi32::<3>(min) as u32,
            _mm256_extract_epi32::<4>(min) as u32,
            _mm256_extract_epi32::<5>(min) as u32,
            _mm256_extract_epi32::<6>(min) as u32,
            _mm256_extract_epi32::<7>(min) as u32,
        ])
    };
    // 16 functions per pass over the shingles (12 registers of constants and minima), so
    // loading and folding each shingle is shared by 16 hashes.
    let mut a_blocks = a.chunks_exact(16);
    let mut b_blocks = b.chunks_exact(16);
    let mut out_blocks = out.chunks_exact_mut(16);
    for ((a, b), out) in (&mut a_blocks).zip(&mut b_blocks).zip(&mut out_blocks) {
        let (l0, l1) = (lanes(&a[..8], &b[..8]), lanes(&a[8..], &b[8..]));
        let (mut min0, mut min1) = (_mm256_set1_epi32(-1), _mm256_set1_epi32(-1));
        for &x in shingles {
            let x = _mm256_set1_epi32(fold32(x) as i32);
            min0 = _mm256_min_epu32(min0, hash8!(l0, x));
            min1 = _mm256_min_epu32(min1, hash8!(l1, x));
        }
        let (lo, hi) = out.split_at_mut(8);
        store(min0, lo);
        store(min1, hi);
    }
    let (a, b, out) = (
        a_blocks.remainder(),
        b_blocks.remainder(),
        out_blocks.into_remainder(),
    );
    let (mut a8, mut b8, mut out8) = (
        a.chunks_exact(8),
        b.chunks_exact(8),
        out.chunks_exact_mut(8),
    );
    for ((a, b), out) in (&mut a8).zip(&mut b8).zip(&mut out8) {
        let l = lanes(a, b);
        let mut min = _mm256_set1_epi32(-1);
        for &x in shingles {
            let x = _mm256_set1_epi32(fold32(x) as i32);
            min = _mm256_min_epu32(min, hash8!(l, x));
        }
        store(min, out);
    }
    sketch_body(
        shingles,
        a8.remainder(),
        b8.remainder(),
        out8.into_remainder(),
    )
}

/// The signatures of a corpus: one row of `n` u32 per shingle set, in one contiguous
/// matrix. Past the memory limit the matrix of an index is on a temporary file instead
/// (see [`Index::build_within`](crate::index::Index::build_within)), and read back from it.
#[derive(Clone, Debug, Default)]
pub struct Signatures {
    n: usize,
    data: Vec<u32>,
    /// The rows written out to a temporary file, and how many: `data` is then empty.
    file: Option<(Arc<SpillFile>, usize)>,
}

/// Where the rows that do not fit in memory go: a folder for the temporary file, and
/// the counters of what was spilled.
pub(crate) struct SpillTo<'a> {
    /// Bytes the matrix may take in memory; past it, it goes to a file.
    pub(crate) bytes: u64,
    pub(crate) dir: Option<&'a std::path::Path>,
    pub(crate) spilled: &'a Arc<Spilled>,
    /// Bytes of rows computed at a time before they are written out.
    pub(crate) block: u64,
}

impl Signatures {
    /// Computes the signatures of every set in parallel, reporting `Stage::Sketch` progress.
    /// Fails only when cancelled.
    pub fn compute(
        sketcher: &Sketcher,
        sets: &ShingleSets,
        progress: &dyn Progress,
    ) -> Result<Signatures> {
        let n = sketcher.width();
        let cells = n.saturating_mul(sets.len());
        let mut data = crate::storage::memory::filled(cells, 0u32, "the signatures")?;
        fill_rows(sketcher, sets, 0, n, 0, &mut data, sets.len(), progress)?;
        Ok(Signatures {
            n,
            data,
            file: None,
        })
    }

    /// [`Signatures::compute`] when the matrix fits in `to.bytes`; else computed a block
    /// of rows at a time, each written to a temporary file.
    pub(crate) fn compute_within(
        sketcher: &Sketcher,
        sets: &ShingleSets,
        to: &SpillTo,
        progress: &dyn Progress,
    ) -> Result<Signatures> {
        let n = sketcher.width();
        let cells = n as u64 * sets.len() as u64;
        if n == 0 || cells * 4 <= to.bytes {
            return Signatures::compute(sketcher, sets, progress);
        }
        let mut file = SpillFile::create(to.dir, "signatures", to.spilled)?;
        let per_block = ((to.block / (n as u64 * 4)) as usize).max(FILL_BATCH);
        let mut buf: Vec<u32> = Vec::new();
        for from in (0..sets.len()).step_by(per_block) {
            let to_row = (from + per_block).min(sets.len());
            buf.clear();
            buf.resize((to_row - from) * n, 0);
            fill_rows(sketcher, sets, 0, n, from, &mut buf, sets.len(), progress)?;
            file.append_u32s(&buf)?;
        }
        file.flush()?;
        Ok(Signatures {
            n,
            data: Vec::new(),
            file: Some((Arc::new(file), sets.len())),
        })
    }

    /// Grows every row to `sketcher.width()` functions. MinHash computes only the new
    /// functions; an OPH signature of another width is a different sketch, so it is
    /// computed anew.
    pub(crate) fn extend(
        &mut self,
        sketcher: &Sketcher,
        sets: &ShingleSets,
        progress: &dyn Progress,
    ) -> Result<()> {
        if sketcher.width() > self.n {
            *self = self.extended(sketcher, sets, progress)?;
        }
        Ok(())
    }

    /// [`Signatures::extend`] into new signatures, leaving these as they are (a copy if
    /// `sketcher` has no more functions).
    pub(crate) fn extended(
        &self,
        sketcher: &Sketcher,
        sets: &ShingleSets,
        progress: &dyn Progress,
    ) -> Result<Signatures> {
        let (old, new) = (self.n, sketcher.width());
        if new <= old {
            return Ok(self.clone());
        }
        if sketcher.kind() == SketchKind::Oph || old == 0 || self.file.is_some() {
            return Signatures::compute(sketcher, sets, progress);
        }
        let cells = (new - old).saturating_mul(sets.len());
        let mut extra = crate::storage::memory::filled(cells, 0u32, "the signatures")?;
        fill_rows(
            sketcher,
            sets,
            old,
            new - old,
            0,
            &mut extra,
            sets.len(),
            progress,
        )?;
        let mut data = Vec::new();
        crate::storage::memory::reserve(&mut data, new * sets.len(), "the signatures")?;
        for (row, more) in self
            .data
            .chunks_exact(old)
            .zip(extra.chunks_exact(new - old))
        {
            data.extend_from_slice(row);
            data.extend_from_slice(more);
        }
        Ok(Signatures {
            n: new,
            data,
            file: None,
        })
    }

    /// The first `n` functions of every row (`n` at most the width), as a fresh MinHash
    /// computation of `n` functions gives them: function i depends only on the seed and i.
    /// Meaningless for OPH, whose bins depend on their number.
    pub(crate) fn truncated(&self, n: usize) -> Result<Signatures> {
        assert!(n <= self.n, "truncating {} functions to {n}", self.n);
        if n == self.n {
            return Ok(self.clone());
        }
        let mut data = Vec::new();
        crate::storage::memory::reserve(
            &mut data,
            n.saturating_mul(self.rows()),
            "the signatures",
        )?;
        if n > 0 {
            // Spilled rows are read back a block at a time (rows_range borrows when in memory).
            const BLOCK: usize = 4096;
            let rows = self.rows();
            for from in (0..rows).step_by(BLOCK) {
                let block = self.rows_range(from, (from + BLOCK).min(rows))?;
                for row in block.chunks_exact(self.n) {
                    data.extend_from_slice(&row[..n]);
                }
            }
        }
        Ok(Signatures {
            n,
            data,
            file: None,
        })
    }

    /// Signatures from a row-major matrix of rows of `n` (a saved index). `None` unless
    /// the data is whole rows (no data when `n` is 0).
    pub(crate) fn from_data(n: usize, data: Vec<u32>) -> Option<Self> {
        let whole = if n == 0 {
            data.is_empty()
        } else {
            data.len().is_multiple_of(n)
        };
        whole.then_some(Signatures {
            n,
            data,
            file: None,
        })
    }

    /// The row-major matrix: row `i` is `data()[i * width()..(i + 1) * width()]`.
    ///
    /// # Panics
    /// If the signatures are spilled to a file ([`Signatures::is_spilled`]):
    /// [`Signatures::rows_range`] reads them.
    pub fn data(&self) -> &[u32] {
        assert!(
            self.file.is_none(),
            "the signatures are on a temporary file"
        );
        &self.data
    }

    /// Whether the rows are on a temporary file rather than in memory.
    pub fn is_spilled(&self) -> bool {
        self.file.is_some()
    }

    /// Number of hash functions per row.
    pub fn width(&self) -> usize {
        self.n
    }

    /// Number of rows, one per shingle set; 0 when the width is 0, however many sets.
    pub fn rows(&self) -> usize {
        match &self.file {
            Some((_, rows)) => *rows,
            None => self.data.len().checked_div(self.n).unwrap_or(0),
        }
    }

    /// Row `i`, the signature of set `i`: [`width`](Signatures::width) values (none when
    /// the width is 0). Panics if `i` is out of range, and if a spilled row cannot be
    /// read back ([`Signatures::rows_range`] says why instead).
    pub fn row(&self, i: usize) -> Cow<'_, [u32]> {
        self.rows_range(i, i + 1)
            .unwrap_or_else(|e| panic!("reading back a signature: {e}"))
    }

    /// Rows `from..to`, one after the other: borrowed when in memory, read in one piece
    /// when spilled. Panics if the range is out of bounds.
    pub fn rows_range(&self, from: usize, to: usize) -> Result<Cow<'_, [u32]>> {
        // Width 0 (no MinHash): every row is empty, whatever the number of sets.
        assert!(
            from <= to && (self.n == 0 || to <= self.rows()),
            "rows out of range"
        );
        match &self.file {
            None => Ok(Cow::Borrowed(&self.data[from * self.n..to * self.n])),
            Some((file, _)) => {
                let mut out = Vec::with_capacity((to - from) * self.n);
                let at = (from * self.n) as u64 * 4;
                file.read_u32s(at, (to - from) * self.n, &mut Vec::new(), &mut out)?;
                Ok(Cow::Owned(out))
            }
        }
    }

    pub(crate) fn file(&self) -> Option<&SpillFile> {
        self.file.as_ref().map(|(f, _)| &**f)
    }

    /// Row `i` of signatures held in memory. Panics if they are spilled.
    pub(crate) fn in_memory_row(&self, i: usize) -> &[u32] {
        assert!(self.file.is_none(), "the signatures are in memory");
        &self.data[i * self.n..(i + 1) * self.n]
    }

    /// Heap memory held, in bytes (nothing for rows on file).
    pub fn heap_bytes(&self) -> usize {
        self.data.capacity() * 4
    }
}

/// Signature rows appended one content at a time, as an index whose shingle sets are
/// not kept sketches each document while it is read: in memory, or from when
/// [`RowsBuilder::spill`] is called, on a temporary file.
pub(crate) struct RowsBuilder {
    n: usize,
    data: Vec<u32>,
    file: Option<SpillFile>,
    rows: usize,
}

impl RowsBuilder {
    /// No rows yet, each `n` values wide.
    pub(crate) fn new(n: usize) -> RowsBuilder {
        RowsBuilder {
            n,
            data: Vec::new(),
            file: None,
            rows: 0,
        }
    }

    /// Appends the next row (`n` values).
    pub(crate) fn push(&mut self, row: &[u32]) -> Result<()> {
        debug_assert_eq!(row.len(), self.n);
        match &mut self.file {
            Some(file) => file.append_u32s(row)?,
            None => self.data.extend_from_slice(row),
        }
        self.rows += 1;
        Ok(())
    }

    /// Moves the rows so far to a temporary file, and appends there from now on.
    pub(crate) fn spill(
        &mut self,
        dir: Option<&std::path::Path>,
        spilled: &Arc<Spilled>,
    ) -> Result<()> {
        if self.file.is_none() && self.n > 0 {
            let mut file = SpillFile::create(dir, "signatures", spilled)?;
            file.append_u32s(&self.data)?;
            self.data = Vec::new();
            self.file = Some(file);
        }
        Ok(())
    }

    /// Whether the rows go to a temporary file.
    pub(crate) fn is_spilled(&self) -> bool {
        self.file.is_some()
    }

    /// Room for `rows` rows in all, when in memory (so the matrix is not copied again
    /// and again as it grows).
    pub(crate) fn reserve_rows(&mut self, rows: usize) {
        if self.file.is_none() {
            let more = rows.saturating_sub(self.rows) * self.n;
            self.data.reserve(more);
        }
    }

    /// The signatures, every row written out when they are on file.
    pub(crate) fn finish(self) -> Result<Signatures> {
        let RowsBuilder {
            n,
            mut data,
            file,
            rows,
        } = self;
        let file = match file {
            Some(mut file) => {
                file.flush()?;
                Some((Arc::new(file), rows))
            }
            None => {
                data.shrink_to_fit();
                None
            }
        };
        Ok(Signatures { n, data, file })
    }
}

/// Rows sketched per parallel task.
const FILL_BATCH: usize = 4096;

/// Fills `data` (rows of `width`) with functions `from..from + width` of sets
/// `first..`, one row per set; `total` is the number of rows progress counts to.
#[allow(clippy::too_many_arguments)]
fn fill_rows(
    sketcher: &Sketcher,
    sets: &ShingleSets,
    from: usize,
    width: usize,
    first: usize,
    data: &mut [u32],
    total: usize,
    progress: &dyn Progress,
) -> Result<()> {
    if width == 0 {
        return Ok(());
    }
    let done = std::sync::atomic::AtomicU64::new(first as u64);
    data.par_chunks_mut(width * FILL_BATCH)
        .enumerate()
        .try_for_each(|(chunk, rows)| {
            check(progress)?;
            let start = first + chunk * FILL_BATCH;
            let n = rows.len() / width;
            // One read for the task's sets when they are on file.
            let range = sets.range(start, start + n)?;
            for (i, row) in rows.chunks_exact_mut(width).enumerate() {
                sketcher.sketch_range(range.get(i), from, row);
            }
            let d = done.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
            progress.update(Stage::Sketch, d + n as u64, total as u64);
            Ok(())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_sets_identical_signatures_and_empty_is_max() {
        let h = MinHasher::new(1, 64);
        assert_eq!(h.sketch(&[1, 2, 3]), h.sketch(&[3, 2, 1]));
        assert!(h.sketch(&[]).iter().all(|&v| v == u32::MAX));
        assert_ne!(
            h.sketch(&[1, 2, 3]),
            MinHasher::new(2, 64).sketch(&[1, 2, 3])
        );
    }

    #[test]
    fn larger_hasher_extends_smaller() {
        let small = Sketcher::new(SketchKind::MinHash, 9, 16);
        let big = Sketcher::new(SketchKind::MinHash, 9, 48);
        let set = [5u64, 17, 99, 12345];
        assert_eq!(small.sketch(&set)[..], big.sketch(&set)[..16]);

        let mut sets = ShingleSets::new();
        sets.push(&set);
        sets.push(&[1, 2]);
        let mut sigs = Signatures::compute(&small, &sets, &crate::progress::Silent).unwrap();
        sigs.extend(&big, &sets, &crate::progress::Silent).unwrap();
        let fresh = Signatures::compute(&big, &sets, &crate::progress::Silent).unwrap();
        assert_eq!(sigs.width(), 48);
        assert_eq!(sigs.row(0), fresh.row(0));
        assert_eq!(sigs.row(1), fresh.row(1));
    }

    #[test]
    fn every_code_path_gives_identical_signatures() {
        let set: Vec<u64> = (0..500u64).map(crate::hash::mix64).collect();
        // Whole blocks of 16, a block of 8 and a remainder, and only a remainder.
        for n in [128, 100, 31, 7] {
            let h = MinHasher::new(3, n);
            let dispatched = h.sketch(&set);
            let mut portable = vec![u32::MAX; n];
            sketch_portable(&set, &h.a, &h.b, &mut portable);
            assert_eq!(dispatched, portable);
            let naive: Vec<u32> = (0..n)
                .map(|i| {
                    set.iter()
                        .map(|&x| {
                            (h.a[i].wrapping_mul(fold32(x)).wrapping_add(h.b[i]) >> 32) as u32
                        })
                        .min()
                        .unwrap()
                })
                .collect();
            assert_eq!(dispatched, naive);
        }
    }

    #[test]
    fn signatures_are_pinned_across_machines() {
        // The signature of a fixed set under seed 42 must never change silently: saved
        // indexes and published results depend on it.
        let h = MinHasher::new(42, 4);
        let sig = h.sketch(&[1, 2, 3]);
        let expect: Vec<u32> = (0..4)
            .map(|i| {
                let mut r = Rng::derive(42, i);
                let (a, b) = (r.next_u64(), r.next_u64());
                [1u64, 2, 3]
                    .iter()
                    .map(|&x| (a.wrapping_mul(fold32(x)).wrapping_add(b) >> 32) as u32)
                    .min()
                    .unwrap()
            })
            .collect();
        assert_eq!(sig, expect);
        // Literal values too, so a change to the seeding (`Rng::derive`) is noticed.
        assert_eq!(sig, vec![1821888243, 316345032, 652496964, 885685952]);
    }
}
