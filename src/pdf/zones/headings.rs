//! The headings that open a paper's zones ("Abstract", "1. Introduction",
//! "References", "Acknowledgements", "Appendix A"), and the prose test that
//! tells an unheaded abstract from the title block above it.

/// What a heading opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heading {
    Abstract,
    /// Keywords, index terms, ACM's concepts and reference format: front matter.
    Keywords,
    Introduction,
    /// Any other numbered section heading ("3 Results", "IV. EVALUATION").
    Section,
    /// A section lettered as appendices are ("A. Proofs"); read as a heading
    /// only after the references, since "J. Doe" is lettered the same way.
    Lettered,
    References,
    Acknowledgements,
    Appendix,
    /// An author block printed at the end ("Affiliation:", "About the authors").
    AuthorBlock,
    /// A table of contents.
    Contents,
}

/// The most words a heading line has.
const MAX_HEADING_WORDS: usize = 12;

const ABSTRACT_NAMES: &[&str] = &["abstract", "summary", "a b s t r a c t"];
const KEYWORD_OPENERS: &[&str] = &[
    "keywords",
    "key words",
    "index terms",
    "ccs concepts",
    "acm reference format",
    "additional key words",
    "jel classification",
    "msc 20",
    "subject classification",
    "general terms",
];
const INTRODUCTION_NAMES: &[&str] = &["introduction", "overview", "motivation", "background"];
/// Sections papers often head without a number.
const SECTION_NAMES: &[&str] = &[
    "conclusion",
    "conclusions",
    "conclusions and future work",
    "conclusion and future work",
    "concluding remarks",
    "summary and conclusions",
    "discussion",
    "related work",
    "results",
    "methods",
    "materials and methods",
    "evaluation",
    "experiments",
    "future work",
    "limitations",
    "implementation",
    "preliminaries",
];
const REFERENCE_NAMES: &[&str] = &[
    "references",
    "reference",
    "bibliography",
    "literature cited",
    "works cited",
    "references and notes",
    "cited literature",
    "literature",
];
const ACKNOWLEDGEMENT_NAMES: &[&str] = &[
    "acknowledgements",
    "acknowledgments",
    "acknowledgement",
    "acknowledgment",
    "funding",
];
const APPENDIX_OPENERS: &[&str] = &["appendix", "appendices", "supplementary material"];
const AUTHOR_BLOCK_NAMES: &[&str] = &[
    "affiliation",
    "affiliations",
    "author details",
    "about the authors",
    "author biographies",
    "authors addresses",
    "author's address",
    "authors' addresses",
];

/// How a heading is numbered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Number {
    None,
    /// "3", "2.1", "IV."
    Numbered,
    /// "A."
    Lettered,
}

/// A heading's words: lower case, without its number ("2.1", "IV.", "A.")
/// or a colon after it.
fn words_of(line: &str) -> (Number, String) {
    let trimmed = line.trim();
    let mut words: Vec<&str> = trimmed.split_whitespace().collect();
    let number = match words.first() {
        Some(w) if words.len() > 1 && is_section_number(w) => Number::Numbered,
        Some(w) if words.len() > 1 && is_section_letter(w) => Number::Lettered,
        _ => Number::None,
    };
    if number != Number::None {
        words.remove(0);
    }
    let text = words
        .join(" ")
        .trim_end_matches([':', '.'])
        .trim()
        .to_lowercase();
    (number, text)
}

/// "3", "3.", "2.1", "IV.": a section's number.
fn is_section_number(word: &str) -> bool {
    let w = word.trim_end_matches(['.', ')']);
    !w.is_empty()
        && (w.chars().all(|c| c.is_ascii_digit() || c == '.')
            && w.chars().next().is_some_and(|c| c.is_ascii_digit())
            || (w.len() <= 4 && w.chars().all(|c| "IVX".contains(c)) && word.ends_with('.')))
}

/// "A.", "B)", "C": an appendix's letter.
fn is_section_letter(word: &str) -> bool {
    let w = word.trim_end_matches(['.', ')']);
    w.len() == 1 && w.chars().all(|c| c.is_ascii_uppercase())
}

/// The heading a line is, if it is one.
pub fn heading(line: &str) -> Option<Heading> {
    let t = line.trim();
    if t.is_empty() {
        return None;
    }
    let (number, text) = words_of(t);
    // Keywords run on after their word; a heading of any other kind is short.
    if KEYWORD_OPENERS.iter().any(|k| text.starts_with(k)) {
        return Some(Heading::Keywords);
    }
    if t.split_whitespace().count() > MAX_HEADING_WORDS {
        return None;
    }
    let is = |names: &[&str]| names.contains(&text.as_str());
    if is(ABSTRACT_NAMES) {
        return Some(Heading::Abstract);
    }
    if is(REFERENCE_NAMES) {
        return Some(Heading::References);
    }
    if is(ACKNOWLEDGEMENT_NAMES) {
        return Some(Heading::Acknowledgements);
    }
    if is(AUTHOR_BLOCK_NAMES) {
        return Some(Heading::AuthorBlock);
    }
    if text == "contents" || text == "table of contents" {
        return Some(Heading::Contents);
    }
    if APPENDIX_OPENERS.iter().any(|a| {
        text == *a
            || text
                .strip_prefix(a)
                .is_some_and(|rest| rest.starts_with([' ', ':', '.']))
    }) {
        return Some(Heading::Appendix);
    }
    if is(INTRODUCTION_NAMES) {
        return Some(Heading::Introduction);
    }
    if is(SECTION_NAMES) {
        return Some(Heading::Section);
    }
    match number {
        Number::Numbered if looks_like_title(&text, t) => Some(Heading::Section),
        // An appendix's title has no initials or list in it ("J. Doe" and
        // "A. Smith, B. Jones" are names): "A. Reference card" has two words
        // or more; a letter without its stop, every word capitalised but the
        // small ones ("A Proofs of the Lemmas", not "A mixed approach").
        Number::Lettered
            if looks_like_title(&text, t)
                && !text.contains(['.', ','])
                && (if t.split_whitespace().next().is_some_and(|w| w.len() > 1) {
                    text.split_whitespace().count() >= 2
                } else {
                    title_cased(t)
                }) =>
        {
            Some(Heading::Lettered)
        }
        _ => None,
    }
}

/// A numbered line is a heading when what follows the number reads as a
/// title: it starts with a capital, ends without a sentence's stop or a
/// page number (a table of contents' entry), and is not a sentence.
fn looks_like_title(text: &str, line: &str) -> bool {
    let rest = line
        .split_whitespace()
        .skip(1)
        .collect::<Vec<_>>()
        .join(" ");
    let starts_upper = rest.chars().next().is_some_and(char::is_uppercase);
    let last = text.split_whitespace().last().unwrap_or("");
    let ends_in_number = last.chars().all(|c| c.is_ascii_digit());
    starts_upper
        && !ends_in_number
        && !rest.ends_with(['.', ',', ';'])
        && rest.chars().filter(|c| c.is_alphabetic()).count() >= 3
        && !rest.contains(" . .")
}

/// Every word after the number capitalised, but the small ones ("of",
/// "and", "the").
fn title_cased(line: &str) -> bool {
    line.split_whitespace().skip(1).all(|w| {
        w.chars().next().is_some_and(|c| !c.is_lowercase())
            || matches!(
                w,
                "of" | "and" | "the" | "a" | "an" | "in" | "on" | "for" | "to" | "with" | "by"
            )
    })
}

/// An abstract that opens its own line ("Abstract. We show...", "ABSTRACT
/// Users who...", "Abstract—We..."): the rest of the line, after the word.
pub fn inline_abstract(line: &str) -> Option<&str> {
    let t = line.trim_start();
    for name in ["Abstract", "ABSTRACT", "Summary", "SUMMARY"] {
        let Some(rest) = t.strip_prefix(name) else {
            continue;
        };
        let body = rest.trim_start_matches(['.', ':', '—', '–', '-', ' ']);
        let separated = rest.len() > body.len();
        // "Abstract Interpretation Based Formal Methods" is a title: the
        // word set apart by a space alone must be in capitals.
        let marked = rest.trim_start().starts_with(['.', ':', '—', '–', '-']);
        let by_capitals = name.chars().all(|c| c.is_uppercase());
        if separated
            && (marked || by_capitals)
            && body.chars().next().is_some_and(char::is_uppercase)
        {
            return Some(body);
        }
    }
    None
}

/// Openers of the notes on authors that page one prints at its foot.
const AUTHOR_NOTE_OPENERS: &[&str] = &[
    "authors' addresses",
    "authors’ addresses",
    "author's address",
    "author’s address",
    "authors' address",
    "corresponding author",
    "e-mail address",
    "email address",
    "e-mail:",
    "email:",
    "present address",
    "both authors contributed",
    "these authors contributed",
    "equal contribution",
    "orcid",
];

/// Footnote marks that open a note on page one ("∗Corresponding author",
/// "†Job Title, Department").
const NOTE_MARKS: &[char] = &['∗', '*', '†', '‡', '§', '¶', '⋆'];

/// A note on the authors, as page one prints it at its foot.
pub fn is_author_note(line: &str) -> bool {
    let t = line.trim_start();
    let lower = t.to_lowercase();
    let unmarked = lower.trim_start_matches(|c: char| NOTE_MARKS.contains(&c) || c.is_whitespace());
    t.starts_with(NOTE_MARKS) || AUTHOR_NOTE_OPENERS.iter().any(|o| unmarked.starts_with(o))
}

/// Words of institutions' names, as affiliations print them.
const INSTITUTION_WORDS: &[&str] = &[
    "universit",
    "institut",
    "department",
    "dept.",
    "laborator",
    " labs",
    "college",
    "school of",
    "faculty of",
    " inc.",
    "gmbh",
    "corporation",
    "research center",
    "research centre",
];

/// Words of street addresses.
const ADDRESS_WORDS: &[&str] = &[
    " street",
    " st.",
    " avenue",
    " ave",
    " road",
    " rd.",
    " drive",
    " blvd",
    " boulevard",
    "p.o. box",
    "po box",
    " suite ",
    " straße",
    "strasse",
    " platz",
];

/// An affiliation or address line: not prose, and naming an institution,
/// giving a street or a postcode ("Cambridge, MA 02139"), or an e-mail
/// address.
pub fn is_affiliation(line: &str) -> bool {
    let lower = format!(" {}", line.to_lowercase());
    !is_prose(line)
        && (line.contains('@')
            || INSTITUTION_WORDS.iter().any(|w| lower.contains(w))
            || ADDRESS_WORDS.iter().any(|w| lower.contains(w))
            || has_postcode(line))
}

/// A state or country code then a postcode ("MA 02139", "CA 94305-9025",
/// "D-91054", "CH-4002"), as addresses print them.
fn has_postcode(line: &str) -> bool {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let digits = |w: &str, n: std::ops::RangeInclusive<usize>| {
        let d = w.split('-').next().unwrap_or("");
        n.contains(&d.len()) && d.chars().all(|c| c.is_ascii_digit())
    };
    let code = |w: &str| w.len() == 2 && w.chars().all(|c| c.is_ascii_uppercase());
    words.windows(2).any(|w| code(w[0]) && digits(w[1], 5..=5))
        || words.iter().any(|w| {
            w.split_once('-').is_some_and(|(c, n)| {
                (1..=2).contains(&c.len())
                    && c.chars().all(|c| c.is_ascii_uppercase())
                    && digits(n, 4..=5)
            })
        })
}

/// Function words of prose: a sentence has several, a name, an affiliation
/// or a title few.
const FUNCTION_WORDS: &[&str] = &[
    "the", "of", "and", "to", "a", "in", "is", "we", "for", "that", "this", "with", "are", "on",
    "by", "an", "as", "be", "it", "which", "from", "can", "our", "its", "or", "these", "has",
    "have", "was", "were", "not",
];

/// A line of running prose: eight words or more, most of them in lower
/// case, several of them function words, and no e-mail address.
pub fn is_prose(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() < 8 || line.contains('@') {
        return false;
    }
    let lower_start = words
        .iter()
        .filter(|w| w.chars().next().is_some_and(char::is_lowercase))
        .count();
    let function = words
        .iter()
        .filter(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphabetic()).to_lowercase();
            FUNCTION_WORDS.contains(&w.as_str())
        })
        .count();
    lower_start * 2 >= words.len() && function >= 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_are_known_by_their_names_and_numbers() {
        let cases = [
            ("Abstract", Some(Heading::Abstract)),
            ("ABSTRACT", Some(Heading::Abstract)),
            ("a b s t r a c t", Some(Heading::Abstract)),
            ("1. Introduction", Some(Heading::Introduction)),
            ("I. INTRODUCTION", Some(Heading::Introduction)),
            ("3 Results and Discussion", Some(Heading::Section)),
            ("Conclusions", Some(Heading::Section)),
            ("RELATED WORK", Some(Heading::Section)),
            ("2.1 It's a zoo in here", Some(Heading::Section)),
            ("References", Some(Heading::References)),
            ("REFERENCES", Some(Heading::References)),
            ("7 References", Some(Heading::References)),
            ("Acknowledgments", Some(Heading::Acknowledgements)),
            ("Appendix A: Proofs", Some(Heading::Appendix)),
            ("A. Reference card", Some(Heading::Lettered)),
            ("J. Doe", None),
            ("B. Smith and C. Jones", None),
            ("A Proofs", Some(Heading::Lettered)),
            ("A mixed approach to things", None),
            (
                "Keywords: R, C++, foreign function interface.",
                Some(Heading::Keywords),
            ),
            (
                "Keywords: association plots, conditional inference, contingency tables, HCL colors, HSV colors",
                Some(Heading::Keywords),
            ),
            (
                "CCS Concepts: • Computer systems organization",
                Some(Heading::Keywords),
            ),
            ("Affiliation:", Some(Heading::AuthorBlock)),
            ("Contents", Some(Heading::Contents)),
            ("1 Introduction 1", None),
            ("3 Using the xts package 6", None),
            ("2 in the case of many processes.", None),
            ("The references of a function are kept.", None),
        ];
        for (line, want) in cases {
            assert_eq!(heading(line), want, "{line}");
        }
    }

    #[test]
    fn an_abstract_on_its_own_line_is_found_after_its_word() {
        assert_eq!(
            inline_abstract("Abstract. We show that."),
            Some("We show that.")
        );
        assert_eq!(
            inline_abstract("ABSTRACT Users who run"),
            Some("Users who run")
        );
        assert_eq!(
            inline_abstract("Abstract—Consensus is hard"),
            Some("Consensus is hard")
        );
        assert_eq!(inline_abstract("Abstractions are useful"), None);
        assert_eq!(inline_abstract("Abstract"), None);
        assert_eq!(
            inline_abstract("Abstract Interpretation Based Formal Methods"),
            None
        );
    }

    #[test]
    fn notes_on_the_authors_are_known_by_their_marks_and_openers() {
        for note in [
            "∗Both authors contributed equally to this research.",
            "†Job Title, Department, Address, and AIAA Member Grade.",
            "Authors’ addresses: Ben Trovato, Institute for Clarity in Documentation",
            "* Corresponding author. E-mail: jane@example.org",
        ] {
            assert!(is_author_note(note), "{note}");
        }
        assert!(!is_author_note("The lme4 package provides R functions"));
    }

    #[test]
    fn affiliations_are_named_institutions_and_addresses_not_prose() {
        for line in [
            "yDept. of Computer Science, Cornell University, Ithaca NY 14853.",
            "1Google Inc., Mountain View, United States 2Stanford University",
            "rants: feedback@acmqueue.com",
            "Cambridge, MA 02139",
            "Waldstraße 6, D-91054 Erlangen, Germany",
            "Pat Helland, Fifth Ave South",
        ] {
            assert!(is_affiliation(line), "{line}");
        }
        for prose in [
            "We collected the data at the university hospital of the city over two years.",
            "Raft",
            "We ran it on 32 cores.",
        ] {
            assert!(!is_affiliation(prose), "{prose}");
        }
    }

    #[test]
    fn prose_is_told_from_names_affiliations_and_titles() {
        assert!(is_prose(
            "The lme4 package provides R functions to fit and analyze several"
        ));
        for line in [
            "Institute for Clarity in Documentation Dublin, Ohio, USA",
            "Department of Statistics, University of Wisconsin – Madison",
            "Ben Trovato and G.K.M. Tobin, Institute for Clarity in Documentation, USA",
            "Fitting Linear Mixed-Effects Models Using lme4",
            "trovato@corporation.com webmaster@marysville-ohio.com and the rest of it",
        ] {
            assert!(!is_prose(line), "{line}");
        }
    }
}
