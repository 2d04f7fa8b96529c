//! The pairs list: rank, exact J, MinHash estimate, and both ids, one pair per row.

use super::app::App;
use super::tuning;
use super::widgets::{fmt, layout};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(app: &App, frame: &mut Frame, body: Rect) {
    let areas = layout::pairs(body, app.tuning.open, app.filter_shown());
    if let Some(t) = areas.tuning {
        tuning::render(app, frame, t);
    }
    list(app, frame, areas.list);
    if let Some(f) = areas.filter {
        filter_line(app, frame, f);
    }
}

/// The list's title: counts, banding, sort, and whether the results are stale.
fn title(app: &App) -> Line<'static> {
    let t = &app.theme;
    let session = app.session();
    let Some(r) = session.results() else {
        return Line::default();
    };
    let mut spans = vec![
        Span::styled(
            format!(
                " Pairs {} of {}",
                fmt::count(app.list.visible.len() as u64),
                fmt::count(r.found.pairs.len() as u64)
            ),
            t.title(),
        ),
        Span::raw(format!(
            " · {} candidates · {} · k={} {} · by {}",
            fmt::count(r.found.candidates),
            match &r.simhash {
                None => format!("b={} r={}", r.bands, r.rows),
                Some((s, _)) => format!(
                    "SimHash {} {} ≤{}",
                    s.hasher.bits(),
                    s.hasher.weight().name(),
                    s.max_distance
                ),
            },
            r.index.params.k,
            r.index.params.text.unit.name(),
            app.list.sort.name()
        )),
    ];
    // What is under way goes right after the counts, so a narrow title cuts the details,
    // not the warning.
    if session.stale() {
        spans.insert(
            1,
            Span::styled(
                format!(" · STALE (re-indexing {})", session.shingling()),
                t.warn(),
            ),
        );
    } else if session.rebanding() {
        let what = match session.simhash() {
            Some(_) => "SimHash".to_string(),
            None => {
                let (b, r) = session.banding();
                format!("b={b} r={r}")
            }
        };
        spans.insert(1, Span::styled(format!(" · banding {what}…"), t.warn()));
    }
    Line::from(spans)
}

struct Columns {
    rank: usize,
    id: usize,
    /// SimHash results: a Hamming distance column.
    hamming: bool,
}

fn columns(app: &App, width: usize) -> Columns {
    let rank = fmt::count(app.list.visible.len().max(1) as u64)
        .len()
        .max(1);
    let hamming = app.session().results().is_some_and(|r| r.simhash.is_some());
    // rank, J, estimate (and Hamming): "  " separators; ids share the rest.
    let fixed = 1 + rank + 2 + 5 + 2 + 5 + 2 + 2 + if hamming { 5 } else { 0 };
    Columns {
        rank,
        id: width.saturating_sub(fixed) / 2,
        hamming,
    }
}

fn list(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let Some(r) = app.session().results() else {
        return;
    };
    let w = area.width as usize;
    let c = columns(app, w);
    let mut lines = vec![title(app)];
    lines.push(Line::from(Span::styled(
        fmt::pad(
            &format!(
                " {:>rank$}  {:>5}  {:>5}{}  {}  {}",
                "#",
                "J",
                "est",
                if c.hamming { "  ham" } else { "" },
                fmt::pad("A", c.id),
                "B",
                rank = c.rank
            ),
            w,
        ),
        t.header(),
    )));
    let rows = layout::list_rows(area);
    if app.list.visible.is_empty() {
        let msg = if r.index.docs.is_empty() {
            format!(
                " No documents to compare: nothing readable was found ({} skipped).",
                fmt::count(r.index.skipped.len() as u64)
            )
        } else if r.found.pairs.is_empty() {
            format!(
                " No candidate pairs with b={} r={} (threshold ≈ {:.2}). Press t to tune: more bands or fewer rows find more.",
                r.bands,
                r.rows,
                simtui::curve::threshold(r.bands, r.rows)
            )
        } else {
            " No pair matches the filter. Esc clears it.".to_string()
        };
        lines.push(Line::from(Span::styled(msg, t.dim())));
    }
    let index = &r.index;
    for pos in app.list.offset..(app.list.offset + rows).min(app.list.visible.len()) {
        let p = &r.found.pairs[app.list.visible[pos] as usize];
        let a = &index.docs[p.a as usize].id;
        let b = &index.docs[p.b as usize].id;
        let hamming = match &r.simhash {
            Some((_, fps)) => format!(
                "  {:>3}",
                fps.distance(
                    index.docs[p.a as usize].group,
                    index.docs[p.b as usize].group
                )
            ),
            None => String::new(),
        };
        let text = format!(
            " {:>rank$}  {:.3}  {:.3}{hamming}  {}  {}",
            pos + 1,
            p.jaccard,
            p.estimate,
            fmt::pad(&fmt::shorten_middle(a, c.id), c.id),
            fmt::shorten_middle(b, c.id),
            rank = c.rank
        );
        let line = fmt::pad(&text, w);
        lines.push(if pos == app.list.selected {
            Line::from(Span::styled(line, t.selected()))
        } else {
            Line::from(line)
        });
    }
    frame.render_widget(Paragraph::new(lines), area);
}

fn filter_line(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let mut spans = vec![
        Span::styled(" Filter: ", t.key()),
        Span::raw(fmt::clean(&app.list.filter)),
    ];
    if app.list.editing {
        spans.push(Span::styled("▏", t.key()));
        spans.push(Span::styled("  Enter keeps · Esc clears", t.dim()));
    } else {
        spans.push(Span::styled("  (/ edits · Esc clears)", t.dim()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
