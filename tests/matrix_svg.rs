//! `simtui matrix --format svg`: the heatmap is well-formed XML (read back by a real XML
//! parser), with exactly N×N cells for N documents, their values as the CSV gives them,
//! and ids with XML's reserved characters escaped.

mod common;

use common::{assert_usage_error, ok, simtui};
use quick_xml::events::Event;
use quick_xml::reader::Reader;

/// What a heatmap holds, read with an XML parser: the cells' tooltips and every text.
struct Parsed {
    cells: Vec<String>,
    texts: Vec<String>,
}

/// Parses the SVG; panics (failing the test) on anything not well-formed, end tags that
/// do not match included.
fn parse(svg: &str) -> Parsed {
    let mut reader = Reader::from_str(svg);
    let (mut cells, mut texts) = (Vec::new(), Vec::new());
    let mut in_cell = false;
    let mut depth = 0i32;
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) => {
                depth += 1;
                let cell = e.name().as_ref() == "rect"
                    && e.try_get_attribute("class")
                        .unwrap()
                        .map(|a| a.value.into_owned())
                        == Some("cell".to_string());
                if cell {
                    in_cell = true;
                    cells.push(String::new());
                }
            }
            Event::End(e) => {
                depth -= 1;
                if e.name().as_ref() == "rect" {
                    in_cell = false;
                }
            }
            Event::Empty(e) => {
                let class = e.try_get_attribute("class").unwrap();
                assert!(
                    !(e.name().as_ref() == "rect"
                        && class.is_some_and(|a| a.value.as_ref() == "cell")),
                    "a cell without its tooltip"
                );
            }
            Event::Text(t) => {
                let text = t.xml10_content().into_owned();
                if in_cell {
                    cells.last_mut().unwrap().push_str(&text);
                }
                texts.push(text);
            }
            Event::GeneralRef(r) => {
                // An entity between texts: resolve the five XML defines, refuse any other.
                let c = match &*r {
                    "amp" => "&",
                    "lt" => "<",
                    "gt" => ">",
                    "quot" => "\"",
                    "apos" => "'",
                    other => panic!("unknown entity {other}"),
                };
                if in_cell {
                    cells.last_mut().unwrap().push_str(c);
                }
                texts.push(c.to_string());
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(depth, 0, "every element closed");
    Parsed { cells, texts }
}

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let base: String = (0..60).map(|i| format!("word{} ", i % 23)).collect();
    std::fs::write(dir.path().join("a&<b>.txt"), &base).unwrap();
    std::fs::write(
        dir.path().join("q\"uote'.txt"),
        base.replace("word5", "other"),
    )
    .unwrap();
    std::fs::write(dir.path().join("c.txt"), "something else entirely here").unwrap();
    std::fs::write(dir.path().join("d.txt"), &base).unwrap();
    std::fs::write(dir.path().join("e.txt"), &base[..base.len() / 2]).unwrap();
    dir
}

#[test]
fn the_heatmap_has_n_by_n_cells_and_escaped_labels() {
    let dir = corpus();
    let p = dir.path().to_str().unwrap();
    let svg = ok(&["matrix", p, "--format", "svg"]);
    assert!(svg.starts_with("<?xml"));
    let parsed = parse(&svg);
    assert_eq!(parsed.cells.len(), 25, "5 documents, 5×5 cells");
    // The reserved characters are escaped in the source and come back from the parser.
    assert!(svg.contains("a&amp;&lt;b&gt;.txt"));
    let joined = parsed.texts.concat();
    assert!(joined.contains("a&<b>.txt"), "{joined}");
    assert!(joined.contains("q\"uote'.txt"), "{joined}");
    // Each cell's value is the CSV's, rounded to two decimals, for its pair.
    let csv = ok(&["matrix", p, "--format", "csv"]);
    let rows: Vec<Vec<String>> = csv
        .lines()
        .skip(1)
        .map(|l| l.rsplitn(6, ',').map(str::to_string).collect())
        .collect();
    for (i, row) in rows.iter().enumerate() {
        // rsplitn gave the values last first, then the id.
        let values: Vec<f64> = row[..5].iter().rev().map(|v| v.parse().unwrap()).collect();
        for (j, v) in values.iter().enumerate() {
            let tooltip = &parsed.cells[i * 5 + j];
            assert!(tooltip.ends_with(&format!(": {v:.2}")), "{tooltip} vs {v}");
        }
    }
    // A legend, and a value printed in each cell.
    assert!(svg.contains(r#"class="legend""#));
    assert!(parsed.texts.iter().filter(|t| *t == "1.00").count() >= 5);
}

#[test]
fn hamming_heatmaps_and_output_files() {
    let dir = corpus();
    let p = dir.path().to_str().unwrap();
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("m.svg");
    let f = file.to_str().unwrap();
    // -o FILE.svg writes the same picture auto picks by the name.
    let stdout = ok(&["matrix", p, "--measure", "simhash", "--format", "svg"]);
    ok(&["matrix", p, "--measure", "simhash", "-o", f]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), stdout);
    let parsed = parse(&stdout);
    assert_eq!(parsed.cells.len(), 25);
    assert!(stdout.contains("64-bit SimHash"));
    // Any other name: CSV, as in a pipe.
    let csv = out.path().join("m.out");
    ok(&["matrix", p, "-o", csv.to_str().unwrap()]);
    assert!(std::fs::read_to_string(&csv).unwrap().starts_with("id,"));
    // Never over a document read.
    let input = dir.path().join("c.txt");
    assert_usage_error(&[
        "matrix",
        p,
        "--format",
        "svg",
        "-o",
        input.to_str().unwrap(),
    ]);
    assert_eq!(
        std::fs::read_to_string(&input).unwrap(),
        "something else entirely here"
    );
    // A path that cannot be written: exit 1, named.
    let bad = simtui(&["matrix", p, "-o", "/no/such/simtui/dir/m.svg"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("/no/such/simtui/dir/m.svg"));
}
