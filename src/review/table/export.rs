//! The extraction table as CSV and Markdown: per column its value, page and
//! quote, the researcher's corrections in place of the extracted values.

use super::TableView;
use crate::review::csv_field::cell as csv_cell;

/// CSV: paper, title, then value, page and quote per column, and whether
/// the value is low-confidence.
pub fn csv(table: &TableView) -> String {
    let mut header = vec!["paper".to_owned(), "title".to_owned()];
    for c in &table.columns {
        for part in ["", " page", " quote", " low confidence"] {
            header.push(format!("{}{part}", c.name));
        }
    }
    let mut out = header
        .iter()
        .map(|h| csv_cell(h))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for row in &table.rows {
        let mut cells = vec![csv_cell(&row.paper), csv_cell(&row.title)];
        for cell in &row.cells {
            cells.push(csv_cell(cell.value.as_deref().unwrap_or("")));
            // A record's quote is in its title and abstract, not on a page.
            cells.push(cell.page.map_or_else(String::new, |p| {
                if row.record {
                    "title/abstract".to_owned()
                } else {
                    p.to_string()
                }
            }));
            cells.push(csv_cell(cell.quote.as_deref().unwrap_or("")));
            cells.push(if cell.low_confidence { "yes" } else { "no" }.to_owned());
        }
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// Markdown: a row per paper, each cell its value with its page; the
/// quotes follow, numbered.
pub fn markdown(table: &TableView) -> String {
    let escape = crate::review::md_text::inline;
    let mut md = String::from("| Paper |");
    for c in &table.columns {
        md.push_str(&format!(" {} |", escape(&c.name)));
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(table.columns.len()));
    md.push('\n');
    let mut quotes = Vec::new();
    for row in &table.rows {
        md.push_str(&format!("| {} |", escape(&row.title)));
        for cell in &row.cells {
            let value = cell.value.as_deref().map_or("—".to_owned(), escape);
            let mut shown = value;
            if let (Some(page), Some(quote)) = (cell.page, &cell.quote) {
                quotes.push(format!(
                    "\"{}\" ({}, {})",
                    escape(quote),
                    escape(&row.title),
                    crate::review::paper_text::place(row.record, page)
                ));
                shown.push_str(&format!(" [{}]", quotes.len()));
            }
            if cell.corrected {
                shown.push_str(" (corrected)");
            } else if cell.low_confidence && cell.value.is_some() {
                shown.push_str(" (unsure)");
            }
            md.push_str(&format!(" {shown} |"));
        }
        md.push('\n');
    }
    if !quotes.is_empty() {
        md.push('\n');
        for (i, q) in quotes.iter().enumerate() {
            md.push_str(&format!("{}. {q}\n", i + 1));
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::table::columns::{Column, Kind};
    use crate::review::table::{ShownCell, TableRow};

    #[test]
    fn cells_titles_and_quotes_render_as_text_in_the_markdown_table() {
        let table = TableView {
            columns: vec![Column::new("Metric | unit", "The metric.", Kind::Text)],
            rows: vec![TableRow {
                paper: "p1".into(),
                title: "A <script>x</script> *title*".into(),
                record: false,
                cells: vec![ShownCell {
                    value: Some("<img src=x> 3 | 4 ms".into()),
                    page: Some(2),
                    quote: Some("it took [3 ms](http://x)".into()),
                    low_confidence: false,
                    reason: None,
                    corrected: false,
                    checked: false,
                    stale: false,
                }],
            }],
            model: None,
        };
        let md = markdown(&table);
        let mut cells = 0;
        for event in pulldown_cmark::Parser::new_ext(&md, pulldown_cmark::Options::ENABLE_TABLES) {
            match event {
                pulldown_cmark::Event::Html(h) | pulldown_cmark::Event::InlineHtml(h) => {
                    panic!("raw HTML {h} in {md}")
                }
                pulldown_cmark::Event::Start(pulldown_cmark::Tag::Link { .. }) => {
                    panic!("a quote made a link: {md}")
                }
                pulldown_cmark::Event::Start(pulldown_cmark::Tag::TableCell) => cells += 1,
                _ => {}
            }
        }
        // Header and one row, two cells each: no `|` in a value split a cell.
        assert_eq!(cells, 4, "{md}");
        assert!(md.contains(", p. 2)"), "{md}");

        // A search record's quote is in its title and abstract.
        let mut records = table.clone();
        records.rows[0].record = true;
        assert!(markdown(&records).contains(", title/abstract)"));
        let csv = csv(&records);
        let row = csv.lines().nth(1).unwrap();
        assert!(row.contains(",title/abstract,"), "{csv}");
    }
}
