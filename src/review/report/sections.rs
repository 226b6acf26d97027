//! The report's sections, each a function of the report's data that appends
//! its Markdown: [`super::render`] lists them in order.

use super::{ReportData, authors_short, block, file_name, inline, status_label, title_of};
use crate::review::EngineKind;
use crate::review::PaperResult;
use crate::review::labels::Label;
use crate::workspace::PaperRecord;

/// The title, the question and the criteria.
pub(super) fn title_section(md: &mut String, data: &ReportData<'_>) {
    push(
        md,
        &format!("# Literature review: {}\n", inline(&data.task.title)),
    );
    push(
        md,
        &format!("**Question.** {}\n", inline(&data.spec.question)),
    );
    if !data.spec.criteria.is_empty() {
        push(md, "**Criteria.**\n");
        for (i, c) in data.spec.criteria.iter().enumerate() {
            push(md, &format!("{}. {}", i + 1, inline(c)));
        }
        push(md, "");
    }
}

/// How the papers were read and judged.
pub(super) fn method_section(md: &mut String, data: &ReportData<'_>) {
    push(md, "## Method\n");
    push(md, &format!("- Engine: {}", data.spec.engine.label()));
    push(
        md,
        &format!("- Model: {}", inline(data.model.unwrap_or("none"))),
    );
    push(md, &format!("- Date: {}", data.date));
    match data.spec.engine {
        EngineKind::Offline => {
            push(
                md,
                "- Relevance: the share of the question's terms each paper uses (a term in the title or abstract counts \
                 fully, one only in the body by how often it is used, generic research words less); 0-10 is 10 times \
                 its square root, so a score means the same in any folder. Evidence: the sentences that best match \
                 the question (BM25 with pseudo-relevance feedback). Verdicts: include from 6.5, maybe from 4.0.",
            );
            push(
                md,
                "- Summaries: extractive, sentences from the abstract, introduction and conclusion closest to the paper's centroid.",
            );
        }
        EngineKind::Agent => {
            push(
                md,
                &format!(
                    "- Reading: each paper read in isolation by the model against the question and criteria{} (in \
                     page-aligned parts when longer than the model's window), scored 0-10 with a verdict and rationale.",
                    if data.protocol.is_some() {
                        " by the approved protocol below"
                    } else {
                        ""
                    }
                ),
            );
            let (verified, dropped) = data.results.values().fold((0, 0), |acc, r| {
                (
                    acc.0 + r.provenance.quotes_verified.unwrap_or(0),
                    acc.1 + r.provenance.quotes_dropped.unwrap_or(0),
                )
            });
            push(
                md,
                &format!(
                    "- Evidence: every quote checked against the text of its cited page; {verified} verified, {dropped} not found on their page and dropped."
                ),
            );
            if !data.undriven.is_empty() {
                push(
                    md,
                    &format!(
                        "- Agents: the model could not drive them throughout, and the deterministic path stood in: {}.",
                        inline(&data.undriven.join("; "))
                    ),
                );
            }
        }
    }
    if !data.labels.is_empty() {
        push(
            md,
            &format!(
                "- Researcher's labels: {} the researcher's own verdict or score, marked below.",
                match data.labels.len() {
                    1 => "1 paper carries".to_owned(),
                    n => format!("{n} papers carry"),
                }
            ),
        );
    }
    push(
        md,
        "- Text: extracted offline from the PDFs (pdf_oxide, with pdf-extract as second opinion).\n",
    );
}

/// The writer's synthesis, when there is one.
pub(super) fn synthesis_section(md: &mut String, data: &ReportData<'_>) {
    if let Some(synthesis) = data.synthesis.filter(|s| !s.trim().is_empty()) {
        push(md, "## Synthesis\n");
        push(md, &block(synthesis));
        push(md, "");
    }
}

/// PRISMA 2020's "identification via other methods" column: citation
/// searching, when the review did any.
fn other_methods(md: &mut String, c: &super::prisma::OtherMethods) {
    if c.identified == 0 {
        return;
    }
    push(
        md,
        "Identification of studies via other methods (citation searching):\n",
    );
    push(md, "| Stage | Records |");
    push(md, "|---|---:|");
    let rows = [
        ("Records identified from citation searching", c.identified),
        (
            "Duplicates (already in the review, in any version)",
            c.duplicates,
        ),
        ("Records screened (title and abstract)", c.screened),
        ("Records excluded", c.excluded),
        ("Reports sought for retrieval", c.sought),
        (
            "Reports not retrieved (no full text attached)",
            c.not_retrieved,
        ),
        ("Reports assessed for eligibility (full text)", c.assessed),
        ("Included", c.included),
    ];
    for (stage, n) in rows {
        push(md, &format!("| {stage} | {n} |"));
    }
    push(md, "");
    if !c.not_retrieved_reasons.is_empty() {
        push(md, "Reports not retrieved, with reasons:\n");
        push(md, "| Reason | Records |");
        push(md, "|---|---:|");
        for r in &c.not_retrieved_reasons {
            push(md, &format!("| {} | {} |", inline(&r.reason), r.papers));
        }
        push(md, "");
    }
}

/// The flow of papers as PRISMA 2020 reports it, with exclusions by
/// automation apart from the researcher's and each exclusion's reason.
pub(super) fn flow_section(md: &mut String, data: &ReportData<'_>) {
    let flow = data.flow();
    push(md, "## Flow of papers (PRISMA 2020)\n");
    push(md, "| Stage | Papers |");
    push(md, "|---|---:|");
    let by_citation = flow.citations.identified - flow.citations.duplicates;
    let records = flow.from_databases + by_citation;
    if records == 0 {
        push(
            md,
            &format!("| Records identified (files found) | {} |", flow.identified),
        );
    } else {
        push(
            md,
            &format!(
                "| Records identified from databases (search exports) | {} |",
                flow.from_databases
            ),
        );
        push(
            md,
            &format!(
                "| Records identified from files (PDFs) | {} |",
                flow.identified - records
            ),
        );
        if by_citation > 0 {
            push(
                md,
                &format!(
                    "| Records identified by citation searching, new to the review (see below) | {by_citation} |"
                ),
            );
        }
        push(
            md,
            &format!(
                "| Records with full text attached (PDF matched to the record) | {} |",
                flow.with_full_text
            ),
        );
    }
    push(
        md,
        &format!(
            "| Duplicates removed before screening | {} |",
            flow.duplicates
        ),
    );
    let detail: Vec<String> = flow
        .unreadable
        .iter()
        .map(|u| format!("{} {}", u.reason, u.papers))
        .collect();
    let detail = if detail.is_empty() {
        String::new()
    } else {
        format!(" ({})", detail.join(", "))
    };
    push(
        md,
        &format!(
            "| Removed before screening: could not be read | {}{detail} |",
            flow.unreadable_total()
        ),
    );
    push(md, &format!("| Records screened | {} |", flow.screened));
    push(
        md,
        &format!(
            "| Not scored: no result and no label | {}{} |",
            flow.not_scored,
            match flow.stale {
                0 => String::new(),
                n => format!(" (of which {n} read under earlier inputs, awaiting a new reading)"),
            }
        ),
    );
    push(
        md,
        &format!(
            "| Excluded by automation (the engine, unchecked)¹ | {} |",
            flow.excluded_by_automation
        ),
    );
    push(
        md,
        &format!(
            "| Excluded by the researcher | {} |",
            flow.excluded_by_researcher
        ),
    );
    push(
        md,
        &format!(
            "| Maybe: awaiting the researcher's decision | {} |",
            flow.maybe
        ),
    );
    let included = format!(
        "| Included | {} (labelled include by the researcher: {}) |",
        flow.included, flow.included_by_researcher
    );
    if records == 0 {
        push(md, &format!("{included}\n"));
    } else {
        push(md, &included);
        push(
            md,
            &format!(
                "| Kept records (included or maybe) with no full text attached: reports to seek | {} |\n",
                flow.kept_without_full_text
            ),
        );
    }
    other_methods(md, &flow.citations);
    if !flow.reasons.is_empty() {
        push(
            md,
            "Excluded, with reasons (the criterion the reader excluded by, else the first not met):\n",
        );
        push(md, "| Reason | Papers |");
        push(md, "|---|---:|");
        for r in &flow.reasons {
            push(md, &format!("| {} | {} |", inline(&r.reason), r.papers));
        }
        push(md, "");
    }
    push(
        md,
        &format!(
            "¹ Excluded by Quire's engine ({}) without the researcher's check, as PRISMA 2020 asks automation tools' \
             exclusions to be reported. The researcher's label decides a paper over the engine's verdict; {} \
             labelled.\n",
            data.spec.engine.label(),
            match flow.labelled {
                1 => "1 paper is".to_owned(),
                n => format!("{n} papers are"),
            }
        ),
    );
}

/// The ranking table, then each paper's section.
pub(super) fn ranking_section(md: &mut String, data: &ReportData<'_>) {
    let ranked = data.ranked();
    push(md, "## Ranking\n");
    if ranked.is_empty() {
        push(md, "No paper could be read, so none was screened.\n");
    } else {
        push(md, "| # | Title | Authors | Year | Score | Verdict |");
        push(md, "|---:|---|---|---:|---:|---|");
        for (rank, (p, r)) in ranked.iter().enumerate() {
            let verdict = match data.labels.get(&p.id).and_then(|l| l.verdict) {
                Some(v) => format!("{} (researcher: {})", r.verdict.as_str(), v.as_str()),
                None => r.verdict.as_str().to_owned(),
            };
            let year = p
                .meta
                .year
                .map(|y| y.to_string())
                .unwrap_or_else(|| "—".into());
            push(
                md,
                &format!(
                    "| {} | {} | {} | {year} | {:.1} | {verdict} |",
                    rank + 1,
                    inline(&title_of(p)),
                    inline(&authors_short(p)),
                    r.score,
                ),
            );
        }
        push(md, "");
        push(md, "## Papers\n");
        for (rank, (p, r)) in ranked.iter().enumerate() {
            paper_section(md, rank + 1, p, r, data.labels.get(&p.id));
        }
    }
}

/// Files that could not be read, with why.
pub(super) fn unreadable_section(md: &mut String, data: &ReportData<'_>) {
    let unreadable: Vec<&PaperRecord> = data
        .papers
        .iter()
        .filter(|p| !p.status.is_readable())
        .collect();
    if !unreadable.is_empty() {
        push(md, "## Files that could not be read\n");
        push(md, "| File | Status | Reason |");
        push(md, "|---|---|---|");
        for p in unreadable {
            push(
                md,
                &format!(
                    "| {} | {} | {} |",
                    inline(&file_name(p)),
                    status_label(p.status),
                    inline(p.reason.as_deref().unwrap_or(""))
                ),
            );
        }
        push(md, "");
    }
}

/// Files whose content another file already had.
pub(super) fn duplicates_section(md: &mut String, data: &ReportData<'_>) {
    let duplicates: Vec<(&PaperRecord, &std::path::PathBuf)> = data
        .papers
        .iter()
        .flat_map(|p| p.duplicates.iter().map(move |d| (p, d)))
        .collect();
    if !duplicates.is_empty() {
        push(md, "## Duplicates\n");
        push(md, "| File | Same content as |");
        push(md, "|---|---|");
        for (p, d) in duplicates {
            let name = d
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            push(
                md,
                &format!("| {} | {} |", inline(&name), inline(&file_name(p))),
            );
        }
        push(md, "");
    }
}

/// Append a line.
pub(super) fn push(md: &mut String, line: &str) {
    md.push_str(line);
    md.push('\n');
}

/// Why a readable paper with no result, no failure and no stale reading has
/// none.
pub const NOT_READ: &str = "not read: the run stopped before this paper";

/// Readable papers without a result, each with why: a stale reading, a
/// model's failure on that paper, or a run that stopped before reaching it.
pub(super) fn not_scored_section(md: &mut String, data: &ReportData<'_>) {
    let missing: Vec<&PaperRecord> = data
        .papers
        .iter()
        .filter(|p| p.status.is_readable() && !data.results.contains_key(&p.id))
        .collect();
    if missing.is_empty() {
        return;
    }
    push(
        md,
        "## Papers that could not be scored
",
    );
    push(md, "| Paper | Model | Reason |");
    push(md, "|---|---|---|");
    for p in missing {
        let (model, reason) = match (data.stale.get(&p.id), data.failures.get(&p.id)) {
            (Some(why), _) => ("—", format!("stale, {why}: read again on the next run")),
            (None, Some(f)) => (f.model.as_deref().unwrap_or("—"), f.reason.clone()),
            (None, None) => ("—", NOT_READ.to_owned()),
        };
        push(
            md,
            &format!(
                "| {} | {} | {} |",
                inline(&title_of(p)),
                inline(model),
                inline(&reason)
            ),
        );
    }
    push(md, "");
}

/// Where a quote is: its page, or "title/abstract" in a search record.
fn where_on(p: &PaperRecord, page: usize) -> String {
    crate::review::paper_text::place(p.is_record(), page)
}

pub(super) fn paper_section(
    md: &mut String,
    rank: usize,
    p: &PaperRecord,
    r: &PaperResult,
    label: Option<&Label>,
) {
    let mut out = format!("### {rank}. {}\n\n", inline(&title_of(p)));
    let mut facts = vec![inline(&authors_short(p))];
    if let Some(year) = p.meta.year {
        facts.push(year.to_string());
    }
    facts.push(format!("score {:.1}/10", r.score));
    facts.push(r.verdict.as_str().to_owned());
    facts.push(format!("`{}`", file_name(p).replace('`', "'")));
    if let Some(from) = &p.imported {
        // A search record: screened on its title and abstract.
        facts.push(format!(
            "{} record {}, title and abstract only",
            from.format, from.position
        ));
    }
    if p.ocr {
        // Quotes from OCR text may carry recognition errors.
        facts.push("read by OCR".to_owned());
    }
    out.push_str(&format!("{}\n\n", facts.join(" · ")));
    if let Some(doi) = &p.meta.doi {
        out.push_str(&format!("DOI: {}\n\n", inline(doi)));
    }
    if let Some(label) = label {
        let mut parts = Vec::new();
        if let Some(v) = label.verdict {
            parts.push(v.as_str().to_owned());
        }
        if let Some(score) = label.score {
            parts.push(format!("score {score:.1}/10"));
        }
        if let Some(note) = label.note.as_deref().filter(|n| !n.trim().is_empty()) {
            parts.push(inline(note));
        }
        out.push_str(&format!(
            "**Researcher's label.** {}\n\n",
            parts.join(" · ")
        ));
    }
    if !r.doubts.is_empty() {
        let doubts: Vec<String> = r.doubts.iter().map(|d| inline(d)).collect();
        out.push_str(&format!(
            "**Check before trusting.** {}.\n\n",
            doubts.join("; ")
        ));
    }
    out.push_str("**Summary.** ");
    let sentences: Vec<String> = r
        .summary
        .iter()
        // Page 0: no page of the paper retells the sentence.
        .map(|q| match q.page {
            0 => inline(&q.text),
            page => format!("{} ({})", inline(&q.text), where_on(p, page)),
        })
        .collect();
    out.push_str(&if sentences.is_empty() {
        "No summary sentences were found.".to_owned()
    } else {
        sentences.join(" ")
    });
    out.push_str("\n\n");
    if !r.key_points.is_empty() {
        out.push_str("**Key points.**\n\n");
        for k in &r.key_points {
            out.push_str(&format!("- {}\n", inline(k)));
        }
        out.push('\n');
    }
    out.push_str(&format!("**Why this score.** {}\n\n", inline(&r.rationale)));
    if !r.evidence.is_empty() {
        out.push_str("**Evidence.**\n\n");
        for q in &r.evidence {
            out.push_str(&format!(
                "> “{}” ({})\n>\n",
                inline(&q.text),
                where_on(p, q.page)
            ));
        }
        // Drop the trailing empty quote line, keep one blank line.
        out.truncate(out.len() - 2);
        out.push('\n');
    }
    if !r.criteria.is_empty() {
        out.push_str("**Criteria.**\n\n");
        for c in &r.criteria {
            out.push_str(&format!(
                "- {}: **{}** — {}\n",
                inline(&c.criterion),
                c.outcome.as_str(),
                inline(&c.note)
            ));
        }
        out.push('\n');
    }
    md.push_str(&out);
}
