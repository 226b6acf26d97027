// The review's protocol beside the estimate: how the question and each
// criterion will be judged and what the scores mean. The model drafts it, the
// researcher edits and approves it, and no paper is read before that; every
// paper is then read by the approved text.

import { useEffect, useState } from "preact/hooks";

import { type Platform, type ProtocolVersion, type ProtocolView, QuireError } from "../../platform";

export interface ProtocolPanelProps {
  platform: Platform;
  workspace: string;
  question: string;
  criteria: string[];
  /** The profile that drafts. */
  profile: string | null;
  /** The approval in force for this question and criteria, as it changes. */
  onApproved: (approved: ProtocolVersion | null) => void;
}

/** Who wrote a version, in words. */
export function authorship(version: ProtocolVersion): string {
  switch (version.origin) {
    case "drafted":
      return `drafted by ${version.model ?? "the model"}`;
    case "template":
      return "Quire's template";
    case "researcher":
      return "your text";
  }
}

/** How long to wait after the last keystroke in the question before asking. */
const SETTLE_MS = 300;

export function ProtocolPanel({ platform, workspace, question, criteria, profile, onApproved }: ProtocolPanelProps) {
  const [view, setView] = useState<ProtocolView | null>(null);
  const [text, setText] = useState("");
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState<"draft" | "approve" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const criteriaKey = criteria.join("\n");

  const show = (next: ProtocolView) => {
    setView(next);
    setText(next.draft?.text ?? next.approved?.text ?? "");
    setEditing(next.draft !== null);
    onApproved(next.approved);
  };

  useEffect(() => {
    onApproved(null);
    setView(null);
    if (question.trim() === "") return;
    let current = true;
    const timer = setTimeout(() => {
      platform.protocol({ workspace, question, criteria }).then(
        (next) => {
          if (current) show(next);
        },
        (raw: unknown) => {
          if (current) setError(QuireError.from(raw).describe());
        },
      );
    }, SETTLE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
    // criteriaKey stands for criteria: a new array each render, the same lines.
  }, [platform, workspace, question, criteriaKey]);

  const act = async (what: "draft" | "approve") => {
    setBusy(what);
    setError(null);
    try {
      const params = { workspace, question, criteria, profile };
      show(what === "draft" ? await platform.draftProtocol(params) : await platform.approveProtocol({ ...params, text }));
    } catch (raw) {
      setError(QuireError.from(raw).describe());
    } finally {
      setBusy(null);
    }
  };

  if (question.trim() === "") return null;
  const approved = view?.approved ?? null;
  const draft = view?.draft ?? null;
  const pilots = view?.pilots.reduce((n, p) => n + p.papers.length, 0) ?? 0;
  const changed = approved !== null && text.trim() !== approved.text.trim();
  return (
    <section class="protocol" data-testid="protocol" aria-labelledby="protocol-title">
      <h2 id="protocol-title" class="section-title">
        Protocol
        <span class="section-title__note">Every paper is read and judged by this text; none is read before you approve it.</span>
      </h2>
      <p class={`protocol__status${approved !== null && !editing ? " protocol__status--approved" : ""}`} data-testid="protocol-status">
        {view === null
          ? "Looking for this question's protocol…"
          : editing && draft !== null
            ? `Draft (${authorship(draft)}), not approved yet: edit it if need be, then approve it.`
            : editing
              ? "Editing the approved protocol: approving the change reads every paper again by the new text."
              : approved !== null
                ? `Approved ${approved.at.slice(0, 10)} · version ${approved.hash} · ${authorship(approved)}${pilots > 0 ? ` · a pilot read ${pilots} ${pilots === 1 ? "paper" : "papers"}` : ""}`
                : "No protocol yet for this question. The model drafts one from the question and criteria (one short call)."}
      </p>
      {draft?.note != null && editing && <p class="field__hint">{draft.note}</p>}
      {(editing || approved !== null) && (
        <textarea
          class="field__input protocol__text"
          data-testid="protocol-text"
          aria-label="Protocol text"
          rows={12}
          readOnly={!editing}
          value={text}
          onInput={(e) => {
            setText(e.currentTarget.value);
          }}
        />
      )}
      {error !== null && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="protocol__actions">
        {view !== null && (approved === null || editing) && (
          <button type="button" class="button" data-testid="protocol-draft" disabled={busy !== null} onClick={() => void act("draft")}>
            {busy === "draft" ? "Drafting…" : draft === null && approved === null ? "Draft protocol" : "Draft again"}
          </button>
        )}
        {approved !== null && !editing && (
          <button
            type="button"
            class="button"
            data-testid="protocol-edit"
            onClick={() => {
              setEditing(true);
            }}
          >
            Edit
          </button>
        )}
        {editing && draft === null && approved !== null && (
          <button
            type="button"
            class="button button--ghost"
            onClick={() => {
              setText(approved.text);
              setEditing(false);
            }}
          >
            Keep the approved text
          </button>
        )}
        {editing && (
          <button
            type="button"
            class="button button--primary"
            data-testid="protocol-approve"
            disabled={busy !== null || text.trim() === "" || (draft === null && !changed)}
            onClick={() => void act("approve")}
          >
            {busy === "approve" ? "Approving…" : "Approve protocol"}
          </button>
        )}
      </div>
    </section>
  );
}
