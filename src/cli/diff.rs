//! `simtui diff A B`: two documents side by side on standard output, as the explorer's
//! diff view aligns and wraps them (`output::diff_model`), with exact J, the estimate and
//! their sizes in a header. Changed words are coloured on a terminal and bracketed
//! (`[-old-]`, `{+new+}`) without colour.

use super::args::IndexArgs;
use crate::output::color::Paint;
use crate::output::diff_model::{self, DiffModel, Layout, SideRow};
use crate::output::error::UsageError;
use crate::output::format::with_stdout;
use crate::output::width::{clean, width};
use clap::Args;
use simtui_engine::index::Index;
use simtui_engine::source::{self, Corpus, Entry};
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The first document: a file, or with --corpus a document id
    #[arg(value_name = "A")]
    pub a: String,
    /// The second document: a file, or with --corpus a document id
    #[arg(value_name = "B")]
    pub b: String,
    /// Take A and B as document ids of this corpus (a folder or file)
    ///
    /// Ids as the other commands print them: a file's path under the folder, or a
    /// record's id in a JSON Lines or SGML file. The corpus is read with the indexing
    /// options, so J and the estimate are the ones `simtui pairs` gives.
    #[arg(long, value_name = "PATH")]
    pub corpus: Option<PathBuf>,
    /// Width of the output in columns [default: the terminal's, else 100]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(MIN_WIDTH as i64..))]
    pub width: Option<u16>,
    #[command(flatten)]
    pub index: IndexArgs,
}

/// The narrowest output: two columns of 8 and the separator.
const MIN_WIDTH: usize = 20;
/// The width when stdout is not a terminal and --width is not given.
const PIPE_WIDTH: usize = 100;

/// One side's facts for the header.
struct Side {
    id: String,
    text: Arc<str>,
    bytes: u64,
    tokens: u64,
    shingles: usize,
}

pub fn run(args: &DiffArgs) -> anyhow::Result<()> {
    args.index.check()?;
    let params = args.index.params();
    // -vv: when each stage finishes.
    let progress = crate::output::diag::StageLog::default();
    let (index, a, b) = match &args.corpus {
        Some(corpus) => {
            let found = args.index.walk(std::slice::from_ref(corpus))?;
            let index = Index::builder(&params).build(found, &progress)?;
            let find = |id: &str| -> Result<u32, UsageError> {
                index
                    .docs()
                    .iter()
                    .position(|d| d.id == id)
                    .map(|i| i as u32)
                    .ok_or_else(|| {
                        UsageError(format!(
                            "{id}: not a document id of {} (ids are as `simtui pairs` prints them)",
                            corpus.display()
                        ))
                    })
            };
            let (a, b) = (find(&args.a)?, find(&args.b)?);
            (index, a, b)
        }
        None => {
            let read = |name: &str| -> Result<(String, String), UsageError> {
                let path = PathBuf::from(name);
                if !path.is_file() {
                    return Err(UsageError(format!(
                        "{name}: not a file (give --corpus PATH to diff two documents of a corpus by id)"
                    )));
                }
                let entry = Entry {
                    id: name.to_string(),
                    source: source::Source::File(path.into()),
                    bytes: 0,
                };
                let text = source::read_text(&entry, args.index.max_bytes).map_err(
                    |(reason, detail)| UsageError(format!("{name}: {} {detail}", reason.name())),
                )?;
                Ok((name.to_string(), text.to_string()))
            };
            let texts = [read(&args.a)?, read(&args.b)?];
            let index = Index::builder(&params).build(Corpus::from_texts(texts), &progress)?;
            (index, 0, 1)
        }
    };
    let side = |d: u32| -> anyhow::Result<Side> {
        let doc = &index.docs().at(d as usize);
        let entry = Entry {
            id: doc.id.clone(),
            source: doc.source.clone(),
            bytes: doc.bytes,
        };
        let text = source::read_text(&entry, params.max_bytes)
            .map_err(|(reason, _)| anyhow::anyhow!("{}: {}", doc.id, reason.name()))?;
        Ok(Side {
            id: doc.id.clone(),
            text,
            bytes: doc.bytes,
            tokens: doc.tokens,
            shingles: index.shingles().set_len(doc.group as usize),
        })
    };
    let (left, right) = (side(a)?, side(b)?);
    let (jaccard, estimate) = index.similarity(a, b);
    // The fields asked for, and the usual date and origin fields either one has.
    let (meta_names, meta) = crate::output::meta::side_by_side(
        &args.index.meta_field,
        &index.docs().at(a as usize),
        &index.docs().at(b as usize),
    );
    let total = match args.width {
        Some(w) => w as usize,
        None if io::stdout().is_terminal() => ratatui::crossterm::terminal::size()
            .map_or(PIPE_WIDTH, |(w, _)| w as usize)
            .max(MIN_WIDTH),
        None => PIPE_WIDTH,
    };
    let paint = Paint::stdout();
    let model = diff_model::compare(&left.text, &right.text);
    // Without colour the changes are bracketed, and the brackets wrap with the words.
    let shown = if paint.is_on() {
        model.clone()
    } else {
        diff_model::bracketed(&model)
    };
    let column = (total - 3) / 2;
    let layout = diff_model::layout(&shown, column);
    let header = Header {
        left: &left,
        right: &right,
        jaccard,
        estimate,
        functions: index.signatures().width(),
        k: params.k,
        model: &model,
        meta_names: &meta_names,
        meta: &meta,
    };
    with_stdout(|out| {
        header.write(out, &paint, total)?;
        write_rows(out, &paint, &layout)
    })?;
    Ok(())
}

struct Header<'a> {
    left: &'a Side,
    right: &'a Side,
    jaccard: f64,
    estimate: f64,
    functions: usize,
    k: usize,
    model: &'a DiffModel,
    /// Metadata fields shown, and each side's values of them.
    meta_names: &'a [String],
    meta: &'a [Vec<String>; 2],
}

impl Header<'_> {
    /// A line per document (id, sizes, words only on its side), the similarities, a rule.
    fn write(&self, out: &mut dyn Write, paint: &Paint, total: usize) -> io::Result<()> {
        for (tag, s, i) in [("A", self.left, 0), ("B", self.right, 1)] {
            let words = self.model.changed_words[i];
            let mut facts = format!(
                "{} bytes · {} tokens · {} shingles · {words} {} only here",
                s.bytes,
                s.tokens,
                s.shingles,
                if words == 1 { "word" } else { "words" }
            );
            if self.model.truncated[i] {
                facts.push_str(&format!(" · TRUNCATED to {} KB", diff_model::CAP / 1024));
            }
            let id = clean(&s.id);
            writeln!(
                out,
                "{} {}  {}",
                paint.bold(tag),
                paint.bold(&id),
                paint.dim(&facts)
            )?;
            if !self.meta_names.is_empty() {
                writeln!(out, "  {}", self.meta_line(i))?;
            }
        }
        let mut line = format!(
            "exact J {:.3} · estimate {:.3} ({} functions) · k = {}",
            self.jaccard, self.estimate, self.functions, self.k
        );
        if let Some(verdict) = diff_model::verdict(self.model) {
            line.push_str(&format!(" · {verdict}"));
        }
        if self.model.approximate {
            line.push_str(" · approximate diff (time limit)");
        }
        writeln!(out, "{}", paint.bold(&line))?;
        writeln!(out, "{}", paint.dim(&"─".repeat(total)))
    }
}

impl Header<'_> {
    /// A side's metadata: `NAME value · NAME value`, a value that differs from the other
    /// side's marked '≠' (two reports alike word for word can be of different days).
    fn meta_line(&self, side: usize) -> String {
        let (mine, theirs) = (&self.meta[side], &self.meta[1 - side]);
        let fields: Vec<String> = (self.meta_names.iter().enumerate())
            .map(|(i, name)| {
                let v = clean(&mine[i]);
                let mark = if mine[i] != theirs[i] { "≠" } else { "" };
                let v = if v.is_empty() { "—".to_string() } else { v };
                format!("{mark}{name} {v}")
            })
            .collect();
        fields.join(" · ")
    }
}

/// Each row: the left side padded to its column, a separator (┃ where the texts differ),
/// the right side.
fn write_rows(out: &mut dyn Write, paint: &Paint, layout: &Layout) -> io::Result<()> {
    for row in &layout.rows {
        let (left, w) = side(paint, layout, &row.left, true);
        let pad = layout.column.saturating_sub(w);
        let sep = if row.changed { " ┃ " } else { " │ " };
        let (right, _) = side(paint, layout, &row.right, false);
        let line = format!("{left}{}{}{right}", " ".repeat(pad), paint.dim(sep));
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// A side of a row, its changed words coloured, and its width. White space at its end
/// (hanging past the column, or a blank line's gutter) is not written, as the explorer
/// does not draw it.
fn side(paint: &Paint, layout: &Layout, row: &Option<SideRow>, left: bool) -> (String, usize) {
    let Some(row) = row else {
        return (String::new(), 0);
    };
    // (text, style): 0 plain, 1 dim, 2 changed.
    let mut pieces = vec![(gutter(layout, row), 1)];
    pieces.extend(
        row.segs
            .iter()
            .map(|s| (s.text.clone(), 2 * s.changed as u8)),
    );
    let all: String = pieces.iter().map(|p| p.0.as_str()).collect();
    let mut budget = all.trim_end().len();
    let mut out = String::new();
    for (text, style) in pieces {
        let keep = &text[..text.len().min(budget)];
        budget -= keep.len();
        out.push_str(&match (style, left) {
            (0, _) => keep.to_string(),
            (1, _) => paint.dim(keep),
            (_, true) => paint.removed(keep),
            (_, false) => paint.added(keep),
        });
    }
    (out, width(all.trim_end()))
}

/// The line number on a line's first row, blanks on the rows that continue it.
fn gutter(layout: &Layout, row: &SideRow) -> String {
    let g = layout.gutter;
    if g == 0 {
        return String::new();
    }
    let num = row.line.map(|n| n.to_string()).unwrap_or_default();
    format!("{num:>w$} ", w = g - 1)
}
