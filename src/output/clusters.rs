//! Clusters as `simtui clusters` prints them and the explorer exports them.

use super::color::Paint;
use super::format::{Format, csv_field, printable};
use clap::ValueEnum;
use simtui_engine::analysis::cluster::Cluster;
use simtui_engine::index::Index;
use std::io::{self, Write};

/// The member each cluster keeps (`--keep`), named in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KeepArg {
    Longest,
    Shortest,
    Oldest,
    Newest,
    First,
}

/// Writes clusters in the given (resolved) format.
pub fn write_clusters(
    out: &mut dyn Write,
    index: &Index,
    found: &[Cluster],
    keep: KeepArg,
    format: Format,
) -> io::Result<()> {
    let id = |d: u32| index.docs()[d as usize].id.as_str();
    match format {
        Format::Jsonl | Format::Auto => {
            for (i, c) in found.iter().enumerate() {
                let mut obj = serde_json::json!({
                    "cluster": i + 1,
                    "size": c.members.len(),
                    "representative": id(c.representative),
                    "mean_jaccard": c.mean_jaccard,
                    "members": c.members.iter().map(|&d| id(d)).collect::<Vec<_>>(),
                });
                if c.mean_sampled {
                    // Estimated from a sample of the members' pairs (too many contents).
                    obj["mean_sampled"] = true.into();
                }
                writeln!(out, "{obj}")?;
            }
        }
        Format::Csv => {
            writeln!(out, "cluster,size,mean_jaccard,doc,representative")?;
            for (i, c) in found.iter().enumerate() {
                for &d in &c.members {
                    writeln!(
                        out,
                        "{},{},{},{},{}",
                        i + 1,
                        c.members.len(),
                        c.mean_jaccard,
                        csv_field(id(d)),
                        d == c.representative
                    )?;
                }
            }
        }
        Format::Table => {
            // Coloured as `pairs`' table: each cluster's title bold, its mean J by value.
            let paint = Paint::stdout();
            let keep = keep.to_possible_value().unwrap();
            for (i, c) in found.iter().enumerate() {
                writeln!(
                    out,
                    "{} {} documents, mean J {}{}",
                    paint.bold(&format!("cluster {}:", i + 1)),
                    c.members.len(),
                    if c.mean_sampled { "≈" } else { "" },
                    paint.similarity(c.mean_jaccard, &format!("{:.4}", c.mean_jaccard))
                )?;
                for &d in &c.members {
                    // Names' control characters shown as escapes, never sent to the terminal.
                    let name = printable(id(d));
                    if d == c.representative {
                        writeln!(out, "  * {name}  (kept: {})", keep.get_name())?;
                    } else {
                        writeln!(out, "    {name}")?;
                    }
                }
            }
            let members: usize = found.iter().map(|c| c.members.len()).sum();
            writeln!(
                out,
                "{} clusters, {members} documents, {} duplicates (* kept)",
                found.len(),
                members - found.len()
            )?;
        }
    }
    Ok(())
}
