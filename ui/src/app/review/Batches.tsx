// Running a question's or a fill's model calls as a batch: the choice, with
// where each provider keeps the papers' text said before it is made, and
// each batch as last polled while and after it runs.

import { batchLine } from "./format";

/** A batch of calls as last polled. */
export interface BatchState {
  status: string;
  completed: number;
  failed: number;
  total: number;
}

/** Batches by shard. */
export type BatchStates = Record<string, BatchState>;

/** `states` with a batch's progress event applied. */
export function withBatch(states: BatchStates, p: { shard: string } & BatchState): BatchStates {
  const { shard, status, completed, failed, total } = p;
  return { ...states, [shard]: { status, completed, failed, total } };
}

/** Where a batch sends the papers, said before it is chosen. */
const BATCH_TERMS =
  "The papers' calls go through the model's Batch API (OpenAI-compatible or Anthropic): about half the price, answered within 24 hours; stopped or closed, it takes its batches up again. The papers' text stays with the provider longer than an ordinary call's: OpenAI keeps it as files under its terms for stored files, Anthropic with the batch for up to 29 days, until Quire has the answers and deletes it there.";

export interface BatchChoiceProps {
  checked: boolean;
  busy: boolean;
  onChange: (checked: boolean) => void;
  /** `<testid>` on the box, `<testid>-hint` on the terms. */
  testid: string;
}

/** "Run as a batch (cheaper, slower)", with the terms once it is ticked. */
export function BatchChoice({ checked, busy, onChange, testid }: BatchChoiceProps) {
  return (
    <>
      <label class="pilot__choice" title={BATCH_TERMS}>
        <input
          type="checkbox"
          data-testid={testid}
          checked={checked}
          disabled={busy}
          onChange={(e) => {
            onChange(e.currentTarget.checked);
          }}
        />
        <span>Run as a batch (cheaper, slower)</span>
      </label>
      {checked && !busy && (
        <small class="field__hint" data-testid={`${testid}-hint`}>
          {BATCH_TERMS}
        </small>
      )}
    </>
  );
}

/** Each batch in a line; nothing when there is none. */
export function BatchList({ batches, testid }: { batches: BatchStates; testid: string }) {
  if (Object.keys(batches).length === 0) return null;
  return (
    <>
      <h3 class="subhead">Batches</h3>
      <ul class="activity" data-testid={testid}>
        {Object.entries(batches).map(([shard, b]) => (
          <li key={shard} class="activity__item">
            {batchLine(shard, b)}
          </li>
        ))}
      </ul>
    </>
  );
}
