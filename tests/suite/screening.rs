//! Screening that learns, on a real labelled set (SYNERGY's urinary
//! incontinence review, 327 records, 40 included): from one include and one
//! exclude, labelling in the learned order finds the includes far sooner
//! than a random order, and sooner than the order known before learning,
//! and the same labels always give the same order. And the four public
//! sets read as search exports, record for record.

use std::path::Path;

use quire::screening::Ranker;
use quire::screening::metrics::figures;

/// Each record's title and abstract, and whether the review included it.
fn synergy(set: &str) -> Vec<(String, bool)> {
    let csv = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/bench/synergy")
        .join(format!("{set}.csv"));
    let mut reader = csv::Reader::from_path(&csv).expect("the shared SYNERGY sets");
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (title, abstract_, label) = (col("title"), col("abstract"), col("label_included"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (
                format!("{}. {}", &r[title], &r[abstract_]),
                &r[label] == "1",
            )
        })
        .collect()
}

/// WSS@95 of labelling `order` (record indices after the two priors).
fn wss(records: &[(String, bool)], order: &[usize]) -> f64 {
    let labels: Vec<bool> = order.iter().map(|&i| records[i].1).collect();
    let includes = records.iter().filter(|r| r.1).count();
    figures(&labels, records.len() - 2, includes - 1).wss95
}

#[test]
fn labels_teach_the_order_and_it_finds_the_includes_far_sooner_than_chance() {
    let records = synergy("Cohen_UrinaryIncontinence");
    let texts: Vec<&str> = records.iter().map(|r| r.0.as_str()).collect();
    let ranker = Ranker::new(&texts, None);
    let includes: Vec<usize> = (0..records.len()).filter(|&i| records[i].1).collect();
    let excludes: Vec<usize> = (0..records.len()).filter(|&i| !records[i].1).collect();
    let (mut learned, mut fixed) = (0.0, 0.0);
    let seeds = [(0, 0), (7, 100), (21, 250)];
    for &(i, e) in &seeds {
        let mut labels = vec![None; records.len()];
        labels[includes[i]] = Some(true);
        labels[excludes[e]] = Some(false);
        // The order known from the priors alone, never learned again.
        fixed += wss(&records, &ranker.order(&labels));
        // Learning again after every label.
        let mut order = Vec::new();
        while let Some(next) = ranker.next(&labels) {
            labels[next] = Some(records[next].1);
            order.push(next);
        }
        learned += wss(&records, &order);
    }
    let (learned, fixed) = (learned / 3.0, fixed / 3.0);
    // A random order saves nothing (WSS@95 about 0).
    assert!(learned > 0.25, "learned WSS@95 {learned:.3}");
    assert!(
        learned > fixed + 0.05,
        "learning from each label ({learned:.3}) beats the priors' order ({fixed:.3})"
    );

    // The same labels give the same order.
    let mut labels = vec![None; records.len()];
    labels[includes[3]] = Some(true);
    labels[excludes[3]] = Some(false);
    labels[includes[5]] = Some(true);
    assert_eq!(ranker.order(&labels), ranker.order(&labels.clone()));
    let again = Ranker::new(&texts, None);
    assert_eq!(again.order(&labels), ranker.order(&labels));
}

#[test]
fn the_public_sets_read_as_search_exports_record_for_record() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/synergy");
    for (set, count) in [
        ("Kitchenham_2010", 1704),
        ("Cohen_ADHD", 851),
        ("Cohen_Triptans", 671),
        ("Cohen_UrinaryIncontinence", 327),
    ] {
        let records = quire::records::read_file(&dir.join(format!("{set}.csv"))).unwrap();
        assert_eq!(records.len(), count, "{set}");
        let labelled = synergy(set);
        for (record, (text, _)) in records.iter().zip(&labelled) {
            // Titles come with their whitespace tidied ("scientific\nconferences").
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                text.starts_with(&record.title),
                "{set}: record {} read as {:?}",
                record.index,
                record.title
            );
        }
        let untitled = records.iter().filter(|r| r.title.is_empty()).count();
        assert!(
            untitled * 100 < count,
            "{set}: {untitled} records without a title"
        );
        // The Cohen sets carry PubMed ids; each is one key.
        if set.starts_with("Cohen") {
            assert!(records.iter().filter(|r| r.pmid.is_some()).count() * 10 > count * 9);
        }
        let works: Vec<_> = records
            .iter()
            .map(quire::records::duplicates::Work::from)
            .collect();
        let groups = quire::records::duplicates::find(&works);
        println!("{set}: {} groups of duplicates", groups.len());
    }
}
