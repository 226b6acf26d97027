//! Crossref's works API: `GET /works/{doi}` answers
//! `{"status": "ok", "message-type": "work", "message": {...}}`, or 404 with a
//! plain-text "Resource not found." for a DOI Crossref did not register (a
//! DataCite DOI, a typo).

use serde::Deserialize;

use super::markup::plain;
use super::{ScholarRecord, percent_encode};
use crate::workspace::Author;

/// The work's path under the API's base, the DOI percent-encoded as Crossref asks.
pub fn path(doi: &str) -> String {
    // Crossref takes the `/` of a DOI's suffix raw.
    format!("/works/{}", percent_encode(doi, b"/"))
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(rename = "message-type")]
    message_type: Option<String>,
    message: Work,
}

#[derive(Deserialize)]
struct Work {
    #[serde(default)]
    title: Vec<String>,
    #[serde(default)]
    author: Vec<Contributor>,
    #[serde(default, rename = "container-title")]
    container_title: Vec<String>,
    #[serde(default)]
    event: Option<Event>,
    #[serde(default, rename = "published-print")]
    published_print: Option<PartialDate>,
    #[serde(default, rename = "published-online")]
    published_online: Option<PartialDate>,
    #[serde(default)]
    issued: Option<PartialDate>,
    #[serde(default, rename = "DOI")]
    doi: Option<String>,
    #[serde(default, rename = "abstract")]
    abstract_text: Option<String>,
}

#[derive(Deserialize)]
struct Contributor {
    #[serde(default)]
    given: Option<String>,
    #[serde(default)]
    family: Option<String>,
    /// An organisation as author ("The ATLAS Collaboration").
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
struct Event {
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
struct PartialDate {
    /// `[[2014, 6, 1]]`, `[[2014]]`, or `[[null]]` when unknown.
    #[serde(default, rename = "date-parts")]
    date_parts: Vec<Vec<Option<i64>>>,
}

impl PartialDate {
    fn year(&self) -> Option<u16> {
        let year = (*self.date_parts.first()?.first()?)?;
        u16::try_from(year)
            .ok()
            .filter(|y| (1000..=2100).contains(y))
    }
}

/// The record in a 200 answer's body; an error when it is not a work.
pub fn parse(body: &str) -> Result<ScholarRecord, String> {
    let envelope: Envelope =
        serde_json::from_str(body).map_err(|e| format!("not a Crossref work: {e}"))?;
    if envelope
        .message_type
        .as_deref()
        .is_some_and(|t| t != "work")
    {
        return Err(format!(
            "Crossref answered a {:?}, not a work",
            envelope.message_type.unwrap_or_default()
        ));
    }
    let work = envelope.message;
    let authors = work
        .author
        .iter()
        .filter_map(|a| match (&a.given, &a.family, &a.name) {
            (given, Some(family), _) if !family.trim().is_empty() => Some(Author {
                given: plain(given.as_deref().unwrap_or("")),
                family: plain(family),
            }),
            (_, _, Some(name)) if !name.trim().is_empty() => Some(Author {
                given: String::new(),
                family: plain(name),
            }),
            _ => None,
        })
        .collect();
    let year = [&work.published_print, &work.published_online, &work.issued]
        .into_iter()
        .flatten()
        .find_map(PartialDate::year);
    let venue = work
        .container_title
        .first()
        .cloned()
        .or_else(|| work.event.and_then(|e| e.name));
    Ok(ScholarRecord {
        title: non_empty(work.title.first().map(|t| plain(t))),
        authors,
        year,
        venue: non_empty(venue.map(|v| plain(&v))),
        doi: non_empty(work.doi.map(|d| d.trim().to_owned())),
        arxiv: None,
        abstract_text: non_empty(work.abstract_text.map(|a| strip_heading(&plain(&a)))),
    })
}

/// JATS abstracts often open with their own "Abstract" heading.
fn strip_heading(text: &str) -> String {
    text.strip_prefix("Abstract")
        .map(|rest| rest.trim_start_matches([' ', ':', '.']))
        .unwrap_or(text)
        .to_owned()
}

fn non_empty(text: Option<String>) -> Option<String> {
    text.filter(|t| !t.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_work_with_markup_and_partial_dates() {
        let body = r#"{"status":"ok","message-type":"work","message-version":"1.0.0","message":{
            "DOI":"10.1145/3448016.3452841","title":["The <i>Case</i> for Learned Index Structures"],
            "author":[{"given":"Tim","family":"Kraska","sequence":"first","affiliation":[]},
                      {"name":"The Database Group","sequence":"additional"},{"sequence":"additional"}],
            "container-title":["Proceedings of the 2018 International Conference on Management of Data"],
            "issued":{"date-parts":[[2018,5,27]]},"published-print":{"date-parts":[[null]]},
            "abstract":"<jats:title>Abstract</jats:title><jats:p>Indexes are models.</jats:p>"}}"#;
        let record = parse(body).unwrap();
        assert_eq!(
            record.title.as_deref(),
            Some("The Case for Learned Index Structures")
        );
        assert_eq!(record.authors.len(), 2);
        assert_eq!(record.authors[0].family, "Kraska");
        assert_eq!(record.authors[1].family, "The Database Group");
        assert_eq!(record.year, Some(2018));
        assert_eq!(record.abstract_text.as_deref(), Some("Indexes are models."));
        assert_eq!(record.doi.as_deref(), Some("10.1145/3448016.3452841"));
    }

    #[test]
    fn refuses_what_is_not_a_work() {
        assert!(parse("Resource not found.").is_err());
        assert!(parse(r#"{"status":"ok","message-type":"work-list","message":{}}"#).is_err());
        assert_eq!(path("10.1000/a b;c"), "/works/10.1000/a%20b%3Bc");
    }
}
