// How an agent review reads its papers, beside the protocol: a pilot on a
// few papers first, and a second independent reading under a policy; and
// the estimate of what each choice costs before anything is spent.

import { type DualPolicy, type Estimate, type Platform } from "../../platform";
import { cost, count, duration } from "./format";
import { useLoaded } from "./useLoaded";

/** Each dual-reading policy, as the form offers it. */
const POLICIES: { value: DualPolicy; label: string }[] = [
  { value: "agree-to-exclude", label: "exclude only when both readings exclude" },
  { value: "tie-breaker", label: "a third reading decides a disagreement" },
  { value: "flag", label: "leave disagreements to me, as maybe" },
];

export interface ReadingChoicesProps {
  platform: Platform;
  /** The profile that reads first: not offered as the second. */
  firstProfile: string | null;
  pilot: { on: boolean; size: string };
  onPilot: (on: boolean, size: string) => void;
  dual: DualPolicy | null;
  secondProfile: string | null;
  onDual: (policy: DualPolicy | null, secondProfile: string | null) => void;
  /** Send the readings through the model's Batch API. */
  batch: boolean;
  onBatch: (on: boolean) => void;
}

export function ReadingChoices({
  platform,
  firstProfile,
  pilot,
  onPilot,
  dual,
  secondProfile,
  onDual,
  batch,
  onBatch,
}: ReadingChoicesProps) {
  const profiles = useLoaded(() => platform.modelSetup().then((s) => s.profiles.map((p) => p.name)), "profiles");
  return (
    <>
      <div class="pilot">
        <label class="pilot__choice">
          <input
            type="checkbox"
            data-testid="batch"
            checked={batch}
            onChange={(e) => {
              onBatch(e.currentTarget.checked);
            }}
          />
          <span>Run as a batch (cheaper, slower)</span>
        </label>
        <small class="field__hint" data-testid="batch-hint">
          Readings go through the model&rsquo;s Batch API (OpenAI-compatible or Anthropic): about half the price,
          answered within 24 hours; you can close Quire meanwhile. The papers&rsquo; text stays with the provider longer
          than an ordinary call&rsquo;s: OpenAI keeps it as files under its terms for stored files, Anthropic with the
          batch for up to 29 days, until Quire has the answers and deletes it there. Check those terms before sending
          unpublished work.
        </small>
      </div>
      <div class="pilot">
        <label class="pilot__choice">
          <input
            type="checkbox"
            data-testid="pilot"
            checked={pilot.on}
            onChange={(e) => {
              onPilot(e.currentTarget.checked, pilot.size);
            }}
          />
          <span>Pilot first on</span>
        </label>
        <input
          class="field__input pilot__size"
          data-testid="pilot-size"
          aria-label="Papers in the pilot"
          inputMode="numeric"
          value={pilot.size}
          disabled={!pilot.on}
          onInput={(e) => {
            onPilot(pilot.on, e.currentTarget.value);
          }}
        />
        <span>papers, then stop to check how they were judged</span>
      </div>
      <div class="setup__caps">
        <label class="field field--inline">
          <span class="field__label">Read each paper</span>
          <select
            class="field__input"
            data-testid="dual"
            value={dual ?? "once"}
            onChange={(e) => {
              const value = e.currentTarget.value;
              onDual(value === "once" ? null : (value as DualPolicy), secondProfile);
            }}
          >
            <option value="once">once</option>
            {POLICIES.map((p) => (
              <option key={p.value} value={p.value}>
                twice: {p.label}
              </option>
            ))}
          </select>
        </label>
        {dual !== null && (
          <label class="field field--inline">
            <span class="field__label">Second reading by</span>
            <select
              class="field__input"
              data-testid="second-profile"
              value={secondProfile ?? ""}
              onChange={(e) => {
                onDual(dual, e.currentTarget.value === "" ? null : e.currentTarget.value);
              }}
            >
              <option value="">the same model, reading on its own</option>
              {(profiles.value ?? [])
                .filter((name) => name !== firstProfile)
                .map((name) => (
                  <option key={name} value={name}>
                    profile {name}
                  </option>
                ))}
            </select>
          </label>
        )}
      </div>
    </>
  );
}

/** What the run would take: papers, tokens, cost, time, and each dual-reading policy's calls and cost. */
export function EstimateList({ estimate, chosen }: { estimate: Estimate; chosen: DualPolicy | null }) {
  return (
    <dl class="estimate" data-testid="estimate">
      <div>
        <dt>Papers to read</dt>
        <dd>
          {count(estimate.toRead)} of {count(estimate.readable)}
        </dd>
      </div>
      <div>
        <dt>Tokens</dt>
        <dd>
          about {count(estimate.inputTokens)} in, {count(estimate.outputTokens)} out
        </dd>
      </div>
      <div>
        <dt>At most</dt>
        <dd title="If the model needs every retry and re-ask. Set a token cap to make it a hard limit.">
          {count(estimate.atMost.inputTokens)} in, {count(estimate.atMost.outputTokens)} out
        </dd>
      </div>
      <div class={chosen === null ? "estimate__chosen" : undefined}>
        <dt>Cost, each paper read once</dt>
        <dd>
          {cost(estimate.costUsd)}
          {estimate.costUsd !== null && estimate.atMost.costUsd !== null && <>, at most {cost(estimate.atMost.costUsd)}</>}
        </dd>
      </div>
      {estimate.policies.map((p) => (
        <div key={p.policy} class={p.policy === chosen ? "estimate__chosen" : undefined} data-testid={`estimate-${p.policy}`}>
          <dt>Read twice, {POLICIES.find((x) => x.value === p.policy)?.label ?? p.policy}</dt>
          <dd>
            {count(p.expected.readerCalls)} reader calls · {cost(p.expected.costUsd)}
            {p.expected.costUsd !== null && p.atMost.costUsd !== null && <>, at most {cost(p.atMost.costUsd)}</>}
          </dd>
        </div>
      ))}
      <div>
        <dt>Time</dt>
        <dd>
          about {duration(estimate.seconds)} ({count(estimate.serialRounds)} rounds, {estimate.concurrency} at once)
        </dd>
      </div>
      <div data-testid="estimate-batch">
        <dt>As a batch</dt>
        <dd>
          {cost(estimate.batch.costUsd)}, the readings answered within {estimate.batch.waitHours} hours a round (re-asks take one more)
        </dd>
      </div>
    </dl>
  );
}
