//! A citation graph for the scholarly fixture's OpenAlex: works with their
//! references, answered as OpenAlex answers them in 2026. A work by id
//! (`/works/W…`) or DOI is a free singleton with its `referenced_works`,
//! `cited_by_count` and `best_oa_location`; an id merged into another work
//! answers 301 to the work it became; lists (`filter=openalex:W1|W2`, at most
//! 100 ids, and `filter=cites:W…`) are paged by `page` and `per-page` (at most
//! 100, and no further than the 10,000th work), priced a tenth of a cent; a
//! `cursor` without a key answers 401, as OpenAlex does since February 2026.

use serde_json::json;

use crate::scholar::Work;

/// An open-access location: (PDF URL, host or host type, version,
/// licence). A URL starting with `/` is the fixture's own (`/files/…`).
pub type OaLocation = (String, String, String, Option<String>);

/// A work of the graph.
#[derive(Clone, Debug, Default)]
pub struct GraphWork {
    /// `W…`.
    pub id: String,
    pub work: Work,
    pub pmid: Option<String>,
    /// The ids it cites (some may be merged ids).
    pub references: Vec<String>,
    /// An id OpenAlex merged into this one: asked for, it redirects here.
    pub merged_from: Vec<String>,
    /// Its best open-access location.
    pub open_copy: Option<OaLocation>,
}

/// The works OpenAlex holds.
#[derive(Clone, Debug, Default)]
pub struct CitationGraph {
    pub works: Vec<GraphWork>,
}

/// What to answer.
pub struct Reply {
    pub status: u16,
    pub location: Option<String>,
    pub body: serde_json::Value,
}

/// Whether the request is a paid list (a filter over the graph).
pub fn is_list(route: &str, filter: Option<&str>) -> bool {
    route == "works" && filter.is_some()
}

impl CitationGraph {
    fn by_id(&self, id: &str) -> Option<&GraphWork> {
        self.works.iter().find(|w| w.id.eq_ignore_ascii_case(id))
    }

    fn merged(&self, id: &str) -> Option<&GraphWork> {
        self.works
            .iter()
            .find(|w| w.merged_from.iter().any(|m| m.eq_ignore_ascii_case(id)))
    }

    /// The work's current id and the ids merged into it.
    fn names(&self, work: &GraphWork) -> Vec<String> {
        std::iter::once(work.id.clone())
            .chain(work.merged_from.iter().cloned())
            .collect()
    }

    fn cited_by(&self, work: &GraphWork) -> Vec<&GraphWork> {
        let names = self.names(work);
        self.works
            .iter()
            .filter(|w| w.references.iter().any(|r| names.contains(r)))
            .collect()
    }

    /// The singleton `/works/{id}` or `/works/doi:{doi}`; none when the
    /// graph does not hold it (the fixture's other works may).
    pub fn singleton(&self, route: &str, query: &str, base: &str) -> Option<Reply> {
        let key = route.strip_prefix("works/")?;
        if let Some(doi) = key.strip_prefix("doi:") {
            let work = self.works.iter().find(|w| {
                w.work
                    .doi
                    .as_deref()
                    .is_some_and(|d| d.eq_ignore_ascii_case(doi))
            })?;
            return Some(ok(self.json(work, base)));
        }
        if let Some(work) = self.by_id(key) {
            return Some(ok(self.json(work, base)));
        }
        let work = self.merged(key)?;
        let query = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        Some(Reply {
            status: 301,
            location: Some(format!("/openalex/works/{}{query}", work.id)),
            body: json!({"redirect": work.id}),
        })
    }

    /// A list: `filter=openalex:…` or `filter=cites:…`, paged.
    pub fn list(&self, filter: &str, query: &str, keyed: bool, base: &str) -> Reply {
        let number =
            |name: &str| crate::scholar::param(query, name).and_then(|v| v.parse::<usize>().ok());
        let per_page = number("per-page").or(number("per_page")).unwrap_or(25);
        let page = number("page").unwrap_or(1);
        if crate::scholar::param(query, "cursor").is_some() && !keyed {
            return error(
                401,
                "Cursor paging needs an API key. Get a free key at https://openalex.org/settings/api",
            );
        }
        if !(1..=100).contains(&per_page) {
            return error(400, "per-page must be between 1 and 100");
        }
        if page * per_page > 10_000 {
            return error(
                400,
                "Maximum results size of 10,000 records is exceeded. Use cursor paging.",
            );
        }
        let matched: Vec<&GraphWork> = if let Some(ids) = filter.strip_prefix("openalex:") {
            let ids: Vec<&str> = ids.split('|').collect();
            if ids.len() > 100 {
                return error(400, "Too many values in an OR filter: at most 100");
            }
            // A merged id matches nothing: its work is under its new id.
            self.works
                .iter()
                .filter(|w| ids.iter().any(|i| w.id.eq_ignore_ascii_case(i)))
                .collect()
        } else if let Some(id) = filter.strip_prefix("cites:") {
            match self.by_id(id).or(self.merged(id)) {
                Some(work) => self.cited_by(work),
                None => Vec::new(),
            }
        } else {
            return error(
                400,
                &format!("this fixture filters by openalex: or cites:, not {filter}"),
            );
        };
        let results: Vec<serde_json::Value> = matched
            .iter()
            .skip((page - 1) * per_page)
            .take(per_page)
            .map(|w| self.json(w, base))
            .collect();
        ok(json!({
            "meta": {"count": matched.len(), "db_response_time_ms": 9, "page": page, "per_page": per_page, "groups_count": null},
            "results": results,
            "group_by": []
        }))
    }

    fn json(&self, w: &GraphWork, base: &str) -> serde_json::Value {
        let mut body = crate::scholar::openalex_work(&w.work);
        let arxiv_location = w.work.arxiv.as_ref().map(|id| {
            json!({"is_oa": true, "landing_page_url": format!("https://arxiv.org/abs/{id}"),
                   "pdf_url": format!("https://arxiv.org/pdf/{id}"), "source": {"display_name": "arXiv (Cornell University)"},
                   "license": null, "version": "submittedVersion"})
        });
        let best = w.open_copy.as_ref().map(|(pdf, host, version, licence)| {
            let pdf = own_url(pdf, base);
            json!({"is_oa": true, "landing_page_url": pdf, "pdf_url": pdf,
                   "source": {"display_name": host, "host_organization_name": host, "type": "repository"},
                   "license": licence, "license_id": licence.as_ref().map(|l| format!("https://openalex.org/licenses/{l}")),
                   "version": version, "is_accepted": true, "is_published": version == "publishedVersion"})
        });
        let Some(object) = body.as_object_mut() else {
            return body;
        };
        object.insert("id".into(), json!(format!("https://openalex.org/{}", w.id)));
        object.insert(
            "ids".into(),
            json!({"openalex": format!("https://openalex.org/{}", w.id),
                   "doi": w.work.doi.as_ref().map(|d| format!("https://doi.org/{d}")),
                   "pmid": w.pmid.as_ref().map(|p| format!("https://pubmed.ncbi.nlm.nih.gov/{p}"))}),
        );
        object.insert(
            "referenced_works".into(),
            json!(
                w.references
                    .iter()
                    .map(|r| format!("https://openalex.org/{r}"))
                    .collect::<Vec<_>>()
            ),
        );
        object.insert("referenced_works_count".into(), json!(w.references.len()));
        object.insert("cited_by_count".into(), json!(self.cited_by(w).len()));
        object.insert(
            "locations".into(),
            json!(arxiv_location.iter().collect::<Vec<_>>()),
        );
        object.insert(
            "best_oa_location".into(),
            best.clone().unwrap_or(serde_json::Value::Null),
        );
        object.insert(
            "open_access".into(),
            json!({"is_oa": best.is_some(), "oa_status": if best.is_some() { "green" } else { "closed" },
                   "oa_url": w.open_copy.as_ref().map(|c| own_url(&c.0, base)), "any_repository_has_fulltext": best.is_some()}),
        );
        body
    }
}

/// A fixture path as a URL of the fixture at `base` (`http://127.0.0.1:N`).
pub fn own_url(url: &str, base: &str) -> String {
    if url.starts_with('/') {
        format!("{base}{url}")
    } else {
        url.to_owned()
    }
}

fn ok(body: serde_json::Value) -> Reply {
    Reply {
        status: 200,
        location: None,
        body,
    }
}

fn error(status: u16, message: &str) -> Reply {
    Reply {
        status,
        location: None,
        body: json!({"error": "Invalid query parameters", "message": message}),
    }
}
