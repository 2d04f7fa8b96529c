//! Finding pairs: candidates by LSH banding of signatures ([`banding`]) or by SimHash
//! block tables ([`blocks`]), verified with exact Jaccard ([`verify`]), and spelled out
//! as document pairs ([`spell`]); [`curve`] is the S-curve of a banding, [`found`] what
//! a search finds.

pub mod banding;
pub mod blocks;
pub mod curve;
pub mod found;
pub mod spell;
pub(crate) mod verify;

#[cfg(test)]
mod tests;
