//! A search run again: a newer export of a search already in the review is
//! matched against the records the earlier export brought, so a living
//! review keeps its labels. A record is the same record, changed or not,
//! when it has the same database accession number, else PMID, DOI or
//! arXiv id, else title, year and first author (the keys
//! [`crate::records::duplicates`] finds works by). A matched record keeps
//! its paper (labels, notes, full text); its readings go only if what it
//! says (title and abstract) changed. Earlier records the newer export does
//! not hold left the search: kept and listed, never deleted.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use super::imports::work_of;
use crate::records::duplicates::Known;
use crate::workspace::{PaperId, PaperRecord};

/// The records an earlier export of a search brought, as a newer export
/// of it is read: those not yet found in it, and their keys.
pub(super) struct EarlierSearch {
    /// Earlier records the newer export has not matched yet.
    unmatched: BTreeSet<PaperId>,
    by_accession: HashMap<String, PaperId>,
    by_work: Known,
    /// The paper of each owner index `by_work` gives.
    owners: Vec<PaperId>,
}

impl EarlierSearch {
    /// The records of `known` that the export at `source` brought (a
    /// Zotero item or a citation found is matched by its own id and is
    /// not among them); none when it brought none.
    pub(super) fn of(known: &BTreeMap<PaperId, PaperRecord>, source: &Path) -> Option<Self> {
        let mut earlier = Self {
            unmatched: BTreeSet::new(),
            by_accession: HashMap::new(),
            by_work: Known::new(),
            owners: Vec::new(),
        };
        for paper in known.values().filter(|p| p.file == source) {
            let Some(imported) = &paper.imported else {
                continue;
            };
            if imported.zotero.is_some() || imported.citation.is_some() {
                continue;
            }
            earlier.unmatched.insert(paper.id.clone());
            if let Some(accession) = &imported.accession {
                earlier
                    .by_accession
                    .entry(accession.to_lowercase())
                    .or_insert_with(|| paper.id.clone());
            }
            earlier.by_work.add(&work_of(paper), earlier.owners.len());
            earlier.owners.push(paper.id.clone());
        }
        (!earlier.unmatched.is_empty()).then_some(earlier)
    }

    /// The newer export holds the earlier record `id` word for word:
    /// whether `id` is one of the earlier records not matched yet.
    pub(super) fn found_as_it_was(&mut self, id: &PaperId) -> bool {
        self.unmatched.remove(id)
    }

    /// The earlier record `fresh` (a record of the newer export, read as a
    /// paper) is a newer version of, if one not matched yet has its keys.
    pub(super) fn earlier_version_of(&mut self, fresh: &PaperRecord) -> Option<PaperId> {
        let by_accession = fresh
            .imported
            .as_ref()
            .and_then(|i| i.accession.as_ref())
            .and_then(|a| self.by_accession.get(&a.to_lowercase()));
        let id = by_accession
            .or_else(|| {
                let (owner, _) = self.by_work.find(&work_of(fresh))?;
                self.owners.get(owner)
            })
            .filter(|id| self.unmatched.contains(*id))?
            .clone();
        self.unmatched.remove(&id);
        Some(id)
    }

    /// The earlier records the newer export does not hold.
    pub(super) fn left(self) -> BTreeSet<PaperId> {
        self.unmatched
    }
}
