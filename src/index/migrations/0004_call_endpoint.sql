-- The endpoint of a pool that took each model call (NULL: the profile's one endpoint).
ALTER TABLE model_calls ADD COLUMN endpoint TEXT;
