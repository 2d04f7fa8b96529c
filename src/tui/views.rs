//! The views opened from the pairs list: a document's nearest neighbours, the clusters
//! of the listed pairs, one cluster's members, and a cluster's similarity heatmap.
//!
//! They stack: Esc goes back to the view below, and the diff opens on top of any of
//! them. Each view keeps the index it was opened on, so its document numbers stay
//! right while a re-banding or a new k replaces the results underneath.

use super::app::App;
use super::keys::{Action, Context};
use super::widgets::layout;
use super::worker::{Kind, Output, Work};
use simtui::cluster::Cluster;
use simtui::index::{Index, Pair};
use simtui::matrix::Matrix;
use simtui::query::Answer;
use std::sync::Arc;

/// Neighbours asked for at a time (LSH candidates first, then a scan fills up).
pub const TOP_NEIGHBOURS: usize = 100;
/// The heatmap shows at most this many members of a cluster.
pub const MAX_HEATMAP: usize = 64;

/// A selection in a list, and the first row shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    pub selected: usize,
    pub offset: usize,
}

impl Cursor {
    /// Applies a movement key to a list of `len` rows shown `page` at a time. False for
    /// an action that is no movement.
    pub fn apply(&mut self, action: Action, len: usize, page: usize) -> bool {
        let page = page.max(1) as isize;
        let sel = self.selected as isize;
        let to = match action {
            Action::Up => sel - 1,
            Action::Down => sel + 1,
            Action::WheelUp => sel - 3,
            Action::WheelDown => sel + 3,
            Action::PageUp => sel - page,
            Action::PageDown => sel + page,
            Action::Top => 0,
            Action::Bottom => len as isize,
            _ => return false,
        };
        self.select(to, len, page as usize);
        true
    }

    pub fn select(&mut self, to: isize, len: usize, page: usize) {
        self.selected = if len == 0 {
            0
        } else {
            to.clamp(0, len as isize - 1) as usize
        };
        let page = page.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + page {
            self.offset = self.selected + 1 - page;
        }
        self.offset = self.offset.min(len.saturating_sub(page));
    }
}

pub struct NeighboursView {
    pub index: Arc<Index>,
    pub doc: u32,
    /// The banding the candidates come from.
    pub bands: usize,
    pub rows: usize,
    pub job: u64,
    pub answer: Option<Answer>,
    pub cursor: Cursor,
}

pub struct ClustersView {
    pub index: Arc<Index>,
    /// Clusters join pairs with exact J at least this (hundredths).
    pub threshold_pct: u32,
    /// Pairs listed when the view opened (the filter applies), and those at the threshold.
    pub listed: Vec<Pair>,
    pub linked: usize,
    pub job: u64,
    pub clusters: Option<Arc<Vec<Cluster>>>,
    pub cursor: Cursor,
}

impl ClustersView {
    pub fn threshold(&self) -> f64 {
        self.threshold_pct as f64 / 100.0
    }
}

pub struct MembersView {
    pub index: Arc<Index>,
    pub cluster: Cluster,
    /// Position of the cluster in its list (for the title).
    pub number: usize,
    /// The members, the representative first, then by J to it (descending).
    pub order: Vec<u32>,
    /// (exact J, estimate) of each member with the representative.
    pub sims: Vec<(f64, f64)>,
    pub cursor: Cursor,
}

pub struct HeatmapView {
    pub index: Arc<Index>,
    pub docs: Vec<u32>,
    /// Members left out (beyond [`MAX_HEATMAP`]).
    pub left_out: usize,
    pub job: u64,
    pub matrix: Option<Matrix>,
    /// (row, column) under the cursor.
    pub at: (usize, usize),
}

pub enum View {
    Neighbours(NeighboursView),
    Clusters(ClustersView),
    Members(MembersView),
    Heatmap(HeatmapView),
}

impl View {
    pub fn context(&self) -> Context {
        match self {
            View::Neighbours(_) => Context::Neighbours,
            View::Clusters(_) => Context::Clusters,
            View::Members(_) => Context::Members,
            View::Heatmap(_) => Context::Heatmap,
        }
    }
}

/// Rows of a view's list on a screen of this size (a title and a header above them).
pub fn page(size: (u16, u16)) -> usize {
    let s = layout::screen(layout::area(size));
    layout::list_rows(s.body).max(1)
}

impl App {
    /// The nearest neighbours of a document of an index, in a new view on top.
    pub(super) fn open_neighbours(&mut self, index: Arc<Index>, doc: u32) {
        let (bands, rows) = self.session().banding();
        if bands * rows > index.signatures.width() {
            self.status = Some("more hash functions are being computed; try again".into());
            return;
        }
        let job = self.jobs_mut().spawn(Work::Neighbours {
            index: index.clone(),
            bands,
            rows,
            doc,
            top: TOP_NEIGHBOURS,
        });
        self.stack.push(View::Neighbours(NeighboursView {
            index,
            doc,
            bands,
            rows,
            job,
            answer: None,
            cursor: Cursor::default(),
        }));
    }

    /// The clusters of the listed pairs (the filter applies) at the tuning panel's s.
    pub(super) fn open_clusters(&mut self) {
        let Some(r) = self.session().results() else {
            return;
        };
        let index = r.index.clone();
        let listed: Vec<Pair> = self
            .list
            .visible
            .iter()
            .map(|&i| r.found.pairs[i as usize])
            .collect();
        self.stack.push(View::Clusters(ClustersView {
            index,
            threshold_pct: self.tuning.s_pct.max(1),
            listed,
            linked: 0,
            job: 0,
            clusters: None,
            cursor: Cursor::default(),
        }));
        self.recluster_top();
    }

    /// Joins the clusters view on top again, at its threshold (on a worker).
    fn recluster_top(&mut self) {
        let Some(View::Clusters(v)) = self.stack.last() else {
            return;
        };
        let t = v.threshold();
        let pairs: Vec<Pair> = v
            .listed
            .iter()
            .filter(|p| p.jaccard >= t)
            .copied()
            .collect();
        let index = v.index.clone();
        let linked = pairs.len();
        let job = self.jobs_mut().spawn(Work::Clusters { index, pairs });
        if let Some(View::Clusters(v)) = self.stack.last_mut() {
            (v.linked, v.clusters, v.job) = (linked, None, job);
        }
    }

    fn open_members(&mut self, index: Arc<Index>, cluster: Cluster, number: usize) {
        let rep = cluster.representative;
        let mut order: Vec<(u32, (f64, f64))> = cluster
            .members
            .iter()
            .map(|&d| (d, index.similarity(rep, d)))
            .collect();
        // The representative first, then the most similar to it.
        order.sort_by(|x, y| {
            (y.0 == rep)
                .cmp(&(x.0 == rep))
                .then(y.1.0.total_cmp(&x.1.0))
                .then(x.0.cmp(&y.0))
        });
        self.stack.push(View::Members(MembersView {
            index,
            cluster,
            number,
            sims: order.iter().map(|x| x.1).collect(),
            order: order.into_iter().map(|x| x.0).collect(),
            cursor: Cursor::default(),
        }));
    }

    fn open_heatmap(&mut self, index: Arc<Index>, members: &[u32]) {
        let docs: Vec<u32> = members.iter().take(MAX_HEATMAP).copied().collect();
        let job = self.jobs_mut().spawn(Work::Heatmap {
            index: index.clone(),
            docs: docs.clone(),
        });
        self.stack.push(View::Heatmap(HeatmapView {
            index,
            left_out: members.len() - docs.len(),
            docs,
            job,
            matrix: None,
            // Off the diagonal, where the values say something.
            at: (usize::from(members.len() > 1), 0),
        }));
    }

    /// An action in the view on top of the stack.
    pub(super) fn update_view(&mut self, action: Action) {
        let page = page(self.size);
        if action == Action::Back {
            self.close_view();
            return;
        }
        let Some(top) = self.stack.last_mut() else {
            return;
        };
        match top {
            View::Neighbours(v) => {
                let len = v.answer.as_ref().map_or(0, |a| a.neighbours.len());
                if v.cursor.apply(action, len, page) {
                    return;
                }
                let Some(n) = v
                    .answer
                    .as_ref()
                    .and_then(|a| a.neighbours.get(v.cursor.selected))
                    .copied()
                else {
                    return;
                };
                let (index, doc) = (v.index.clone(), v.doc);
                match action {
                    Action::Open => self.open_diff_of(
                        index,
                        Pair {
                            a: doc,
                            b: n.doc,
                            jaccard: n.jaccard,
                            estimate: n.estimate,
                        },
                    ),
                    Action::Neighbours => self.open_neighbours(index, n.doc),
                    _ => {}
                }
            }
            View::Clusters(v) => {
                let len = v.clusters.as_ref().map_or(0, |c| c.len());
                if v.cursor.apply(action, len, page) {
                    return;
                }
                let step = match action {
                    Action::SimUp => 5,
                    Action::SimDown => -5,
                    _ => 0,
                };
                if step != 0 {
                    let to = (v.threshold_pct as i32 + step).clamp(5, 100) as u32;
                    if to != v.threshold_pct {
                        v.threshold_pct = to;
                        v.cursor = Cursor::default();
                        self.recluster_top();
                    }
                    return;
                }
                let Some(c) = v
                    .clusters
                    .as_ref()
                    .and_then(|c| c.get(v.cursor.selected))
                    .cloned()
                else {
                    return;
                };
                let (index, number) = (v.index.clone(), v.cursor.selected + 1);
                match action {
                    Action::Open => self.open_members(index, c, number),
                    Action::Heatmap => self.open_heatmap(index, &c.members),
                    Action::Export => self.start_export(),
                    _ => {}
                }
            }
            View::Members(v) => {
                if v.cursor.apply(action, v.order.len(), page) {
                    return;
                }
                let index = v.index.clone();
                let d = v.order[v.cursor.selected.min(v.order.len() - 1)];
                let rep = v.cluster.representative;
                match action {
                    Action::Open if d != rep => {
                        let (jaccard, estimate) = index.similarity(rep, d);
                        self.open_diff_of(
                            index,
                            Pair {
                                a: rep,
                                b: d,
                                jaccard,
                                estimate,
                            },
                        );
                    }
                    Action::Open => {
                        self.status = Some("the representative: choose another member".into())
                    }
                    Action::Neighbours => self.open_neighbours(index, d),
                    Action::Heatmap => {
                        let order = v.order.clone();
                        self.open_heatmap(index, &order);
                    }
                    _ => {}
                }
            }
            View::Heatmap(v) => {
                let n = v.docs.len();
                let (i, j) = v.at;
                let clamp = |x: isize| x.clamp(0, n.saturating_sub(1) as isize) as usize;
                match action {
                    Action::Up => v.at.0 = clamp(i as isize - 1),
                    Action::Down => v.at.0 = clamp(i as isize + 1),
                    Action::Left => v.at.1 = clamp(j as isize - 1),
                    Action::Right => v.at.1 = clamp(j as isize + 1),
                    Action::Open if i != j && n > 0 => {
                        let (a, b) = (v.docs[i], v.docs[j]);
                        let index = v.index.clone();
                        let (jaccard, estimate) = index.similarity(a, b);
                        self.open_diff_of(
                            index,
                            Pair {
                                a,
                                b,
                                jaccard,
                                estimate,
                            },
                        );
                    }
                    Action::Open => {
                        self.status = Some("the diagonal: a document with itself".into())
                    }
                    _ => {}
                }
            }
        }
    }

    fn close_view(&mut self) {
        // Its job, if still running, is of no use to anyone now.
        if let Some(view) = self.stack.pop()
            && let Some((kind, job)) = view.waiting_job()
            && self.jobs().is_current(job)
        {
            self.jobs_mut().cancel(kind);
        }
        self.resume_top();
    }

    /// The view now on top may have lost its job to one above it (one job per kind runs
    /// at a time): start it again.
    fn resume_top(&mut self) {
        let Some((_, job)) = self.stack.last().and_then(View::waiting_job) else {
            return;
        };
        if self.jobs().is_current(job) {
            return;
        }
        let work = match self.stack.last() {
            Some(View::Neighbours(v)) => Work::Neighbours {
                index: v.index.clone(),
                bands: v.bands,
                rows: v.rows,
                doc: v.doc,
                top: TOP_NEIGHBOURS,
            },
            Some(View::Heatmap(v)) => Work::Heatmap {
                index: v.index.clone(),
                docs: v.docs.clone(),
            },
            _ => return self.recluster_top(),
        };
        let job = self.jobs_mut().spawn(work);
        match self.stack.last_mut() {
            Some(View::Neighbours(v)) => v.job = job,
            Some(View::Heatmap(v)) => v.job = job,
            _ => {}
        }
    }

    /// Moves to the next (`step` 1) or previous (-1) row of the view under the diff and
    /// opens that pair: n/p in the diff walk the list the diff was opened from.
    pub(super) fn step_view_pair(&mut self, step: isize) -> bool {
        let page = page(self.size);
        let Some(top) = self.stack.last_mut() else {
            return false;
        };
        // In the members view, the representative (row 0) has no pair with itself.
        let first = matches!(top, View::Members(_)) as isize;
        let (cursor, len) = match top {
            View::Neighbours(v) => {
                let len = v.answer.as_ref().map_or(0, |a| a.neighbours.len());
                (&mut v.cursor, len)
            }
            View::Members(v) => (&mut v.cursor, v.order.len()),
            View::Clusters(_) | View::Heatmap(_) => {
                self.status = Some("no next pair here: Esc, then move".into());
                return true;
            }
        };
        let to = cursor.selected as isize + step;
        if to < first || to >= len as isize {
            self.status = Some(if step > 0 { "last pair" } else { "first pair" }.into());
            return true;
        }
        cursor.select(to, len, page);
        self.diff = None;
        self.update_view(Action::Open);
        true
    }

    /// A worker's result for a view. False when no view waits for it.
    pub(super) fn view_done(&mut self, id: u64, out: Output) -> bool {
        for view in self.stack.iter_mut().rev() {
            match (view, &out) {
                (View::Neighbours(v), Output::Neighbours(_)) if v.job == id => {
                    let Output::Neighbours(answer) = out else {
                        unreachable!()
                    };
                    v.answer = Some(answer);
                    return true;
                }
                (View::Clusters(v), Output::Clusters(_)) if v.job == id => {
                    let Output::Clusters(clusters) = out else {
                        unreachable!()
                    };
                    v.clusters = Some(Arc::new(clusters));
                    return true;
                }
                (View::Heatmap(v), Output::Heatmap(_)) if v.job == id => {
                    let Output::Heatmap(matrix) = out else {
                        unreachable!()
                    };
                    v.matrix = Some(matrix);
                    return true;
                }
                _ => {}
            }
        }
        false
    }
}

impl View {
    /// The job this view still waits for, and its kind.
    fn waiting_job(&self) -> Option<(Kind, u64)> {
        match self {
            View::Neighbours(v) if v.answer.is_none() => Some((Kind::Neighbours, v.job)),
            View::Clusters(v) if v.clusters.is_none() => Some((Kind::Clusters, v.job)),
            View::Heatmap(v) if v.matrix.is_none() => Some((Kind::Heatmap, v.job)),
            _ => None,
        }
    }
}
