-- Workspaces, their papers and runs: a cache of the workspace files for fast listing.
CREATE TABLE workspaces (
    id          TEXT PRIMARY KEY,
    root        TEXT NOT NULL UNIQUE,
    title       TEXT NOT NULL,
    source      TEXT,
    question    TEXT,
    status      TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX workspaces_by_update ON workspaces (updated_at DESC);

CREATE TABLE papers (
    workspace_id    TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id              TEXT NOT NULL,
    file            TEXT NOT NULL,
    sha256          TEXT NOT NULL,
    size            INTEGER NOT NULL,
    status          TEXT NOT NULL,
    title           TEXT,
    duplicate_count INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, id)
);

CREATE TABLE runs (
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    id           TEXT NOT NULL,
    engine       TEXT NOT NULL,
    status       TEXT NOT NULL,
    started_at   TEXT NOT NULL,
    finished_at  TEXT,
    PRIMARY KEY (workspace_id, id)
);
