//! The venue a paper was published in, as its first page prints it: a
//! conference's notice ("Published as a conference paper at ICLR 2018"), the
//! proceedings it appeared in, a journal's running header ("IEEE
//! TRANSACTIONS ON KNOWLEDGE AND DATA ENGINEERING, VOL. 1, NO. 1"), or the
//! conference line of ACM's copyright block ("SIGMOD '12, May 20-24, 2012").

/// Words that make a running header a journal's name.
const JOURNAL_WORDS: [&str; 6] = [
    "transactions",
    "journal",
    "letters",
    "magazine",
    "review",
    "communications of",
];

/// Longest venue kept, in characters: more is a sentence, not a name.
const MAX_VENUE_CHARS: usize = 120;

/// The venue printed on the first page, from its lines (top first). The
/// first line that names one wins.
pub fn venue_of(lines: &[&str]) -> Option<String> {
    lines.iter().enumerate().find_map(|(i, line)| {
        let mut line = tidy(line);
        // A proceedings' name that runs to the end of its line goes on in
        // the next one.
        if let Some(next) = lines.get(i + 1)
            && proceedings(&line).is_some_and(|p| line.ends_with(p))
        {
            line = format!("{line} {}", tidy(next));
        }
        conference_notice(&line)
            .or_else(|| proceedings(&line))
            .or_else(|| journal_header(&line))
            .or_else(|| acm_conference(&line))
            .map(|v| {
                v.trim_matches(|c: char| c.is_whitespace() || ",.;:".contains(c))
                    .to_owned()
            })
            .filter(|v| v.chars().filter(|c| c.is_alphabetic()).count() >= 3)
            .filter(|v| v.chars().count() <= MAX_VENUE_CHARS)
    })
}

/// Spacing evened out, and a raised ordinal rejoined to its number ("35 th"
/// as the text layer gives "35<sup>th</sup>").
fn tidy(line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut out = String::with_capacity(line.len());
    for (i, word) in words.iter().enumerate() {
        let ordinal = ["st", "nd", "rd", "th"].contains(word)
            && i > 0
            && words[i - 1].ends_with(|c: char| c.is_ascii_digit());
        if i > 0 && !ordinal {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// "Published as a conference paper at ICLR 2018" -> "ICLR 2018".
fn conference_notice(line: &str) -> Option<&str> {
    const NOTICES: [&str; 3] = [
        "published as a conference paper at ",
        "accepted as a conference paper at ",
        "published as a workshop paper at ",
    ];
    let lower = line.to_lowercase();
    NOTICES.iter().find_map(|notice| {
        let at = lower.find(notice)?;
        line.get(at + notice.len()..)
    })
}

/// "In Proceedings of the 21st ACM Symposium on Operating Systems Principles,
/// Stevenson, 2007" -> "Proceedings of the 21st ACM Symposium on Operating
/// Systems Principles": up to the first comma or bracket.
fn proceedings(line: &str) -> Option<&str> {
    let lower = line.to_lowercase();
    let at = lower.find("proceedings of ")?;
    // The phrase opens the line or follows "In" / "Appeared in": a sentence
    // that mentions proceedings in passing is not a venue line.
    let before = lower[..at].trim();
    if !(before.is_empty() || before.ends_with(" in") || before == "in") {
        return None;
    }
    let rest = line.get(at..)?;
    let end = rest.find([',', '(', '[']).unwrap_or(rest.len());
    let venue = &rest[..end];
    (venue.split_whitespace().count() >= 4).then_some(venue)
}

/// "IEEE TRANSACTIONS ON KNOWLEDGE AND DATA ENGINEERING, VOL I, NO 1, MARCH
/// 1989" -> "IEEE TRANSACTIONS ON KNOWLEDGE AND DATA ENGINEERING": a journal's
/// name before its volume.
fn journal_header(line: &str) -> Option<&str> {
    let lower = line.to_lowercase();
    let volume = [", vol", " vol.", " volume "]
        .iter()
        .filter_map(|v| lower.find(v))
        .min()?;
    let name = line.get(..volume)?;
    // A page number may open a running header ("146 IEEE TRANSACTIONS ...").
    let name = name.trim_start_matches(|c: char| c.is_ascii_digit() || c.is_whitespace());
    let lower_name = name.to_lowercase();
    JOURNAL_WORDS
        .iter()
        .any(|w| lower_name.contains(w))
        .then_some(name)
}

/// "SIGMOD '12, May 20-24, 2012, Scottsdale, Arizona, USA." -> "SIGMOD '12":
/// ACM's copyright block names the conference by its acronym and year.
fn acm_conference(line: &str) -> Option<&str> {
    let (name, _) = line.split_once(',')?;
    let (acronym, year) = name.rsplit_once(['\'', '’', '‘'])?;
    let acronym = acronym.trim();
    let short_year = year.len() == 2 && year.chars().all(|c| c.is_ascii_digit());
    let is_acronym = !acronym.is_empty()
        && acronym.split_whitespace().count() <= 2
        && acronym.chars().filter(|c| c.is_ascii_uppercase()).count() >= 2
        && acronym
            .chars()
            .all(|c| c.is_alphanumeric() || c == ' ' || c == '-');
    (short_year && is_acronym).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_venue_lines_papers_print() {
        let venue = |line: &str| venue_of(&[line]);
        assert_eq!(
            venue("Published as a conference paper at ICLR 2018").as_deref(),
            Some("ICLR 2018")
        );
        assert_eq!(
            venue("IEEE TRANSACTIONS ON KNOWLEDGE AND DATA ENGINEERING, VOL I, NO 1, MARCH 1989")
                .as_deref(),
            Some("IEEE TRANSACTIONS ON KNOWLEDGE AND DATA ENGINEERING")
        );
        assert_eq!(
            venue("146 IEEE TRANSACTIONS ON KNOWLEDGE AND DATA ENGINEERING, VOL. 1").as_deref(),
            Some("IEEE TRANSACTIONS ON KNOWLEDGE AND DATA ENGINEERING")
        );
        assert_eq!(
            venue("In Proceedings of the 21st ACM Symposium on Operating Systems Principles, Stevenson, 2007")
                .as_deref(),
            Some("Proceedings of the 21st ACM Symposium on Operating Systems Principles")
        );
        assert_eq!(
            venue("SIGMOD ’12, May 20–24, 2012, Scottsdale, Arizona, USA.").as_deref(),
            Some("SIGMOD ’12")
        );
        assert_eq!(
            venue("EuroSys'13, April 15-17, 2013, Prague, Czech Republic").as_deref(),
            Some("EuroSys'13")
        );
    }

    #[test]
    fn prose_and_other_lines_name_no_venue() {
        for line in [
            "We study the proceedings of many meetings, which vary.",
            "Consensus in the Presence of Partial Synchrony",
            "Cynthia Dwork, Nancy Lynch",
            "the model's output, o'clock 12, and so on",
            "Volume rendering of large data sets",
        ] {
            assert_eq!(venue_of(&[line]), None, "{line}");
        }
        // A name that runs on over two lines, its ordinal raised.
        assert_eq!(
            venue_of(&[
                "Proceedings of the 35 th International Conference on Machine",
                "Learning, Stockholm, Sweden, PMLR 80, 2018. Copyright 2018"
            ])
            .as_deref(),
            Some("Proceedings of the 35th International Conference on Machine Learning")
        );
        // The first line naming a venue wins.
        assert_eq!(
            venue_of(&[
                "A Title",
                "Published as a conference paper at ICLR 2018",
                "SIGMOD '12, May"
            ])
            .as_deref(),
            Some("ICLR 2018")
        );
    }
}
