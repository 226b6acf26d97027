// The review shapes that cross the IPC boundary, generated from the Rust types
// (quire::commands::review_view, quire::review, quire::agent::events) into
// ./generated/ipc.ts; here under the names the UI uses.

export type {
  CriterionOutcome,
  Assessment,
  Confusion,
  CriterionVerdict,
  Cutoffs,
  DualPolicy,
  EngineKind,
  Estimate,
  ExportFormat,
  ExportWritten,
  Flow,
  FrontMatter,
  Label,
  LookupChoice,
  MetaField,
  Origin,
  PaperDetail,
  PaperFailure,
  PaperMeta,
  PaperPhase,
  PaperResult,
  PaperRow,
  PolicySpend,
  Proportion,
  ProtocolParams,
  ProtocolVersion,
  ProtocolView,
  Provenance,
  Quote,
  ReviewState,
  Reason,
  ReviewView,
  RunEvent,
  Spend,
  StoppingRule,
  ToLabel,
  Unreadable,
  ValidateParams,
  ValidationView,
  Verdict,
} from "./generated/ipc";

/** What starting a review sends. */
export type { ReviewLaunchParams as ReviewLaunch } from "./generated/ipc";
