//! What the validation sample says of the whole review, weighted back by
//! each sampled paper's inclusion probability: recall at a cut-off with its
//! interval, the relevant papers the review holds and those the engine
//! excludes, work saved at 95% recall, and how many more labels (in which
//! score bands) a claim would need.
//!
//! The sample is stratified by score band ([`super::sample`]); at a given
//! cut a band splits into the papers kept and those excluded, and each of
//! those cells is a simple random sample of its papers. Within a cell the
//! share of relevant papers gets a Beta(r + ⅓, n − r + ⅓) posterior (Kerman's
//! neutral prior: its median stays near r/n even at r = 0, where Jeffreys'
//! ½ overstates the rare relevant papers of a low band), its unlabelled
//! papers a binomial count at that share, and a cell read in full is known
//! exactly. Recall is the relevant papers kept over all
//! relevant papers, summed over cells by their sizes (a Horvitz-Thompson
//! total in each), and its interval comes from drawing the cells' shares
//! many times with a fixed seed, so the same labels always give the same
//! figures. The coverage this gives is checked by simulation (the tests).

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::sample::Frame;

/// Draws behind each interval: the 5% and 2.5% quantiles then move by well
/// under 0.01 from one seed to another.
const DRAWS: usize = 4000;
/// The prior share of relevant papers in a cell, as pseudo-counts.
const PRIOR: f64 = 1.0 / 3.0;
const SEED: u64 = 0x5155_4952_4520_7631;

/// The papers of one score band on one side of the cut, and the sample's
/// labels among them.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub stratum: usize,
    /// At or above the cut: the engine keeps these.
    pub kept: bool,
    pub papers: usize,
    /// Labelled and relevant; fractional only in projections.
    pub labelled: f64,
    pub relevant: f64,
}

/// Split the frame's bands at `cut` and count the sample's labels in each
/// cell. `papers` are the review's scored papers (id, score), `barred` those
/// the engine excluded by a criterion (excluded whatever their score);
/// `labels` the sample's labels that count (id, relevant).
pub fn cells(
    frame: &Frame,
    papers: &[(String, f64)],
    barred: &HashSet<&str>,
    labels: &[(&str, bool)],
    cut: f64,
) -> Vec<Cell> {
    let mut cells: Vec<Cell> = (0..frame.strata.len())
        .flat_map(|stratum| {
            [false, true].map(|kept| Cell {
                stratum,
                kept,
                papers: 0,
                labelled: 0.0,
                relevant: 0.0,
            })
        })
        .collect();
    let labels: HashMap<&str, bool> = labels.iter().copied().collect();
    for (id, score) in papers {
        let kept = *score >= cut && !barred.contains(id.as_str());
        let cell = &mut cells[frame.stratum_of(*score) * 2 + usize::from(kept)];
        cell.papers += 1;
        if let Some(&relevant) = labels.get(id.as_str()) {
            cell.labelled += 1.0;
            if relevant {
                cell.relevant += 1.0;
            }
        }
    }
    cells.retain(|c| c.papers > 0);
    cells
}

/// A figure with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Range {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// Recall at a cut for the whole review, from the sample.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RecallEstimate {
    /// `None` when no sampled label is relevant: there is nothing to recall
    /// as far as the sample shows.
    pub recall: Option<Range>,
    /// The one-sided 95% lower bound: recall is at least this.
    pub lower_bound: f64,
    /// Relevant papers in the review, and of them excluded by the engine.
    pub relevant: Range,
    pub missed: Range,
    /// The labels it rests on, and the papers it speaks for.
    pub labels: usize,
    pub papers: usize,
}

/// A band of papers no sampled label describes: no estimate holds until
/// some of them are labelled.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Unobserved {
    pub from: f64,
    pub to: f64,
    pub kept: bool,
    pub papers: usize,
}

/// Estimate recall from the cells split at `cut`; every cell needs a label,
/// or the score ranges nobody has looked at are returned.
pub fn estimate(
    frame: &Frame,
    cells: &[Cell],
    cut: f64,
) -> Result<RecallEstimate, Vec<Unobserved>> {
    let unobserved: Vec<Unobserved> = cells
        .iter()
        .filter(|c| c.labelled == 0.0)
        .map(|c| {
            let s = &frame.strata[c.stratum];
            let (from, to) = if c.kept {
                (s.from.max(cut), s.to)
            } else {
                (s.from, s.to.min(cut))
            };
            Unobserved {
                from,
                to,
                kept: c.kept,
                papers: c.papers,
            }
        })
        .collect();
    if !unobserved.is_empty() {
        return Err(unobserved);
    }
    let point = |keep_only: bool| -> f64 {
        cells
            .iter()
            .filter(|c| c.kept || !keep_only)
            .map(|c| c.papers as f64 * c.relevant / c.labelled)
            .sum()
    };
    let (kept, all) = (point(true), point(false));
    let draws = draw(cells, DRAWS);
    let recalls: Vec<f64> = sorted(draws.iter().map(|(k, a)| ratio(*k, *a)));
    let alls: Vec<f64> = sorted(draws.iter().map(|(_, a)| *a));
    let missed: Vec<f64> = sorted(draws.iter().map(|(k, a)| a - k));
    let range = |value: f64, sorted: &[f64]| Range {
        value,
        low: quantile(sorted, 0.025),
        high: quantile(sorted, 0.975),
    };
    Ok(RecallEstimate {
        recall: (all > 0.0).then(|| range(kept / all, &recalls)),
        lower_bound: quantile(&recalls, 0.05),
        relevant: range(all, &alls),
        missed: range(all - kept, &missed),
        labels: cells.iter().map(|c| c.labelled as usize).sum(),
        papers: cells.iter().map(|c| c.papers).sum(),
    })
}

/// More labels a band needs before a claim could hold.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MoreLabels {
    pub stratum: usize,
    pub from: f64,
    pub to: f64,
    pub count: usize,
}

/// How many more labels, and in which bands, would bring recall's lower
/// bound to `target`, if the new labels turn out as the sample's have so far
/// (a band with no label yet is assumed to hold no relevant paper: the best
/// case, so the figure is a least). `None` when no number would: the
/// estimate itself is below the target.
pub fn more_needed(frame: &Frame, cells: &[Cell], target: f64) -> Option<Vec<MoreLabels>> {
    let rate = |c: &Cell| {
        if c.labelled > 0.0 {
            c.relevant / c.labelled
        } else {
            0.0
        }
    };
    let kept: f64 = cells
        .iter()
        .filter(|c| c.kept)
        .map(|c| c.papers as f64 * rate(c))
        .sum();
    let all: f64 = cells.iter().map(|c| c.papers as f64 * rate(c)).sum();
    if all == 0.0 || kept / all < target {
        return None;
    }
    let room: usize = cells.iter().map(|c| c.papers - c.labelled as usize).sum();
    let holds = |m: usize| {
        let projected = project(cells, m, &rate);
        lower_bound(&projected.0) >= target
    };
    // A cell nobody has labelled needs at least one label, whatever the
    // bound says without it.
    let floor = |given: Vec<usize>| -> Vec<usize> {
        given
            .into_iter()
            .zip(cells)
            .map(|(n, c)| if c.labelled == 0.0 { n.max(1) } else { n })
            .collect()
    };
    let given = if lower_bound(cells) >= target {
        floor(vec![0; cells.len()])
    } else {
        if room == 0 || !holds(room) {
            return None;
        }
        // The bound rises with the labels; find the fewest that reach it.
        let (mut low, mut high) = (0, room);
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if holds(mid) { high = mid } else { low = mid }
        }
        floor(project(cells, high, &rate).1)
    };
    let mut per_band = vec![0usize; frame.strata.len()];
    for (cell, n) in cells.iter().zip(given) {
        per_band[cell.stratum] += n;
    }
    Some(
        per_band
            .into_iter()
            .enumerate()
            .filter(|(_, n)| *n > 0)
            .map(|(stratum, count)| MoreLabels {
                stratum,
                from: frame.strata[stratum].from,
                to: frame.strata[stratum].to,
                count,
            })
            .collect(),
    )
}

/// The cells with `m` more labels spread by Neyman allocation (in
/// proportion to each cell's unread papers times the spread of its share
/// times how much its count moves recall: a kept cell by the relevant papers
/// missed, an excluded one by those kept, so labels go where they narrow
/// the interval most), each turning out at `rate`; and how many each cell
/// got.
fn project(cells: &[Cell], m: usize, rate: &dyn Fn(&Cell) -> f64) -> (Vec<Cell>, Vec<usize>) {
    let left = |c: &Cell| c.papers - c.labelled as usize;
    let smoothed = |c: &Cell| (c.relevant + PRIOR) / (c.labelled + 2.0 * PRIOR);
    let relevant = |kept: bool| -> f64 {
        cells
            .iter()
            .filter(|c| c.kept == kept)
            .map(|c| c.papers as f64 * smoothed(c))
            .sum()
    };
    let (kept, missed) = (relevant(true), relevant(false));
    let weight: Vec<f64> = cells
        .iter()
        .map(|c| {
            let p = smoothed(c);
            let influence = if c.kept { missed } else { kept };
            left(c) as f64 * (p * (1.0 - p)).sqrt() * influence
        })
        .collect();
    let total: f64 = weight.iter().sum();
    let mut given: Vec<usize> = weight
        .iter()
        .zip(cells)
        .map(|(w, c)| ((w / total * m as f64).floor() as usize).min(left(c)))
        .collect();
    // What rounding and full cells left goes to the cells with room, largest
    // weight first.
    let mut order: Vec<usize> = (0..cells.len()).collect();
    order.sort_by(|&a, &b| weight[b].total_cmp(&weight[a]));
    let mut short = m - given.iter().sum::<usize>();
    while short > 0 {
        let Some(&i) = order.iter().find(|&&i| given[i] < left(&cells[i])) else {
            break;
        };
        let take = short.min(left(&cells[i]) - given[i]);
        given[i] += take;
        short -= take;
    }
    let projected = cells
        .iter()
        .zip(&given)
        .map(|(c, &n)| Cell {
            labelled: c.labelled + n as f64,
            relevant: c.relevant + n as f64 * rate(c),
            ..c.clone()
        })
        .collect();
    (projected, given)
}

fn lower_bound(cells: &[Cell]) -> f64 {
    let recalls = sorted(draw(cells, DRAWS).iter().map(|(k, a)| ratio(*k, *a)));
    quantile(&recalls, 0.05)
}

fn ratio(kept: f64, all: f64) -> f64 {
    if all > 0.0 { kept / all } else { 1.0 }
}

/// `n` draws of (relevant kept, relevant in all) from the cells' posteriors:
/// a cell's labelled papers are known, and its unlabelled ones hold a
/// binomial count at a share drawn from the posterior (the normal
/// approximation of the binomial is close enough at the counts where it
/// matters, and cheap at 10,000 papers).
fn draw(cells: &[Cell], n: usize) -> Vec<(f64, f64)> {
    let mut rng = fastrand::Rng::with_seed(SEED);
    (0..n)
        .map(|_| {
            cells.iter().fold((0.0, 0.0), |(kept, all), c| {
                let unseen = (c.papers as f64 - c.labelled).max(0.0);
                let unseen_relevant = if unseen == 0.0 {
                    0.0
                } else {
                    let share = beta(
                        &mut rng,
                        c.relevant + PRIOR,
                        c.labelled - c.relevant + PRIOR,
                    );
                    let spread = (unseen * share * (1.0 - share)).sqrt();
                    (unseen * share + spread * normal(&mut rng)).clamp(0.0, unseen)
                };
                let relevant = c.relevant + unseen_relevant;
                (kept + if c.kept { relevant } else { 0.0 }, all + relevant)
            })
        })
        .collect()
}

fn sorted(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    v
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i]
}

/// Beta(a, b) from two gamma draws.
fn beta(rng: &mut fastrand::Rng, a: f64, b: f64) -> f64 {
    let x = gamma(rng, a);
    let y = gamma(rng, b);
    x / (x + y)
}

/// Gamma(shape, 1) by Marsaglia and Tsang (2000); below shape 1 by boosting
/// to shape + 1 and scaling by U^(1/shape).
fn gamma(rng: &mut fastrand::Rng, shape: f64) -> f64 {
    if shape < 1.0 {
        let u: f64 = rng.f64().max(f64::MIN_POSITIVE);
        return gamma(rng, shape + 1.0) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = rng.f64();
        if u < 1.0 - 0.0331 * x.powi(4) || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            return d * v;
        }
    }
}

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut fastrand::Rng) -> f64 {
    let u1 = rng.f64().max(f64::MIN_POSITIVE);
    let u2 = rng.f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Work saved over sampling at 95% recall for the whole review, from the
/// sample: each labelled relevant paper stands for its band's papers over
/// the band's labels, the review is read best score first, and the saving is
/// the share of papers left unread once 95% of the estimated relevant ones
/// are found, less the 5% a random order saves. `None` without a relevant
/// label.
pub fn wss_at_95(frame: &Frame, papers: &[(String, f64)], labels: &[(&str, bool)]) -> Option<f64> {
    let scores: HashMap<&str, f64> = papers.iter().map(|p| (p.0.as_str(), p.1)).collect();
    let score = |id: &str| scores.get(id).copied();
    let mut per_band = vec![0usize; frame.strata.len()];
    let mut population = vec![0usize; frame.strata.len()];
    for (_, s) in papers {
        population[frame.stratum_of(*s)] += 1;
    }
    let labelled: Vec<(f64, bool)> = labels
        .iter()
        .filter_map(|(id, relevant)| Some((score(id)?, *relevant)))
        .collect();
    for (s, _) in &labelled {
        per_band[frame.stratum_of(*s)] += 1;
    }
    let weight = |s: f64| {
        let b = frame.stratum_of(s);
        population[b] as f64 / per_band[b] as f64
    };
    let mut relevant: Vec<f64> = labelled.iter().filter(|l| l.1).map(|l| l.0).collect();
    if relevant.is_empty() {
        return None;
    }
    relevant.sort_by(|a, b| b.total_cmp(a));
    let total: f64 = relevant.iter().map(|s| weight(*s)).sum();
    let mut found = 0.0;
    let mut last = relevant[0];
    for s in relevant {
        found += weight(s);
        last = s;
        if found >= 0.95 * total - 1e-9 {
            break;
        }
    }
    let read = papers.iter().filter(|p| p.1 >= last).count();
    let n = papers.len() as f64;
    Some((n - read as f64) / n - 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::validation::calibrate::Cutoffs;
    use crate::review::validation::sample::propose;

    /// A collection with known truth: scores spread over 0-10, relevance
    /// more likely the higher the score, some relevant papers low.
    fn collection(seed: u64, n: usize) -> Vec<(String, f64, bool)> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (0..n)
            .map(|i| {
                let score = (rng.f64() * rng.f64() * 10.0 * 10.0).round() / 10.0;
                let p = 1.0 / (1.0 + (-(score - 5.5) * 1.1).exp());
                (format!("p{i:05}"), score, rng.f64() < p)
            })
            .collect()
    }

    struct Coverage {
        runs: usize,
        two_sided: usize,
        one_sided: usize,
    }

    /// Draw a sample, label it by the truth, estimate recall at the default
    /// maybe cut-off: does the interval hold the true recall?
    fn coverage(n: usize, sample: usize, runs: usize) -> Coverage {
        let mut c = Coverage {
            runs: 0,
            two_sided: 0,
            one_sided: 0,
        };
        for seed in 0..runs as u64 {
            let truth = collection(seed, n);
            let papers: Vec<(String, f64)> = truth.iter().map(|t| (t.0.clone(), t.1)).collect();
            let (frame, drawn) = propose(&papers, sample, &Cutoffs::DEFAULT, &seed.to_string());
            let drawn: std::collections::HashSet<String> = drawn.into_iter().collect();
            let labels: Vec<(&str, bool)> = truth
                .iter()
                .filter(|t| drawn.contains(&t.0))
                .map(|t| (t.0.as_str(), t.2))
                .collect();
            let cut = Cutoffs::DEFAULT.maybe;
            let relevant = truth.iter().filter(|t| t.2).count() as f64;
            let kept = truth.iter().filter(|t| t.2 && t.1 >= cut).count() as f64;
            let true_recall = kept / relevant;
            let Ok(e) = estimate(
                &frame,
                &cells(&frame, &papers, &HashSet::new(), &labels, cut),
                cut,
            ) else {
                continue;
            };
            let Some(r) = e.recall else { continue };
            c.runs += 1;
            if r.low <= true_recall && true_recall <= r.high {
                c.two_sided += 1;
            }
            if e.lower_bound <= true_recall {
                c.one_sided += 1;
            }
        }
        c
    }

    #[test]
    // The coverage table is what this test reports (`--nocapture` shows it).
    #[allow(clippy::print_stdout)]
    fn intervals_cover_the_true_recall_at_about_their_nominal_rate() {
        println!("| papers | sample | runs | 95% interval covers | 95% lower bound holds |");
        println!("|---:|---:|---:|---:|---:|");
        let mut rows = Vec::new();
        for (n, sample) in [(400, 30), (2000, 60), (2000, 200), (2000, 500)] {
            let c = coverage(n, sample, 200);
            let two = c.two_sided as f64 / c.runs as f64;
            let one = c.one_sided as f64 / c.runs as f64;
            println!("| {n} | {sample} | {} | {two:.3} | {one:.3} |", c.runs);
            rows.push((c, two, one));
        }
        for (c, two, one) in rows {
            assert!(c.runs >= 190, "every sample gets an estimate: {}", c.runs);
            // Nominal 0.95; 200 runs put the observed rate within about
            // ±0.03 of the true one. Small samples cover more than nominal:
            // a low band of hundreds of papers with two or three labels
            // leaves its rare relevant papers truly uncertain, and no honest
            // interval is narrow there; the rate nears 0.95 as samples grow.
            assert!((0.91..=1.0).contains(&two), "two-sided {two}");
            assert!(one >= 0.93, "one-sided {one}");
        }
    }

    fn frame_of(bands: &[(usize, usize)]) -> Frame {
        use crate::review::validation::sample::Stratum;
        Frame {
            strata: bands
                .iter()
                .enumerate()
                .map(|(i, &(population, _))| Stratum {
                    from: i as f64 * 2.0,
                    to: (i + 1) as f64 * 2.0,
                    population,
                    drawn: Vec::new(),
                })
                .collect(),
        }
    }

    fn cell(stratum: usize, kept: bool, papers: usize, labelled: usize, relevant: usize) -> Cell {
        Cell {
            stratum,
            kept,
            papers,
            labelled: labelled as f64,
            relevant: relevant as f64,
        }
    }

    #[test]
    fn the_estimate_weighs_each_band_by_its_size_not_its_share_of_the_sample() {
        // 900 papers below the cut, 10 of them labelled, 1 relevant: about 90
        // relevant papers lost. 100 above, all 10 labelled relevant: 100 kept.
        // The unweighted sample says recall 10/11 = 0.91; the review's is
        // about 100/190 = 0.53.
        let frame = frame_of(&[(900, 10), (100, 10)]);
        let cells = [cell(0, false, 900, 10, 1), cell(1, true, 100, 10, 10)];
        let e = estimate(&frame, &cells, 1.0).unwrap();
        let r = e.recall.unwrap();
        assert!((r.value - 100.0 / 190.0).abs() < 1e-9, "{r:?}");
        assert!((e.missed.value - 90.0).abs() < 1e-9);
        assert!(r.low < r.value && r.value < r.high);
        assert!(e.lower_bound < 0.95);
        // The same labels a hundred times over narrow it.
        let many = [
            cell(0, false, 90_000, 1000, 100),
            cell(1, true, 10_000, 1000, 1000),
        ];
        let tight = estimate(&frame, &many, 1.0).unwrap().recall.unwrap();
        assert!(tight.high - tight.low < (r.high - r.low) / 4.0);
    }

    #[test]
    fn a_band_nobody_labelled_gives_no_estimate_and_says_where() {
        let frame = frame_of(&[(500, 0), (50, 5)]);
        let cells = [cell(0, false, 500, 0, 0), cell(1, true, 50, 5, 5)];
        let missing = estimate(&frame, &cells, 2.0).unwrap_err();
        assert_eq!(
            missing,
            vec![Unobserved {
                from: 0.0,
                to: 2.0,
                kept: false,
                papers: 500
            }]
        );
    }

    #[test]
    fn more_labels_are_asked_where_the_papers_are_unread_and_none_when_the_estimate_falls_short() {
        // 1,000 papers below the cut with 20 labelled and none relevant; 100
        // above, 20 labelled, all relevant: the point estimate is 1.0 but the
        // bound is far below 0.95.
        let frame = frame_of(&[(1000, 20), (100, 20)]);
        let cells = [cell(0, false, 1000, 20, 0), cell(1, true, 100, 20, 20)];
        let e = estimate(&frame, &cells, 1.0).unwrap();
        assert!(e.lower_bound < 0.95, "{e:?}");
        let more = more_needed(&frame, &cells, 0.95).unwrap();
        // Most go where the unread papers are: below the cut.
        let below = more.iter().find(|m| m.stratum == 0).unwrap().count;
        let above = more.iter().find(|m| m.stratum == 1).map_or(0, |m| m.count);
        assert!(below > 4 * above, "{more:?}");
        // With that many more (none relevant below, all relevant above), the
        // bound reaches the target.
        let after = [
            cell(0, false, 1000, 20 + below, 0),
            cell(1, true, 100, 20 + above, 20 + above),
        ];
        assert!(estimate(&frame, &after, 1.0).unwrap().lower_bound >= 0.95 - 0.01);
        // One in five labels below the cut relevant: recall about 0.09;
        // no number of labels supports 0.95.
        let losing = [cell(0, false, 1000, 20, 4), cell(1, true, 100, 20, 20)];
        assert_eq!(more_needed(&frame, &losing, 0.95), None);
    }

    #[test]
    fn the_same_labels_give_the_same_figures() {
        let frame = frame_of(&[(300, 10), (60, 12)]);
        let cells = [cell(0, false, 300, 10, 1), cell(1, true, 60, 12, 9)];
        assert_eq!(estimate(&frame, &cells, 1.0), estimate(&frame, &cells, 1.0));
    }

    #[test]
    fn weighted_wss_reads_the_review_best_first() {
        // 20 relevant papers on top, 80 not below; a census of the review.
        let papers: Vec<(String, f64)> = (0..100)
            .map(|i| (format!("p{i}"), 10.0 - i as f64 * 0.1))
            .collect();
        let frame = frame_of(&[(100, 100)]);
        let frame = Frame {
            strata: vec![crate::review::validation::sample::Stratum {
                to: 100.0,
                ..frame.strata[0].clone()
            }],
        };
        let labels: Vec<(&str, bool)> = papers
            .iter()
            .enumerate()
            .map(|(i, p)| (p.0.as_str(), i < 20))
            .collect();
        let wss = wss_at_95(&frame, &papers, &labels).unwrap();
        assert!((wss - (0.81 - 0.05)).abs() < 1e-9, "{wss}");
        assert!(wss_at_95(&frame, &papers, &[("p50", false)]).is_none());
    }
}
