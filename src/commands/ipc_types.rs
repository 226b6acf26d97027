//! The TypeScript types of everything that crosses the IPC boundary, generated
//! from the Rust structs (ts-rs, test builds only) into
//! `ui/src/platform/generated/ipc.ts`. The test fails when the file differs
//! from what the structs say, so the UI's types cannot drift from the commands'.
//! After changing a type, `QUIRE_WRITE_IPC_TYPES=1 cargo test ipc_types` writes
//! the file again.

use std::path::Path;

use ts_rs::{Config, TS};

use super::asks::AskParams;
use super::error::{CommandError, ErrorKind};
use super::metadata::MetaSetParams;
use super::models::{ActiveModel, ModelListing, ModelProfileSaveParams, ModelSetup, ProfileView};
use super::openalex::{OpenAlexKeyParams, OpenAlexStatus};
use super::protocol::{ProtocolParams, ProtocolView};
use super::records::{AttachParams, ImportParams, SetAsideParams};
use super::review_rows::{
    LabelFilter, PaperCounts, ReadersFilter, RowQuery, RowsPage, SortKey, StatusFilter,
    VerdictFilter,
};
use super::review_view::{
    ExportWritten, PaperDetail, PaperLabelParams, PaperMetaParams, PaperRow, ReviewState,
    ReviewView, SearchExport,
};
use super::reviews::{LabelParams, LookupChoice, ReviewLaunchParams};
use super::screening::ScreeningParams;
use super::snowball::{CopiesParams, FetchParams, SnowballParams};
use super::table::{ColumnsParams, CorrectParams, FillParams};
use super::validation::{ToLabel, ValidateParams, ValidationView};
use super::workspaces::{WorkspaceCreateParams, WorkspaceListResponse};
use super::zotero::{
    ZoteroCollections, ZoteroKeyParams, ZoteroKeyStatus, ZoteroLocalAccess, ZoteroOpenParams,
    ZoteroOpened, ZoteroPushParams, ZoteroRead,
};
use crate::agent::{PaperPhase, RunEvent};
use crate::index::WorkspaceRow;
use crate::llm::{ModelSettings, Protocol};
use crate::records::citations::{Calls as SnowballCalls, Seed as SnowballSeed};
use crate::review::ask::estimate::Estimate as WorkEstimate;
use crate::review::ask::run::Progress as AskProgress;
use crate::review::ask::{
    AskRecord, Coverage as AskCoverage, Mode as AskMode, Scope as AskScope, Source as AskSource,
    Status as AskStatus,
};
use crate::review::batches::Progress as BatchProgress;
use crate::review::dual::Policy as DualPolicy;
use crate::review::estimate::{Estimate, PolicySpend, Spend};
use crate::review::failures::PaperFailure;
use crate::review::fulltext::{Attachment, FullTextSummary, Unmatched};
use crate::review::imports::{
    DuplicateGroup, DuplicateMember, FileImport, ImportProgress, ImportSummary, LeftRecord,
};
use crate::review::labels::Label;
use crate::review::outputs::ExportFormat;
use crate::review::protocol::{
    Event as ProtocolEvent, Origin as ProtocolOrigin, Pilot as ProtocolPilot,
    Version as ProtocolVersion,
};
use crate::review::queue::{Basis, CurvePoint, QueueItem, ScreeningView, StoppingView};
use crate::review::report::prisma::{Flow, OtherMethods as OtherMethodsFlow, Reason, Unreadable};
use crate::review::snowball::copies::{CopyOffer, FetchOutcome, Retrieval};
use crate::review::snowball::{Plan as SnowballPlan, RoundSummary as SnowballRound};
use crate::review::table::fill::{FillOutcome, FillProgress};
use crate::review::table::{Cell, Column, Kind as ColumnKind, ShownCell, TableRow, TableView};
use crate::review::validation::{
    Assessment, Confusion, Cutoffs, MoreLabels, RaiseRefused, Range, RecallEstimate, Support,
};
use crate::review::zotero_push::PushSummary as ZoteroPushSummary;
use crate::review_model::{
    CriterionOutcome, CriterionVerdict, EngineKind, FrontMatter, PaperResult, Provenance, Quote,
    Verdict,
};
use crate::scholar::Allowance;
use crate::workspace::{
    Author, CitationFound, Direction, FoundVia, ImportedFrom, MetaField, OpenCopy, Origin,
    PaperMeta, ZoteroItem,
};
use crate::zotero::{Collection as ZoteroCollection, Library as ZoteroLibrary, Via as ZoteroVia};

const GENERATED: &str = "ui/src/platform/generated/ipc.ts";

/// One exported declaration, with the Rust doc comment as its JSDoc.
fn declaration<T: TS + 'static + ?Sized>() -> String {
    // serde_json writes every integer as a JSON number, which the UI reads as
    // a `number` (exact below 2^53, far above any count or token total here);
    // ts-rs would type 64-bit integers as `bigint`, which JSON never carries.
    let config = Config::new().with_large_int("number");
    let decl = T::decl(&config);
    match T::docs() {
        Some(docs) => format!("{docs}export {decl}\n"),
        None => format!("export {decl}\n"),
    }
}

/// The whole generated file: every type a command takes or returns, and the
/// types they name.
fn generated() -> String {
    let declarations = [
        // The review model.
        declaration::<EngineKind>(),
        declaration::<Verdict>(),
        declaration::<Quote>(),
        declaration::<CriterionOutcome>(),
        declaration::<CriterionVerdict>(),
        declaration::<Provenance>(),
        declaration::<FrontMatter>(),
        declaration::<PaperResult>(),
        // A paper's record and the researcher's layers over it.
        declaration::<Author>(),
        declaration::<MetaField>(),
        declaration::<Origin>(),
        declaration::<PaperMeta>(),
        declaration::<Label>(),
        declaration::<PaperFailure>(),
        // Opening a review.
        declaration::<WorkspaceRow>(),
        declaration::<WorkspaceListResponse>(),
        declaration::<WorkspaceCreateParams>(),
        declaration::<ReviewState>(),
        declaration::<PaperRow>(),
        declaration::<PaperCounts>(),
        declaration::<VerdictFilter>(),
        declaration::<StatusFilter>(),
        declaration::<LabelFilter>(),
        declaration::<ReadersFilter>(),
        declaration::<SortKey>(),
        declaration::<RowQuery>(),
        declaration::<RowsPage>(),
        declaration::<SearchExport>(),
        declaration::<ReviewView>(),
        declaration::<PaperDetail>(),
        // Running one.
        declaration::<LookupChoice>(),
        declaration::<ReviewLaunchParams>(),
        declaration::<Spend>(),
        declaration::<DualPolicy>(),
        declaration::<PolicySpend>(),
        declaration::<Estimate>(),
        declaration::<crate::review::estimate::BatchPrice>(),
        declaration::<ProtocolOrigin>(),
        declaration::<ProtocolEvent>(),
        declaration::<ProtocolVersion>(),
        declaration::<ProtocolPilot>(),
        declaration::<ProtocolView>(),
        declaration::<ProtocolParams>(),
        declaration::<PaperPhase>(),
        declaration::<RunEvent>(),
        // What the researcher changes.
        declaration::<LabelParams>(),
        declaration::<PaperLabelParams>(),
        declaration::<MetaSetParams>(),
        declaration::<PaperMetaParams>(),
        declaration::<ExportFormat>(),
        declaration::<Unreadable>(),
        declaration::<Reason>(),
        declaration::<OtherMethodsFlow>(),
        declaration::<Flow>(),
        declaration::<ExportWritten>(),
        // Search records in.
        declaration::<ImportedFrom>(),
        declaration::<ImportParams>(),
        declaration::<LeftRecord>(),
        declaration::<FileImport>(),
        declaration::<DuplicateMember>(),
        declaration::<DuplicateGroup>(),
        declaration::<ImportSummary>(),
        declaration::<ImportProgress>(),
        declaration::<AttachParams>(),
        declaration::<SetAsideParams>(),
        declaration::<Attachment>(),
        declaration::<Unmatched>(),
        declaration::<FullTextSummary>(),
        // The screening queue.
        declaration::<ScreeningParams>(),
        declaration::<Basis>(),
        declaration::<QueueItem>(),
        declaration::<CurvePoint>(),
        declaration::<ScreeningView>(),
        declaration::<StoppingView>(),
        // Asking the papers.
        declaration::<AskScope>(),
        declaration::<AskMode>(),
        declaration::<AskStatus>(),
        declaration::<AskSource>(),
        declaration::<AskCoverage>(),
        declaration::<AskRecord>(),
        declaration::<AskParams>(),
        declaration::<WorkEstimate>(),
        declaration::<BatchProgress>(),
        declaration::<AskProgress>(),
        // The extraction table.
        declaration::<ColumnKind>(),
        declaration::<Column>(),
        declaration::<Cell>(),
        declaration::<ShownCell>(),
        declaration::<TableRow>(),
        declaration::<TableView>(),
        declaration::<FillOutcome>(),
        declaration::<FillProgress>(),
        declaration::<ColumnsParams>(),
        declaration::<FillParams>(),
        declaration::<CorrectParams>(),
        // Screening validation.
        declaration::<Cutoffs>(),
        declaration::<Confusion>(),
        declaration::<Range>(),
        declaration::<RecallEstimate>(),
        declaration::<MoreLabels>(),
        declaration::<RaiseRefused>(),
        declaration::<Support>(),
        declaration::<Assessment>(),
        declaration::<ToLabel>(),
        declaration::<ValidationView>(),
        declaration::<ValidateParams>(),
        // The model settings.
        declaration::<Protocol>(),
        declaration::<ModelSettings>(),
        declaration::<crate::llm::settings::PoolEndpoint>(),
        declaration::<crate::llm::discovery::EndpointCheck>(),
        declaration::<ActiveModel>(),
        declaration::<ProfileView>(),
        declaration::<ModelSetup>(),
        declaration::<Allowance>(),
        declaration::<OpenAlexStatus>(),
        declaration::<OpenAlexKeyParams>(),
        declaration::<ZoteroItem>(),
        declaration::<ZoteroLibrary>(),
        declaration::<ZoteroCollection>(),
        declaration::<ZoteroVia>(),
        declaration::<ZoteroCollections>(),
        declaration::<ZoteroOpenParams>(),
        declaration::<ZoteroRead>(),
        declaration::<ZoteroOpened>(),
        declaration::<ZoteroKeyStatus>(),
        declaration::<ZoteroKeyParams>(),
        declaration::<ZoteroPushParams>(),
        declaration::<ZoteroPushSummary>(),
        declaration::<ZoteroLocalAccess>(),
        // Citation searching.
        declaration::<Direction>(),
        declaration::<FoundVia>(),
        declaration::<OpenCopy>(),
        declaration::<CitationFound>(),
        declaration::<SnowballSeed>(),
        declaration::<SnowballCalls>(),
        declaration::<SnowballPlan>(),
        declaration::<SnowballRound>(),
        declaration::<SnowballParams>(),
        declaration::<CopiesParams>(),
        declaration::<FetchParams>(),
        declaration::<CopyOffer>(),
        declaration::<Retrieval>(),
        declaration::<FetchOutcome>(),
        declaration::<ModelProfileSaveParams>(),
        declaration::<ModelListing>(),
        // Errors.
        declaration::<ErrorKind>(),
        declaration::<CommandError>(),
    ];
    format!(
        "// Generated from the Rust types by `src/commands/ipc_types.rs`; do not edit.\n\
         // After changing a type: QUIRE_WRITE_IPC_TYPES=1 cargo test ipc_types\n\n{}",
        declarations.join("\n")
    )
}

#[test]
fn ipc_types_match_the_rust_structs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GENERATED);
    let expected = generated();
    if std::env::var_os("QUIRE_WRITE_IPC_TYPES").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &expected).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == expected,
        "{GENERATED} differs from the Rust types it is generated from; \
         run `QUIRE_WRITE_IPC_TYPES=1 cargo test ipc_types` and commit the file"
    );
}
