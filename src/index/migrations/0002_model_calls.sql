-- Every model call (one HTTP attempt): counts, timings and cost, never messages.
CREATE TABLE model_calls (
    workspace_id     TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    seq              INTEGER NOT NULL,
    at               TEXT NOT NULL,
    profile          TEXT NOT NULL,
    protocol         TEXT NOT NULL,
    model            TEXT NOT NULL,
    purpose          TEXT NOT NULL,
    attempt          INTEGER NOT NULL,
    outcome          TEXT NOT NULL,
    streamed         INTEGER NOT NULL,
    input_tokens     INTEGER NOT NULL,
    output_tokens    INTEGER NOT NULL,
    tokens_estimated INTEGER NOT NULL,
    latency_ms       INTEGER NOT NULL,
    cost_usd         REAL,
    PRIMARY KEY (workspace_id, seq)
);
