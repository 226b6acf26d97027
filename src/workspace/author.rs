//! A paper's author as a record keeps it: given and family name apart, so a
//! reference manager gets "van Renesse, Robbert" rather than guessing which
//! word of "Robbert van Renesse" is the surname.

use serde::{Deserialize, Deserializer, Serialize};

/// Lowercase words that belong to the family name that follows them.
pub(crate) const PARTICLES: [&str; 17] = [
    "van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "la", "le", "dos", "das",
    "ten", "ter", "bin",
];

/// Words after a family name that are not part of it.
pub(crate) const SUFFIXES: [&str; 6] = ["jr", "jr.", "sr", "sr.", "ii", "iii"];

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Author {
    /// Given names and initials as printed ("Michael A."); empty when only
    /// one name is known.
    pub given: String,
    /// The family name with its particles ("van Renesse").
    pub family: String,
}

impl Author {
    /// A name as a paper or a metadata field prints it: "Given Family",
    /// "Family, Given", with particles and suffixes ("Guy L. Steele, Jr.").
    pub fn parse(printed: &str) -> Self {
        let printed = printed.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut words: Vec<&str> = printed.split(' ').filter(|w| !w.is_empty()).collect();
        if let Some((family, given)) = printed.split_once(',') {
            let given = given.trim();
            if !is_suffix(given) {
                return Self {
                    given: given.to_owned(),
                    family: family.trim().to_owned(),
                };
            }
            words = family.split_whitespace().collect();
        }
        while words.len() > 1 && is_suffix(words[words.len() - 1]) {
            words.pop();
        }
        if words.len() <= 1 {
            return Self {
                given: String::new(),
                family: words.first().map(|w| (*w).to_owned()).unwrap_or_default(),
            };
        }
        let mut start = words.len() - 1;
        while start > 1 && PARTICLES.contains(&words[start - 1].to_lowercase().as_str()) {
            start -= 1;
        }
        Self {
            given: words[..start].join(" "),
            family: words[start..].join(" "),
        }
    }

    /// "Robbert van Renesse".
    pub fn display(&self) -> String {
        if self.given.is_empty() {
            self.family.clone()
        } else {
            format!("{} {}", self.given, self.family)
        }
    }

    /// "van Renesse, Robbert", as BibTeX and RIS want it.
    pub fn family_first(&self) -> String {
        if self.given.is_empty() {
            self.family.clone()
        } else {
            format!("{}, {}", self.family, self.given)
        }
    }
}

impl From<&str> for Author {
    fn from(printed: &str) -> Self {
        Self::parse(printed)
    }
}

fn is_suffix(word: &str) -> bool {
    SUFFIXES.contains(&word.trim_end_matches(',').to_lowercase().as_str())
}

/// Records written before authors were split kept each as one string.
impl<'de> Deserialize<'de> for Author {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Stored {
            Split {
                #[serde(default)]
                given: String,
                family: String,
            },
            Printed(String),
        }
        Ok(match Stored::deserialize(deserializer)? {
            Stored::Split { given, family } => Self { given, family },
            Stored::Printed(name) => Self::parse(&name),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(name: &str) -> (String, String) {
        let a = Author::parse(name);
        (a.given, a.family)
    }

    #[test]
    fn splits_printed_names_with_particles_suffixes_and_inverted_order() {
        assert_eq!(
            split("Robbert van Renesse"),
            ("Robbert".into(), "van Renesse".into())
        );
        assert_eq!(
            split("Lamport, Leslie"),
            ("Leslie".into(), "Lamport".into())
        );
        assert_eq!(
            split("Guy L. Steele, Jr."),
            ("Guy L.".into(), "Steele".into())
        );
        assert_eq!(
            split("Michael A. Bender"),
            ("Michael A.".into(), "Bender".into())
        );
        assert_eq!(split("Ada"), (String::new(), "Ada".into()));
        assert_eq!(
            Author::parse("Robbert van Renesse").family_first(),
            "van Renesse, Robbert"
        );
        assert_eq!(
            Author::parse("Robbert van Renesse").display(),
            "Robbert van Renesse"
        );
    }

    #[test]
    fn reads_split_records_and_the_older_single_strings() {
        let authors: Vec<Author> =
            serde_json::from_str(r#"[{"given":"Leslie","family":"Lamport"},"Barbara Liskov"]"#)
                .unwrap();
        assert_eq!(authors[0].family, "Lamport");
        assert_eq!(authors[1], Author::parse("Barbara Liskov"));
        assert_eq!(
            serde_json::to_string(&authors[1]).unwrap(),
            r#"{"given":"Barbara","family":"Liskov"}"#
        );
    }
}
