//! Numbers in table cells and in the quotes that bear them out, read the way
//! papers print them: a sign (`-0.42`, `−3.5` with the Unicode minus, `+2`),
//! thousands separators (`12,400`, `12 400` with a thin space), decimals,
//! a percent sign, and ranges (`18–65`, `18-65`, `18 to 65`). A value that is
//! none of these (`0,42` with a decimal comma, `3.2 ± 0.4`) is kept as the
//! reader wrote it, never cut down to its first run of digits.

/// A cell's number, as shown and as values to find in its quote.
#[derive(Clone, Debug, PartialEq)]
pub struct CellNumber {
    /// What the cell shows: ASCII minus, no thousands separators, an en
    /// dash between a range's ends.
    pub shown: String,
    /// The number, or a range's two ends.
    pub values: Vec<f64>,
}

/// Read a cell's value as a number or a range of two.
pub fn read_number(text: &str) -> Result<CellNumber, String> {
    let text = text.trim();
    let found = scan(text, true);
    let numbers: Vec<&Found> = found.iter().collect();
    let not_plain = || format!("{text:?} is not a plain number or range");
    match numbers.as_slice() {
        [one] if rest_is_unit(text, &[one]) => Ok(CellNumber {
            shown: format!("{}{}", one.shown, one.percent_sign()),
            values: vec![one.value],
        }),
        [low, high] if is_range_between(text, low, high) && rest_is_unit(text, &[low, high]) => {
            Ok(CellNumber {
                shown: format!(
                    "{}{}–{}{}",
                    low.shown,
                    low.percent_sign(),
                    high.shown,
                    high.percent_sign()
                ),
                values: vec![low.value, high.value],
            })
        }
        [] => Err(format!("{text:?} is not a number")),
        _ => Err(not_plain()),
    }
}

/// Every number printed in `text`, in the forms [`read_number`] reads; a
/// space between digit groups is read both ways (`3 200` is 3,200, or a 3
/// and a 200 in running text).
pub fn numbers_in(text: &str) -> Vec<f64> {
    let mut values: Vec<f64> = [true, false]
        .into_iter()
        .flat_map(|spaces_group| scan(text, spaces_group))
        .map(|f| f.value)
        .collect();
    values.extend(number_words(text));
    values
}

/// Whether `quote` prints every value of `number` (a range's ends may be
/// printed apart).
pub fn borne_out(number: &CellNumber, quote: &str) -> bool {
    let printed = numbers_in(quote);
    number
        .values
        .iter()
        .all(|v| printed.iter().any(|p| same(*p, *v)))
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// One number found in a text: where it lies, its value, how it shows.
#[derive(Clone, Debug)]
struct Found {
    start: usize,
    end: usize,
    value: f64,
    shown: String,
    percent: bool,
}

impl Found {
    fn percent_sign(&self) -> &'static str {
        if self.percent { "%" } else { "" }
    }
}

fn is_minus(c: char) -> bool {
    matches!(c, '-' | '−' | '‒' | '–')
}

/// Thousands separators papers print between groups of three digits.
fn is_group_separator(c: char) -> bool {
    matches!(c, ',' | '\u{2009}' | '\u{202F}' | '\u{00A0}' | ' ')
}

/// The numbers of `text`, left to right. A sign counts only where it does
/// not join two numbers (`18-65` is a range, not 18 and -65). A space (or
/// thin space) separates thousands only when `spaces_group`.
fn scan(text: &str, spaces_group: bool) -> Vec<Found> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].1.is_ascii_digit() {
            i += 1;
            continue;
        }
        // A digit inside a word ("H2O", "COVID-19"'s "19" stays a number).
        if i > 0 && chars[i - 1].1.is_alphabetic() {
            while i < chars.len() && chars[i].1.is_alphanumeric() {
                i += 1;
            }
            continue;
        }
        let mut start = i;
        let mut negative = false;
        if i > 0 && (is_minus(chars[i - 1].1) || chars[i - 1].1 == '+') {
            // A sign after a figure joins a range (`18-65`, `10%–20%`);
            // after a letter it is a hyphen (`COVID-19`).
            let before = i.checked_sub(2).map(|j| chars[j].1);
            let signed = !before.is_some_and(|c| c.is_alphanumeric() || c == '%');
            if signed {
                negative = is_minus(chars[i - 1].1);
                start = i - 1;
            }
        }
        let mut digits = String::new();
        let mut j = i;
        while j < chars.len() && chars[j].1.is_ascii_digit() {
            digits.push(chars[j].1);
            j += 1;
        }
        // Groups of exactly three digits after a separator, when the first
        // group has at most three: `12,400`, `1 234 567`.
        if digits.len() <= 3 {
            while j + 3 < chars.len()
                && is_group_separator(chars[j].1)
                && (spaces_group || chars[j].1 == ',')
                && (1..=3).all(|k| chars[j + k].1.is_ascii_digit())
                && !chars.get(j + 4).is_some_and(|c| c.1.is_ascii_digit())
            {
                digits.extend((1..=3).map(|k| chars[j + k].1));
                j += 4;
            }
        }
        if j + 1 < chars.len() && chars[j].1 == '.' && chars[j + 1].1.is_ascii_digit() {
            digits.push('.');
            j += 1;
            while j < chars.len() && chars[j].1.is_ascii_digit() {
                digits.push(chars[j].1);
                j += 1;
            }
        }
        let percent = chars.get(j).is_some_and(|c| c.1 == '%');
        let end = if percent { j + 1 } else { j };
        if let Ok(magnitude) = digits.parse::<f64>() {
            let value = if negative { -magnitude } else { magnitude };
            found.push(Found {
                start: chars[start].0,
                end: chars.get(end).map_or(text.len(), |c| c.0),
                value,
                shown: if negative {
                    format!("-{digits}")
                } else {
                    digits
                },
                percent,
            });
        }
        i = j.max(i + 1);
    }
    found
}

/// Whether only a dash or "to" lies between two numbers, or "and" after
/// "between".
fn is_range_between(text: &str, low: &Found, high: &Found) -> bool {
    match text[low.end..high.start].trim() {
        "-" | "–" | "—" | "to" => true,
        "and" => text[..low.start].to_lowercase().contains("between"),
        _ => false,
    }
}

/// Whether what is left of `text` beside `numbers` is at most a unit or a
/// word or two (`48 participants`, `about 12 weeks`): no other figure, and
/// no ± that would make it an estimate with its spread.
fn rest_is_unit(text: &str, numbers: &[&Found]) -> bool {
    let mut rest = String::new();
    let mut at = 0;
    for n in numbers {
        rest.push_str(&text[at..n.start]);
        rest.push(' ');
        at = n.end;
    }
    rest.push_str(&text[at..]);
    !rest.contains('±') && !rest.contains("+/-") && !rest.chars().any(|c| c.is_ascii_digit())
}

/// Numbers written as words, as papers write small counts ("twelve
/// patients", "forty", "one hundred").
fn number_words(text: &str) -> Vec<f64> {
    const UNITS: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .collect();
    let unit = |w: &str| UNITS.iter().position(|u| *u == w).map(|n| n as f64);
    let ten = |w: &str| {
        TENS.iter()
            .position(|t| *t == w)
            .map(|n| (n as f64 + 2.0) * 10.0)
    };
    let mut values = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut value = match (unit(words[i]), ten(words[i])) {
            (Some(u), _) => u,
            (_, Some(t)) => match words.get(i + 1).and_then(|w| unit(w)).filter(|u| *u < 10.0) {
                Some(u) => {
                    i += 1;
                    t + u
                }
                None => t,
            },
            _ => {
                i += 1;
                continue;
            }
        };
        match words.get(i + 1) {
            Some(&"hundred") => {
                value *= 100.0;
                i += 1;
            }
            Some(&"thousand") => {
                value *= 1000.0;
                i += 1;
            }
            _ => {}
        }
        values.push(value);
        i += 1;
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str) -> String {
        read_number(text).map(|n| n.shown).unwrap_or_else(|e| e)
    }

    #[test]
    fn a_number_keeps_its_sign_its_thousands_and_its_range() {
        assert_eq!(shown("-0.42"), "-0.42");
        assert_eq!(shown("−3.5"), "-3.5");
        assert_eq!(shown("r = -0.42"), "-0.42");
        assert_eq!(shown("+2"), "2");
        assert_eq!(shown("12,400 participants"), "12400");
        assert_eq!(shown("1\u{2009}234\u{2009}567"), "1234567");
        assert_eq!(shown("12 400"), "12400");
        assert_eq!(shown("48"), "48");
        assert_eq!(shown("about 12 weeks"), "12");
        assert_eq!(shown("37.5%"), "37.5%");
        assert_eq!(shown("18–65"), "18–65");
        assert_eq!(shown("18-65 years"), "18–65");
        assert_eq!(shown("18 to 65"), "18–65");
        assert_eq!(shown("-3 to -1"), "-3–-1");
        assert_eq!(read_number("18-65").unwrap().values, vec![18.0, 65.0]);
    }

    #[test]
    fn what_is_not_a_plain_number_is_refused_not_cut_to_its_first_digits() {
        for text in [
            "0,42",
            "3.2 ± 0.4",
            "3.2 +/- 0.4",
            "12 of 40",
            "n/a",
            "p < 0.05 and 0.01",
        ] {
            assert!(
                read_number(text).is_err(),
                "{text}: {:?}",
                read_number(text)
            );
        }
        // A four-digit run after a comma is no thousands group.
        assert!(read_number("1,2345").is_err());
    }

    #[test]
    fn a_quote_bears_a_number_out_in_any_of_its_printed_forms() {
        let n = |t: &str| read_number(t).unwrap();
        assert!(borne_out(&n("12400"), "a cohort of 12,400 adults"));
        assert!(borne_out(
            &n("-0.42"),
            "the correlation was −0.42 (p < .01)"
        ));
        assert!(!borne_out(&n("0.42"), "the correlation was −0.42"));
        assert!(!borne_out(&n("-0.42"), "the correlation was 0.42"));
        assert!(borne_out(&n("18-65"), "aged between 18 and 65 years"));
        assert!(!borne_out(&n("18-65"), "aged between 18 and 64 years"));
        assert!(borne_out(&n("12"), "Twelve patients withdrew"));
        assert!(borne_out(&n("48"), "forty-eight volunteers"));
        assert!(borne_out(&n("300"), "three hundred schools"));
        assert!(!borne_out(&n("50"), "We recruited 48 participants"));
        // A figure inside a word is no number of the text.
        assert!(!borne_out(&n("19"), "during COVID19 lockdowns"));
    }
}
