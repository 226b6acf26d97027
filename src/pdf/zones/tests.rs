//! Zones of papers laid out as the common formats print them.

use super::*;

fn pages(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| (*t).to_owned()).collect()
}

/// A journal article: title block, headed abstract, keywords, running heads
/// with page numbers, a sentence broken by a page turn, references and an
/// author block at the end.
fn journal_article() -> Vec<String> {
    pages(&[
        "Impossibility of Distributed Consensus with One Faulty Process\n\
         MICHAEL J. FISCHER\n\
         Yale University, New Haven, Connecticut\n\
         jane@yale.edu\n\
         Abstract\n\
         The consensus problem involves an asynchronous system of processes, some of which may be unreliable.\n\
         Keywords: consensus, fault tolerance\n\
         1. Introduction\n\
         We study the problem of agreement in the presence of faults and show that it cannot\n\
         374",
        "Impossibility of Distributed Consensus with One Faulty Process 375\n\
         be solved by any deterministic protocol in an asynchronous system of processes.\n\
         The proof is by contradiction and it considers the configurations of the system.",
        "376 M. J. FISCHER\n\
         More of the argument goes here and it is long enough to be prose indeed.\n\
         References\n\
         FISCHER, M., LYNCH, N., AND PATERSON, M. Impossibility of distributed consensus.\n\
         LAMPORT, L. Time, clocks, and the ordering of events.",
        "Impossibility of Distributed Consensus with One Faulty Process 377\n\
         ROSENKRANTZ, D. System level concurrency control.\n\
         Affiliation:\n\
         Michael J. Fischer, Yale University",
    ])
}

#[test]
fn a_journal_articles_lines_fall_into_their_zones() {
    let p = journal_article();
    let z = Zones::of(&p);
    let zone_of = |page: usize, needle: &str| {
        let line = p[page].lines().position(|l| l.contains(needle)).unwrap();
        z.zone(page, line).unwrap()
    };
    assert_eq!(zone_of(0, "Impossibility"), Zone::TitleBlock);
    assert_eq!(zone_of(0, "FISCHER"), Zone::TitleBlock);
    assert_eq!(zone_of(0, "yale.edu"), Zone::TitleBlock);
    assert_eq!(zone_of(0, "consensus problem"), Zone::Abstract);
    assert_eq!(zone_of(0, "Keywords"), Zone::TitleBlock);
    assert_eq!(zone_of(0, "We study"), Zone::Body);
    assert_eq!(zone_of(0, "374"), Zone::Furniture);
    assert_eq!(zone_of(1, "Faulty Process 375"), Zone::Furniture);
    assert_eq!(
        zone_of(2, "376 M. J. FISCHER"),
        Zone::Body,
        "a head seen once"
    );
    assert_eq!(zone_of(2, "LAMPORT"), Zone::References);
    assert_eq!(zone_of(3, "ROSENKRANTZ"), Zone::References);
    assert_eq!(zone_of(3, "Michael J. Fischer, Yale"), Zone::TitleBlock);
}

#[test]
fn content_keeps_the_papers_own_words_and_joins_what_furniture_broke() {
    let content = Zones::of(&journal_article()).content(&journal_article());
    assert_eq!(content.len(), 4, "page for page");
    assert!(
        content[0].starts_with("The consensus problem"),
        "{content:?}"
    );
    assert!(!content[0].contains("Yale") && !content[0].contains("374"));
    assert!(content[1].starts_with("be solved by any deterministic"));
    assert!(!content[2].contains("LAMPORT") && !content[3].contains("ROSENKRANTZ"));
    assert_eq!(content[3], "");
}

#[test]
fn the_reader_gets_the_zones_named_and_no_references() {
    let reader = Zones::of(&journal_article()).for_reader(&journal_article());
    assert!(
        reader[0].starts_with("--- title block ---\nImpossibility"),
        "{reader:?}"
    );
    assert!(reader[0].contains("--- abstract ---\nThe consensus problem"));
    assert!(reader[0].contains("--- body ---\n1. Introduction"));
    assert!(reader[2].contains("--- references (not shown) ---"));
    assert!(!reader[2].contains("LAMPORT"));
    assert!(!reader[1].contains("375"));
}

#[test]
fn an_unheaded_abstract_starts_at_the_first_prose_after_the_authors() {
    let p = pages(&["The Name of the Title Is Hope\n\
         BEN TROVATO and G.K.M. TOBIN, Institute for Clarity in Documentation, USA\n\
         LARS THØRVÄLD, The Thørväld Group, Iceland\n\
         A clear and well-documented document is presented as an article formatted for publication by ACM in a\n\
         conference proceedings or journal publication.\n\
         CCS Concepts: • Computer systems organization → Embedded systems\n\
         ACM Reference Format:\n\
         Ben Trovato and G.K.M. Tobin. 2018. The Name of the Title Is Hope.\n\
         1 INTRODUCTION\n\
         The body begins with a sentence of some length that goes on for a while."]);
    let content = Zones::of(&p).content(&p);
    assert!(
        content[0].starts_with("A clear and well-documented"),
        "{content:?}"
    );
    assert!(!content[0].contains("TROVATO") && !content[0].contains("CCS"));
    assert!(!content[0].contains("Reference Format"));
    assert!(content[0].contains("The body begins"));
    assert!(is_heading("1 INTRODUCTION"));
}

#[test]
fn an_abstract_on_the_line_of_its_heading_loses_the_word_not_the_text() {
    let p = pages(&[
        "Elle: Inferring Isolation Anomalies\nKyle Kingsbury\nJepsen\naphyr@jepsen.io\nABSTRACT Users who run databases want to know what isolation they get from them.\n1 INTRODUCTION\nDatabases promise isolation levels of many kinds and strengths.",
    ]);
    let content = Zones::of(&p).content(&p);
    assert!(
        content[0].starts_with("Users who run databases"),
        "{content:?}"
    );
    assert!(!content[0].contains("aphyr"));
}

#[test]
fn a_table_of_contents_is_not_content_and_does_not_end_the_body() {
    let p = pages(&[
        "xts: Extensible Time Series\nJeffrey A. Ryan Joshua M. Ulrich\nMay 18, 2008\nContents\n1 Introduction 1\n2 The structure of xts 4\n3 Using the xts package 6\nReferences 20\n1 Introduction\nThe statistical language R offers the time-series analyst a variety of mechanisms.",
        "More of the body is written here and it is a sentence of prose indeed.",
        "Still the body and its argument, continued at some length for the test.",
    ]);
    let z = Zones::of(&p);
    let content = z.content(&p);
    assert!(content[0].starts_with("The statistical"), "{content:?}");
    assert!(!content[0].contains("Ryan") && !content[0].contains("References 20"));
    assert!(content[2].contains("Still the body"));
}

#[test]
fn spans_cover_every_line_once() {
    let p = journal_article();
    let spans = Zones::of(&p).spans();
    let lines: usize = p.iter().map(|page| page.lines().count()).sum();
    let covered: usize = spans
        .iter()
        .map(|s| {
            if s.from_page == s.to_page {
                s.to_line - s.from_line + 1
            } else {
                let first = p[s.from_page - 1].lines().count() - s.from_line + 1;
                let middle: usize = (s.from_page..s.to_page - 1)
                    .map(|i| p[i].lines().count())
                    .sum();
                first + middle + s.to_line
            }
        })
        .sum();
    assert_eq!(covered, lines);
    assert_eq!(spans[0].zone, Zone::TitleBlock);
}

#[test]
fn a_section_label_set_above_the_title_does_not_end_the_title_block() {
    let p = pages(&[
        "Introduction\nJAVA\nJava: an Overview\nJames Gosling, February 1995\njag@sun.com\nJava is a programming language and environment that was designed to solve a number of problems.\n2 The Language\nMore body text follows here and it is prose of some length.",
    ]);
    let content = Zones::of(&p).content(&p);
    assert!(
        content[0].starts_with("Java is a programming language"),
        "{content:?}"
    );
    assert!(!content[0].contains("Gosling"));
}

#[test]
fn an_address_on_page_one_is_the_title_block_wherever_the_columns_put_it() {
    let p = pages(&[
        "Rapid Object Detection\nPaul Viola\nMitsubishi Electric Research Labs\nAbstract\nThis paper describes a machine learning approach for visual object detection.\nCambridge, MA 02139\n1. Introduction\nThis paper brings together new algorithms and insights to construct a framework.",
    ]);
    let content = Zones::of(&p).content(&p);
    assert!(!content[0].contains("02139"), "{content:?}");
    assert!(content[0].starts_with("This paper describes"));
}
