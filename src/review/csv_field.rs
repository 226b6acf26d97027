//! One CSV cell as RFC 4180 writes it: every CSV Quire writes (the report's
//! table, PRISMA's flow, the extraction table) quotes its cells the same way.

/// A cell, quoted when it holds a comma, a quote or a line break.
pub(crate) fn cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cell_is_quoted_only_when_it_must_be() {
        assert_eq!(super::cell("plain"), "plain");
        assert_eq!(super::cell("a, b"), "\"a, b\"");
        assert_eq!(super::cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(super::cell("two\nlines"), "\"two\nlines\"");
    }
}
