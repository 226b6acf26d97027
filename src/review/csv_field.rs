//! One CSV cell as RFC 4180 writes it, safe to open in a spreadsheet: every
//! CSV Quire writes (the report's table, PRISMA's flow, the extraction table)
//! quotes and neutralises its cells the same way.
//!
//! A cell's text comes from papers and models (a title, a researcher's note,
//! a table value). A spreadsheet runs a cell that starts with `=`, `+`, `-`
//! or `@` (or a tab or carriage return before one) as a formula. So, as
//! OWASP's CSV-injection advice says, such a cell is prefixed with `'`,
//! which the spreadsheet shows as text. A number keeps its sign: `-0.42` is
//! no formula.

/// A cell: neutralised when it would run as a formula, quoted when it holds a
/// comma, a quote or a line break.
pub(crate) fn cell(text: &str) -> String {
    let text = if runs_as_formula(text) {
        format!("'{text}")
    } else {
        text.to_owned()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

fn runs_as_formula(text: &str) -> bool {
    let starts = text.starts_with(['=', '+', '-', '@', '\t', '\r']);
    starts && !is_number(text)
}

/// A plain signed number (`-0.42`, `+3`, `-1e5`): what a spreadsheet reads
/// as a value, never as a formula.
fn is_number(text: &str) -> bool {
    let digits = text.trim_start_matches(['+', '-']);
    !digits.is_empty()
        && digits.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && text.parse::<f64>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn a_cell_is_quoted_only_when_it_must_be() {
        assert_eq!(cell("plain"), "plain");
        assert_eq!(cell("a, b"), "\"a, b\"");
        assert_eq!(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(cell("two\nlines"), "\"two\nlines\"");
    }

    #[test]
    fn a_cell_that_would_run_as_a_formula_is_text_and_a_number_keeps_its_sign() {
        assert_eq!(
            cell("=HYPERLINK(\"http://x\")"),
            "\"'=HYPERLINK(\"\"http://x\"\")\""
        );
        assert_eq!(cell("+cmd|' /C calc'!A0"), "'+cmd|' /C calc'!A0");
        assert_eq!(cell("-2+3+cmd"), "'-2+3+cmd");
        assert_eq!(cell("@SUM(A1:A9)"), "'@SUM(A1:A9)");
        assert_eq!(cell("\t=1+1"), "'\t=1+1");
        // Values a spreadsheet reads as numbers stay numbers.
        assert_eq!(cell("-0.42"), "-0.42");
        assert_eq!(cell("+3"), "+3");
        assert_eq!(cell("-1e5"), "-1e5");
        // Not numbers, though Rust's parser takes them.
        assert_eq!(cell("-inf"), "'-inf");
        assert_eq!(cell("-NaN"), "'-NaN");
        assert_eq!(cell("-"), "'-");
    }
}
