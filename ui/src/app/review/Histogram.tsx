// Scores of the papers shown, in ten bins from 0 to 10 (counted by Quire
// over every paper the filters let through, not only the rows in view).

export function Histogram({ bins }: { bins: readonly number[] }) {
  const max = Math.max(...bins, 1);
  const total = bins.reduce((a, b) => a + b, 0);
  return (
    <figure class="histogram" data-testid="histogram">
      <div class="histogram__bars" role="img" aria-label={`Scores of ${total} papers, in bins from 0 to 10`}>
        {bins.map((n, i) => (
          <div key={i} class="histogram__bin" title={`${n} with score ${i}–${i + 1}`}>
            <div class={`histogram__bar histogram__bar--${i >= 6.5 ? "include" : i >= 4 ? "maybe" : "exclude"}`} style={{ height: `${(n / max) * 100}%` }} />
          </div>
        ))}
      </div>
      <figcaption class="histogram__axis">
        <span>0</span>
        <span>score</span>
        <span>10</span>
      </figcaption>
    </figure>
  );
}
