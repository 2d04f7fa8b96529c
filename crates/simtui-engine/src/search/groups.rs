//! Which documents each distinct content (group of identical documents) stands for: what
//! turns pairs of contents into pairs of documents, and counts them. Identical documents
//! are shingled, sketched, banded and verified once, as one content; 10,000 copies of a
//! file cost one content, and their pairs are only spelled out when asked for.

/// The documents of each content, and the contents with no shingle (empty documents,
/// which are similar to nothing, themselves included).
#[derive(Clone, Debug, Default)]
pub struct Groups {
    /// Documents of content `g`: `members[start[g]..start[g + 1]]`, in corpus order.
    members: Vec<u32>,
    start: Vec<u32>,
    /// Contents of no shingle, ascending (one at most, all empty documents being alike).
    empty: Vec<u32>,
}

impl Groups {
    /// The table of `groups` contents for documents whose contents are `doc_groups`, in
    /// corpus order (a counting sort), `empty` the contents with no shingle.
    pub(crate) fn new(
        doc_groups: impl Iterator<Item = u32> + Clone,
        groups: usize,
        empty: Vec<u32>,
    ) -> Groups {
        let mut start = vec![0u32; groups + 1];
        let mut docs = 0;
        for g in doc_groups.clone() {
            start[g as usize + 1] += 1;
            docs += 1;
        }
        for g in 0..groups {
            start[g + 1] += start[g];
        }
        let mut fill = start.clone();
        let mut members = vec![0u32; docs];
        for (i, g) in doc_groups.enumerate() {
            members[fill[g as usize] as usize] = i as u32;
            fill[g as usize] += 1;
        }
        Groups {
            members,
            start,
            empty,
        }
    }

    /// Number of contents.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Whether there are no contents.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The documents of content `g`, in corpus order.
    pub fn members(&self, g: u32) -> &[u32] {
        &self.members[self.start[g as usize] as usize..self.start[g as usize + 1] as usize]
    }

    /// Whether content `g` has no shingle: its documents are similar to nothing.
    pub fn is_blank(&self, g: u32) -> bool {
        self.empty.binary_search(&g).is_ok()
    }

    /// Number of pairs of documents within content `g` (identical documents); 0 for the
    /// content of empty documents, which pair with nothing.
    pub fn pairs_within(&self, g: u32) -> u64 {
        if self.is_blank(g) {
            return 0;
        }
        let m = self.members(g).len() as u64;
        m * m.saturating_sub(1) / 2
    }

    /// Pairs of identical documents over every content.
    pub fn within(&self) -> u64 {
        (0..self.len() as u32).map(|g| self.pairs_within(g)).sum()
    }

    /// Number of pairs of documents across contents `ga` and `gb`.
    pub fn across(&self, ga: u32, gb: u32) -> u64 {
        (self.members(ga).len() * self.members(gb).len()) as u64
    }

    /// The contents that can pair with anything (all but the one of empty documents).
    pub fn nonempty(&self) -> Vec<u32> {
        (0..self.len() as u32)
            .filter(|&g| !self.is_blank(g))
            .collect()
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        (self.members.capacity() + self.start.capacity() + self.empty.capacity()) * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_by_content_and_their_pairs() {
        // Documents 0..6 in contents 1, 0, 1, 2, 1, 2; content 2 has no shingle.
        let groups = Groups::new([1u32, 0, 1, 2, 1, 2].into_iter(), 3, vec![2]);
        assert_eq!(groups.members(1), &[0, 2, 4]);
        assert_eq!(groups.members(2), &[3, 5]);
        assert_eq!(groups.pairs_within(1), 3);
        assert_eq!(
            groups.pairs_within(2),
            0,
            "empty documents pair with nothing"
        );
        assert_eq!(groups.within(), 3);
        assert_eq!(groups.across(0, 1), 3);
        assert_eq!(groups.nonempty(), vec![0, 1]);
    }
}
