-- oozie.wf.external.id names one submission of a user: a repeated
-- submission with the same id answers with the existing job instead of
-- creating another. The unique index makes that race-free (of two
-- concurrent submissions one insert fails and finds the other's job).
-- Databases from before kept duplicates; all but the oldest job of each
-- pair lose the external id, else the index could not be built.
UPDATE wf_jobs SET external_id = ''
WHERE external_id <> '' AND EXISTS (
    SELECT 1 FROM wf_jobs o
    WHERE o.user_name = wf_jobs.user_name AND o.external_id = wf_jobs.external_id
      AND (o.created_ms < wf_jobs.created_ms OR (o.created_ms = wf_jobs.created_ms AND o.id < wf_jobs.id))
);
CREATE UNIQUE INDEX wf_jobs_external_id ON wf_jobs (user_name, external_id) WHERE external_id <> '';
