//! LaTeX in bibliography fields made plain text, for what biblatex's
//! reader leaves as written: markup macros (`\emph{…}`, `\textit{…}`),
//! symbols and Greek letters (`\&`, `\alpha`), ties (`11.~Jahrhunderts`),
//! TeX quotes and dashes, math (`$\beta$-blockers`), protective braces
//! (`{{Title}}`), and any accent it did not combine (`\"{u}`).

use unicode_normalization::UnicodeNormalization;

/// `s` as a reader sees it: no macros, no braces, one space between words.
pub fn to_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    write_text(&chars, &mut out);
    let text: String = out.nfc().collect();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn write_text(chars: &[char], out: &mut String) {
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i = macro_at(chars, i, out),
            '{' | '}' => i += 1,
            '$' => {
                // Math as its letters: `$\beta$` is β, `$x^2$` is x2.
                let end = chars[i + 1..]
                    .iter()
                    .position(|c| *c == '$')
                    .map(|p| i + 1 + p);
                let inner = &chars[i + 1..end.unwrap_or(chars.len())];
                let mut math = String::new();
                write_text(inner, &mut math);
                out.extend(math.chars().filter(|c| !matches!(c, '^' | '_')));
                i = end.map_or(chars.len(), |e| e + 1);
            }
            '~' => {
                out.push(' ');
                i += 1;
            }
            '`' if chars.get(i + 1) == Some(&'`') => {
                out.push('“');
                i += 2;
            }
            '\'' if chars.get(i + 1) == Some(&'\'') => {
                out.push('”');
                i += 2;
            }
            '-' if chars.get(i + 1) == Some(&'-') => {
                let em = chars.get(i + 2) == Some(&'-');
                out.push(if em { '—' } else { '–' });
                i += if em { 3 } else { 2 };
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// Write the macro at `chars[i]` (a backslash) as text; the index after it.
fn macro_at(chars: &[char], i: usize, out: &mut String) -> usize {
    let Some(&next) = chars.get(i + 1) else {
        return i + 1;
    };
    if !next.is_ascii_alphabetic() {
        let mut j = i + 2;
        match next {
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => out.push(next),
            '\\' | ',' | ';' | ' ' | ':' | '!' => out.push(' '),
            _ => match accent(next) {
                Some(mark) => {
                    let (letter, after) = argument(chars, j);
                    let mut base = String::new();
                    write_text(&letter, &mut base);
                    out.push_str(&base);
                    out.push(mark);
                    j = after;
                }
                None => out.push(next),
            },
        }
        return j;
    }
    let mut j = i + 1;
    while chars.get(j).is_some_and(char::is_ascii_alphabetic) {
        j += 1;
    }
    let name: String = chars[i + 1..j].iter().collect();
    if let Some(symbol) = symbol(&name) {
        out.push_str(symbol);
        return skip_blank_after_word_macro(chars, j);
    }
    if let Some(mark) = name
        .chars()
        .next()
        .and_then(accent)
        .filter(|_| name.len() == 1)
    {
        // `\c{c}`, `\v{s}`, `\u{g}`: letter accents.
        let (letter, after) = argument(chars, skip_spaces(chars, j));
        let mut base = String::new();
        write_text(&letter, &mut base);
        out.push_str(&base);
        out.push(mark);
        return after;
    }
    // A macro with an argument reads as its argument (`\emph{word}`); one
    // without is dropped (`\relax`, `\noopsort`'s kin).
    if chars.get(j) == Some(&'{') {
        let (arg, after) = argument(chars, j);
        if name == "noopsort" {
            return after;
        }
        write_text(&arg, out);
        return after;
    }
    skip_blank_after_word_macro(chars, j)
}

/// A word macro eats the spaces after it (`\ss e` is "ße").
fn skip_blank_after_word_macro(chars: &[char], j: usize) -> usize {
    if chars.get(j) == Some(&'{') && chars.get(j + 1) == Some(&'}') {
        return j + 2;
    }
    skip_spaces(chars, j)
}

fn skip_spaces(chars: &[char], mut j: usize) -> usize {
    while chars.get(j) == Some(&' ') {
        j += 1;
    }
    j
}

/// The argument at `chars[j]`: a braced group, or one character.
fn argument(chars: &[char], j: usize) -> (Vec<char>, usize) {
    if chars.get(j) != Some(&'{') {
        return (
            chars.get(j).copied().into_iter().collect(),
            (j + 1).min(chars.len()),
        );
    }
    let mut depth = 0;
    for (k, c) in chars.iter().enumerate().skip(j) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return (chars[j + 1..k].to_vec(), k + 1);
                }
            }
            _ => {}
        }
    }
    (chars[j + 1..].to_vec(), chars.len())
}

/// The combining mark of an accent macro.
fn accent(c: char) -> Option<char> {
    Some(match c {
        '`' => '\u{300}',
        '\'' => '\u{301}',
        '^' => '\u{302}',
        '~' => '\u{303}',
        '=' => '\u{304}',
        'u' => '\u{306}',
        '.' => '\u{307}',
        '"' => '\u{308}',
        'r' => '\u{30A}',
        'H' => '\u{30B}',
        'v' => '\u{30C}',
        'd' => '\u{323}',
        'c' => '\u{327}',
        'k' => '\u{328}',
        _ => return None,
    })
}

/// The text of a symbol macro.
fn symbol(name: &str) -> Option<&'static str> {
    const GREEK: [(&str, &str); 34] = [
        ("alpha", "α"),
        ("beta", "β"),
        ("gamma", "γ"),
        ("delta", "δ"),
        ("epsilon", "ε"),
        ("varepsilon", "ε"),
        ("zeta", "ζ"),
        ("eta", "η"),
        ("theta", "θ"),
        ("iota", "ι"),
        ("kappa", "κ"),
        ("lambda", "λ"),
        ("mu", "μ"),
        ("nu", "ν"),
        ("xi", "ξ"),
        ("pi", "π"),
        ("rho", "ρ"),
        ("sigma", "σ"),
        ("tau", "τ"),
        ("upsilon", "υ"),
        ("phi", "φ"),
        ("varphi", "φ"),
        ("chi", "χ"),
        ("psi", "ψ"),
        ("omega", "ω"),
        ("Gamma", "Γ"),
        ("Delta", "Δ"),
        ("Theta", "Θ"),
        ("Lambda", "Λ"),
        ("Sigma", "Σ"),
        ("Phi", "Φ"),
        ("Psi", "Ψ"),
        ("Omega", "Ω"),
        ("Pi", "Π"),
    ];
    const OTHER: [(&str, &str); 24] = [
        ("ss", "ß"),
        ("ae", "æ"),
        ("AE", "Æ"),
        ("oe", "œ"),
        ("OE", "Œ"),
        ("aa", "å"),
        ("AA", "Å"),
        ("o", "ø"),
        ("O", "Ø"),
        ("l", "ł"),
        ("L", "Ł"),
        ("i", "ı"),
        ("textendash", "–"),
        ("textemdash", "—"),
        ("ldots", "…"),
        ("dots", "…"),
        ("pm", "±"),
        ("times", "×"),
        ("leq", "≤"),
        ("geq", "≥"),
        ("le", "≤"),
        ("ge", "≥"),
        ("textregistered", "®"),
        ("texttrademark", "™"),
    ];
    GREEK
        .iter()
        .chain(OTHER.iter())
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latex_reads_as_the_text_it_prints() {
        assert_eq!(
            to_text(r#"{\"U}ber die {Entwicklung}"#),
            "Über die Entwicklung"
        );
        assert_eq!(to_text(r#"T{\"u}rkmen"#), "Türkmen");
        assert_eq!(
            to_text(r"\emph{In vivo} effects of \textit{Drosophila}"),
            "In vivo effects of Drosophila"
        );
        assert_eq!(to_text("des 11.~Jahrhunderts"), "des 11. Jahrhunderts");
        assert_eq!(to_text("{{Title}}"), "Title");
        assert_eq!(to_text(r"$\beta$-blockers \& ACE"), "β-blockers & ACE");
        assert_eq!(
            to_text(r"Pages 10--20, ``quoted'' --- so"),
            "Pages 10–20, “quoted” — so"
        );
        assert_eq!(
            to_text(r"Fran\c{c}ois Ho\v{s}ek Gro\ss e"),
            "François Hošek Große"
        );
        assert_eq!(to_text(r#"Caf\'e na\"ive"#), "Café naïve");
    }
}
