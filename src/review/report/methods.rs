//! A Methods paragraph a reviewer can paste into a paper, written from the
//! workspace: the tool and engine, the model and its prompt's hash, the dates
//! of screening, the cut-offs and how they were set, the validation figures
//! with their intervals, the human oversight that took place (labels,
//! corrections, what automation excluded unchecked), and that each paper was
//! read once. It states what the files show and nothing more: the reporting
//! RAISE and Cochrane ask of automated screening.

use std::collections::BTreeSet;

use super::ReportData;
use crate::review::validation::{Assessment, assess, kappa_text};
use crate::review_model::EngineKind;
use crate::workspace::Origin;

/// The first `n` characters of a recorded value (a date of a timestamp, the
/// start of a hash); files can be edited by hand, so never a byte slice.
fn head(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// "1 paper", "2 papers".
fn papers(n: usize) -> String {
    if n == 1 {
        "1 paper".to_owned()
    } else {
        format!("{n} papers")
    }
}

/// The sentence on what the researcher's labels show, when there are any.
fn validation_sentence(a: &Assessment) -> String {
    let earlier = match a.earlier_labels {
        0 => String::new(),
        1 => " 1 label given under an earlier question was not counted.".to_owned(),
        n => format!(" {n} labels given under an earlier question were not counted."),
    };
    let browsing = match a.browsing_labelled {
        0 => String::new(),
        n => format!(
            " The researcher also labelled {} while browsing the results; those labels are not a sample and were \
             not used in these estimates.",
            papers(n)
        ),
    };
    if a.sample_labelled == 0 {
        return format!(
            "The researcher did not label a validation sample under this question, so the screening's accuracy \
             in this review was not estimated.{browsing}{earlier}"
        );
    }
    let counted = a.sample_labelled - a.fitted_labels;
    let fitted = if a.fitted_labels > 0 {
        format!(
            " (the {} the cut-offs were fitted on not counted)",
            a.fitted_labels
        )
    } else {
        String::new()
    };
    let estimate = match (&a.estimate, &a.no_estimate) {
        (Some(e), _) => match e.recall {
            Some(r) => format!(
                "; weighting each labelled paper by its inclusion probability, recall at the cut-offs in force was \
                 estimated at {:.2} (95% CI {:.2}-{:.2}) for the whole review",
                r.value, r.low, r.high
            ),
            None => "; no paper of the sample was labelled relevant, so recall was not estimated"
                .to_owned(),
        },
        (None, Some(why)) => format!("; recall was not estimated ({why})"),
        (None, None) => String::new(),
    };
    let kappa = kappa_text(a.kappa, a.kappa_undefined.as_deref());
    let target = a.support.target;
    let support = if a.support.supported {
        format!(
            "The sample supported automatic exclusion at {target:.2} recall (the one-sided 95% lower bound \
             reached it)."
        )
    } else {
        format!(
            "The sample did not support automatic exclusion at {target:.2} recall, so the engine's exclusions are \
             reported as unchecked."
        )
    };
    format!(
        "The researcher labelled a stratified random sample of the papers screened, drawn by score band: {} \
         labelled{fitted}, {} relevant (a paper labelled maybe counted as relevant){estimate}. On these papers, \
         Cohen's kappa between the researcher and the engine was {kappa}. {support}{browsing}{earlier}",
        counted, a.relevant
    )
}

/// The paragraph.
pub(super) fn methods_paragraph(data: &ReportData<'_>) -> String {
    let flow = data.flow();
    let assessment = assess(data.results, &data.every_label(), data.validation);
    let by_citation = flow.citations.identified - flow.citations.duplicates;
    let mut found = match flow.from_databases + by_citation {
        0 => format!("files found: {}", flow.identified),
        records => format!(
            "records from database searches, screened on title and abstract only: {}; PDF files found: {}",
            flow.from_databases,
            flow.identified - records
        ),
    };
    if flow.citations.identified > 0 {
        found.push_str(&format!(
            "; records from citation searching in OpenAlex (from included papers), \
             screened on title and abstract: {by_citation}, after {} already in the review were set aside",
            flow.citations.duplicates
        ));
    }
    let duplicates = match flow.set_aside {
        0 => format!("exact duplicates removed: {}", flow.duplicates),
        n => format!(
            "duplicates removed: {} (identical files: {}; set aside by the researcher as copies of another record or file: {n})",
            flow.duplicates,
            flow.duplicates - n
        ),
    };
    let mut text = format!(
        "We screened {} ({found}; {duplicates}; unreadable: {}) with Quire {}",
        papers(flow.screened),
        flow.unreadable_total(),
        env!("CARGO_PKG_VERSION")
    );

    if flow.stale > 0 {
        text.push_str(&format!(
            "; {} read under earlier inputs (an earlier question, protocol, engine or model) are not \
             counted below and await a new reading",
            papers(flow.stale)
        ));
    }
    let started = data
        .results
        .values()
        .map(|r| r.provenance.started_at.as_str())
        .min();
    let finished = data
        .results
        .values()
        .map(|r| r.provenance.finished_at.as_str())
        .max();
    match data.spec.engine {
        EngineKind::Offline => text.push_str(
            " without a language model: each paper's relevance was scored 0-10 from the share of the review \
             question's terms it uses (in its title and abstract, or by their frequency in its body), and the \
             evidence shown is the sentences that best match the question.",
        ),
        EngineKind::Agent => {
            let hashes: BTreeSet<&str> = data
                .results
                .values()
                .filter_map(|r| r.provenance.prompt_hash.as_deref())
                .collect();
            let hashes: Vec<String> = hashes.into_iter().map(|h| head(h, 12)).collect();
            let (verified, dropped) = data.results.values().fold((0, 0), |acc, r| {
                (
                    acc.0 + r.provenance.quotes_verified.unwrap_or(0),
                    acc.1 + r.provenance.quotes_dropped.unwrap_or(0),
                )
            });
            text.push_str(&format!(
                ": each paper was read in full, in isolation, by the language model {} (reader prompt {}), which \
                 scored its relevance 0-10 against the question and criteria with a rationale and quotes; every \
                 quote was checked against the text of the page it cites ({verified} verified, {dropped} not \
                 found and dropped).",
                data.model.unwrap_or("(not recorded)"),
                if hashes.is_empty() { "not recorded".to_owned() } else { hashes.join(", ") },
            ));
            text.push_str(&match data.protocol {
                Some(p) => format!(
                    " The reader judged every paper by a screening protocol {} on {}, before any paper was read \
                     (version {}){}.",
                    p.authorship(),
                    head(&p.approved.at, 10),
                    p.approved.hash,
                    match p.pilot_papers {
                        0 => String::new(),
                        n => format!(", after a pilot on {}", papers(n)),
                    }
                ),
                None => " No screening protocol was approved before the run.".to_owned(),
            });
        }
    }
    if let (Some(started), Some(finished)) = (started, finished) {
        text.push_str(&format!(
            " Papers were read between {} and {}.",
            head(started, 10),
            head(finished, 10)
        ));
    }
    text.push_str(&match data.dual {
        Some((_, agreement)) if agreement.pairs == 0 => {
            " A second, independent reading was set up, but no paper has been read twice yet; each paper \
             counted here was read once."
                .to_owned()
        }
        Some((file, agreement)) => {
            let who = if agreement.pairs >= flow.screened {
                format!("Each of the {} was read twice, independently", papers(flow.screened))
            } else {
                format!(
                    "{} of the {} screened {} read twice, independently (the rest once)",
                    papers(agreement.pairs),
                    flow.screened,
                    if agreement.pairs == 1 { "was" } else { "were" }
                )
            };
            format!(
                " {who}{}; {}. The two readings agreed on {} of {} papers (Cohen's kappa {}).",
                file.second_model
                    .as_deref()
                    .map(|m| format!(" (the second reading by {m})"))
                    .unwrap_or_default(),
                file.policy.describe(),
                agreement.agreed,
                agreement.pairs,
                kappa_text(agreement.kappa, agreement.kappa_undefined.as_deref())
            )
        }
        None => " Each paper was read once; there was no second independent reading.".to_owned(),
    });
    let cut = assessment.cutoffs;
    text.push_str(&format!(
        " Papers scoring {:.1} or more were marked include, {:.1} or more maybe, and the rest exclude; ",
        cut.include, cut.maybe
    ));
    text.push_str(&match &data.validation.applied {
        Some(applied) => format!(
            "these cut-offs were fitted on {} labelled papers of half the validation sample ({} relevant) to a \
             target recall of {:.2}, checked on the other half, and applied by the researcher on {}.",
            applied.labelled,
            applied.relevant,
            applied.target,
            head(&applied.at, 10)
        ),
        None => "these are Quire's default cut-offs, not calibrated on this review.".to_owned(),
    });
    text.push(' ');
    text.push_str(&validation_sentence(&assessment));
    if let Some(sentence) = data.screening.and_then(screening_sentence) {
        text.push(' ');
        text.push_str(&sentence);
    }
    let corrected = data
        .papers
        .iter()
        .filter(|p| p.meta.sources.values().any(|o| *o == Origin::Corrected))
        .count();
    text.push_str(&format!(
        " Excluded: {} (by the engine without the researcher's check: {}; by the researcher: {}); included: \
         {}. The researcher corrected the bibliographic details of {}.",
        flow.excluded(),
        flow.excluded_by_automation,
        flow.excluded_by_researcher,
        flow.included,
        papers(corrected)
    ));
    text
}

/// How the researcher screened in the queue, when they did: what ordered
/// it (a ranking that learned from their labels, not the engine's verdicts),
/// how far it went and what the stopping criterion shows of the papers left.
fn screening_sentence(ranking: &crate::review::queue::RankingFile) -> Option<String> {
    let screened = ranking.labels.len();
    if screened == 0 {
        return None;
    }
    let kept = ranking.labels.iter().filter(|(_, k)| *k).count();
    let mut text = format!(
        "The researcher screened {} on title and abstract in Quire's screening queue, which served first \
         the paper most likely to be kept by a ranking learned again from every label ({}), apart from the \
         engine's verdicts; {} kept (include or maybe) and {} left unscreened when screening last stood.",
        papers(screened),
        crate::review::queue::RANKER,
        kept,
        ranking.order.len()
    );
    if let Some(stopping) = &ranking.stopping {
        text.push(' ');
        text.push_str(&stopping_sentence(stopping, ranking.order.is_empty()));
    }
    text.push_str(
        " The ranking and the labels it learned from are in the review's screening.json.",
    );
    Some(text)
}

/// What the stopping criterion showed, in words a reader can check: the
/// test, its p-value, the labels it rests on and the recall it supports.
fn stopping_sentence(s: &crate::review::queue::StoppingView, all_screened: bool) -> String {
    let percent = |share: f64| format!("{:.0}%", share * 100.0);
    if all_screened {
        return "Every paper was screened, so none was left unread by the stopping criterion."
            .to_owned();
    }
    let Some(p) = s.p else {
        return "No label was given in the queue's order, so no stopping criterion applies: the unscreened \
                papers may still hold relevant ones."
            .to_owned();
    };
    let hypothesis = format!(
        "the hypothesis that fewer than {} of the relevant papers had been found",
        percent(s.target)
    );
    let basis = format!(
        "p = {p:.3}, from the {} labels given in the queue's order",
        s.in_order
    );
    if s.met {
        format!(
            "By {}, {hypothesis} was rejected at {} confidence ({basis}).",
            s.rule,
            percent(s.confidence)
        )
    } else {
        let bound = s.recall_at_least.map_or_else(
            || "not even half can be shown found".to_owned(),
            |r| {
                format!(
                    "with {} confidence, at least {} were found",
                    percent(s.confidence),
                    percent(r)
                )
            },
        );
        format!(
            "By {}, {hypothesis} could not be rejected ({basis}; {bound}): the unscreened papers may still \
             hold relevant ones.",
            s.rule
        )
    }
}

/// Append the section.
pub(super) fn methods_section(md: &mut String, data: &ReportData<'_>) {
    md.push_str("## Methods paragraph\n\n");
    md.push_str("Generated from the review's files, to adapt and paste into a paper:\n\n");
    md.push_str("> ");
    md.push_str(&super::inline(&methods_paragraph(data)));
    md.push_str("\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::queue::{Basis, RankingFile, StoppingView};

    fn ranking(stopping: Option<StoppingView>) -> RankingFile {
        RankingFile {
            ranker: "r".into(),
            at: "2026-12-04T10:00:00Z".into(),
            labels: vec![("a".into(), true), ("b".into(), false), ("c".into(), false)],
            basis: Basis::Learned,
            order: vec!["d".into(), "e".into()],
            served: 1,
            stopping,
            serve: None,
        }
    }

    fn stopping(p: Option<f64>, recall_at_least: Option<f64>) -> StoppingView {
        StoppingView {
            target: 0.95,
            confidence: 0.95,
            in_order: 3,
            p,
            met: p.is_some_and(|p| p < 0.05),
            recall_at_least,
            since_last_kept: 2,
            rule: crate::review::queue::STOPPING_RULE.into(),
        }
    }

    #[test]
    fn the_screening_sentence_reports_what_the_stopping_criterion_showed() {
        let met = screening_sentence(&ranking(Some(stopping(Some(0.031), Some(0.97))))).unwrap();
        assert!(met.contains("The researcher screened 3 papers"), "{met}");
        assert!(
            met.contains("fewer than 95% of the relevant papers had been found was rejected at 95% confidence (p = 0.031, from the 3 labels given in the queue's order)"),
            "{met}"
        );
        let open = screening_sentence(&ranking(Some(stopping(Some(0.41), Some(0.76))))).unwrap();
        assert!(
            open.contains("could not be rejected (p = 0.410, from the 3 labels given in the queue's order; with 95% confidence, at least 76% were found): the unscreened papers may still hold relevant ones."),
            "{open}"
        );
        let none = screening_sentence(&ranking(Some(stopping(None, None)))).unwrap();
        assert!(none.contains("no stopping criterion applies"), "{none}");
        // A file from before the criterion was kept says nothing of it.
        let old = screening_sentence(&ranking(None)).unwrap();
        assert!(!old.contains("criterion"), "{old}");
        for sentence in [met, open, none, old] {
            assert!(!sentence.contains("  "), "a run of spaces: {sentence}");
        }
    }
}
