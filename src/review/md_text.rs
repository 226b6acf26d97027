//! Text from papers and models made safe inside Markdown: what a title, a
//! quote, a table cell or a question says is shown as text (never as
//! emphasis, a link, a table border or raw HTML), and a model's own
//! Markdown keeps its form but loses raw HTML and top-level headings. The
//! report, Ask's answers and the extraction table all write through here.

/// Escape text for inline Markdown: one line, every character that could
/// start markup escaped.
pub fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '$'
        ) {
            out.push('\\');
        }
        out.push(if c == '\n' || c == '\r' { ' ' } else { c });
    }
    out
}

/// Model-written Markdown made safe to render: no raw HTML (every `<` is an
/// entity), no headings above the section's own level.
pub fn block(text: &str) -> String {
    text.lines()
        .map(|line| {
            let line = line.replace('<', "&lt;").replace('>', "&gt;");
            match line
                .trim_start()
                .strip_prefix("# ")
                .or_else(|| line.trim_start().strip_prefix("## "))
            {
                Some(rest) => format!("### {rest}"),
                None => line,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
