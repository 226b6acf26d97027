// Find more by citations: a round of citation searching planned before it
// runs (the seeds, ticked and untickable; which way; OpenAlex's calls and
// their cost against today's allowance; downloads none until approved), its
// outcome, then the open-access full text of the kept records, fetched only
// for the ones the researcher ticks.

import { useEffect, useState } from "preact/hooks";

import {
  type CopyOffer,
  type Direction,
  type FetchOutcome,
  type Platform,
  QuireError,
  type SnowballPlan,
  type SnowballRound,
  type SnowballSeed,
} from "../../platform";
import { Modal } from "./Modal";
import { count } from "./format";

export interface SnowballPanelProps {
  platform: Platform;
  root: string;
  /** Unpaywall's contact address (Settings), if any. */
  contact: string | null;
  /** The review changed (records added, full text attached). */
  onChanged: () => void;
  onClose: () => void;
}

const WAYS: { way: Direction; label: string }[] = [
  { way: "backward", label: "Backward: the works they cite" },
  { way: "forward", label: "Forward: the works citing them" },
];

/** Dollars as OpenAlex prices them: tenths of a cent matter. */
export function usd(value: number): string {
  return `$${value.toFixed(4)}`;
}

function seedLine(seed: SnowballSeed): string {
  if (seed.openalex === null) return `not followed: ${seed.notFollowed ?? "OpenAlex does not know it"}`;
  return `${seed.openalex}: ${count(seed.references)} references, cited by ${count(seed.citedBy)}`;
}

function PlanView({ plan }: { plan: SnowballPlan }) {
  const allowance = plan.allowance;
  return (
    <>
      <p data-testid="snowball-calls">
        Calls to OpenAlex: {count(plan.backwardCalls)} for references ({count(plan.references)} not in the review, 100 a
        call), {count(plan.forwardCalls)} for citing works ({count(plan.citing)}, 100 a page). Looking the seeds up was free.
      </p>
      <p data-testid="snowball-cost" class={plan.affordable === false ? "form-error" : undefined}>
        Cost: {usd(plan.costUsd)} at OpenAlex's prices
        {allowance !== null && `; ${usd(allowance.remainingUsd)} of ${usd(allowance.limitUsd)} left today`}
        {plan.affordable === false && ". Not enough is left: the round will stop when it runs out, keeping what it found"}.
      </p>
      {plan.notices.map((n) => (
        <p key={n} class="muted" data-testid="snowball-notice">
          {n}
        </p>
      ))}
    </>
  );
}

function RoundView({ round }: { round: SnowballRound }) {
  return (
    <div class="banner banner--info" role="status" data-testid="snowball-outcome">
      <p>
        Round {round.round}: {count(round.found)} works found, {count(round.added)} new to the review (now records to screen:{" "}
        {count(round.backward)} backward, {count(round.forward)} forward), {count(round.duplicates)} already in it.{" "}
        {count(round.openCopies)} with an open-access PDF listed, none downloaded.
      </p>
      <p class="muted">
        OpenAlex: {count(round.calls.list)} list calls, {count(round.calls.singleton)} free lookups, {usd(round.calls.costUsd)}.
        {!round.complete && " The round is incomplete."}
      </p>
      {round.notices.map((n) => (
        <p key={n}>{n}</p>
      ))}
    </div>
  );
}

function OfferLine({ offer, ticked, onTick }: { offer: CopyOffer; ticked: boolean; onTick: (on: boolean) => void }) {
  const pdf = offer.copy?.pdfUrl ?? null;
  const copy = offer.copy;
  return (
    <li data-testid="snowball-offer" data-paper={offer.paper}>
      <label>
        <input
          type="checkbox"
          checked={ticked}
          disabled={pdf === null}
          onChange={(e) => {
            onTick(e.currentTarget.checked);
          }}
        />{" "}
        {offer.title ?? offer.paper}
      </label>
      {pdf !== null && copy !== null ? (
        <p class="muted" data-testid="snowball-offer-copy">
          {copy.host ?? "unnamed host"} · {copy.version ?? "version not stated"} · licence {copy.licence ?? "not stated"} · from{" "}
          {offer.from ?? "?"}
        </p>
      ) : (
        <p class="muted">No PDF to fetch: {offer.noneBecause ?? "no open-access copy known"}</p>
      )}
      {offer.lastAttempt?.retrieved === false && <p class="muted">Last attempt: {offer.lastAttempt.reason}</p>}
    </li>
  );
}

export function SnowballPanel({ platform, root, contact, onChanged, onClose }: SnowballPanelProps) {
  const [seeds, setSeeds] = useState<SnowballSeed[] | null>(null);
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const [ways, setWays] = useState<Direction[]>(["backward", "forward"]);
  const [plan, setPlan] = useState<SnowballPlan | null>(null);
  const [round, setRound] = useState<SnowballRound | null>(null);
  const [busy, setBusy] = useState<string | null>("Asking OpenAlex about the seeds…");
  const [error, setError] = useState<string | null>(null);
  const [offers, setOffers] = useState<CopyOffer[] | null>(null);
  const [approved, setApproved] = useState<Set<string>>(new Set());
  const [fetched, setFetched] = useState<FetchOutcome[] | null>(null);

  const attempt = async (what: string, work: () => Promise<void>) => {
    setError(null);
    setBusy(what);
    try {
      await work();
    } catch (raw) {
      setError(QuireError.from(raw).message);
    } finally {
      setBusy(null);
    }
  };

  // The first plan: the default seeds, all ticked.
  useEffect(() => {
    void attempt("Asking OpenAlex about the seeds…", async () => {
      const first = await platform.snowballPlan(root, null, []);
      setSeeds(first.seeds);
      setTicked(new Set(first.seeds.filter((s) => s.openalex !== null).map((s) => s.paper)));
      setPlan(first);
    });
  }, [platform, root]);

  const replan = (chosen: Set<string>, directions: Direction[]) => {
    setTicked(chosen);
    setWays(directions);
    void attempt("Counting the calls…", async () => {
      setPlan(await platform.snowballPlan(root, [...chosen], directions));
    });
  };

  const following = ticked.size > 0 && ways.length > 0;

  const run = () => {
    void attempt("Searching citations…", async () => {
      const done = await platform.snowballRun(root, [...ticked], ways);
      setRound(done);
      setOffers(null);
      onChanged();
    });
  };

  const listCopies = () => {
    void attempt("Looking for open copies…", async () => {
      const found = await platform.snowballCopies(root, contact);
      setOffers(found);
      setApproved(new Set());
    });
  };

  const fetchApproved = () => {
    void attempt("Downloading…", async () => {
      const outcomes = await platform.snowballFetch(root, [...approved], contact);
      setFetched(outcomes);
      setOffers(await platform.snowballCopies(root, contact));
      setApproved(new Set());
      onChanged();
    });
  };

  return (
    <Modal title="Find more by citations" testId="snowball-panel" closeTestId="snowball-close" onClose={onClose}>
      <div class="overlay__scroll snowball">
        {error !== null && (
          <p class="form-error" role="alert" data-testid="snowball-error">
            {error}
          </p>
        )}
        <section data-testid="snowball-plan" aria-label="Plan">
          <h3>{plan === null ? "Plan" : `Round ${String(plan.round)}: the plan`}</h3>
          {seeds === null ? (
            <p class="muted">{busy}</p>
          ) : seeds.length === 0 ? (
            <p data-testid="snowball-no-seeds">
              No seed: every paper the review includes has been followed already, or none is included yet. Label papers
              include, then come back.
            </p>
          ) : (
            <>
              <p class="muted">Seeds: the papers the review includes that no round has followed yet. Untick one to leave it out.</p>
              <ul class="snowball__seeds">
                {seeds.map((seed) => (
                  <li key={seed.paper} data-testid="snowball-seed">
                    <label>
                      <input
                        type="checkbox"
                        checked={ticked.has(seed.paper)}
                        disabled={seed.openalex === null || busy !== null}
                        onChange={(e) => {
                          const next = new Set(ticked);
                          if (e.currentTarget.checked) next.add(seed.paper);
                          else next.delete(seed.paper);
                          replan(next, ways);
                        }}
                      />{" "}
                      {seed.title ?? seed.paper}
                    </label>
                    <span class="muted"> {seedLine(seed)}</span>
                  </li>
                ))}
              </ul>
              <fieldset class="snowball__ways">
                {WAYS.map(({ way, label }) => (
                  <label key={way}>
                    <input
                      type="checkbox"
                      data-testid={`snowball-way-${way}`}
                      checked={ways.includes(way)}
                      disabled={busy !== null}
                      onChange={(e) => {
                        const next = e.currentTarget.checked ? [...ways, way] : ways.filter((w) => w !== way);
                        replan(ticked, next);
                      }}
                    />{" "}
                    {label}
                  </label>
                ))}
              </fieldset>
              {plan !== null && following && <PlanView plan={plan} />}
              <p data-testid="snowball-downloads">Downloads: none until you approve them, below.</p>
              <button
                type="button"
                class="button"
                data-testid="snowball-run"
                disabled={!following || busy !== null}
                onClick={run}
              >
                {busy === "Searching citations…" ? busy : "Search citations"}
              </button>
            </>
          )}
        </section>
        {round !== null && <RoundView round={round} />}
        <section data-testid="snowball-copies" aria-label="Open-access full text">
          <h3>Open-access full text</h3>
          <p class="muted">
            For the records found by citation searching that the review keeps (include or maybe) without full text. Each
            download is yours to approve; a downloaded PDF becomes its record's full text, read by the next run.
          </p>
          <button type="button" class="button button--small" data-testid="snowball-list-copies" disabled={busy !== null} onClick={listCopies}>
            {offers === null ? "List open copies" : "List again"}
          </button>
          {fetched !== null && (
            <ul class="snowball__fetched" data-testid="snowball-fetched">
              {fetched.map((o) => (
                <li key={o.paper} data-testid="snowball-fetched-item" data-retrieved={o.retrieval.retrieved ? "true" : "false"}>
                  {o.title ?? o.paper}: {o.retrieval.retrieved ? "downloaded, now its full text" : `not retrieved: ${o.retrieval.reason ?? "?"}`}
                </li>
              ))}
            </ul>
          )}
          {offers !== null && offers.length === 0 && <p data-testid="snowball-no-offers">No kept record is waiting for full text.</p>}
          {offers !== null && offers.length > 0 && (
            <>
              <ul class="snowball__offers">
                {offers.map((offer) => (
                  <OfferLine
                    key={offer.paper}
                    offer={offer}
                    ticked={approved.has(offer.paper)}
                    onTick={(on) => {
                      const next = new Set(approved);
                      if (on) next.add(offer.paper);
                      else next.delete(offer.paper);
                      setApproved(next);
                    }}
                  />
                ))}
              </ul>
              <button
                type="button"
                class="button"
                data-testid="snowball-fetch"
                disabled={approved.size === 0 || busy !== null}
                onClick={fetchApproved}
              >
                {busy === "Downloading…" ? busy : `Download ${count(approved.size)} approved`}
              </button>
            </>
          )}
        </section>
      </div>
    </Modal>
  );
}
