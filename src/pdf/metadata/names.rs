//! People's names as papers print them: telling an author line from an
//! affiliation, splitting a list of names, stripping footnote marks. (A
//! name's given and family parts: `workspace::Author`.)

use crate::workspace::author::{PARTICLES, SUFFIXES};

/// Words that mark an affiliation, an address or a heading, never a person.
const NOT_A_PERSON: [&str; 79] = [
    "university",
    "universität",
    "université",
    "universidad",
    "università",
    "universiteit",
    "institute",
    "institut",
    "instituto",
    "college",
    "school",
    "department",
    "dept",
    "faculty",
    "laboratory",
    "laboratories",
    "lab",
    "labs",
    "research",
    "center",
    "centre",
    "corporation",
    "corp",
    "inc",
    "ltd",
    "gmbh",
    "foundation",
    "academy",
    "division",
    "group",
    "sciences",
    "science",
    "engineering",
    "computer",
    "computing",
    "technology",
    "technologies",
    "polytechnic",
    "hospital",
    "street",
    "avenue",
    "road",
    "usa",
    "u.s.a.",
    "abstract",
    "introduction",
    "keywords",
    "email",
    "e-mail",
    "received",
    "microsoft",
    "google",
    "ibm",
    "systems",
    "software",
    "national",
    "project",
    "conference",
    "proceedings",
    "journal",
    "association",
    "member",
    "fellow",
    "senior",
    "student",
    "ieee",
    // A rights line or a paper's kind, set where the names go on some
    // first pages ("All Rights Reserved", "Position Paper").
    "copyright",
    "rights",
    "reserved",
    "permission",
    "licensed",
    "license",
    "paper",
    "preprint",
    "draft",
    "submitted",
    "accepted",
    "appeared",
    "published",
];

/// `line` with footnote marks and emails taken out. A mark after a name
/// ("Yair Sovran∗ Russell Power∗", "Lu Jiang 1 Zhengyuan Zhou 2") ends it, so
/// it becomes a comma.
fn strip_marks(line: &str) -> String {
    let mut out = String::new();
    for word in line.split_whitespace() {
        if word.contains('@') || word.starts_with("http") || word.starts_with("www.") {
            out.push_str(", ");
            continue;
        }
        let word = &zero_read_as_o(word);
        let core = word.trim_start_matches(is_mark);
        let kept = core.trim_end_matches(|c: char| is_mark(c) || c == ',');
        if kept.is_empty() {
            out.push_str(", ");
            continue;
        }
        // A mark inside a word ends a name ("Damas†and Robin Milner"); a
        // loose accent is dropped.
        for c in kept.chars() {
            if !is_mark(c) {
                out.push(c);
            } else if !is_loose_accent(c) {
                out.push_str(", ");
            }
        }
        if kept.len() < core.len() {
            out.push_str(", ");
        } else {
            out.push(' ');
        }
    }
    out.trim().trim_matches(',').trim().to_owned()
}

/// "STEFAN0": OCR reads a capital O as a zero. In a word of capitals a zero
/// next to a letter is that letter; footnote marks are never 0.
fn zero_read_as_o(word: &str) -> String {
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    if letters < 3 || word.chars().any(char::is_lowercase) || !word.contains('0') {
        return word.to_owned();
    }
    let chars: Vec<char> = word.chars().collect();
    chars
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let beside_letter = (i > 0 && chars[i - 1].is_alphabetic())
                || chars.get(i + 1).is_some_and(|n| n.is_alphabetic());
            if c == '0' && beside_letter { 'O' } else { c }
        })
        .collect()
}

/// Footnote marks, stray accents and digits: never part of a printed name.
fn is_mark(c: char) -> bool {
    c.is_ascii_digit() || "*∗†‡§¶♯#⋆★•·♣♠♦♥^".contains(c) || is_loose_accent(c)
}

/// Combining accents and spacing modifiers that came loose from their letter.
fn is_loose_accent(c: char) -> bool {
    ('\u{02B0}'..='\u{036F}').contains(&c)
}

/// How strictly a line must read as names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Every part is a name or an affiliation ("Asaf Cidon, Stanford
    /// University; Robert Escriva").
    Strict,
    /// The line starts with a name; reading stops at the first part that is
    /// neither ("John Hughes, Institutionen för Datavetenskap", "James
    /// Gosling, February 1995"). For the first author line only.
    Leading,
}

/// The names in a line listing people ("A and B", "A, B, and C", "A · B");
/// `None` when the line does not read as names (see [`Reading`]).
pub fn names_in_line(line: &str, reading: Reading) -> Option<Vec<String>> {
    let line = strip_marks(line);
    let line = line
        .strip_prefix("by ")
        .or_else(|| line.strip_prefix("By "))
        .unwrap_or(&line);
    let mut names: Vec<String> = Vec::new();
    for part in line
        .split([',', ';', '&', '·', '|'])
        .flat_map(|p| p.split(" and "))
        .flat_map(|p| p.split(" AND "))
        .map(str::trim)
        .map(|p| {
            p.strip_prefix("and ")
                .or_else(|| p.strip_prefix("AND "))
                .unwrap_or(p)
                .trim()
        })
        .filter(|p| !p.is_empty() && !p.eq_ignore_ascii_case("and"))
    {
        if SUFFIXES.contains(&part.to_lowercase().as_str()) {
            // "John Smith, Jr.": the suffix belongs to the name before it.
            let last = names.last_mut()?;
            last.push_str(", ");
            last.push_str(part);
            continue;
        }
        let part = &with_fragments_joined(without_letter_mark(part));
        let people = people_run_together(part);
        if people.len() > 1 && people.iter().all(|p| is_person(p)) {
            names.extend(people.iter().map(|p| title_case_if_shouting(p)));
        } else if is_person(part) {
            names.push(title_case_if_shouting(part));
        } else if is_affiliation(part) && !names.is_empty() {
            continue;
        } else if reading == Reading::Leading && !names.is_empty() {
            break;
        } else {
            return None;
        }
    }
    (!names.is_empty()).then_some(names)
}

/// "Gregory Co op er": a kerned name the text layer split. Short lowercase
/// pieces after a short capitalised piece belong to it; a name particle
/// ("van", "de") or a short word of an affiliation ("University of") stays a
/// word of its own, and so does anything after a long word ("Institutionen
/// f or").
fn with_fragments_joined(part: &str) -> String {
    const SHORT_WORDS: [&str; 16] = [
        "of", "for", "and", "the", "at", "in", "on", "to", "by", "an", "a", "et", "al", "und",
        "fur", "für",
    ];
    let mut words: Vec<String> = Vec::new();
    for word in part.split_whitespace() {
        let fragment = word.chars().count() <= 3
            && word.chars().all(|c| c.is_alphabetic() && c.is_lowercase())
            && !PARTICLES.contains(&word)
            && !SHORT_WORDS.contains(&word);
        match words.last_mut() {
            Some(last)
                if fragment
                    && last.starts_with(char::is_uppercase)
                    && last.chars().count() <= 4 =>
            {
                last.push_str(word)
            }
            _ => words.push(word.to_owned()),
        }
    }
    words.join(" ")
}

/// "Jon M. Kleinberg y": a footnote mark set in a symbol font reads as a
/// lone lowercase letter after the name.
fn without_letter_mark(part: &str) -> &str {
    match part.rsplit_once(' ') {
        Some((name, mark)) if mark.chars().count() == 1 && mark.chars().all(char::is_lowercase) => {
            name.trim_end()
        }
        _ => part,
    }
}

/// "M. Kodialam T. V. Lakshman", "Donald A. Smith Mark Utting": names set
/// apart only by space. Initials come before the family name, so a name that
/// has had its initials and then its family name ends there when an initial
/// follows, or when two or more words without initials follow ("James B.
/// Orlin" and "Juan A. García Márquez" stay one).
fn people_run_together(part: &str) -> Vec<String> {
    let is_initial = |w: &str| {
        let letters: Vec<char> = w.chars().filter(|c| *c != '.' && *c != '-').collect();
        w.ends_with('.') && letters.len() <= 2 && letters.iter().all(|c| c.is_uppercase())
    };
    let words: Vec<&str> = part.split_whitespace().collect();
    let mut people: Vec<Vec<&str>> = Vec::new();
    for (i, &word) in words.iter().enumerate() {
        let complete = people.last().is_some_and(|current| {
            current.iter().any(|w| is_initial(w)) && current.last().is_some_and(|w| !is_initial(w))
        });
        let rest = &words[i..];
        let next_person =
            is_initial(word) || (rest.len() >= 2 && !rest.iter().any(|w| is_initial(w)));
        match people.last_mut() {
            Some(current) if !(complete && next_person) => current.push(word),
            _ => people.push(vec![word]),
        }
    }
    people.into_iter().map(|words| words.join(" ")).collect()
}

/// A part naming an institution or a place in it ("Stanford University").
fn is_affiliation(part: &str) -> bool {
    part.split_whitespace().any(|w| {
        let lower = w.to_lowercase();
        NOT_A_PERSON.contains(&lower.trim_matches(|c: char| !c.is_alphanumeric()))
    })
}

/// Two to five words, each capitalised, an initial, or a name particle, with
/// no word that marks an institution.
pub fn is_person(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    if !(2..=5).contains(&words.len()) {
        return false;
    }
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    if letters < 4 || text.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    // Function words belong to prose and headings ("AMENABLE TO EXTENSIVE
    // PARALLELIZATION"), never to a name.
    const FUNCTION_WORDS: [&str; 14] = [
        "to", "of", "the", "for", "in", "on", "with", "at", "from", "by", "is", "are", "an",
        "using",
    ];
    if words
        .iter()
        .any(|w| FUNCTION_WORDS.contains(&w.to_lowercase().as_str()))
    {
        return false;
    }
    let capitalised = |w: &str| w.chars().next().is_some_and(char::is_uppercase);
    let ok_word = |w: &str| {
        let lower = w.to_lowercase();
        let bare = lower.trim_matches(|c: char| !c.is_alphanumeric());
        !NOT_A_PERSON.contains(&bare)
            && w.chars().all(|c| c.is_alphabetic() || "-.'’".contains(c))
            && (capitalised(w) || PARTICLES.contains(&bare))
    };
    // "October ACMQUEUE": a shouted word among ordinary ones is a header.
    let shouted = |w: &&str| {
        w.chars().filter(|c| c.is_alphabetic()).count() >= 3 && !w.chars().any(char::is_lowercase)
    };
    let some_shouted = words.iter().any(shouted);
    if some_shouted && !words.iter().all(|w| shouted(w) || w.chars().count() <= 2) {
        return false;
    }
    // The last word is the family name: a particle cannot end a name.
    let last = words[words.len() - 1].to_lowercase();
    words.iter().all(|w| ok_word(w)) && !PARTICLES.contains(&last.as_str())
}

/// "MICHAEL STONEBRAKER" → "Michael Stonebraker"; other names are kept as printed.
fn title_case_if_shouting(name: &str) -> String {
    let letters: Vec<char> = name.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() < 4 || letters.iter().any(|c| c.is_lowercase()) {
        return name.to_owned();
    }
    name.split_whitespace()
        .map(|w| {
            let mut chars = w.chars();
            match chars.next() {
                Some(first) => first
                    .to_uppercase()
                    .chain(chars.flat_map(char::to_lowercase))
                    .collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rights_line_or_a_papers_kind_is_not_a_person() {
        for line in [
            "All Rights Reserved",
            "Position Paper",
            "Copyright Held By Owner",
            "Accepted Manuscript",
        ] {
            assert!(!is_person(line), "{line}");
            assert_eq!(names_in_line(line, Reading::Strict), None, "{line}");
        }
        assert!(is_person("Leslie Lamport"));
    }

    #[test]
    fn reads_lists_of_names_with_their_marks_taken_off() {
        assert_eq!(
            names_in_line(
                "Michael A. Bender, Martin Farach-Colton, and Yang Zhan1,2",
                Reading::Strict
            ),
            Some(vec![
                "Michael A. Bender".to_owned(),
                "Martin Farach-Colton".to_owned(),
                "Yang Zhan".to_owned()
            ])
        );
        assert_eq!(
            names_in_line("Phokion G. Kolaitis*", Reading::Strict),
            Some(vec!["Phokion G. Kolaitis".to_owned()])
        );
        assert_eq!(
            names_in_line("DIEGO ONGARO & JOHN OUSTERHOUT", Reading::Strict),
            Some(vec![
                "Diego Ongaro".to_owned(),
                "John Ousterhout".to_owned()
            ])
        );
        assert_eq!(
            names_in_line("Yair Sovran∗ Russell Power∗ Jinyang Li†", Reading::Strict),
            Some(vec![
                "Yair Sovran".to_owned(),
                "Russell Power".to_owned(),
                "Jinyang Li".to_owned()
            ])
        );
        assert_eq!(
            names_in_line("Lu Jiang 1 Zhengyuan Zhou 2", Reading::Strict),
            Some(vec!["Lu Jiang".to_owned(), "Zhengyuan Zhou".to_owned()])
        );
        assert_eq!(
            names_in_line(
                "Gregory Co op er and Shriram Krishnamurthi",
                Reading::Strict
            ),
            Some(vec![
                "Gregory Cooper".to_owned(),
                "Shriram Krishnamurthi".to_owned()
            ])
        );
        assert_eq!(
            names_in_line(
                "STEFAN0 CERI, GEORG GOTTLOB, AND LETIZIA TANCA",
                Reading::Strict
            ),
            Some(vec![
                "Stefano Ceri".to_owned(),
                "Georg Gottlob".to_owned(),
                "Letizia Tanca".to_owned()
            ])
        );
        assert_eq!(
            names_in_line(
                "John Hughes, Institutionen f or Datavetenskap",
                Reading::Leading
            ),
            Some(vec!["John Hughes".to_owned()])
        );
        assert_eq!(
            names_in_line("Wenbing Zhao, University of Maryland", Reading::Strict),
            Some(vec!["Wenbing Zhao".to_owned()])
        );
        assert_eq!(
            names_in_line("Ludwig van Beethoven", Reading::Strict),
            Some(vec!["Ludwig van Beethoven".to_owned()])
        );
        assert_eq!(
            names_in_line("Guy L. Steele, Jr.", Reading::Strict),
            Some(vec!["Guy L. Steele, Jr.".to_owned()])
        );
    }

    #[test]
    fn names_among_affiliations_and_after_a_first_name() {
        assert_eq!(
            names_in_line(
                "Asaf Cidon, Stanford University; Robert Escriva, Cornell University",
                Reading::Strict
            ),
            Some(vec!["Asaf Cidon".to_owned(), "Robert Escriva".to_owned()])
        );
        assert_eq!(
            names_in_line("Luis Damas†and Robin Milner", Reading::Strict),
            Some(vec!["Luis Damas".to_owned(), "Robin Milner".to_owned()])
        );
        assert_eq!(
            names_in_line("Jon M. Kleinberg y", Reading::Strict),
            Some(vec!["Jon M. Kleinberg".to_owned()])
        );
        let mixed = "John Hughes, Institutionen för datavetenskap";
        assert_eq!(names_in_line(mixed, Reading::Strict), None);
        assert_eq!(
            names_in_line(mixed, Reading::Leading),
            Some(vec!["John Hughes".to_owned()])
        );
    }

    #[test]
    fn names_set_apart_only_by_space_are_told_apart_by_their_initials() {
        assert_eq!(
            names_in_line("M. Kodialam T. V. Lakshman", Reading::Strict),
            Some(vec!["M. Kodialam".to_owned(), "T. V. Lakshman".to_owned()])
        );
        assert_eq!(
            names_in_line("Michael J. Franklin T. Kraska", Reading::Strict),
            Some(vec![
                "Michael J. Franklin".to_owned(),
                "T. Kraska".to_owned()
            ])
        );
        assert_eq!(
            names_in_line("Donald A. Smith Mark Utting", Reading::Strict),
            Some(vec!["Donald A. Smith".to_owned(), "Mark Utting".to_owned()])
        );
        for one in [
            "James B. Orlin",
            "J. R. R. Tolkien",
            "Jon M. Kleinberg",
            "Juan A. García Márquez",
        ] {
            assert_eq!(
                names_in_line(one, Reading::Strict),
                Some(vec![one.to_owned()])
            );
        }
    }

    #[test]
    fn affiliations_addresses_and_headings_are_not_names() {
        for line in [
            "Microsoft Research",
            "Computer Science Department, University of California",
            "Mountain View, CA",
            "Abstract",
            "In this paper we study",
            "Palo Alto, CA 94304",
            "October ACMQUEUE",
            "Senior Member, IEEE",
            "AMENABLE TO EXTENSIVE PARALLELIZATION",
        ] {
            assert_eq!(names_in_line(line, Reading::Strict), None, "{line}");
        }
    }
}
