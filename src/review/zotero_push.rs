//! A review's verdicts written back to the Zotero items it read: tags that
//! keep the engine and the researcher apart (`quire:include`,
//! `quire:score:7`, `quire:reason:<criterion>` as automatic tags; the
//! researcher's own label as `screen:include`), and one child note per item
//! with the summary, rationale, criterion verdicts and the verified quotes,
//! each linked to its page in Zotero's reader, with the model, the prompt's
//! hash and the date. Quire owns the `quire:` namespace and the note it
//! marked as its own. A `screen:` tag is Quire's only when Quire wrote it
//! (each push keeps which, in [`layout::ZOTERO_TAGS_FILE`]): one the
//! researcher or another tool put on an item is theirs, is never removed,
//! and Quire then writes no `screen:` tag of its own beside it (the summary
//! says so when the two differ). Every other tag and note is the
//! researcher's and is sent back exactly as Zotero holds it.
//!
//! A push first reads the items as Zotero holds them now and writes only
//! what differs, so a second push with nothing changed writes nothing. An
//! item someone changed between the read and the write (412) is read again
//! and Quire's part applied to it afresh.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use futures_util::StreamExt;
use futures_util::stream;
use serde::Serialize;
use serde_json::{Value, json};

use super::verdicts::{Verdicts, result_of};
use super::{ReviewError, labels};
use crate::review_model::{CriterionOutcome, PaperResult, Quote};
use crate::workspace::{PaperId, PaperRecord, Workspace, WsPath, ZoteroItem, layout};
use crate::zotero::web_api::{
    AT_ONCE, KeyAccess, PER_WRITE, RemoteItem, RemoteNote, WebApi, WebError, WriteOutcome,
};

/// The tag that marks Quire's note on an item.
pub const NOTE_TAG: &str = "quire:note";
/// Rounds of re-reading an item changed during the push before giving up.
const CONFLICT_ROUNDS: usize = 3;

/// What Quire wants an item to carry.
#[derive(Clone, Debug, PartialEq)]
pub struct Desired {
    pub paper: PaperId,
    pub title: String,
    /// The local library prefix (`users/0`, `groups/12`).
    pub library: String,
    pub key: String,
    /// Quire's tags: (tag, type), type 1 automatic.
    pub tags: Vec<(String, u8)>,
    /// Quire's note, as HTML.
    pub note: String,
    /// The `screen:` tags Quire wrote on the item at its last push: the
    /// only ones it may remove.
    pub screen_written: Vec<String>,
}

/// How a push went.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ZoteroPushSummary"))]
pub struct PushSummary {
    /// Zotero items in the review.
    pub items: usize,
    /// Items whose tags were written.
    pub tagged: usize,
    pub notes_created: usize,
    pub notes_updated: usize,
    /// Items Zotero already held as Quire would write them.
    pub unchanged: usize,
    /// Items changed in Zotero during the push, read again and written.
    pub conflicts_resolved: usize,
    /// Items not written, with why ("title: why").
    pub failed: Vec<String>,
    /// Items whose own `screen:` tag (the researcher's, another tool's)
    /// differs from the label Quire would write: theirs is kept and Quire's
    /// is not written ("title: why").
    pub their_screen_tags_kept: Vec<String>,
    /// HTTP requests sent (reads and writes, retries included).
    pub requests: u64,
    /// The `screen:` tags Quire's part now holds on each item it wrote or
    /// found unchanged (`library/key`), for [`record_written`].
    #[serde(skip)]
    #[cfg_attr(test, ts(skip))]
    pub screen_written: BTreeMap<String, Vec<String>>,
}

/// Whether `tag` is in Quire's own namespace, which it may always change.
pub fn owns(tag: &str) -> bool {
    tag.starts_with("quire:")
}

fn is_screen(tag: &str) -> bool {
    tag.starts_with("screen:")
}

/// The item's name in [`layout::ZOTERO_TAGS_FILE`].
fn item_name(library: &str, key: &str) -> String {
    format!("{library}/{key}")
}

/// The `screen:` tags Quire wrote at its last push, by item.
fn written_before(ws: &Workspace) -> Result<BTreeMap<String, Vec<String>>, ReviewError> {
    let path = WsPath::parse(layout::ZOTERO_TAGS_FILE)?;
    Ok(ws.read_json_if_any(&path)?.unwrap_or_default())
}

/// Keep which `screen:` tags a push left as Quire's, over what earlier
/// pushes kept (an item this push did not write keeps its entry).
pub fn record_written(ws: &Workspace, summary: &PushSummary) -> Result<(), ReviewError> {
    let mut written = written_before(ws)?;
    for (item, tags) in &summary.screen_written {
        written.insert(item.clone(), tags.clone());
    }
    ws.write_json(&WsPath::parse(layout::ZOTERO_TAGS_FILE)?, &written)?;
    Ok(())
}

/// What Quire would write to each Zotero item of the review.
pub fn plan(ws: &Workspace) -> Result<Vec<Desired>, ReviewError> {
    let task = ws.task()?;
    let verdicts = Verdicts::load(ws)?;
    let papers = ws.papers()?;
    let by_id: HashMap<&PaperId, &PaperRecord> = papers.iter().map(|p| (&p.id, p)).collect();
    let written = written_before(ws)?;
    let mut desired = Vec::new();
    for paper in &papers {
        let Some(item) = paper.imported.as_ref().and_then(|i| i.zotero.as_ref()) else {
            continue;
        };
        if paper.duplicate_of.is_some() {
            continue;
        }
        // A label given under an earlier question writes no `screen:` tag.
        let label = verdicts.labels.load(ws, &paper.id)?;
        let (shown, _) = verdicts.shown(ws, &paper.id, result_of(ws, &paper.id)?)?;
        let full_text = match paper.full_text.as_ref().and_then(|id| by_id.get(id)) {
            Some(pdf) => verdicts.shown(ws, &pdf.id, result_of(ws, &pdf.id)?)?.0,
            None => None,
        };
        // The full text, once read, is the better evidence: its verdict is
        // the one written (the note gives both).
        let mut tags = Vec::new();
        if let Some(r) = full_text.as_ref().or(shown.as_ref()) {
            tags.push((format!("quire:{}", r.verdict.as_str()), 1));
            tags.push((format!("quire:score:{}", r.score.round() as i64), 1));
            if let Some(criterion) = &r.excluded_by {
                tags.push((format!("quire:reason:{}", short(criterion, 60)), 1));
            }
        }
        if let Some(verdict) = label.as_ref().and_then(|l| l.verdict) {
            tags.push((format!("screen:{}", verdict.as_str()), 0));
        }
        if tags.is_empty() {
            continue; // nothing read, nothing labelled: nothing to say
        }
        let note = note_html(
            &task.id.0,
            task.question.as_deref().unwrap_or(""),
            item,
            shown.as_ref(),
            full_text.as_ref(),
            label.as_ref(),
        );
        desired.push(Desired {
            paper: paper.id.clone(),
            title: paper.title.clone().unwrap_or_else(|| item.key.clone()),
            library: item.library.clone(),
            key: item.key.clone(),
            screen_written: written
                .get(&item_name(&item.library, &item.key))
                .cloned()
                .unwrap_or_default(),
            tags,
            note,
        });
    }
    Ok(desired)
}

/// Write `desired` through the Web API with `web`, whose key must have
/// write access to each item's library.
pub async fn push(desired: &[Desired], web: &WebApi) -> Result<PushSummary, WebError> {
    let access = web.access().await?;
    let mut summary = PushSummary {
        items: desired.len(),
        ..PushSummary::default()
    };
    let mut by_library: BTreeMap<String, Vec<&Desired>> = BTreeMap::new();
    for d in desired {
        if access.can_write(&d.library) {
            by_library.entry(d.library.clone()).or_default().push(d);
        } else {
            summary.failed.push(format!(
                "{}: the Zotero key cannot write to this library ({})",
                d.title, d.library
            ));
        }
    }
    for (library, wanted) in by_library {
        push_library(web, &access, &library, &wanted, &mut summary).await?;
    }
    summary.requests = web.requests();
    Ok(summary)
}

async fn push_library(
    web: &WebApi,
    access: &KeyAccess,
    library: &str,
    wanted: &[&Desired],
    summary: &mut PushSummary,
) -> Result<(), WebError> {
    let prefix = access.web_prefix(library);
    let keys: Vec<String> = wanted.iter().map(|d| d.key.clone()).collect();
    let mut remote: HashMap<String, RemoteItem> = web
        .items(&prefix, &keys)
        .await?
        .into_iter()
        .map(|r| (r.key.clone(), r))
        .collect();
    let notes = web.notes_tagged(&prefix, NOTE_TAG).await?;
    let mut pending: Vec<&Desired> = Vec::new();
    for d in wanted {
        if remote.contains_key(&d.key) {
            pending.push(d);
        } else {
            summary.failed.push(format!(
                "{}: no such item in Zotero's online library (not synced yet?)",
                d.title
            ));
        }
    }
    let mut notes_by_parent: HashMap<String, RemoteNote> = HashMap::new();
    for note in notes {
        if let Some(parent) = note.parent.clone()
            && wanted
                .iter()
                .any(|d| d.key == parent && same_review(&note.html, &d.note))
        {
            notes_by_parent.insert(parent, note);
        }
    }
    let mut changed_any = false;
    for round in 0..CONFLICT_ROUNDS {
        // Every object to write, and which desired item it serves.
        let mut objects: Vec<Write> = Vec::new();
        for (i, d) in pending.iter().enumerate() {
            let item = &remote[&d.key];
            let merge = merged(&item.tags, d);
            if round == 0
                && let Some(theirs) = &merge.theirs_differ
            {
                summary.their_screen_tags_kept.push(format!(
                    "{}: Zotero holds {theirs}, not written by Quire, so Quire's label ({}) was not written beside it",
                    d.title,
                    d.tags
                        .iter()
                        .map(|(t, _)| t.as_str())
                        .filter(|t| is_screen(t))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            summary
                .screen_written
                .insert(item_name(library, &d.key), merge.ours_screen.clone());
            let tags = merge.tags;
            if !same_tags(&tags, &item.tags) {
                objects.push((
                    json!({"key": d.key, "version": item.version, "tags": tags_json(&tags)}),
                    i,
                    Kind::Tags,
                ));
            }
            match notes_by_parent.get(&d.key) {
                Some(note) if note.html == d.note => {}
                Some(note) => objects.push((
                    json!({"key": note.key, "version": note.version, "itemType": "note",
                           "note": d.note, "tags": [{"tag": NOTE_TAG, "type": 1}]}),
                    i,
                    Kind::NoteUpdate,
                )),
                None => objects.push((
                    json!({"itemType": "note", "parentItem": d.key, "note": d.note,
                           "tags": [{"tag": NOTE_TAG, "type": 1}], "collections": [], "relations": {}}),
                    i,
                    Kind::NoteCreate,
                )),
            }
        }
        if round == 0 {
            let touched: BTreeSet<usize> = objects.iter().map(|(_, i, _)| *i).collect();
            summary.unchanged += pending.len() - touched.len();
        }
        if objects.is_empty() {
            break;
        }
        changed_any = true;
        let batches: Vec<Vec<Write>> = objects.chunks(PER_WRITE).map(<[_]>::to_vec).collect();
        let results: Vec<Result<(Vec<Write>, WriteOutcome), WebError>> = stream::iter(batches)
            .map(|batch| async {
                let values: Vec<Value> = batch.iter().map(|(v, _, _)| v.clone()).collect();
                web.write(&prefix, &values)
                    .await
                    .map(|outcome| (batch, outcome))
            })
            .buffer_unordered(AT_ONCE)
            .collect()
            .await;
        let mut conflicted: BTreeSet<usize> = BTreeSet::new();
        for result in results {
            let (batch, outcome) = result?;
            for index in outcome.written {
                match batch.get(index).map(|(_, _, k)| *k) {
                    Some(Kind::Tags) => summary.tagged += 1,
                    Some(Kind::NoteCreate) => summary.notes_created += 1,
                    Some(Kind::NoteUpdate) => summary.notes_updated += 1,
                    None => {}
                }
            }
            for (index, code, message) in outcome.failed {
                let Some((_, which, _)) = batch.get(index) else {
                    continue;
                };
                if code == 412 && round + 1 < CONFLICT_ROUNDS {
                    conflicted.insert(*which);
                } else {
                    if batch.get(index).is_some_and(|(_, _, k)| *k == Kind::Tags) {
                        // Not written: what Quire wrote before stands.
                        let d = pending[*which];
                        summary
                            .screen_written
                            .insert(item_name(library, &d.key), d.screen_written.clone());
                    }
                    summary.failed.push(format!(
                        "{}: Zotero refused the write ({code}: {message})",
                        pending[*which].title
                    ));
                }
            }
        }
        if conflicted.is_empty() {
            break;
        }
        // Read what someone changed and apply Quire's part to it afresh.
        pending = conflicted.iter().map(|i| pending[*i]).collect();
        summary.conflicts_resolved += pending.len();
        let keys: Vec<String> = pending.iter().map(|d| d.key.clone()).collect();
        for item in web.items(&prefix, &keys).await? {
            remote.insert(item.key.clone(), item);
        }
        for note in web.notes_tagged(&prefix, NOTE_TAG).await? {
            if let Some(parent) = note.parent.clone()
                && pending
                    .iter()
                    .any(|d| d.key == parent && same_review(&note.html, &d.note))
            {
                notes_by_parent.insert(parent, note);
            }
        }
    }
    tracing::info!(library, changed_any, "verdicts written to Zotero");
    Ok(())
}

/// One object to write: its JSON, the desired item it serves, and what it is.
type Write = (Value, usize, Kind);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Tags,
    NoteCreate,
    NoteUpdate,
}

/// An item's tags once Quire's part is applied.
struct Merge {
    tags: Vec<(String, u8)>,
    /// The `screen:` tags of Quire's among them.
    ours_screen: Vec<String>,
    /// The item's own `screen:` tags, when they differ from Quire's label.
    theirs_differ: Option<String>,
}

/// The researcher's tags as Zotero holds them, then Quire's: Quire's own
/// namespace and the `screen:` tags it wrote before are replaced; any other
/// `screen:` tag is theirs, kept, and Quire adds none beside it.
fn merged(remote: &[(String, u8)], d: &Desired) -> Merge {
    let ours_before = |tag: &str| d.screen_written.iter().any(|t| t == tag);
    let theirs_screen: Vec<&str> = remote
        .iter()
        .map(|(t, _)| t.as_str())
        .filter(|t| is_screen(t) && !ours_before(t))
        .collect();
    let ours_screen: Vec<String> = if theirs_screen.is_empty() {
        d.tags
            .iter()
            .filter(|(t, _)| is_screen(t))
            .map(|(t, _)| t.clone())
            .collect()
    } else {
        Vec::new()
    };
    let wanted_screen: Vec<&str> = d
        .tags
        .iter()
        .map(|(t, _)| t.as_str())
        .filter(|t| is_screen(t))
        .collect();
    let theirs_differ = (!theirs_screen.is_empty()
        && !wanted_screen.is_empty()
        && wanted_screen.iter().any(|w| !theirs_screen.contains(w)))
    .then(|| theirs_screen.join(", "));
    let tags = remote
        .iter()
        .filter(|(tag, _)| !(owns(tag) || is_screen(tag) && ours_before(tag)))
        .cloned()
        .chain(
            d.tags
                .iter()
                .filter(|(tag, _)| !is_screen(tag) || ours_screen.contains(tag))
                .cloned(),
        )
        .collect();
    Merge {
        tags,
        ours_screen,
        theirs_differ,
    }
}

fn same_tags(a: &[(String, u8)], b: &[(String, u8)]) -> bool {
    let set = |t: &[(String, u8)]| t.iter().cloned().collect::<BTreeSet<_>>();
    set(a) == set(b)
}

fn tags_json(tags: &[(String, u8)]) -> Value {
    Value::Array(
        tags.iter()
            .map(|(tag, kind)| {
                if *kind == 0 {
                    json!({"tag": tag})
                } else {
                    json!({"tag": tag, "type": kind})
                }
            })
            .collect(),
    )
}

/// The marker of the review a note belongs to.
fn marker(review: &str) -> String {
    format!("data-quire-review=\"{}\"", escape(review))
}

/// Whether a note Zotero holds is this review's (its marker).
fn same_review(html: &str, ours: &str) -> bool {
    ours.split('>')
        .next()
        .and_then(|open| open.split("data-quire-review=").nth(1))
        .is_some_and(|id| html.contains(&format!("data-quire-review={id}")))
}

fn short(text: &str, chars: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= chars {
        text
    } else {
        format!("{}…", text.chars().take(chars - 1).collect::<String>())
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A quote, linked to its page in Zotero's PDF reader when there is one.
fn quote_html(quote: &Quote, link: Option<(&str, &str)>) -> String {
    let text = escape(&quote.text);
    match (quote.page, link) {
        (0, _) => format!("“{text}”"),
        (page, Some((library, attachment))) => format!(
            "“{text}” (<a href=\"zotero://open-pdf/{library}/items/{attachment}?page={page}\">p. {page}</a>)"
        ),
        (page, None) => format!("“{text}” (p. {page})"),
    }
}

/// Quire's note on an item: deterministic (no push time), so a push with
/// nothing changed finds it equal and writes nothing.
fn note_html(
    review: &str,
    question: &str,
    item: &ZoteroItem,
    record: Option<&PaperResult>,
    full_text: Option<&PaperResult>,
    label: Option<&labels::Label>,
) -> String {
    // zotero://open-pdf takes "library" for the user's, "groups/<id>" for a group's.
    let library = if item.library.starts_with("groups/") {
        item.library.as_str()
    } else {
        "library"
    };
    let link = item.pdf_key.as_deref().map(|key| (library, key));
    let mut html = format!("<div {}>", marker(review));
    let verdict = |r: &PaperResult| format!("{} ({:.0}/10)", r.verdict.as_str(), r.score);
    let headline = match full_text.or(record) {
        Some(r) => format!("Quire: {}", verdict(r)),
        None => "Quire".to_owned(),
    };
    html.push_str(&format!("<h1>{}</h1>", escape(&headline)));
    match (full_text, record) {
        (Some(f), Some(r)) => html.push_str(&format!(
            "<p>Full text: {}; title and abstract: {}.</p>",
            verdict(f),
            verdict(r)
        )),
        (Some(_), None) => html.push_str("<p>Read in full text.</p>"),
        (None, Some(_)) => {
            html.push_str("<p>Screened on title and abstract (no full text read).</p>")
        }
        (None, None) => {}
    }
    if !question.is_empty() {
        html.push_str(&format!(
            "<p><strong>Question:</strong> {}</p>",
            escape(question)
        ));
    }
    if let Some(verdict) = label.and_then(|l| l.verdict) {
        html.push_str(&format!(
            "<p><strong>Your label:</strong> {}</p>",
            verdict.as_str()
        ));
    }
    let reading = full_text.or(record);
    if let Some(r) = reading {
        if !r.summary.is_empty() {
            html.push_str("<h2>Summary</h2><p>");
            let sentences: Vec<String> = r
                .summary
                .iter()
                .map(|q| match (q.page, full_text.is_some()) {
                    (0, _) | (_, false) => escape(&q.text),
                    (page, true) => format!("{} (p. {page})", escape(&q.text)),
                })
                .collect();
            html.push_str(&sentences.join(" "));
            html.push_str("</p>");
        }
        html.push_str(&format!(
            "<h2>Rationale</h2><p>{}</p>",
            escape(&r.rationale)
        ));
        if !r.criteria.is_empty() {
            html.push_str("<h2>Criteria</h2><ul>");
            for c in &r.criteria {
                let outcome = match c.outcome {
                    CriterionOutcome::Met => "met",
                    CriterionOutcome::NotMet => "not met",
                    CriterionOutcome::Unclear => "unclear",
                };
                html.push_str(&format!(
                    "<li><strong>{}</strong>: {outcome}. {}</li>",
                    escape(&c.criterion),
                    escape(&c.note)
                ));
            }
            html.push_str("</ul>");
        }
        if !r.evidence.is_empty() {
            let link = if full_text.is_some() { link } else { None };
            html.push_str("<h2>Evidence (each quote found on its page)</h2><ul>");
            for q in &r.evidence {
                let quote = if full_text.is_some() {
                    quote_html(q, link)
                } else {
                    format!("“{}” (title/abstract)", escape(&q.text))
                };
                html.push_str(&format!("<li>{quote}</li>"));
            }
            html.push_str("</ul>");
        }
        let p = &r.provenance;
        let mut made = vec![format!("engine {}", p.engine.name())];
        if let Some(model) = &p.model {
            made.push(format!("model {}", escape(model)));
        }
        if let Some(hash) = &p.prompt_hash {
            made.push(format!("prompt {}", &hash[..hash.len().min(12)]));
        }
        made.push(format!(
            "read {}",
            p.finished_at.get(..10).unwrap_or(&p.finished_at)
        ));
        html.push_str(&format!(
            "<p><em>Quire review {}: {}.</em></p>",
            escape(review),
            made.join(", ")
        ));
    }
    html.push_str("</div>");
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desired(tags: &[(&str, u8)], screen_written: &[&str]) -> Desired {
        Desired {
            paper: PaperId("p".into()),
            title: "A paper".into(),
            library: "users/0".into(),
            key: "K".into(),
            tags: tags.iter().map(|(t, k)| ((*t).to_owned(), *k)).collect(),
            note: String::new(),
            screen_written: screen_written.iter().map(|t| (*t).to_owned()).collect(),
        }
    }

    fn names(tags: &[(String, u8)]) -> Vec<&str> {
        tags.iter().map(|(t, _)| t.as_str()).collect()
    }

    #[test]
    fn quire_replaces_its_namespace_and_the_screen_tags_it_wrote_and_keeps_the_rest() {
        let remote = vec![
            ("to-read".to_owned(), 0),
            ("quire:exclude".to_owned(), 1),
            ("quire:score:2".to_owned(), 1),
            ("screen:maybe".to_owned(), 0),
            ("auto from a translator".to_owned(), 1),
        ];
        let wanted = desired(
            &[
                ("quire:include", 1),
                ("quire:score:8", 1),
                ("screen:include", 0),
            ],
            &["screen:maybe"],
        );
        let merge = merged(&remote, &wanted);
        assert_eq!(
            names(&merge.tags),
            [
                "to-read",
                "auto from a translator",
                "quire:include",
                "quire:score:8",
                "screen:include"
            ]
        );
        assert_eq!(merge.ours_screen, ["screen:include"]);
        assert_eq!(merge.theirs_differ, None);
        let tags = merge.tags;
        assert!(same_tags(
            &tags,
            &tags.iter().rev().cloned().collect::<Vec<_>>()
        ));
        assert!(!same_tags(&tags, &remote));
        assert_eq!(tags_json(&tags)[0], json!({"tag": "to-read"}));
        assert_eq!(
            tags_json(&tags)[2],
            json!({"tag": "quire:include", "type": 1})
        );
    }

    #[test]
    fn a_screen_tag_quire_did_not_write_is_kept_and_quire_writes_none_beside_it() {
        let remote = vec![
            ("screen:exclude".to_owned(), 0),
            ("screen:pending".to_owned(), 0),
        ];
        let wanted = desired(&[("quire:include", 1), ("screen:include", 0)], &[]);
        let merge = merged(&remote, &wanted);
        assert_eq!(
            names(&merge.tags),
            ["screen:exclude", "screen:pending", "quire:include"]
        );
        assert!(merge.ours_screen.is_empty());
        assert_eq!(
            merge.theirs_differ.as_deref(),
            Some("screen:exclude, screen:pending")
        );
        // Theirs already says what Quire would: nothing to report.
        let agreeing = merged(
            &[("screen:include".to_owned(), 0)],
            &desired(&[("screen:include", 0)], &[]),
        );
        assert_eq!(names(&agreeing.tags), ["screen:include"]);
        assert_eq!(agreeing.theirs_differ, None);
    }

    #[test]
    fn a_note_is_known_by_its_review_and_links_quotes_to_pages() {
        let ours = format!("<div {}><h1>x</h1></div>", marker("review-1"));
        assert!(same_review(
            &format!("<div {}>old</div>", marker("review-1")),
            &ours
        ));
        assert!(!same_review(
            &format!("<div {}>old</div>", marker("review-2")),
            &ours
        ));
        assert!(!same_review("<p>the researcher's own note</p>", &ours));
        let q = Quote {
            text: "a < b".into(),
            page: 4,
        };
        assert_eq!(
            quote_html(&q, Some(("library", "ATTKEY01"))),
            "“a &lt; b” (<a href=\"zotero://open-pdf/library/items/ATTKEY01?page=4\">p. 4</a>)"
        );
        assert_eq!(short("a  very long criterion indeed", 10), "a very lo…");
    }
}
