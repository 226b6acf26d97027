// The app opened on one review from the recent list, as a researcher comes
// back to it, and that review run to its results: what the tests of a
// review's screens start from.

import { act } from "preact/test-utils";

import { App } from "../app/App";
import { type FakePlatform, newReview } from "./fakePlatform";
import { mountInto, settle } from "./render";

/** Mount the app in `host` with the review at `root` (three new papers) in
 * the recent list, and open it. */
export async function openRecentReview(host: HTMLElement, platform: FakePlatform, root: string) {
  const id = root.split("/").pop() ?? root;
  platform.workspaces = [
    {
      id,
      root,
      title: id,
      source: `/papers/${id}`,
      question: null,
      status: "new",
      createdAt: "2026-11-30T12:00:00Z",
      updatedAt: "2026-11-30T12:00:00Z",
      paperCount: 3,
      duplicateCount: 0,
    },
  ];
  platform.reviews.set(root, newReview(root, id, `/papers/${id}`));
  await mountInto(host, <App platform={platform} />);
  await act(() => {
    (host.querySelector("[data-testid=recent-open]") as HTMLElement).click();
  });
  await settle();
  await settle();
}

/** The review at `root` opened, asked a question and run offline to its
 * results: p1 included (8), p2 excluded (3), p3 maybe (5). */
export async function reviewedToResults(host: HTMLElement, platform: FakePlatform, root: string) {
  await openRecentReview(host, platform, root);
  await act(() => {
    const q = host.querySelector("[data-testid=question]") as HTMLTextAreaElement;
    q.value = "How are query plans optimised?";
    q.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await act(() => {
    (host.querySelector("[data-testid=start]") as HTMLElement).click();
  });
  await settle();
  platform.runEvent(root, { type: "runStarted", runId: "r1", engine: "offline", papers: 3 });
  platform.finishRun(root, { p1: 8, p2: 3, p3: 5 });
  await settle();
  await settle();
}
