// What a run may spend: the caps the researcher sets ("stop after tokens",
// "stop after cost") and, for asking or filling the table, the estimate of
// what it would read and spend before anything is. One form for the review,
// the Ask box and the table, so a cap reads the same everywhere.

import { useState } from "preact/hooks";

import { QuireError, type WorkEstimate } from "../../platform";
import { plural } from "../format";
import { cost, count } from "./format";

/** The caps as typed: empty means no limit. */
export interface CapsText {
  maxTokens: string;
  maxCost: string;
}

export const NO_CAPS: CapsText = { maxTokens: "", maxCost: "" };

/** A positive number typed in a field, or null for empty or not a number. */
export function numberOrNull(text: string): number | null {
  const n = Number(text.trim());
  return text.trim() === "" || !Number.isFinite(n) || n <= 0 ? null : n;
}

/**
 * A cap typed in a field: empty is no limit; anything else must be a
 * positive number, else the run is refused with the reason (0 or a typo is
 * never read as "no limit").
 */
function capOf(text: string, what: string): number | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const n = Number(trimmed);
  if (!Number.isFinite(n) || n <= 0) {
    throw new QuireError("invalid_input", "bad_cap", `the ${what} cap "${trimmed}" is not a positive number; leave it empty for no limit`);
  }
  return n;
}

/** The caps as a command takes them; throws on a cap that is not one. */
export function capsParams(caps: CapsText): { maxTokens: number | null; maxCostUsd: number | null } {
  const tokens = capOf(caps.maxTokens, "token");
  if (tokens !== null && tokens < 1) {
    throw new QuireError("invalid_input", "bad_cap", `the token cap "${caps.maxTokens.trim()}" is less than one token`);
  }
  return { maxTokens: tokens === null ? null : Math.floor(tokens), maxCostUsd: capOf(caps.maxCost, "cost") };
}

export function CapsFields({ caps, onChange }: { caps: CapsText; onChange: (caps: CapsText) => void }) {
  return (
    <div class="setup__caps">
      <label class="field field--inline">
        <span class="field__label">Stop after tokens</span>
        <input
          class="field__input"
          data-testid="cap-tokens"
          inputMode="numeric"
          value={caps.maxTokens}
          placeholder="no limit"
          onInput={(e) => {
            onChange({ ...caps, maxTokens: e.currentTarget.value });
          }}
        />
      </label>
      <label class="field field--inline">
        <span class="field__label">Stop after cost (USD)</span>
        <input
          class="field__input"
          data-testid="cap-cost"
          inputMode="decimal"
          value={caps.maxCost}
          placeholder="no limit"
          onInput={(e) => {
            onChange({ ...caps, maxCost: e.currentTarget.value });
          }}
        />
      </label>
      <p class="muted setup__caps-note">Caps count this run; resuming a stopped run counts from zero again.</p>
    </div>
  );
}

/** "12 papers to read (3 answered before, free) · 14 calls · about 210,000
 * tokens in and 7,000 out · $0.42". */
export function estimateLine(e: WorkEstimate): string {
  if (e.papers === 0 && e.calls === 0) {
    return e.reused > 0 ? `Nothing new to read: all ${plural(e.reused, "paper")} were read before.` : "No paper to read.";
  }
  const reused = e.reused > 0 ? ` (${count(e.reused)} read before, free)` : "";
  return (
    `${plural(e.papers, "paper")} to read${reused} · ${plural(e.calls, "model call")} · ` +
    `about ${count(e.inputTokens)} tokens in and ${count(e.outputTokens)} out · ${cost(e.costUsd)}`
  );
}

/** An estimate being made, made, or not (yet, or any more). */
export interface Estimating {
  estimate: WorkEstimate | null;
  busy: boolean;
  /** The estimate is stale: what it was made for changed, or was spent. */
  clear: () => void;
  /** Make it; resolves to the error when it failed, else null. */
  run: (make: () => Promise<WorkEstimate>) => Promise<QuireError | null>;
}

export function useEstimate(): Estimating {
  const [estimate, setEstimate] = useState<WorkEstimate | null>(null);
  const [busy, setBusy] = useState(false);
  return {
    estimate,
    busy,
    clear: () => {
      setEstimate(null);
    },
    run: async (make) => {
      setBusy(true);
      try {
        setEstimate(await make());
        return null;
      } catch (raw) {
        return QuireError.from(raw);
      } finally {
        setBusy(false);
      }
    },
  };
}

/** The caps, an "Estimate" button and what the estimate said. */
export function SpendControls({
  caps,
  onCaps,
  estimating,
  onEstimate,
  disabled,
  batch,
}: {
  caps: CapsText;
  onCaps: (caps: CapsText) => void;
  estimating: Estimating;
  onEstimate: () => void;
  disabled: boolean;
  /** Run as a batch: the estimate says that price too. */
  batch?: boolean;
}) {
  const { estimate, busy } = estimating;
  return (
    <div class="spend">
      <CapsFields caps={caps} onChange={onCaps} />
      <button type="button" class="button button--small" data-testid="spend-estimate" disabled={disabled || busy} onClick={onEstimate}>
        {busy ? "Estimating…" : "Estimate cost"}
      </button>
      {estimate !== null && (
        <p class="muted spend__line" data-testid="spend-line" role="status">
          {estimateLine(estimate)}
        </p>
      )}
      {estimate !== null && batch === true && estimate.calls > 0 && (
        <p class="muted spend__line" data-testid="spend-batch">
          As a batch: {cost(estimate.batch.costUsd)}, answered within {estimate.batch.waitHours} hours a round (re-asks take one more)
        </p>
      )}
    </div>
  );
}
