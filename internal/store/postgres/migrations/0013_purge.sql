-- Retention (issue 32): the purge deletes a job's SLA records by the job
-- owning them, which needs an index on job_id (the same as SQLite's
-- 0011_purge.sql).
CREATE INDEX sla_job ON sla (job_id);
-- Effects are deleted when done; databases of the first versions kept
-- done rows. They go once here, so that the purge's deletions, which read
-- the index of pending effects (wf_effects_pending), leave nothing behind.
DELETE FROM wf_effects WHERE done_ms IS NOT NULL;
