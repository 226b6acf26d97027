export interface DropZoneProps {
  dragging: boolean;
  /** The path being opened, while it is. */
  opening: string | null;
  onChoose: () => void;
}

/** The window-wide drop target's visible part. The OS delivers drops to the
 * whole window; this shows where to aim and reacts while a drag is over it. */
export function DropZone({ dragging, opening, onChoose }: DropZoneProps) {
  const classes = ["dropzone", dragging ? "dropzone--active" : "", opening !== null ? "dropzone--busy" : ""];
  return (
    <section class={classes.join(" ").trim()} data-testid="dropzone" aria-busy={opening !== null}>
      <svg class="dropzone__icon" viewBox="0 0 48 48" aria-hidden="true">
        <path d="M6 14a4 4 0 0 1 4-4h9l4 5h15a4 4 0 0 1 4 4v17a4 4 0 0 1-4 4H10a4 4 0 0 1-4-4z" />
        <path class="dropzone__arrow" d="M24 21v12m-5-5 5 5 5-5" />
      </svg>
      {opening === null ? (
        <>
          <h1 class="dropzone__title">{dragging ? "Release to open" : "Drop a folder of PDFs"}</h1>
          <p class="dropzone__hint">
            Quire finds every PDF inside, sub-folders included, and sets up a review for them. Or drop a database
            search's export (.ris, .nbib, .bib, .csv) to screen its records on title and abstract.
          </p>
          <button type="button" class="button button--primary" onClick={onChoose}>
            Open folder…
          </button>
        </>
      ) : (
        <>
          <h1 class="dropzone__title">Opening…</h1>
          <p class="dropzone__hint dropzone__path" title={opening}>
            {opening}
          </p>
        </>
      )}
    </section>
  );
}
