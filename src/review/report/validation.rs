//! The report's screening-validation section: how the engine's keep/exclude
//! decisions compare with the researcher's own labels, the cut-offs in force
//! and how they were set, and whether the labels support letting the engine
//! exclude papers unread. `quire validate` prints the same text.

use super::{ReportData, inline, title_of};
use crate::review::validation::{Assessment, MoreLabels, Range, assess, kappa_text};

/// Append the section.
pub(super) fn validation_section(md: &mut String, data: &ReportData<'_>) {
    let assessment = assess(data.results, &data.every_label(), data.validation);
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

/// A count estimate with its interval, rounded as counts are.
fn about(r: &Range) -> String {
    format!("about {:.0} (95% CI {:.0}-{:.0})", r.value, r.low, r.high)
}

/// "30 scoring 0.0-2.0, 12 scoring 2.0-4.0".
pub fn bands(more: &[MoreLabels]) -> String {
    more.iter()
        .map(|m| {
            format!(
                "{} scoring {:.1}-{:.1}",
                m.count,
                m.from.max(0.0),
                m.to.min(10.0)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The automatic-exclusion line: supported, or what would support it.
pub fn support_line(a: &Assessment) -> String {
    let s = &a.support;
    let target = s.target;
    let bound = a.estimate.map(|e| e.lower_bound);
    if s.supported {
        return format!(
            "Automatic exclusion: supported; recall's one-sided 95% lower bound for the whole review is {:.2}, at \
             or above {target:.2}",
            bound.unwrap_or(1.0)
        );
    }
    let why = match (bound, &a.no_estimate) {
        (Some(b), _) => format!("recall's one-sided 95% lower bound {b:.2} is below {target:.2}"),
        (None, Some(why)) => why.clone(),
        (None, None) => "no estimate".to_owned(),
    };
    let next = if s.beyond_reach {
        "no number of further labels would: as far as the sample shows, the engine loses relevant papers at \
         these cut-offs"
            .to_owned()
    } else if s.more.is_empty() {
        "label the validation sample to find out what would".to_owned()
    } else {
        let total: usize = s.more.iter().map(|m| m.count).sum();
        format!(
            "about {total} more labels of the sample ({}) would, if they turn out as the sample's have so far",
            bands(&s.more)
        )
    };
    format!(
        "Automatic exclusion: not supported ({why}); {next}. Every paper the engine excludes still needs the \
         researcher's eye"
    )
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
            "fitted on {} labelled papers of half the validation sample ({} relevant) to {:.2} recall, applied {}",
            applied.labelled, applied.relevant, applied.target, applied.at
        ),
        None => "the defaults, uncalibrated".to_owned(),
    };
    md.push_str(&format!("Cut-offs in force: {cutoffs} ({calibration}). A paper labelled *maybe* counts as relevant, \
        and one the engine scores *maybe* or above is kept.\n\n"));

    md.push_str("**For the whole review, from the validation sample.** ");
    if a.sample_labelled == 0 {
        md.push_str("No paper of a validation sample is labelled, so nothing is estimated for the papers nobody \
            labelled.\n\n");
    } else {
        let fitted = match a.fitted_labels {
            0 => String::new(),
            n => format!(", not counting the {n} the cut-offs in force were fitted on"),
        };
        md.push_str(&format!(
            "A stratified random sample: each labelled paper stands for its score band's papers over the band's \
             labels. {} labels count here{fitted}.\n\n",
            a.sample_labelled - a.fitted_labels
        ));
        match (&a.estimate, &a.no_estimate) {
            (Some(e), _) => {
                match e.recall {
                    Some(r) => md.push_str(&format!(
                        "- Recall at the cut-offs in force: {:.2} (95% CI {:.2}-{:.2}), of {} scored papers\n",
                        r.value, r.low, r.high, e.papers
                    )),
                    None => md.push_str("- Recall: not defined; no paper of the sample is labelled relevant\n"),
                }
                md.push_str(&format!(
                    "- Relevant papers in the review: {}; of them excluded by the engine: {}\n",
                    about(&e.relevant),
                    about(&e.missed)
                ));
            }
            (None, Some(why)) => {
                md.push_str(&format!("- No estimate for the whole review: {why}\n"))
            }
            (None, None) => {}
        }
        md.push_str(&format!(
            "- Work saved over sampling at 95% recall (WSS@95): {}\n",
            a.wss_at_95.map_or(
                "not defined (no relevant paper in the sample)".to_owned(),
                |w| format!("{w:.2}")
            )
        ));
    }
    md.push_str(&format!("- {}\n", support_line(a)));
    let target = a.support.target;
    match (a.proposed, &a.raise_refused) {
        (Some(p), None) if p == cut => md.push_str(&format!(
            "- At {target:.2} recall the sample supports the cut-offs in force\n"
        )),
        (Some(p), None) => md.push_str(&format!(
            "- Cut-offs the sample supports at {target:.2} recall: include from {:.1}, maybe from {:.1} (fitted on \
             half of the sample; not applied)\n",
            p.include, p.maybe
        )),
        (_, Some(refused)) => md.push_str(&format!(
            "- A maybe cut-off of {:.1}, which half of the sample fits at {target:.2} recall, is not proposed: {}\n",
            refused.maybe, refused.reason
        )),
        (None, None) => md.push_str(&format!(
            "- Cut-offs the sample supports: none yet; they are fitted on half of the validation sample, which needs \
             at least {} papers labelled relevant\n",
            crate::review::validation::calibrate::MIN_RELEVANT
        )),
    }
    md.push('\n');

    let evaluated = a.confusion.total();
    if evaluated > 0 {
        md.push_str(&format!(
            "**Agreement on the sample's {evaluated} labelled papers** (unweighted: these papers, not the review).\n\n"
        ));
        let c = a.confusion;
        md.push_str("| | labelled relevant | labelled not relevant |\n|---|---:|---:|\n");
        md.push_str(&format!(
            "| kept by the engine | {} | {} |\n| excluded by the engine | {} | {} |\n\n",
            c.true_positive, c.false_positive, c.false_negative, c.true_negative
        ));
        md.push_str(&format!(
            "- Cohen's kappa: {}\n",
            kappa_text(a.kappa, a.kappa_undefined.as_deref())
        ));
    }
    if a.lost.is_empty() {
        md.push_str(
            "- Lost evidence: none; every paper the researcher labelled relevant is kept.\n",
        );
    } else {
        let names: Vec<String> = a.lost.iter().map(|id| inline(&title(id))).collect();
        md.push_str(&format!(
            "- Lost evidence (labelled relevant, in the sample or not, excluded by the engine): {}\n",
            names.join("; ")
        ));
    }
    if a.browsing_labelled > 0 {
        md.push_str(&format!(
            "- Labelled while browsing, not a sample: {}; shown on their papers and among the lost evidence, \
             counted in no estimate above\n",
            papers_count(a.browsing_labelled)
        ));
    }
    if a.sample_size > 0 {
        md.push_str(&format!(
            "- Validation sample: {} papers drawn, {} still to label\n",
            a.sample_size,
            a.to_label.len()
        ));
    }
    md.push('\n');
    md
}

fn papers_count(n: usize) -> String {
    if n == 1 {
        "1 paper".to_owned()
    } else {
        format!("{n} papers")
    }
}
