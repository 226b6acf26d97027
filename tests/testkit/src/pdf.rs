//! Real PDFs made on the fly, for tests that need a paper saying something
//! specific. Written out by hand (objects, cross-reference table, trailer) so
//! they are exactly what the test says and nothing else.

/// A real one-page-per-entry PDF whose pages carry `pages` as lines of
/// Helvetica text, with `title` in its document information: for tests that
/// need a paper saying something specific (an injection attempt, markup that
/// must stay text). Lines are wrapped at about 90 characters; a `\n` in a
/// page's text starts a new line (a title on a line of its own).
pub fn with_pages(title: Option<&str>, pages: &[&str]) -> Vec<u8> {
    let mut objects: Vec<String> = Vec::new();
    let page_ids: Vec<usize> = (0..pages.len()).map(|i| 4 + 2 * i).collect();
    objects.push("<< /Type /Catalog /Pages 2 0 R >>".into());
    objects.push(format!(
        "<< /Type /Pages /Kids [{}] /Count {} >>",
        page_ids
            .iter()
            .map(|id| format!("{id} 0 R"))
            .collect::<Vec<_>>()
            .join(" "),
        pages.len()
    ));
    objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".into());
    for (i, text) in pages.iter().enumerate() {
        let mut lines: Vec<String> = Vec::new();
        for paragraph in text.split('\n') {
            let mut line = String::new();
            for word in paragraph.split_whitespace() {
                if line.len() + word.len() > 90 {
                    lines.push(std::mem::take(&mut line));
                }
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(word);
            }
            lines.push(line);
        }
        let mut stream = String::from("BT /F1 10 Tf 14 TL 50 780 Td\n");
        for l in lines {
            let escaped = literal(&l);
            stream.push_str(&format!("({escaped}) Tj T*\n"));
        }
        stream.push_str("ET");
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
            page_ids[i] + 1
        ));
        objects.push(format!(
            "<< /Length {} >>\nstream\n{stream}\nendstream",
            stream.len()
        ));
    }
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (n, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", n + 1).as_bytes());
    }
    let info = title.map(|t| {
        offsets.push(out.len());
        let n = objects.len() + 1;
        out.extend_from_slice(
            format!("{n} 0 obj\n<< /Title ({}) >>\nendobj\n", literal(t)).as_bytes(),
        );
        n
    });
    let count = objects.len() + 1 + usize::from(info.is_some());
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {count}\n0000000000 65535 f \n").as_bytes());
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {count} /Root 1 0 R{} >>\nstartxref\n{xref}\n%%EOF\n",
            info.map(|n| format!(" /Info {n} 0 R")).unwrap_or_default()
        )
        .as_bytes(),
    );
    out
}

/// A PDF literal string's body: backslash and parentheses escaped.
fn literal(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('(', "\\(")
        .replace(')', "\\)")
}
