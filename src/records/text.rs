//! An export file's bytes as text. Databases and reference managers write
//! UTF-8, UTF-8 with a byte-order mark, UTF-16 with one (EndNote and Excel
//! on Windows), or Windows-1252 (older Windows tools); and end lines with
//! LF, CRLF or a lone CR (classic Mac exports). Every one of them is read
//! into one string with `\n` line ends; a guess is said, never hidden.

use encoding_rs::{UTF_16BE, UTF_16LE, WINDOWS_1252};

/// A file's text, and what was assumed to read it.
#[derive(Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The text, with `\n` line ends and no byte-order mark.
    pub text: String,
    /// Said when the encoding was a guess (no mark, not UTF-8).
    pub notice: Option<String>,
}

/// How many leading bytes are looked at for the signs of UTF-16 without a
/// mark (every other byte zero) or of a binary file (any zero byte).
const SNIFF: usize = 4096;

/// The text of `bytes`, or `None` for what is no text (a PDF, an image, a
/// spreadsheet: zero bytes in a file that is not UTF-16).
pub fn decode(bytes: &[u8]) -> Option<Decoded> {
    let (text, notice) = if let Some(rest) = bytes.strip_prefix(b"\xef\xbb\xbf") {
        (String::from_utf8_lossy(rest).into_owned(), None)
    } else if let Some(rest) = bytes.strip_prefix(b"\xff\xfe") {
        (
            UTF_16LE.decode_without_bom_handling(rest).0.into_owned(),
            None,
        )
    } else if let Some(rest) = bytes.strip_prefix(b"\xfe\xff") {
        (
            UTF_16BE.decode_without_bom_handling(rest).0.into_owned(),
            None,
        )
    } else if let Ok(text) = std::str::from_utf8(bytes) {
        if text.contains('\0') {
            unmarked_utf16(bytes)?
        } else {
            (text.to_owned(), None)
        }
    } else if bytes[..bytes.len().min(SNIFF)].contains(&0) {
        unmarked_utf16(bytes)?
    } else {
        let (text, _, _) = WINDOWS_1252.decode(bytes);
        let notice = "the file is not UTF-8; it was read as Windows-1252 (Western European): check accented names and symbols, or export it again as UTF-8";
        (text.into_owned(), Some(notice.to_owned()))
    };
    Some(Decoded {
        text: with_newlines(&text),
        notice,
    })
}

/// UTF-16 written without a byte-order mark, told by its zero bytes falling
/// on one side of each pair (ASCII text in UTF-16); else no text.
fn unmarked_utf16(bytes: &[u8]) -> Option<(String, Option<String>)> {
    let head = &bytes[..bytes.len().min(SNIFF) & !1];
    let zeros_at = |parity: usize| {
        head.iter()
            .skip(parity)
            .step_by(2)
            .filter(|b| **b == 0)
            .count()
    };
    let pairs = head.len() / 2;
    let (even, odd) = (zeros_at(0), zeros_at(1));
    let mostly = |n: usize| pairs > 0 && n * 10 >= pairs * 9;
    let encoding = if mostly(odd) && even == 0 {
        UTF_16LE
    } else if mostly(even) && odd == 0 {
        UTF_16BE
    } else {
        return None;
    };
    let notice = format!(
        "the file has no byte-order mark; it was read as {} by its zero bytes",
        encoding.name()
    );
    let text = encoding.decode_without_bom_handling(bytes).0.into_owned();
    Some((text, Some(notice)))
}

/// `text` with every CRLF and lone CR made `\n`.
fn with_newlines(text: &str) -> String {
    if !text.contains('\r') {
        return text.to_owned();
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str, little: bool, mark: bool) -> Vec<u8> {
        let mut bytes = Vec::new();
        if mark {
            bytes.extend(if little { [0xff, 0xfe] } else { [0xfe, 0xff] });
        }
        for unit in text.encode_utf16() {
            bytes.extend(if little {
                unit.to_le_bytes()
            } else {
                unit.to_be_bytes()
            });
        }
        bytes
    }

    #[test]
    fn every_encoding_a_tool_writes_reads_as_the_same_text() {
        let text = "TY  - JOUR\nAU  - Müller, Jürgen\nER  - \n";
        let plain = decode(text.as_bytes()).unwrap();
        assert_eq!(plain.text, text);
        assert_eq!(plain.notice, None);
        let marked = [b"\xef\xbb\xbf".as_slice(), text.as_bytes()].concat();
        assert_eq!(decode(&marked).unwrap().text, text);
        for little in [true, false] {
            let read = decode(&utf16(text, little, true)).unwrap();
            assert_eq!(read.text, text);
            assert_eq!(read.notice, None);
            let read = decode(&utf16(text, little, false)).unwrap();
            assert_eq!(read.text, text);
            assert!(read.notice.unwrap().contains("UTF-16"));
        }
        let (cp1252, _, _) = WINDOWS_1252.encode(text);
        let read = decode(&cp1252).unwrap();
        assert_eq!(read.text, text);
        assert!(read.notice.unwrap().contains("Windows-1252"));
    }

    #[test]
    fn any_line_end_is_a_line_end() {
        let read = decode(b"TY  - JOUR\rTI  - One\rER  - \r\rTY  - JOUR\r\nER  - ").unwrap();
        assert_eq!(
            read.text,
            "TY  - JOUR\nTI  - One\nER  - \n\nTY  - JOUR\nER  - "
        );
    }

    #[test]
    fn a_binary_file_is_no_text() {
        assert_eq!(decode(b"%PDF-1.4\n\x00\x01\x02\xff\xfe\x93binary"), None);
        assert_eq!(decode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), None);
    }
}
