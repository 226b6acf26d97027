//! A question's result as Markdown (`asks/<id>/answer.md`, and the export):
//! the answer with its numbered sources, or, with no model, the passages
//! labelled as such; and what the answer covered.

use super::{AskRecord, Mode, Status};
use crate::review::md_text::{block, inline};

pub fn markdown(record: &AskRecord) -> String {
    let mut md = format!("## {}\n\n", inline(record.question.trim()));
    match record.status {
        Status::Running => md.push_str("*Still being answered.*\n\n"),
        Status::Cancelled => {
            md.push_str("*Cancelled before it was answered; asking again resumes.*\n\n")
        }
        Status::Stopped => md.push_str(&format!(
            "*Stopped before it was answered: {}. Asking again resumes.*\n\n",
            record.stopped.as_deref().unwrap_or("a cap")
        )),
        Status::Failed => md.push_str(&format!(
            "*Not answered: {}. Asking again reads those papers again.*\n\n",
            record
                .stopped
                .as_deref()
                .unwrap_or("every paper read failed")
        )),
        Status::Done => {}
    }
    match record.mode {
        Mode::Answer => {
            if !record.answer.is_empty() {
                md.push_str(&block(record.answer.trim()));
                md.push_str("\n\n");
            }
            if !record.sources.is_empty() {
                md.push_str("**Sources** (each quote checked on its page)\n\n");
                for s in &record.sources {
                    md.push_str(&format!(
                        "[{}] *{}*, {}: \"{}\"\n",
                        s.n,
                        inline(&s.title),
                        s.place(),
                        inline(&s.quote)
                    ));
                }
                md.push('\n');
            }
        }
        Mode::Passages => {
            md.push_str(
                "**Passages, not an answer.** No language model was used: these are the sentences of the papers that best match the question's words, with their pages.\n\n",
            );
            let mut current = "";
            for s in &record.sources {
                if s.title != current {
                    md.push_str(&format!("*{}*\n\n", inline(&s.title)));
                    current = &s.title;
                }
                md.push_str(&format!("- \"{}\" ({})\n", inline(&s.quote), s.place()));
            }
            if record.sources.is_empty() {
                md.push_str("No sentence of the papers matches the question's words.\n");
            }
            md.push('\n');
        }
    }
    let c = &record.coverage;
    md.push_str(&format!(
        "*Coverage: {} papers considered, {} {}, {} contributed",
        c.considered,
        c.read,
        if record.mode == Mode::Answer {
            "read"
        } else {
            "searched"
        },
        c.contributed
    ));
    if c.quotes_dropped > 0 {
        md.push_str(&format!(
            "; {} quotes not found on their page were dropped",
            c.quotes_dropped
        ));
    }
    if c.unsupported > 0 {
        md.push_str(&format!(
            "; {} sentences cite no source and are marked",
            c.unsupported
        ));
    }
    if !c.failed.is_empty() {
        md.push_str(&format!("; {} papers could not be read", c.failed.len()));
    }
    md.push_str(&format!(
        ". {}{}.*\n",
        record
            .model
            .as_deref()
            .map_or("No model".to_owned(), |m| format!("Model {m}")),
        record
            .finished_at
            .as_deref()
            .map(|at| format!(", {}", at.get(..10).unwrap_or(at)))
            .unwrap_or_default()
    ));
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::ask::{Coverage, Scope, Source};

    #[test]
    fn titles_quotes_and_the_answer_render_as_text_never_as_html_or_markup() {
        let record = AskRecord {
            id: "a1".into(),
            question: "Which <b>papers</b> measure *recovery*?".into(),
            scope: Scope::All,
            read_all: false,
            mode: Mode::Answer,
            status: Status::Done,
            answer: "# Answer\n<img src=x onerror=alert(1)> Recovery takes 3 s [1].".into(),
            sources: vec![Source {
                n: 1,
                paper: "p1".into(),
                title: "A *fast* log | for [ML](http://x)".into(),
                page: 2,
                quote: "Recovery takes <3 s> after a crash.".into(),
                claim: "3 s".into(),
                record: false,
            }],
            papers_read: vec!["A *fast* log".into()],
            coverage: Coverage::default(),
            model: None,
            prompt_version: "v".into(),
            started_at: "t".into(),
            finished_at: None,
            stopped: None,
            in_report: true,
            review_inputs: None,
            stale: None,
        };
        let md = markdown(&record);
        for event in pulldown_cmark::Parser::new(&md) {
            match event {
                pulldown_cmark::Event::Html(h) | pulldown_cmark::Event::InlineHtml(h) => {
                    panic!("raw HTML {h} in {md}")
                }
                pulldown_cmark::Event::Start(pulldown_cmark::Tag::Link { .. }) => {
                    panic!("a title made a link: {md}")
                }
                pulldown_cmark::Event::Start(pulldown_cmark::Tag::Heading { level, .. }) => {
                    assert!(level >= pulldown_cmark::HeadingLevel::H2, "{md}")
                }
                _ => {}
            }
        }
        assert!(md.contains(r"A \*fast\* log \| for \[ML\]"), "{md}");
        assert!(md.contains(", p. 2: "), "{md}");
    }

    #[test]
    fn a_search_records_quote_is_cited_in_its_title_and_abstract_not_on_a_page() {
        let source = Source {
            n: 1,
            paper: "r1".into(),
            title: "Oxybutynin for overactive bladder".into(),
            page: 1,
            quote: "Oxybutynin reduced episodes".into(),
            claim: "fewer episodes".into(),
            record: true,
        };
        assert_eq!(source.place(), "title/abstract");
        let json = serde_json::to_value(&source).unwrap();
        assert_eq!(json["record"], true);
        // Sources saved before the flag read as pages of a PDF.
        let mut old = json;
        old.as_object_mut().unwrap().remove("record");
        let old: Source = serde_json::from_value(old).unwrap();
        assert_eq!(old.place(), "p. 1");
    }
}
