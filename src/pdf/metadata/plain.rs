//! Title and authors from plain text, for pages whose engine gave no layout:
//! the title is the first run of title-like lines; the authors follow it.

use super::furniture::is_furniture;
use super::names::{Reading, names_in_line};
use super::tidy;

/// A line that may be (part of) a title. It has a word of four letters or
/// more: OCR reads specks and rules as short scraps ("nae aL").
fn title_like(line: &str) -> bool {
    let words = line.split_whitespace().count();
    let letters = line.chars().filter(|c| c.is_alphabetic()).count();
    let long_word = line
        .split_whitespace()
        .any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 4);
    (1..=25).contains(&words) && long_word && letters * 10 >= line.len() * 6 && !is_furniture(line)
}

pub fn title_from_page(page: &str) -> Option<String> {
    let lines: Vec<&str> = page
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(25)
        .collect();
    let start = lines
        .iter()
        .position(|l| title_like(l) && l.split_whitespace().count() >= 2)?;
    let mut title = lines[start].to_owned();
    // A title often wraps onto a second (rarely a third) line.
    for next in lines.iter().skip(start + 1).take(2) {
        let ends_open = !title.ends_with(['.', ':', '?', '!']) || title.ends_with(':');
        let shouting = next
            .chars()
            .filter(|c| c.is_alphabetic())
            .all(char::is_uppercase)
            && !title
                .chars()
                .filter(|c| c.is_alphabetic())
                .all(char::is_uppercase);
        // A line of two or three capitalised words may be a name or the end of
        // the title; after a function word ("of", "for", "an") it is the title.
        const FUNCTION_WORDS: [&str; 12] = [
            "a", "an", "the", "of", "for", "and", "to", "in", "on", "with", "via", "by",
        ];
        let dangling = title
            .rsplit(' ')
            .next()
            .is_some_and(|w| FUNCTION_WORDS.contains(&w.to_lowercase().as_str()));
        let continues = next
            .chars()
            .next()
            .is_some_and(|c| c.is_lowercase() || c.is_uppercase())
            && !shouting
            && title_like(next)
            && (dangling
                || names_in_line(next, Reading::Leading).is_none()
                || words_of_prose(next, page))
            && !next.to_lowercase().starts_with("abstract");
        if ends_open
            && continues
            && title.split_whitespace().count() + next.split_whitespace().count() <= 25
        {
            title.push(' ');
            title.push_str(next);
        } else {
            break;
        }
    }
    Some(tidy(&title))
}

/// Every word of `line` is written in lower case somewhere in `text`: the
/// line is words of the paper's prose ("Recursive Queries"), not a person's
/// name, however capitalised it is here.
fn words_of_prose(line: &str, text: &str) -> bool {
    let lower_case: std::collections::HashSet<&str> = text
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.starts_with(char::is_lowercase))
        .collect();
    let mut words = line
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .peekable();
    words.peek().is_some() && words.all(|w| lower_case.contains(w.to_lowercase().as_str()))
}

pub fn authors_from_page(page: &str, title: Option<&str>) -> Vec<String> {
    let lines: Vec<&str> = page
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(30)
        .collect();
    let after_title = title
        .and_then(|t| {
            let last_word = t.split_whitespace().last()?;
            lines
                .iter()
                .position(|l| l.ends_with(last_word))
                .map(|i| i + 1)
        })
        .unwrap_or(0);
    lines
        .iter()
        .skip(after_title)
        .take(4)
        .find_map(|l| names_in_line(l, Reading::Leading))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_goes_on_in_capitalised_words_the_paper_writes_in_lower_case() {
        let page = "Using Logic Programming to Efficiently Evaluate\nRecursive Queries\n\n\
                    Juliana Freire\nDepartment of Computer Science\n\n1 Introduction\n\
                    Queries that involve recursion cannot be expressed; recursive queries \
                    are evaluated by tabling.";
        assert_eq!(
            title_from_page(page).as_deref(),
            Some("Using Logic Programming to Efficiently Evaluate Recursive Queries")
        );
        let title = title_from_page(page);
        assert_eq!(
            authors_from_page(page, title.as_deref()),
            ["Juliana Freire"]
        );
        // Scraps OCR read from specks above the title are not the title.
        let page = "nae aL\n1\nAn introduction to abstract\ninterpretation\n\n\
                    Samson Abramsky and Chris Hankin, Imperial College, London, UK";
        assert_eq!(
            title_from_page(page).as_deref(),
            Some("An introduction to abstract interpretation")
        );
        // A name stays a name, though the title before it ends open.
        let page =
            "Paxos Made Simple for Practice\nLeslie Lamport\n\nAbstract\nThe protocol is simple.";
        assert_eq!(
            title_from_page(page).as_deref(),
            Some("Paxos Made Simple for Practice")
        );
    }
}
