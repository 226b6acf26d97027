//! arXiv's API: `GET /api/query?id_list=a,b,c` answers an Atom feed with one
//! `<entry>` per e-print found. A malformed id gets an entry whose `<id>` is
//! under `/api/errors` (with HTTP 400); an unknown one gets no entry. Ids are
//! asked in batches because arXiv asks for one request every three seconds.

use super::ScholarRecord;
use super::arxiv_base_id;
use super::markup::one_line;
use crate::workspace::Author;

const ATOM: &str = "http://www.w3.org/2005/Atom";
const ARXIV: &str = "http://arxiv.org/schemas/atom";

/// Ids asked in one request.
pub const BATCH: usize = 40;

/// The query for these ids (base ids: the record is the latest version's).
pub fn path(ids: &[String]) -> String {
    format!(
        "/api/query?id_list={}&max_results={}",
        ids.join(","),
        ids.len()
    )
}

/// The feed's records, each with its base id.
pub fn parse(body: &str) -> Result<Vec<(String, ScholarRecord)>, String> {
    let doc = roxmltree::Document::parse(body).map_err(|e| format!("not an Atom feed: {e}"))?;
    let feed = doc.root_element();
    if !feed.has_tag_name((ATOM, "feed")) {
        return Err(format!("not an Atom feed: <{}>", feed.tag_name().name()));
    }
    let child_text = |node: roxmltree::Node, ns: &str, name: &str| {
        node.children()
            .find(|c| c.has_tag_name((ns, name)))
            .and_then(|c| c.text())
            .map(one_line)
            .filter(|t| !t.is_empty())
    };
    let mut records = Vec::new();
    for entry in feed.children().filter(|c| c.has_tag_name((ATOM, "entry"))) {
        let Some(url) = child_text(entry, ATOM, "id") else {
            continue;
        };
        let Some((_, id)) = url.split_once("/abs/") else {
            // An error entry (`http://arxiv.org/api/errors#...`).
            continue;
        };
        let authors = entry
            .children()
            .filter(|c| c.has_tag_name((ATOM, "author")))
            .filter_map(|a| child_text(a, ATOM, "name"))
            .map(|name| Author::parse(&name))
            .collect();
        let year = child_text(entry, ATOM, "published")
            .and_then(|d| d.get(..4).and_then(|y| y.parse().ok()));
        records.push((
            arxiv_base_id(id).to_owned(),
            ScholarRecord {
                title: child_text(entry, ATOM, "title"),
                authors,
                year,
                venue: child_text(entry, ARXIV, "journal_ref"),
                doi: child_text(entry, ARXIV, "doi"),
                arxiv: Some(arxiv_base_id(id).to_owned()),
                abstract_text: child_text(entry, ATOM, "summary"),
            },
        ));
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_entries_and_skips_error_entries() {
        let body = r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <id>https://arxiv.org/api/x</id><title>arXiv Query</title>
  <opensearch:totalResults>2</opensearch:totalResults>
  <entry>
    <id>http://arxiv.org/abs/1706.03762v7</id>
    <published>2017-06-12T17:57:34Z</published>
    <title>Attention Is All
      You Need</title>
    <summary>  The dominant sequence &amp; transduction models, a &lt; b.
    </summary>
    <author><name>Ashish Vaswani</name></author>
    <author><name>Noam Shazeer</name><arxiv:affiliation>Google</arxiv:affiliation></author>
    <arxiv:doi>10.5555/3295222</arxiv:doi>
  </entry>
  <entry>
    <id>http://arxiv.org/api/errors#incorrect_id_format_for_1234</id>
    <title>Error</title><summary>incorrect id format for 1234</summary>
  </entry>
</feed>"#;
        let records = parse(body).unwrap();
        assert_eq!(records.len(), 1);
        let (id, record) = &records[0];
        assert_eq!(id, "1706.03762");
        assert_eq!(record.title.as_deref(), Some("Attention Is All You Need"));
        assert_eq!(
            record.abstract_text.as_deref(),
            Some("The dominant sequence & transduction models, a < b.")
        );
        assert_eq!(record.authors[1].family, "Shazeer");
        assert_eq!(record.year, Some(2017));
        assert_eq!(record.doi.as_deref(), Some("10.5555/3295222"));
        assert!(parse("<html>busy</html>").is_err());
        assert!(parse("{").is_err());
    }
}
