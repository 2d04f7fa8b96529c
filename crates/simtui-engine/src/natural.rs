//! The order of ids for people: runs of digits compare as numbers, so `9 < 10 < 100`
//! and `reut2-2 < reut2-10`, where byte order gives `10038 < 1014 < 9`.

use std::cmp::Ordering;

/// Compares two ids in natural order: split into runs of ASCII digits and runs of
/// anything else, digit runs compare by their value (any length: no overflow), other
/// runs byte by byte. Ids equal so far are ordered by fewer leading zeros first, then
/// by bytes: a total order (`Equal` only for equal strings), so sorts are
/// deterministic.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    let mut zeros = Ordering::Equal;
    while i < x.len() && j < y.len() {
        let (dx, dy) = (x[i].is_ascii_digit(), y[j].is_ascii_digit());
        if dx && dy {
            let (si, sj) = (i, j);
            while i < x.len() && x[i].is_ascii_digit() {
                i += 1;
            }
            while j < y.len() && y[j].is_ascii_digit() {
                j += 1;
            }
            let (rx, ry) = (&x[si..i], &y[sj..j]);
            let (tx, ty) = (trim_zeros(rx), trim_zeros(ry));
            let by_value = tx.len().cmp(&ty.len()).then_with(|| tx.cmp(ty));
            if by_value != Ordering::Equal {
                return by_value;
            }
            if zeros == Ordering::Equal {
                zeros = rx.len().cmp(&ry.len());
            }
        } else if dx != dy {
            // A number before anything else.
            return if dx {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        } else {
            let (si, sj) = (i, j);
            while i < x.len() && !x[i].is_ascii_digit() {
                i += 1;
            }
            while j < y.len() && !y[j].is_ascii_digit() {
                j += 1;
            }
            // Byte order, a run that is a prefix of the other first: "a" < "a1" < "ab".
            let by_bytes = x[si..i].cmp(&y[sj..j]);
            if by_bytes != Ordering::Equal {
                return by_bytes;
            }
        }
    }
    (x.len() - i)
        .cmp(&(y.len() - j))
        .then(zeros)
        .then_with(|| x.cmp(y))
}

/// Each of `n` items' rank when sorted by their ids in natural order (`id(i)` is item
/// `i`'s id): `rank[i] < rank[j]` when `i`'s id comes first. Sorted once, then compared
/// as numbers: what a list of millions of pairs needs.
pub fn natural_ranks<S: AsRef<str>>(n: usize, id: impl Fn(u32) -> S + Sync) -> Vec<u32> {
    use rayon::slice::ParallelSliceMut;
    let mut by_id: Vec<u32> = (0..n as u32).collect();
    by_id.par_sort_unstable_by(|&x, &y| natural_cmp(id(x).as_ref(), id(y).as_ref()));
    let mut rank = vec![0u32; n];
    for (r, &d) in by_id.iter().enumerate() {
        rank[d as usize] = r as u32;
    }
    rank
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    let start = digits
        .iter()
        .position(|&d| d != b'0')
        .unwrap_or(digits.len());
    &digits[start..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sorted(ids: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        v.sort_by(|a, b| natural_cmp(a, b));
        v
    }

    #[test]
    fn numbers_sort_as_numbers() {
        assert_eq!(
            sorted(&["10038", "1014", "1017", "9"]),
            ["9", "1014", "1017", "10038"]
        );
        assert_eq!(
            sorted(&["reut2-10.sgm:5", "reut2-2.sgm:40", "reut2-2.sgm:7"]),
            ["reut2-2.sgm:7", "reut2-2.sgm:40", "reut2-10.sgm:5"]
        );
        assert_eq!(
            sorted(&["a", "a1", "ab", "", "1"]),
            ["", "1", "a", "a1", "ab"]
        );
        assert_eq!(sorted(&["x01", "x1", "x001"]), ["x1", "x01", "x001"]);
        let big = "123456789012345678901234567890";
        assert_eq!(natural_cmp(big, "99"), Ordering::Greater);
        assert_eq!(natural_cmp("b", "a10"), Ordering::Greater);
    }

    #[test]
    fn ranks_follow_the_natural_order() {
        let ids = ["10", "9", "a", "100"];
        assert_eq!(natural_ranks(ids.len(), |i| ids[i as usize]), [1, 0, 3, 2]);
        assert!(natural_ranks(0, |_| "").is_empty());
    }

    proptest! {
        /// A total order: antisymmetric, transitive, Equal only for equal strings.
        #[test]
        fn a_total_order(
            a in "[a0-2.]{0,6}", b in "[a0-2.]{0,6}", c in "[a0-2.]{0,6}",
        ) {
            prop_assert_eq!(natural_cmp(&a, &b), natural_cmp(&b, &a).reverse());
            prop_assert_eq!(natural_cmp(&a, &b) == Ordering::Equal, a == b);
            if natural_cmp(&a, &b) != Ordering::Greater && natural_cmp(&b, &c) != Ordering::Greater {
                prop_assert_ne!(natural_cmp(&a, &c), Ordering::Greater);
            }
        }
    }
}
