// Prompt tokens per step for each agent: the line Quire keeps flat however
// long a run goes, because every prompt is rebuilt from the workspace.

import type { PromptSeries } from "./runView";
import { count } from "./format";

const WIDTH = 360;
const HEIGHT = 120;
const PAD = 28;

export function TokenChart({ series }: { series: readonly PromptSeries[] }) {
  const points = series.flatMap((s) => s.points);
  if (points.length === 0) {
    return <p class="chart__empty">Prompt sizes appear here once an agent takes its first step.</p>;
  }
  const maxTokens = Math.max(...points.map((p) => p.tokens), 1);
  const maxIndex = Math.max(...series.map((s) => s.points.length - 1), 1);
  const x = (i: number) => PAD + (i / maxIndex) * (WIDTH - PAD - 8);
  const y = (tokens: number) => HEIGHT - 18 - (tokens / maxTokens) * (HEIGHT - 30);
  return (
    <figure class="chart" data-testid="token-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label="Prompt tokens per step, per agent">
        <line class="chart__axis" x1={PAD} y1={HEIGHT - 18} x2={WIDTH - 8} y2={HEIGHT - 18} />
        <text class="chart__tick" x={2} y={y(maxTokens) + 4}>
          {count(maxTokens)}
        </text>
        <text class="chart__tick" x={2} y={HEIGHT - 14}>
          0
        </text>
        {series.map((s, k) => {
          const last = s.points.length - 1;
          const end = s.points[last];
          return (
            <g key={s.agent}>
              <polyline
                class={`chart__line chart__line--${k % 4}`}
                points={s.points.map((p, i) => `${x(i).toFixed(1)},${y(p.tokens).toFixed(1)}`).join(" ")}
              />
              {end !== undefined && (
                <circle class={`chart__dot chart__line--${k % 4}`} cx={x(last)} cy={y(end.tokens)} r={3} />
              )}
            </g>
          );
        })}
      </svg>
      <figcaption class="chart__legend">
        {series.map((s, k) => {
          const last = s.points.at(-1);
          const peak = Math.max(...s.points.map((p) => p.tokens));
          return (
            <span key={s.agent} class={`chart__key chart__key--${k % 4}`}>
              {s.agent}: {s.points.length} steps, latest {count(last?.tokens ?? 0)}, peak {count(peak)} tokens
            </span>
          );
        })}
      </figcaption>
    </figure>
  );
}
