use super::*;
use crate::review::labels::Label;
use crate::workspace::ImportedFrom;

fn row(id: &str, title: &str, score: Option<f64>) -> PaperRow {
    PaperRow {
        id: id.into(),
        file: format!("/papers/{id}.pdf"),
        title: Some(title.into()),
        authors: vec!["Ada Lovelace".into()],
        year: Some(2020),
        status: "ok".into(),
        reason: None,
        pages: 10,
        imported: None,
        ocr: false,
        duplicates: 0,
        full_text: None,
        full_text_of: None,
        score,
        verdict: score.map(Verdict::from_score),
        label: None,
        shown_score: score,
        shown_verdict: score.map(Verdict::from_score),
        failure: None,
        disagreed: false,
        stale: None,
        earlier_label: None,
    }
}

fn label(verdict: &str, score: f64, note: &str) -> Label {
    serde_json::from_value(serde_json::json!({
        "verdict": verdict, "score": score, "note": note, "at": "2026-12-04T00:00:00Z"
    }))
    .unwrap()
}

fn zotero(tags: &[&str]) -> ImportedFrom {
    serde_json::from_value(serde_json::json!({
        "format": "Zotero", "position": 1,
        "zotero": { "library": "users/0", "key": "K", "version": 1, "itemType": "journalArticle", "tags": tags }
    }))
    .unwrap()
}

fn ids(page: &RowsPage) -> Vec<&str> {
    page.rows.iter().map(|r| r.id.as_str()).collect()
}

#[test]
fn the_first_page_is_by_score_highest_first_with_ties_by_title_then_id() {
    let rows = vec![
        row("a", "Zeta", Some(5.0)),
        row("b", "Alpha", Some(5.0)),
        row("c", "Mid", Some(9.0)),
        row("d", "Unread", None),
        row("e", "Alpha", Some(5.0)),
    ];
    let page = page(&rows, &RowQuery::default());
    assert_eq!(ids(&page), ["c", "b", "e", "a", "d"]);
    assert_eq!((page.total, page.matched, page.offset), (5, 5, 0));
}

#[test]
fn a_page_is_a_window_of_the_matched_rows_in_order() {
    let rows: Vec<PaperRow> = (0..250)
        .map(|i| {
            row(
                &format!("p{i:03}"),
                &format!("Paper {i}"),
                Some(f64::from(i % 11)),
            )
        })
        .collect();
    let all = page(
        &rows,
        &RowQuery {
            limit: usize::MAX,
            ..RowQuery::default()
        },
    );
    let second = page(
        &rows,
        &RowQuery {
            offset: 100,
            limit: 100,
            ..RowQuery::default()
        },
    );
    assert_eq!(second.rows.len(), 100);
    assert_eq!(ids(&second), ids(&all)[100..200]);
    let past_the_end = page(
        &rows,
        &RowQuery {
            offset: 1_000,
            ..RowQuery::default()
        },
    );
    assert!(past_the_end.rows.is_empty());
    assert_eq!(past_the_end.offset, 250);
}

#[test]
fn titles_sort_as_a_reader_expects_case_aside_and_numbers_by_value() {
    let rows = vec![
        row("a", "part 10", None),
        row("b", "Part 2", None),
        row("c", "apple", None),
        row("d", "Banana", None),
    ];
    let page = page(
        &rows,
        &RowQuery {
            sort: SortKey::Title,
            descending: false,
            ..RowQuery::default()
        },
    );
    assert_eq!(ids(&page), ["c", "d", "b", "a"]);
}

#[test]
fn the_researchers_label_is_what_filters_and_sorts() {
    let mut labelled = row("a", "Low but kept", Some(2.0));
    labelled.label = Some(label("include", 9.5, "key paper on raft"));
    labelled.shown_score = Some(9.5);
    labelled.shown_verdict = Some(Verdict::Include);
    let rows = vec![
        labelled,
        row("b", "High", Some(8.0)),
        row("c", "Low", Some(1.0)),
    ];
    assert_eq!(ids(&page(&rows, &RowQuery::default())), ["a", "b", "c"]);
    let included = page(
        &rows,
        &RowQuery {
            verdict: VerdictFilter::Include,
            ..RowQuery::default()
        },
    );
    assert_eq!(ids(&included), ["a", "b"]);
    let unlabelled = page(
        &rows,
        &RowQuery {
            label: LabelFilter::Unlabelled,
            ..RowQuery::default()
        },
    );
    assert_eq!(ids(&unlabelled), ["b", "c"]);
    // The note is searched, in any case.
    let by_note = page(
        &rows,
        &RowQuery {
            text: "RAFT Key".into(),
            ..RowQuery::default()
        },
    );
    assert_eq!(ids(&by_note), ["a"]);
}

#[test]
fn status_score_and_year_filters_keep_what_they_say() {
    let mut stale = row("s", "Stale", None);
    stale.stale = Some("read under an earlier question".into());
    let mut broken = row("x", "Broken", None);
    broken.status = "encrypted".into();
    let mut old = row("o", "Old", Some(7.0));
    old.year = Some(1999);
    let mut undated = row("u", "Undated", Some(7.5));
    undated.year = None;
    let rows = vec![
        row("a", "Read", Some(6.0)),
        stale,
        broken,
        row("n", "New", None),
        old,
        undated,
    ];
    let status = |status| {
        page(
            &rows,
            &RowQuery {
                status,
                sort: SortKey::Title,
                descending: false,
                ..RowQuery::default()
            },
        )
    };
    assert_eq!(ids(&status(StatusFilter::Scored)), ["o", "a", "u"]);
    assert_eq!(ids(&status(StatusFilter::Stale)), ["s"]);
    assert_eq!(ids(&status(StatusFilter::Unread)), ["n"]);
    assert_eq!(ids(&status(StatusFilter::Unreadable)), ["x"]);
    let at_least_7 = page(
        &rows,
        &RowQuery {
            min_score: 7.0,
            ..RowQuery::default()
        },
    );
    assert_eq!(ids(&at_least_7), ["u", "o"]);
    let recent = page(
        &rows,
        &RowQuery {
            from_year: Some(2000),
            ..RowQuery::default()
        },
    );
    assert!(!ids(&recent).contains(&"o") && !ids(&recent).contains(&"u"));
    assert_eq!(recent.matched, 4);
}

#[test]
fn a_zotero_tag_keeps_its_items_and_their_full_texts() {
    let mut item = row("z", "Tagged item", None);
    item.imported = Some(zotero(&["to read", "core"]));
    item.full_text = Some("pdf".into());
    let mut pdf = row("pdf", "Its PDF", Some(8.0));
    pdf.full_text_of = Some("z".into());
    let mut other = row("y", "Other item", None);
    other.imported = Some(zotero(&["later"]));
    let rows = vec![item, pdf, other, row("f", "A file", Some(9.0))];
    let tagged = page(
        &rows,
        &RowQuery {
            zotero_tag: Some("core".into()),
            ..RowQuery::default()
        },
    );
    assert_eq!(ids(&tagged), ["pdf", "z"]);
    let counts = PaperCounts::of(&rows);
    assert_eq!(counts.zotero_tags, ["core", "later", "to read"]);
    assert_eq!(
        (counts.records, counts.zotero, counts.records_with_full_text),
        (2, 2, 1)
    );
}

#[test]
fn the_histogram_counts_the_matched_papers_shown_scores() {
    let rows = vec![
        row("a", "A", Some(0.0)),
        row("b", "B", Some(6.5)),
        row("c", "C", Some(6.9)),
        row("d", "D", Some(10.0)),
        row("e", "E", None),
    ];
    let all = page(&rows, &RowQuery::default());
    assert_eq!(all.histogram, [1, 0, 0, 0, 0, 0, 2, 0, 0, 1]);
    let high = page(
        &rows,
        &RowQuery {
            min_score: 7.0,
            ..RowQuery::default()
        },
    );
    assert_eq!(high.histogram, [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
}

#[test]
fn counts_say_how_many_of_each() {
    let mut disagreed = row("d", "D", Some(5.0));
    disagreed.disagreed = true;
    let mut settled = row("s", "S", Some(5.0));
    settled.disagreed = true;
    settled.label = Some(label("maybe", 5.0, ""));
    let mut pending = row("p", "P", None);
    pending.status = "pending".into();
    let counts = PaperCounts::of(&[disagreed, settled, pending, row("a", "A", None)]);
    assert_eq!(counts.total, 4);
    assert_eq!((counts.scored, counts.with_verdict), (2, 2));
    assert_eq!((counts.disagreed, counts.unsettled), (2, 1));
    assert_eq!((counts.pending, counts.readable), (1, 3));
}

#[test]
fn a_query_from_the_window_reads_with_defaults_for_what_it_leaves_out() {
    let query: RowQuery = serde_json::from_value(serde_json::json!({
        "text": "raft", "verdict": "maybe", "status": "stale", "label": "labelled",
        "readers": "disagree", "minScore": 2.5, "fromYear": 2010, "zoteroTag": null,
        "sort": "year", "descending": false, "offset": 40
    }))
    .unwrap();
    assert_eq!(query.verdict, VerdictFilter::Maybe);
    assert_eq!(query.status, StatusFilter::Stale);
    assert_eq!(query.sort, SortKey::Year);
    assert_eq!((query.offset, query.limit), (40, FIRST_PAGE));
}

#[test]
fn the_cache_keeps_one_review_and_takes_a_changed_row() {
    let cache = RowCache::default();
    let here = Path::new("/reviews/one");
    cache.keep(Arc::new(Kept {
        root: here.to_path_buf(),
        times: FolderTimes {
            own: Vec::new(),
            papers: Vec::new(),
        },
        candidates: Arc::new(Vec::new()),
        rows: Arc::new(vec![row("a", "A", Some(1.0)), row("b", "B", None)]),
    }));
    assert!(cache.kept(Path::new("/reviews/two")).is_none());
    let mut changed = row("b", "B", None);
    changed.label = Some(label("include", 9.0, ""));
    cache.replace(here, &changed);
    cache.replace(Path::new("/reviews/two"), &row("a", "elsewhere", None));
    let rows = cache.kept(here).unwrap().rows.clone();
    assert!(rows[1].label.is_some());
    assert_eq!(rows[0].title.as_deref(), Some("A"));
}

#[test]
fn listed_keeps_the_reviews_own_order() {
    let rows = vec![
        row("z", "B", Some(1.0)),
        row("a", "A", Some(9.0)),
        row("m", "C", None),
    ];
    let listed = page(
        &rows,
        &RowQuery {
            sort: SortKey::Listed,
            ..RowQuery::default()
        },
    );
    assert_eq!(ids(&listed), ["z", "a", "m"]);
}
