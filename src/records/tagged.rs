//! Tagged export text cut into records: RIS (`TI  - …` up to `ER  -`),
//! PubMed's MEDLINE (`TI  - …`, a record a `PMID-` line) and Web of
//! Science's plain text (`TI …` up to `ER`). Each line is a field's start or
//! the continuation of the one before, with its line number kept, so a
//! record can be named where it is. What lies between records (Ovid's
//! "Link to the Ovid Full Text" lines, numbered headings, a file header)
//! belongs to no record and makes none; a file that stops inside a record
//! is said so.

/// One field of a record, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub tag: String,
    pub value: String,
    /// 1-based line of the field's first line.
    pub line: usize,
}

/// One record's fields, in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaggedRecord {
    pub fields: Vec<Field>,
    /// 1-based line the record starts on.
    pub line: usize,
}

impl TaggedRecord {
    /// The first non-empty value under any of `tags`, in the order given.
    pub fn first(&self, tags: &[&str]) -> Option<&str> {
        tags.iter().find_map(|tag| {
            self.fields
                .iter()
                .find(|f| f.tag == *tag && !f.value.trim().is_empty())
                .map(|f| f.value.trim())
        })
    }

    /// The people under the first of `tags` that names any, in file order
    /// (full names, `FAU`/`AF`, before the short `AU`).
    pub fn names(&self, tags: &[&str]) -> Vec<String> {
        tags.iter()
            .map(|tag| {
                self.all(tag)
                    .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
                    .collect::<Vec<_>>()
            })
            .find(|names| !names.is_empty())
            .unwrap_or_default()
    }

    /// Every non-empty value under `tag`, in file order.
    pub fn all<'a>(&'a self, tag: &'a str) -> impl Iterator<Item = &'a str> {
        self.fields
            .iter()
            .filter(move |f| f.tag == tag)
            .map(|f| f.value.trim())
            .filter(|v| !v.is_empty())
    }
}

/// The records of a tagged file, and how it ended.
#[derive(Debug, Default)]
pub struct Tagged {
    pub records: Vec<TaggedRecord>,
    /// The line of a last record the file stops inside (no end line where
    /// the format has one).
    pub cut_at: Option<usize>,
}

/// The three tagged syntaxes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    Ris,
    Medline,
    WebOfScience,
}

impl Syntax {
    /// The tag and value of a field's first line, if `line` is one.
    fn field_start(self, line: &str) -> Option<(&str, &str)> {
        match self {
            // "TY  - JOUR": two letters or a letter and a digit, spaces, a
            // dash. Some writers put one space, or none after the dash.
            Self::Ris => {
                let tag = line.get(..2)?;
                let rest = line.get(2..)?;
                let is_tag = tag.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                    && tag
                        .chars()
                        .nth(1)
                        .is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
                let dash = rest.trim_start_matches(' ');
                let spaces = rest.len() - dash.len();
                let value = dash.strip_prefix('-')?;
                (is_tag && (1..=3).contains(&spaces))
                    .then_some((tag, value.strip_prefix(' ').unwrap_or(value)))
            }
            // "PMID- 123", "TI  - …", "FAU - …": a tag of up to four
            // capitals and digits padded to four, then "- ".
            Self::Medline => {
                let (head, value) = line.split_once("- ")?;
                let tag = head.trim_end();
                let padded =
                    head.len() == 4 || (head.len() > 4 && head.ends_with(' ') && tag.len() == 4);
                let is_tag = !tag.is_empty()
                    && tag.len() <= 4
                    && tag
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
                (is_tag && padded).then_some((tag, value))
            }
            // "TI Title", "ER": two characters, then a space or the end.
            Self::WebOfScience => {
                let tag = line.get(..2)?;
                let is_tag = tag.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                    && tag
                        .chars()
                        .nth(1)
                        .is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
                let rest = &line[2..];
                (is_tag && (rest.is_empty() || rest.starts_with(' ')))
                    .then(|| (tag, rest.trim_start()))
            }
        }
    }

    /// Whether a field of this tag opens a record.
    fn opens(self, tag: &str) -> bool {
        match self {
            Self::Ris => tag == "TY",
            Self::Medline => tag == "PMID",
            Self::WebOfScience => tag == "PT",
        }
    }

    /// Whether a field of this tag closes the record it is in.
    fn closes(self, tag: &str) -> bool {
        match self {
            Self::Ris | Self::WebOfScience => tag == "ER",
            Self::Medline => false,
        }
    }

    /// Whether a continuation line of a field under `tag` is a value of
    /// its own (Web of Science lists authors and addresses one a line).
    fn continues_as_new_value(self, tag: &str) -> bool {
        self == Self::WebOfScience
            && matches!(
                tag,
                "AU" | "AF" | "BA" | "BF" | "CA" | "GP" | "C1" | "CR" | "ED"
            )
    }
}

/// Cut `text` (with `\n` line ends) into records of `syntax`.
pub fn read(text: &str, syntax: Syntax) -> Tagged {
    let mut tagged = Tagged::default();
    let mut current: Option<TaggedRecord> = None;
    for (n, line) in text.lines().enumerate() {
        let number = n + 1;
        let line = line.trim_end_matches(['\u{feff}']);
        match syntax.field_start(line) {
            Some((tag, value)) if syntax.opens(tag) => {
                if let Some(done) = current.take() {
                    // A record the next one starts before its end line.
                    tagged.records.push(done);
                }
                current = Some(TaggedRecord {
                    fields: vec![field(tag, value, number)],
                    line: number,
                });
            }
            Some((tag, value)) => match current.as_mut() {
                Some(record) if syntax.closes(tag) => {
                    record.fields.push(field(tag, value, number));
                    tagged.records.extend(current.take());
                }
                Some(record) => record.fields.push(field(tag, value, number)),
                // A tag outside any record: a file header (FN, VR), Ovid's
                // NL line, a WoS file's EF.
                None => {}
            },
            None => {
                let Some(record) = current.as_mut() else {
                    continue;
                };
                let more = line.trim();
                if more.is_empty() {
                    // MEDLINE ends a record with a blank line; the others
                    // may have blank lines inside one.
                    if syntax == Syntax::Medline {
                        tagged.records.extend(current.take());
                    }
                    continue;
                }
                let Some(last) = record.fields.last_mut() else {
                    continue;
                };
                if syntax.continues_as_new_value(&last.tag) && line.starts_with(' ') {
                    let tag = last.tag.clone();
                    record.fields.push(field(&tag, more, number));
                } else if last.value.is_empty() {
                    last.value = more.to_owned();
                } else {
                    last.value.push(' ');
                    last.value.push_str(more);
                }
            }
        }
    }
    if let Some(last) = current {
        let has_end = syntax == Syntax::Medline;
        if !has_end {
            tagged.cut_at = Some(last.line);
        }
        tagged.records.push(last);
    }
    tagged
}

fn field(tag: &str, value: &str, line: usize) -> Field {
    Field {
        tag: tag.to_owned(),
        value: value.trim().to_owned(),
        line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ris_fields_continue_over_lines_and_what_lies_between_records_is_no_record() {
        let text = "2. \nTY  - JOUR\nT1  - A title\nN2  - An abstract\nwrapped here.\nY1  - 2021//\nER  - \nNL  - \nLink to the Ovid Full Text or citation:\nhttp://ovidsp.ovid.com/x\n\n3. \nTY  - JOUR\nTI - One space\nER  -";
        let tagged = read(text, Syntax::Ris);
        assert_eq!(tagged.records.len(), 2);
        assert_eq!(tagged.cut_at, None);
        let first = &tagged.records[0];
        assert_eq!(first.line, 2);
        assert_eq!(
            first.first(&["AB", "N2"]),
            Some("An abstract wrapped here.")
        );
        assert_eq!(first.first(&["PY", "Y1"]), Some("2021//"));
        assert_eq!(tagged.records[1].first(&["TI"]), Some("One space"));
    }

    #[test]
    fn a_ris_file_that_stops_inside_a_record_says_where() {
        let tagged = read(
            "TY  - JOUR\nTI  - Whole\nER  - \n\nTY  - JOUR\nTI  - Cut sh",
            Syntax::Ris,
        );
        assert_eq!(tagged.records.len(), 2);
        assert_eq!(tagged.cut_at, Some(5));
    }

    #[test]
    fn medline_records_part_at_blank_lines_and_continue_at_six_spaces() {
        let text = "PMID- 1\nTI  - A long title\n      that wraps.\nFAU - Smith, John\nDP  - 2004 Mar\n\nPMID- 2\nTI  - Two\n";
        let tagged = read(text, Syntax::Medline);
        assert_eq!(tagged.records.len(), 2);
        assert_eq!(
            tagged.records[0].first(&["TI"]),
            Some("A long title that wraps.")
        );
        assert_eq!(
            tagged.records[0].all("FAU").collect::<Vec<_>>(),
            ["Smith, John"]
        );
        assert_eq!(tagged.records[1].line, 7);
    }

    #[test]
    fn web_of_science_lists_authors_a_line_and_wraps_titles() {
        let text = "FN Clarivate Analytics Web of Science\nVR 1.0\nPT J\nAU Asampong, E\n   Gyeke, MDP\nTI Caregivers' views on stigmatization\n   in Ghana\nPY 2018\nER\n\nEF";
        let tagged = read(text, Syntax::WebOfScience);
        assert_eq!(tagged.records.len(), 1);
        let r = &tagged.records[0];
        assert_eq!(
            r.all("AU").collect::<Vec<_>>(),
            ["Asampong, E", "Gyeke, MDP"]
        );
        assert_eq!(
            r.first(&["TI"]),
            Some("Caregivers' views on stigmatization in Ghana")
        );
        assert_eq!(tagged.cut_at, None);
    }
}
