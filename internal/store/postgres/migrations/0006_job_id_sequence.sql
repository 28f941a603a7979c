-- Job ids come from a database sequence instead of the 'wfjob' row of
-- sequences: nextval takes no row lock and does not wait for other
-- transactions to commit, whereas every submission updating one row queued
-- behind the previous one's commit (82% of sampled sessions under load).
-- A database of an older version continues after its last issued id.
CREATE SEQUENCE IF NOT EXISTS wf_job_ids AS BIGINT START WITH 1;
SELECT setval('wf_job_ids', COALESCE((SELECT value FROM sequences WHERE name = 'wfjob'), 0) + 1, false);
-- The old rows stay (unused from now on: action records are numbered per
-- job) so that the table still says how far an older version had got.
