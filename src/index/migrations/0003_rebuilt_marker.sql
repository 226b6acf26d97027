-- Marks an index that a rebuild from the workspaces has filled. The database
-- file exists from the moment it is opened, so without this mark a process
-- killed during its first rebuild would leave an empty index that the next
-- start took for a complete one.
CREATE TABLE index_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
-- An index from before this mark that lists workspaces was filled then; an
-- empty one is simply rebuilt once more.
INSERT INTO index_state (key, value)
    SELECT 'rebuilt', 'before the mark existed' WHERE EXISTS (SELECT 1 FROM workspaces);
