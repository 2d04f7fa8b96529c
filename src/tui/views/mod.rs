//! The explorer's views, one file each, each with its state, its key table, its update
//! and its render (`view` says what a view is). The App keeps them on a stack above the
//! pairs list and sends each action to the view on top.
//!
//! The pairs list (`list`) holds two parts with key tables of their own, the filter
//! (`filter`) and the tuning panel (`tuning`), and shows the loading view (`loading`)
//! until it has pairs. From it open the diff, the neighbours, the clusters (then their
//! members and heatmap) and the export prompt; the help opens over any of them.

pub mod clusters;
pub mod diff;
pub mod export;
pub mod filter;
pub mod heatmap;
pub mod help;
pub mod list;
pub mod loading;
pub mod members;
pub mod neighbours;
pub mod tuning;
pub mod view;
