//! Clusters as `simtui clusters` prints them and the explorer exports them.

use super::color::Paint;
use super::format::{Format, csv_field, printable};
use super::label;
use simtui_engine::analysis::cluster::{Cluster, Keep};
use simtui_engine::index::Index;
use std::io::{self, Write};

/// The member each cluster keeps (`--keep`), named in the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeepArg {
    /// longest, shortest, oldest, newest or first: the engine's rule as it is.
    Rule(Keep),
    /// `field:NAME` (earliest value) or `field:NAME:last` (latest).
    Field { name: String, last: bool },
}

/// The rules that name no field, as `--keep` writes them.
const RULES: [(&str, Keep); 5] = [
    ("longest", Keep::Longest),
    ("shortest", Keep::Shortest),
    ("oldest", Keep::Oldest),
    ("newest", Keep::Newest),
    ("first", Keep::First),
];

impl KeepArg {
    /// Parses `--keep`: longest, shortest, oldest, newest, first, field:NAME or
    /// field:NAME:last.
    pub fn parse(s: &str) -> Result<KeepArg, String> {
        if let Some(&(_, rule)) = RULES.iter().find(|(name, _)| *name == s) {
            return Ok(KeepArg::Rule(rule));
        }
        let Some(field) = s.strip_prefix("field:") else {
            return Err(
                "expected longest, shortest, oldest, newest, first, field:NAME or field:NAME:last"
                    .to_string(),
            );
        };
        let (name, last) = match field.strip_suffix(":last") {
            Some(n) => (n, true),
            None => (field.strip_suffix(":first").unwrap_or(field), false),
        };
        if name.is_empty() {
            return Err("field: needs a field name (field:date)".to_string());
        }
        Ok(KeepArg::Field {
            name: name.to_string(),
            last,
        })
    }

    /// The rule as written on the command line.
    pub fn name(&self) -> String {
        match self {
            KeepArg::Rule(rule) => {
                let (name, _) = RULES
                    .iter()
                    .find(|(_, r)| r == rule)
                    .expect("a rule of RULES");
                name.to_string()
            }
            KeepArg::Field { name, last: false } => format!("field:{name}"),
            KeepArg::Field { name, last: true } => format!("field:{name}:last"),
        }
    }

    /// The engine's rule. A field rule reads its field with the documents: it is added to
    /// `meta_fields` if it is not there already.
    pub fn resolve(&self, meta_fields: &mut Vec<String>) -> Keep {
        match self {
            KeepArg::Rule(rule) => *rule,
            KeepArg::Field { name, last } => {
                let field = match meta_fields.iter().position(|m| m == name) {
                    Some(i) => i,
                    None => {
                        meta_fields.push(name.clone());
                        meta_fields.len() - 1
                    }
                };
                Keep::Field { field, last: *last }
            }
        }
    }
}

/// How verified pairs become clusters (`--cluster`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LinkageArg {
    // Connected components (union-find): chains link documents not similar themselves.
    Components,
    // Stars around the documents to keep: every member within T of the kept one.
    Star,
}

impl LinkageArg {
    pub fn linkage(self) -> simtui_engine::analysis::cluster::Linkage {
        use simtui_engine::analysis::cluster::Linkage;
        match self {
            LinkageArg::Components => Linkage::Components,
            LinkageArg::Star => Linkage::Star,
        }
    }
}

/// Writes clusters in the given (resolved) format.
pub fn write_clusters(
    out: &mut dyn Write,
    index: &Index,
    found: &[Cluster],
    keep: &KeepArg,
    format: Format,
) -> io::Result<()> {
    let id = |d: u32| index.docs().id(d as usize);
    match format {
        Format::Jsonl | Format::Auto => {
            for (i, c) in found.iter().enumerate() {
                let mut obj = serde_json::json!({
                    "cluster": i + 1,
                    "size": c.members.len(),
                    "representative": id(c.representative),
                    "mean_jaccard": c.mean_jaccard,
                    "members": c.members.iter().map(|&d| id(d)).collect::<Vec<_>>(),
                    "min_jaccard": c.min_jaccard,
                });
                if c.mean_sampled {
                    // Estimated from a sample of the members' pairs (too many contents).
                    obj["mean_sampled"] = true.into();
                }
                writeln!(out, "{obj}")?;
            }
        }
        Format::Csv => {
            writeln!(
                out,
                "cluster,size,mean_jaccard,doc,representative,min_jaccard"
            )?;
            for (i, c) in found.iter().enumerate() {
                for &d in &c.members {
                    writeln!(
                        out,
                        "{},{},{},{},{},{}",
                        i + 1,
                        c.members.len(),
                        c.mean_jaccard,
                        csv_field(&id(d)),
                        d == c.representative,
                        c.min_jaccard
                    )?;
                }
            }
        }
        Format::Table => {
            // Coloured as `pairs`' table: each cluster's title bold, its mean J by value.
            let paint = Paint::stdout();
            let keep = keep.name();
            for (i, c) in found.iter().enumerate() {
                writeln!(
                    out,
                    "{} {} documents, mean J {}{}, min J to kept {}",
                    paint.bold(&format!("cluster {}:", i + 1)),
                    c.members.len(),
                    if c.mean_sampled { "≈" } else { "" },
                    paint.similarity(c.mean_jaccard, &format!("{:.4}", c.mean_jaccard)),
                    paint.similarity(c.min_jaccard, &format!("{:.4}", c.min_jaccard))
                )?;
                // Members in natural order (numbers as numbers), ids padded, titles after.
                let mut members = c.members.clone();
                super::order::sort_docs(index, &mut members);
                let id_w = (members.iter())
                    .map(|&d| label::columns(&id(d)))
                    .max()
                    .unwrap_or(0);
                let kept = format!("  (kept: {keep})");
                for &d in &members {
                    // Names' control characters shown as escapes, never sent to the terminal.
                    let named = id(d);
                    let name = printable(&named);
                    let pad = " ".repeat(id_w - label::columns(&named));
                    let mark = if d == c.representative { "*" } else { " " };
                    let doc = index.docs().at(d as usize);
                    let title = label::title(doc.title(), 4 + id_w + 2 + kept.len());
                    let title = match title.is_empty() {
                        true => title,
                        false => format!("  {}", paint.dim(&title)),
                    };
                    let kept = if d == c.representative {
                        kept.as_str()
                    } else {
                        ""
                    };
                    let row = format!("  {mark} {name}{pad}{title}{kept}");
                    writeln!(out, "{}", row.trim_end())?;
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
