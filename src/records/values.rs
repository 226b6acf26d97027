//! Field values as exports write them, made into what a [`super::Record`]
//! holds: whitespace collapsed, a year found in a date however it is
//! written ("2021//", "2004 Mar", "Spring 2019"), a DOI found in a link,
//! a list parted where its writer parted it.

/// `s` with its runs of whitespace made one space, or `None` when blank.
pub fn tidy(s: &str) -> Option<String> {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    (!s.is_empty()).then_some(s)
}

/// The first plausible year in `s`: four digits standing alone (not part
/// of a longer number such as a page or an id), from 1000 to 2999.
pub fn year_in(s: &str) -> Option<i32> {
    let bytes = s.as_bytes();
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    (0..bytes.len().saturating_sub(3)).find_map(|i| {
        let alone = (i == 0 || !digit(i - 1)) && !digit(i + 4);
        let four = (i..i + 4).all(digit);
        let year: i32 = if alone && four {
            s[i..i + 4].parse().ok()?
        } else {
            return None;
        };
        (1000..3000).contains(&year).then_some(year)
    })
}

/// The DOI in `s`: the whole value when it is one, or the DOI a link
/// (`https://doi.org/10.…`, `…/doi/10.…`) or a note carries; lowercased.
pub fn doi_in(s: &str) -> Option<String> {
    if let Some(doi) = super::normalize_doi(s) {
        return Some(doi.split_whitespace().next()?.to_owned());
    }
    let lower = s.to_lowercase();
    let start = lower
        .find("doi.org/10.")
        .map(|i| i + "doi.org/".len())
        .or_else(|| lower.find("/doi/10.").map(|i| i + "/doi/".len()))?;
    let doi: String = lower[start..]
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, '"' | '<' | '>'))
        .collect();
    Some(doi.trim_end_matches(['.', ',', ';', ')']).to_owned()).filter(|d| d.contains('/'))
}

/// The items of a list written in one value ("a; b", "a, b"), parted at
/// semicolons when it has any, else at commas.
pub fn list_in(s: &str) -> Vec<String> {
    let sep = if s.contains(';') { ';' } else { ',' };
    s.split(sep).filter_map(tidy).collect()
}

/// An arXiv id without its `arXiv:` prefix and version: "arXiv:2101.00001v2"
/// → "2101.00001".
pub fn arxiv_without_version(id: &str) -> String {
    let id = id.trim_start_matches("arXiv:");
    match id.rfind('v') {
        Some(v) if v > 0 && id[v + 1..].chars().all(|c| c.is_ascii_digit()) && v + 1 < id.len() => {
            id[..v].to_owned()
        }
        _ => id.to_owned(),
    }
}

/// The Scopus EID in a Scopus link (`…record.uri?eid=2-s2.0-85148468240&…`).
pub fn scopus_eid_in(url: &str) -> Option<String> {
    let (_, after) = url.split_once("eid=")?;
    let eid: String = after
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'))
        .collect();
    eid.starts_with("2-s2.0-").then_some(eid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_year_is_found_however_the_date_is_written() {
        assert_eq!(year_in("2021//"), Some(2021));
        assert_eq!(year_in("2004 Mar 15"), Some(2004));
        assert_eq!(year_in("Spring 2019"), Some(2019));
        assert_eq!(year_in("12345 2008"), Some(2008));
        assert_eq!(year_in("n.d."), None);
        assert_eq!(year_in("0999"), None);
    }

    #[test]
    fn a_doi_is_found_in_a_link_or_a_note() {
        assert_eq!(doi_in("10.1000/ABC").as_deref(), Some("10.1000/abc"));
        assert_eq!(
            doi_in("https://dx.doi.org/10.1016/j.x.2020.01.002").as_deref(),
            Some("10.1016/j.x.2020.01.002")
        );
        assert_eq!(
            doi_in("https://onlinelibrary.wiley.com/doi/10.1002/jcpp.12345.").as_deref(),
            Some("10.1002/jcpp.12345")
        );
        assert_eq!(doi_in("http://ovidsp.ovid.com/?T=JS&PAGE=fulltext"), None);
    }

    #[test]
    fn a_list_parts_where_its_writer_parted_it() {
        assert_eq!(
            list_in("ADHD; children, adolescents"),
            ["ADHD", "children, adolescents"]
        );
        assert_eq!(list_in("ADHD, children"), ["ADHD", "children"]);
    }
}
