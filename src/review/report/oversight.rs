//! The report's sections on how the reading was set up and checked beside
//! the engine, and what was extracted: the protocol the researcher approved
//! before any paper was read, the second, independent reading, and the
//! extraction table.

use super::sections::push;
use super::{ReportData, inline, title_of};
use crate::review::EngineKind;
use crate::review::validation::kappa_text;

/// The protocol the papers were read by (agent engine): who wrote it, when
/// it was approved, its hash, the pilot, and its text.
pub(super) fn protocol_section(md: &mut String, data: &ReportData<'_>) {
    if data.spec.engine != EngineKind::Agent {
        return;
    }
    push(
        md,
        "## Protocol
",
    );
    let Some(protocol) = data.protocol else {
        push(
            md,
            "No protocol was approved for this question: the planner wrote its own plan (`plan.md`) inside the run.\n",
        );
        return;
    };
    let approved = &protocol.approved;
    let mut line = format!(
        "Approved on {} before the papers were read: {} (version `{}`",
        approved.at.get(..10).unwrap_or(&approved.at),
        protocol.authorship(),
        approved.hash
    );
    if protocol.versions > 1 {
        line.push_str(&format!(
            "; {} versions, drafts and approvals, kept in `protocol.json`",
            protocol.versions
        ));
    }
    line.push_str(").");
    if protocol.pilot_papers > 0 {
        line.push_str(&format!(
            " A pilot read {} under it before the rest.",
            match protocol.pilot_papers {
                1 => "1 paper".to_owned(),
                n => format!("{n} papers"),
            }
        ));
    }
    line.push_str(" The reader was given this text with every paper:\n");
    push(md, &line);
    for text_line in approved.text.trim().lines() {
        push(md, format!("> {text_line}").trim_end());
    }
    push(md, "");
}

/// How the two readings compared, and how disagreements were settled.
pub(super) fn dual_section(md: &mut String, data: &ReportData<'_>) {
    let Some((file, agreement)) = data.dual else {
        return;
    };
    push(md, "## Dual reading\n");
    push(
        md,
        &format!(
            "Every paper was read twice, independently{}: {}.",
            file.second_model
                .as_deref()
                .map(|m| format!(" (the second reading by {})", inline(m)))
                .unwrap_or_default(),
            file.policy.describe()
        ),
    );
    push(md, "");
    let share = |n: usize| {
        if agreement.pairs == 0 {
            "-".to_owned()
        } else {
            format!("{:.0}%", 100.0 * n as f64 / agreement.pairs as f64)
        }
    };
    push(md, "| | Papers |");
    push(md, "|---|---:|");
    push(md, &format!("| Read twice | {} |", agreement.pairs));
    push(
        md,
        &format!(
            "| Both readings agree (keep or exclude) | {} ({}) |",
            agreement.agreed,
            share(agreement.agreed)
        ),
    );
    push(
        md,
        &format!(
            "| Readings disagree | {} ({}) |",
            agreement.disagreements.len(),
            share(agreement.disagreements.len())
        ),
    );
    if file.policy == crate::review::dual::Policy::TieBreaker {
        push(
            md,
            &format!("| Decided by a third reading | {} |", agreement.tie_broken),
        );
    }
    push(md, "");
    push(
        md,
        &format!(
            "Inter-reader agreement (Cohen's kappa, maybe counting as include): {}.",
            kappa_text(agreement.kappa, agreement.kappa_undefined.as_deref())
        ),
    );
    if !agreement.disagreements.is_empty() {
        push(md, "");
        push(
            md,
            "Papers the readings disagree on, with the verdict shown:",
        );
        push(md, "");
        for id in &agreement.disagreements {
            let paper = data.papers.iter().find(|p| p.id.0 == *id);
            let verdict = data
                .results
                .get(&crate::workspace::PaperId(id.clone()))
                .map_or("-", |r| r.verdict.as_str());
            push(
                md,
                &format!(
                    "- {} ({verdict})",
                    paper.map_or_else(|| id.clone(), |p| inline(&title_of(p)))
                ),
            );
        }
    }
    push(md, "");
}

/// The extraction table of the papers the review keeps, when it has columns.
pub(super) fn table_section(md: &mut String, data: &ReportData<'_>) {
    let Some(table) = data.table else {
        return;
    };
    push(md, "## Extraction table\n");
    let low: usize = table
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .filter(|c| c.low_confidence && c.value.is_some() && !c.corrected)
        .count();
    let corrected: usize = table
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .filter(|c| c.corrected)
        .count();
    push(
        md,
        &format!(
            "The papers the review keeps, a value per column with the quote that supports it (each checked on its page){}; {} values marked unsure, {} corrected by the researcher.\n",
            table
                .model
                .as_deref()
                .map(|m| format!(", read by {}", inline(m)))
                .unwrap_or_default(),
            low,
            corrected
        ),
    );
    md.push_str(&crate::review::table::markdown(table));
    md.push('\n');
}

/// The questions asked of the papers that the researcher put in the report,
/// each as its answer with its sources (or passages) and coverage.
pub(super) fn asks_section(md: &mut String, data: &ReportData<'_>) {
    if data.asks.is_empty() {
        return;
    }
    push(md, "## Questions asked of the papers\n");
    for ask in data.asks {
        // Each answer's own heading sits one level below the section's.
        let answer = crate::review::ask::markdown(ask);
        let mut answer = answer.replacen("## ", "### ", 1);
        if let Some(why) = &ask.stale {
            // Under its heading: never mixed in as an answer of this review.
            let at = answer.find('\n').map_or(answer.len(), |i| i + 1);
            answer.insert_str(at, &format!("\n*Stale: {why}.*\n"));
        }
        md.push_str(&answer);
        md.push('\n');
    }
}
