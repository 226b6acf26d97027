import type { WorkspaceSummary } from "../platform";
import { STATUS_LABELS, paperCounts, relativeTime } from "./format";

export interface RecentReviewsProps {
  /** null while loading. */
  workspaces: WorkspaceSummary[] | null;
  notice: string | null;
  highlightId: string | null;
  onOpen: (root: string) => void;
}

export function RecentReviews({ workspaces, notice, highlightId, onOpen }: RecentReviewsProps) {
  return (
    <section class="recent" aria-labelledby="recent-title">
      <h2 id="recent-title" class="recent__title">
        Recent reviews
      </h2>
      {notice !== null && <p class="recent__notice">{notice}</p>}
      {workspaces === null ? (
        <p class="recent__loading">Loading…</p>
      ) : workspaces.length === 0 ? (
        <div class="empty" data-testid="recent-empty">
          <p class="empty__title">No reviews yet</p>
          <p class="empty__text">
            Drop a folder of papers above to start your first one. Each folder becomes a review you can come back to
            here.
          </p>
        </div>
      ) : (
        <ul class="recent__list" data-testid="recent-list">
          {workspaces.map((w) => (
            <li
              key={w.id}
              class={w.id === highlightId ? "review review--new" : "review"}
              data-workspace-id={w.id}
              data-testid="recent-item"
            >
              <div class="review__main">
                <button
                  type="button"
                  class="review__open"
                  data-testid="recent-open"
                  onClick={() => {
                    onOpen(w.root);
                  }}
                >
                  {w.title}
                </button>
                {w.question !== null && <span class="review__question">{w.question}</span>}
                <span class="review__source" title={w.source ?? w.root}>
                  {w.source ?? w.root}
                </span>
              </div>
              <div class="review__meta">
                <span class="review__count">{paperCounts(w.paperCount, w.duplicateCount)}</span>
                <span class={`badge badge--${w.status}`}>{STATUS_LABELS[w.status] ?? w.status}</span>
                <time class="review__time" dateTime={w.updatedAt} title={w.updatedAt}>
                  {relativeTime(w.updatedAt)}
                </time>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
