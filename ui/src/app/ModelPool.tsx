// More servers for one profile's model: a pool. Calls are spread over the
// profile's address and these (each paper stays on one server, a server
// failing calls in a row rests), and the connection test says what each one
// serves.

import type { EndpointCheck, PoolEndpoint } from "../platform";

export function PoolFields(props: {
  pool: PoolEndpoint[];
  concurrency: number;
  cooldownSecs: number;
  onChange: (pool: PoolEndpoint[]) => void;
}) {
  const { pool, onChange } = props;
  const replace = (index: number, member: PoolEndpoint) => {
    onChange(pool.map((m, i) => (i === index ? member : m)));
  };
  return (
    <fieldset class="pool" data-testid="model-pool">
      <legend>More servers with this model</legend>
      <small class="field__hint">
        For replicas of one model (vLLM, llama.cpp, Ray Serve routes). Calls go to the least busy server; a paper&rsquo;s
        parts stay on one; a server that fails three calls in a row rests {Math.round(props.cooldownSecs)} s. A router or
        a LiteLLM proxy in front of them is one address above instead. Every server is sent the profile&rsquo;s API key,
        unless you name the environment variable holding a key of its own.
      </small>
      {pool.map((member, index) => (
        <div class="field-row pool__member" key={index}>
          <label class="field">
            <span>Address {index + 2}</span>
            <input
              name={`pool_url_${index}`}
              type="url"
              required
              placeholder="http://gpu-2:8000/v1"
              value={member.base_url}
              onInput={(e) => {
                replace(index, { ...member, base_url: e.currentTarget.value });
              }}
            />
          </label>
          <label class="field">
            <span>Requests at once</span>
            <input
              name={`pool_concurrency_${index}`}
              type="number"
              min={1}
              placeholder={String(props.concurrency)}
              value={member.concurrency ?? ""}
              onInput={(e) => {
                const n = Number.parseInt(e.currentTarget.value, 10);
                replace(index, { ...member, concurrency: Number.isFinite(n) && n >= 1 ? n : null });
              }}
            />
          </label>
          <label class="field">
            <span>Its own key (variable)</span>
            <input
              name={`pool_key_env_${index}`}
              type="text"
              placeholder="the profile's key"
              value={member.api_key_env ?? ""}
              onInput={(e) => {
                const name = e.currentTarget.value.trim();
                replace(index, { ...member, api_key_env: name === "" ? null : name });
              }}
            />
          </label>
          <button
            type="button"
            class="button"
            aria-label={`Remove address ${index + 2}`}
            onClick={() => {
              onChange(pool.filter((_, i) => i !== index));
            }}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        class="button"
        data-testid="pool-add"
        onClick={() => {
          onChange([...pool, { base_url: "", concurrency: null, api_key_env: null }]);
        }}
      >
        Add a server
      </button>
    </fieldset>
  );
}

/** What each server of a pool said to the connection test. */
export function PoolCheck({ checks }: { checks: EndpointCheck[] }) {
  if (checks.length === 0) return null;
  const serving = checks.filter((c) => c.serves).length;
  return (
    <div class={serving === checks.length ? "banner banner--ok" : "banner banner--error"} data-testid="pool-check">
      <div>
        {serving} of {checks.length} servers serve this model.
        <ul class="pool__checks">
          {checks.map((c) => (
            <li key={c.endpoint}>
              {c.endpoint}:{" "}
              {c.serves
                ? "ready"
                : c.reached
                  ? `left out of reviews: it ${c.problem ?? ""}`
                  : `not answering (${c.problem ?? ""}); rested while it fails`}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
