//! Identifiers and dates printed on a paper's first pages: the DOI, the arXiv
//! id, and the year of publication.

/// The earliest and latest years a paper can claim.
const YEARS: std::ops::RangeInclusive<u16> = 1900..=2035;

/// Words near a year that say it is the paper's own (a copyright line, the
/// venue, a date of publication) rather than a cited work's.
const YEAR_CUES: [&str; 27] = [
    "©",
    "(c)",
    "copyright",
    "published",
    "proceedings",
    "conference",
    "symposium",
    "workshop",
    "journal",
    "vol",
    "volume",
    "issue",
    "received",
    "accepted",
    "preprint",
    "arxiv",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The year the paper was published, as its first page shows it: a year next
/// to a cue (copyright, venue, date) wins; else the latest plausible year on
/// the page; `text` is the paper's first pages.
pub fn year_of(head_lines: &[&str], text: &str) -> Option<u16> {
    let cued = head_lines.iter().find_map(|line| {
        // Body text mentions months and journals too; a cue counts on a
        // short line (a header, a copyright or venue line).
        if line.split_whitespace().count() > 14 {
            return None;
        }
        let lower = line.to_lowercase();
        let cue = YEAR_CUES.iter().any(|c| lower.contains(c))
            // "SIGMOD '14", "VLDB 2012": a venue acronym with a year (a
            // possessive, "ACM's", "Beran's (2003)", is no such mark).
            || short_year_mark(line)
            || line
                .split_whitespace()
                .any(|w| w.len() >= 3 && w.chars().all(|c| c.is_ascii_uppercase()));
        if cue {
            years_in(line).into_iter().next()
        } else {
            None
        }
    });
    // Else the latest year on the page: the years a first page cites are
    // older than the paper itself.
    cued.or_else(|| head_lines.iter().flat_map(|l| years_in(l)).max())
        .or_else(|| years_in(text).into_iter().max())
}

/// A short line that is a date ("Version: June 28, 2019", "(Dated: August
/// 10, 2010)", "May 2007"): a month's name and a year, eight words at most.
pub fn is_date_line(line: &str) -> bool {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let lower = line.to_lowercase();
    line.split_whitespace().count() <= 8
        && !years_in(line).is_empty()
        && lower
            .split(|c: char| !c.is_alphabetic())
            .any(|w| MONTHS.contains(&w))
}

/// "'14", "’14": a year cut to two digits, as venue names print it.
fn short_year_mark(line: &str) -> bool {
    let chars: Vec<char> = line.chars().collect();
    chars.windows(3).enumerate().any(|(i, w)| {
        matches!(w[0], '\'' | '’')
            && w[1].is_ascii_digit()
            && w[2].is_ascii_digit()
            && chars.get(i + 3).is_none_or(|c| !c.is_ascii_digit())
    })
}

/// Four-digit years standing alone (not part of a longer number or an id).
fn years_in(text: &str) -> Vec<u16> {
    let bytes = text.as_bytes();
    let mut years = Vec::new();
    for i in 0..bytes.len().saturating_sub(3) {
        let boundary_before = i == 0
            || !(bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'.'
                || bytes[i - 1] == b'/');
        let boundary_after = i + 4 >= bytes.len()
            || !(bytes[i + 4].is_ascii_alphanumeric()
                || (bytes[i + 4] == b'.' && bytes.get(i + 5).is_some_and(u8::is_ascii_digit)));
        if boundary_before
            && boundary_after
            && bytes[i..i + 4].iter().all(u8::is_ascii_digit)
            && let Some(year) = text.get(i..i + 4).and_then(|w| w.parse::<u16>().ok())
            && YEARS.contains(&year)
        {
            years.push(year);
        }
    }
    years
}

/// `D:20150311...` → 2015.
pub fn year_from_pdf_date(date: &str) -> Option<u16> {
    let digits = date.trim_start_matches("D:");
    digits.get(..4)?.parse().ok().filter(|y| YEARS.contains(y))
}

/// The first DOI in `text` ("10.1145/2723372.2742797"), from a bare DOI, a
/// `doi:` label or a doi.org link, without trailing punctuation.
pub fn find_doi(text: &str) -> Option<String> {
    let mut from = 0;
    while let Some(offset) = text[from..].find("10.") {
        let start = from + offset;
        from = start + 3;
        let before = text[..start].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.') {
            continue;
        }
        let candidate: String = text[start..]
            .chars()
            .take_while(|c| !c.is_whitespace() && !",;\"<>".contains(*c))
            .collect();
        let candidate = candidate.trim_end_matches(['.', ')', ']', '}', ':']);
        // A label run into the DOI by the text layer: "…2939677DOI".
        let candidate = candidate
            .strip_suffix("DOI")
            .filter(|c| c.ends_with(|c: char| c.is_ascii_digit()))
            .unwrap_or(candidate);
        let Some((prefix, suffix)) = candidate.split_once('/') else {
            continue;
        };
        let registrant = &prefix[3..];
        if (4..=9).contains(&registrant.len())
            && registrant.chars().all(|c| c.is_ascii_digit() || c == '.')
            && suffix.chars().any(|c| c.is_ascii_alphanumeric())
        {
            return Some(candidate.to_owned());
        }
    }
    None
}

/// The paper's arXiv id: "arXiv:1706.03762v5" (new style) or
/// "arXiv:cs/0112017" (old style), also as an arxiv.org/abs link.
pub fn find_arxiv(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    for marker in ["arxiv:", "arxiv.org/abs/", "arxiv.org/pdf/"] {
        let mut from = 0;
        while let Some(offset) = lower[from..].find(marker) {
            let start = from + offset + marker.len();
            from = start;
            let id: String = text[start..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || ".-/".contains(*c))
                .collect();
            if let Some(id) = arxiv_id(&id) {
                return Some(id);
            }
        }
    }
    None
}

/// A well-formed id at the start of `text`: YYMM.NNNN(N) with an optional
/// version, or archive/YYMMNNN.
fn arxiv_id(text: &str) -> Option<String> {
    let new_style = |t: &str| {
        let (yymm, rest) = t.split_once('.')?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let version: String = rest[digits.len()..]
            .strip_prefix('v')
            .map(|v| v.chars().take_while(char::is_ascii_digit).collect())
            .unwrap_or_default();
        (yymm.len() == 4
            && yymm.chars().all(|c| c.is_ascii_digit())
            && (4..=5).contains(&digits.len()))
        .then(|| {
            if version.is_empty() {
                format!("{yymm}.{digits}")
            } else {
                format!("{yymm}.{digits}v{version}")
            }
        })
    };
    let old_style = |t: &str| {
        let (archive, number) = t.split_once('/')?;
        let digits: String = number.chars().take_while(char::is_ascii_digit).collect();
        (archive
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '.')
            && !archive.is_empty()
            && digits.len() == 7)
            .then(|| format!("{archive}/{digits}"))
    };
    new_style(text).or_else(|| old_style(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_year_by_a_cue_beats_an_earlier_cited_year() {
        let lines = [
            "Building on Smith (1998)",
            "SIGMOD '14, June 22-27, 2014, Snowbird",
        ];
        assert_eq!(year_of(&lines, ""), Some(2014));
        assert_eq!(year_of(&["Tech report 1987"], ""), Some(1987));
        assert_eq!(
            year_of(&["as Gentzen showed in 1934", "we revisit it in 2014"], ""),
            Some(2014)
        );
        assert_eq!(year_of(&[], "doi 10.1145/2020.1234 then 2001"), Some(2001));
        assert_eq!(year_from_pdf_date("D:20150311120000"), Some(2015));
    }

    #[test]
    fn a_possessive_is_no_venue_mark_for_a_cited_year() {
        let lines = [
            "Beran's (2003) provocative definition of statistics as",
            "ACM's consolidated article template, introduced in 2017, provides",
            "Version: June 28, 2019",
        ];
        assert_eq!(year_of(&lines, ""), Some(2019));
        assert!(short_year_mark("SIGMOD ’14, Snowbird"));
        assert!(is_date_line("Version: June 28, 2019."));
        assert!(!is_date_line(
            "In May we ran 2019 experiments on many machines at once"
        ));
        assert!(!short_year_mark("Beran's (2003)"));
    }

    #[test]
    fn finds_dois_in_their_printed_forms() {
        assert_eq!(
            find_doi("DOI: 10.1145/2723372.2742797.").as_deref(),
            Some("10.1145/2723372.2742797")
        );
        assert_eq!(
            find_doi("https://doi.org/10.1007/978-3-642-15364-8_5)").as_deref(),
            Some("10.1007/978-3-642-15364-8_5")
        );
        assert_eq!(find_doi("version 10.5 of the tool"), None);
        assert_eq!(
            find_doi("10.1145/2939672.2939677DOI: x").as_deref(),
            Some("10.1145/2939672.2939677")
        );
    }

    #[test]
    fn finds_new_and_old_style_arxiv_ids() {
        assert_eq!(
            find_arxiv("arXiv:1706.03762v5 [cs.CL] 6 Dec 2017").as_deref(),
            Some("1706.03762v5")
        );
        assert_eq!(
            find_arxiv("see arxiv.org/abs/cs/0112017").as_deref(),
            Some("cs/0112017")
        );
        assert_eq!(find_arxiv("arXiv: soon"), None);
    }
}
