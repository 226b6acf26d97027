// The review's flow as a PRISMA 2020 diagram: identification, screening,
// included, with the exclusions beside each step (automation apart from the
// researcher, as PRISMA asks). The counts are the report's own (review_flow).

import type { Flow, OtherMethodsFlow, Platform } from "../../platform";
import { Modal } from "./Modal";
import { count } from "./format";
import { useLoaded } from "./useLoaded";

function Box({ title, n, testId, children }: { title: string; n: number; testId: string; children?: preact.ComponentChildren }) {
  return (
    <div class="prisma__box" data-testid={testId}>
      <p class="prisma__title">{title}</p>
      <p class="prisma__n">n = {count(n)}</p>
      {children}
    </div>
  );
}

/** PRISMA 2020's "identification via other methods" column: citation searching. */
function OtherMethods({ c }: { c: OtherMethodsFlow }) {
  return (
    <section class="prisma__other" data-testid="prisma-other-methods" aria-label="Identification via other methods">
      <p class="prisma__stage">Identification via other methods: citation searching</p>
      <div class="prisma__row">
        <Box title="Records from citation searching" n={c.identified} testId="prisma-citations-identified">
          <p class="prisma__detail">Already in the review (any version): {count(c.duplicates)}</p>
        </Box>
        <Box title="Screened on title and abstract" n={c.screened} testId="prisma-citations-screened">
          <p class="prisma__detail">Excluded: {count(c.excluded)}</p>
        </Box>
      </div>
      <div class="prisma__row">
        <Box title="Reports sought for retrieval" n={c.sought} testId="prisma-citations-sought">
          <p class="prisma__detail">Not retrieved (no full text attached): {count(c.notRetrieved)}</p>
          {c.notRetrievedReasons.length > 0 && (
            <ul class="prisma__reasons">
              {c.notRetrievedReasons.map((r) => (
                <li key={r.reason}>
                  {r.reason}: {count(r.papers)}
                </li>
              ))}
            </ul>
          )}
          <p class="prisma__detail">Assessed for eligibility (full text): {count(c.assessed)}</p>
        </Box>
        <Box title="Included" n={c.included} testId="prisma-citations-included" />
      </div>
    </section>
  );
}

export function FlowDiagram({ flow }: { flow: Flow }) {
  const unreadable = flow.unreadable.reduce((n, u) => n + u.papers, 0);
  const byCitation = flow.citations.identified - flow.citations.duplicates;
  return (
    <div class="prisma" role="img" aria-label="PRISMA 2020 flow diagram">
      <p class="prisma__stage">Identification</p>
      <div class="prisma__row">
        {flow.fromDatabases + byCitation === 0 ? (
          <Box title="Records identified (files found)" n={flow.identified} testId="prisma-identified" />
        ) : (
          <Box title="Records identified" n={flow.identified} testId="prisma-identified">
            <p class="prisma__detail">From databases (search exports): {count(flow.fromDatabases)}</p>
            <p class="prisma__detail">From files (PDFs): {count(flow.identified - flow.fromDatabases - byCitation)}</p>
            {byCitation > 0 && <p class="prisma__detail">From citation searching, new to the review: {count(byCitation)}</p>}
            <p class="prisma__detail" data-testid="prisma-full-text">
              Records with full text attached: {count(flow.withFullText)}
              {flow.keptWithoutFullText > 0 && ` (kept, still without: ${count(flow.keptWithoutFullText)})`}
            </p>
          </Box>
        )}
        <Box title="Removed before screening" n={flow.duplicates + unreadable} testId="prisma-removed">
          <p class="prisma__detail">
            Duplicates (identical files or records{flow.setAside > 0 ? `; ${count(flow.setAside)} set aside by you as copies` : ""}):{" "}
            {count(flow.duplicates)}
          </p>
          <p class="prisma__detail">Could not be read: {count(unreadable)}</p>
          {flow.unreadable.length > 0 && (
            <ul class="prisma__reasons">
              {flow.unreadable.map((u) => (
                <li key={u.reason}>
                  {u.reason}: {count(u.papers)}
                </li>
              ))}
            </ul>
          )}
        </Box>
      </div>
      <p class="prisma__stage">Screening</p>
      <div class="prisma__row">
        <Box title="Records screened" n={flow.screened} testId="prisma-screened" />
        <Box title="Records excluded" n={flow.excludedByAutomation + flow.excludedByResearcher} testId="prisma-excluded">
          <p class="prisma__detail">By automation (the engine, unchecked): {count(flow.excludedByAutomation)}</p>
          <p class="prisma__detail">By the researcher: {count(flow.excludedByResearcher)}</p>
          {flow.reasons.length > 0 && (
            <ul class="prisma__reasons">
              {flow.reasons.map((r) => (
                <li key={r.reason}>
                  {r.reason}: {count(r.papers)}
                </li>
              ))}
            </ul>
          )}
        </Box>
      </div>
      <div class="prisma__row">
        <Box title="Awaiting a decision" n={flow.maybe + flow.notScored} testId="prisma-awaiting">
          <p class="prisma__detail">Maybe: {count(flow.maybe)}</p>
          <p class="prisma__detail">
            Not scored: {count(flow.notScored)}
            {flow.stale > 0 && ` (${count(flow.stale)} read under earlier inputs, awaiting a new reading)`}
          </p>
        </Box>
      </div>
      <p class="prisma__stage">Included</p>
      <div class="prisma__row">
        <Box title="Studies included" n={flow.included} testId="prisma-included">
          <p class="prisma__detail">Labelled include by the researcher: {count(flow.includedByResearcher)}</p>
        </Box>
      </div>
      {flow.citations.identified > 0 && <OtherMethods c={flow.citations} />}
      <p class="muted prisma__note">
        The researcher's label decides a paper over the engine's verdict; {count(flow.labelled)} labelled. Exclusions
        by automation are the engine's, unchecked, as PRISMA 2020 asks them to be reported apart.
      </p>
    </div>
  );
}

export function PrismaFlow({ platform, workspace, onClose }: { platform: Platform; workspace: string; onClose: () => void }) {
  const { value: flow, error } = useLoaded(() => platform.reviewFlow(workspace), workspace);
  return (
    <Modal title="Flow of papers (PRISMA 2020)" testId="prisma-flow" closeTestId="prisma-close" onClose={onClose}>
      <div class="overlay__scroll">
        {error !== null ? (
          <p class="form-error" role="alert">
            {error}
          </p>
        ) : flow === null ? (
          <p class="muted">Counting…</p>
        ) : (
          <FlowDiagram flow={flow} />
        )}
      </div>
    </Modal>
  );
}
