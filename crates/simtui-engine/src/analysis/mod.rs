//! What is built on an index: the exact pairs of a whole corpus ([`exact`], found by a
//! prefix-filtered similarity join, [`join`]), recall and
//! precision against them ([`eval`]; [`candidates`]: a banding's candidates counted from its buckets), clusters ([`cluster`]), nearest neighbours
//! ([`query`]), similarity matrices ([`matrix`]), and the choice between MinHash and
//! SimHash behind one interface ([`method`]).

pub mod candidates;
pub mod cluster;
pub mod dedup;
pub mod eval;
pub mod exact;
mod held;
pub mod join;
pub mod matrix;
pub mod mean;
pub mod method;
pub mod query;
pub mod reband;
