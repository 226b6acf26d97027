//! The abstract as the paper prints it: the paragraph under an "Abstract"
//! heading (or opening with "Abstract." / "Abstract—"), up to the next
//! heading (keywords, index terms, the introduction) or a length no abstract
//! reaches.

/// Longest abstract kept, in characters.
const MOST: usize = 3000;

pub fn abstract_of(front: &str) -> Option<String> {
    let lines: Vec<&str> = front.lines().map(str::trim).collect();
    let (start, first) = lines.iter().enumerate().find_map(|(i, line)| {
        let rest = strip_heading(line)?;
        Some((i, rest))
    })?;
    let mut text = first.to_owned();
    for line in &lines[start + 1..] {
        if line.is_empty() && text.len() > 400 {
            break;
        }
        if ends_abstract(line) || text.len() > MOST {
            break;
        }
        if line.is_empty() {
            continue;
        }
        match text.strip_suffix('-') {
            // A word broken across lines ("trans-" / "action").
            Some(head) if line.starts_with(char::is_lowercase) => {
                text = format!("{head}{line}");
            }
            _ => {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(line);
            }
        }
    }
    let text: String = text.chars().take(MOST).collect();
    (text.split_whitespace().count() >= 20)
        .then(|| text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The text after an abstract heading on its line, if `line` is one.
fn strip_heading(line: &str) -> Option<&str> {
    let word = line.get(..8)?;
    if !word.eq_ignore_ascii_case("abstract") {
        return None;
    }
    let rest = &line[8..];
    let trimmed = rest.trim_start_matches([' ', '.', ':', '—', '–', '-']);
    // "Abstract" alone, or followed by a separator: not "Abstraction is …".
    (rest.is_empty() || trimmed.len() < rest.len()).then_some(trimmed)
}

fn ends_abstract(line: &str) -> bool {
    let lower = line.to_lowercase();
    let lower = lower.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ');
    let lower = lower.strip_prefix("i. ").unwrap_or(lower);
    [
        "introduction",
        "keywords",
        "key words",
        "index terms",
        "ccs concepts",
        "acm reference format",
        "categories and subject descriptors",
        "general terms",
    ]
    .iter()
    .any(|h| lower.starts_with(h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_paragraph_under_the_heading() {
        let page = "A Title\nAn Author\nAbstract\nWe present a system that does a great many things for its users, \
                    and we trans-\naction the words across lines so that the reader can follow every one of them \
                    to the end of this sentence.\nKeywords: things\n1 Introduction\nBody.";
        let text = abstract_of(page).unwrap();
        assert!(text.starts_with("We present a system"), "{text}");
        assert!(text.contains("transaction the words"), "{text}");
        assert!(text.ends_with("end of this sentence."), "{text}");
    }

    #[test]
    fn a_heading_on_the_same_line_and_no_abstract_at_all() {
        let page = "Abstract—Consensus is hard. We show one way to reach it among many replicas that fail by \
                    crashing, and we prove it safe under every schedule the network allows.\nI. INTRODUCTION\n";
        assert!(abstract_of(page).unwrap().starts_with("Consensus is hard."));
        assert_eq!(
            abstract_of("Abstraction is a topic.\nMore words here."),
            None
        );
    }
}
