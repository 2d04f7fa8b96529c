//! Drawing pieces the views share: text measures and formats (`fmt`; wrapping is
//! `output::wrap`, shared with `simtui diff`), styles (`theme`), where things go on screen (`layout`), the list table of
//! the neighbours, clusters and members views (`list_table`), and the tuning panel's
//! chart (`s_curve`). None of them knows a view.

pub mod fmt;
pub mod layout;
pub mod list_table;
pub mod s_curve;
pub mod theme;
