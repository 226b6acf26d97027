//! The report's screening-validation section: how the engine's keep/exclude
//! decisions compare with the researcher's own labels, the cut-offs in force
//! and how they were set, and whether the labels support letting the engine
//! exclude papers unread. `quire validate` prints the same text.

use super::{ReportData, inline, title_of};
use crate::review::validation::{Assessment, Proportion, assess, kappa_text};

/// Append the section.
pub(super) fn validation_section(md: &mut String, data: &ReportData<'_>) {
    let assessment = assess(data.results, data.labels, data.validation);
    md.push_str(&validation_markdown(&assessment, data));
}

/// What was made under earlier inputs and counts nowhere below, in words
/// (empty when nothing was).
pub fn earlier_inputs(a: &Assessment) -> String {
    let mut notes = String::new();
    if let Some(at) = &a.stale_cutoffs {
        notes.push_str(&format!(
            "The cut-offs applied {at} were set on the scores of earlier inputs (another question, protocol, \
             engine or model): they are not in force; apply cut-offs again once the papers are read again.\n\n"
        ));
    }
    if a.earlier_labels > 0 {
        notes.push_str(&format!(
            "{} of the researcher's labels were given under an earlier question: they are kept, and counted \
             in none of the figures below, which are for the current question.\n\n",
            a.earlier_labels
        ));
    }
    notes
}

fn proportion(p: Option<Proportion>) -> String {
    match p {
        Some(p) => format!(
            "{:.2} (95% CI {:.2}-{:.2}; {} of {})",
            p.value, p.low, p.high, p.hits, p.of
        ),
        None => "not defined (no such papers labelled)".to_owned(),
    }
}

/// The section's Markdown for an assessment of this review's papers.
pub fn validation_markdown(a: &Assessment, data: &ReportData<'_>) -> String {
    let mut md = String::from("## Screening validation\n\n");
    md.push_str(&earlier_inputs(a));
    let cut = a.cutoffs;
    let cutoffs = format!(
        "include from {:.1}, maybe from {:.1}",
        cut.include, cut.maybe
    );
    let title = |id: &str| {
        data.papers
            .iter()
            .find(|p| p.id.0 == id)
            .map_or_else(|| id.to_owned(), title_of)
    };
    if a.labelled == 0 {
        md.push_str(&format!(
            "Cut-offs: {cutoffs}, the defaults, **uncalibrated**: no scored paper has been labelled by the researcher, \
             so nothing yet says how far the engine's verdicts can be trusted in this review.\n\n"
        ));
        if a.sample_size > 0 {
            md.push_str(&format!(
                "A validation sample of {} papers is proposed; none is labelled yet.\n\n",
                a.sample_size
            ));
        }
        return md;
    }
    let calibration = match &data.validation.applied {
        Some(applied) => format!(
            "calibrated on {} labelled papers ({} relevant) to {:.2} recall, applied {}",
            applied.labelled, applied.relevant, applied.target, applied.at
        ),
        None => "the defaults, uncalibrated".to_owned(),
    };
    md.push_str(&format!(
        "Against the researcher's own labels of {} scored papers, {} of them relevant. A paper labelled \
         *maybe* counts as relevant, and one the engine scores *maybe* or above is kept. Cut-offs in force: \
         {cutoffs} ({calibration}).\n\n",
        a.labelled, a.relevant
    ));
    if a.sample_size > 0 {
        md.push_str(
            "The figures describe the labelled papers. A proposed sample holds more papers near the cut-offs \
             than the collection does, so they weigh the hard cases more than the whole review would.\n\n",
        );
    }
    let c = a.confusion;
    md.push_str("| | labelled relevant | labelled not relevant |\n|---|---:|---:|\n");
    md.push_str(&format!(
        "| kept by the engine | {} | {} |\n| excluded by the engine | {} | {} |\n\n",
        c.true_positive, c.false_positive, c.false_negative, c.true_negative
    ));
    md.push_str(&format!(
        "- Recall (sensitivity): {}\n",
        proportion(a.recall)
    ));
    md.push_str(&format!("- Specificity: {}\n", proportion(a.specificity)));
    md.push_str(&format!("- Precision: {}\n", proportion(a.precision)));
    md.push_str(&format!(
        "- Cohen's kappa: {}\n",
        kappa_text(a.kappa, a.kappa_undefined.as_deref())
    ));
    md.push_str(&format!(
        "- Work saved over sampling at 95% recall (WSS@95): {}\n",
        a.wss_at_95.map_or(
            "not defined (no relevant paper labelled)".to_owned(),
            |w| format!("{w:.2}")
        )
    ));
    if a.lost.is_empty() {
        md.push_str(
            "- Lost evidence: none; every paper the researcher labelled relevant is kept.\n",
        );
    } else {
        let names: Vec<String> = a.lost.iter().map(|id| inline(&title(id))).collect();
        md.push_str(&format!(
            "- Lost evidence (labelled relevant, excluded by the engine): {}\n",
            names.join("; ")
        ));
    }
    let target = a.stopping.target;
    match a.proposed {
        Some(p) if p == cut => md.push_str(&format!(
            "- At {target:.2} recall the labels support the cut-offs in force (a higher maybe cut-off needs \
             labels that support automatic exclusion)\n"
        )),
        Some(p) => md.push_str(&format!(
            "- Cut-offs the labels support at {target:.2} recall: include from {:.1}, maybe from {:.1} (not applied)\n",
            p.include, p.maybe
        )),
        None => md.push_str(&format!(
            "- Cut-offs the labels support: none yet; calibrating needs at least {} papers labelled relevant\n",
            crate::review::validation::calibrate::MIN_RELEVANT
        )),
    }
    let rule = a.stopping;
    if rule.supports_exclusion {
        md.push_str(&format!(
            "- Automatic exclusion: supported; the lower bound of recall is at or above {target:.2}\n"
        ));
    } else {
        let bound = rule
            .recall
            .map_or("no relevant paper is labelled".to_owned(), |r| {
                format!("recall's lower bound {:.2} is below {target:.2}", r.low)
            });
        let more = if rule.more_relevant_needed >= crate::review::validation::calibrate::MORE_CAP {
            "no number of further labels would, as papers are already lost at these cut-offs"
                .to_owned()
        } else {
            format!(
                "about {} more papers labelled relevant, each kept by the engine, would",
                rule.more_relevant_needed
            )
        };
        md.push_str(&format!(
            "- Automatic exclusion: not supported by these labels ({bound}); {more}. Every paper the engine \
             excludes still needs the researcher's eye.\n"
        ));
    }
    if a.sample_size > 0 {
        md.push_str(&format!(
            "- Validation sample: {} papers proposed, {} still to label\n",
            a.sample_size,
            a.to_label.len()
        ));
    }
    md.push('\n');
    md
}
