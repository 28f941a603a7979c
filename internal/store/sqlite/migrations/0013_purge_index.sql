-- The purge reads its candidates in the order of these indexes, from the
-- oldest end (or last modification) up to the cut-off, instead of walking
-- every job: a round with nothing to delete reads almost nothing. The
-- same as PostgreSQL's 0015_purge_index.sql.
CREATE INDEX wf_jobs_purge ON wf_jobs (COALESCE(end_ms, last_mod_ms), id);
CREATE INDEX coord_jobs_purge ON coord_jobs (last_mod_ms, id);
CREATE INDEX bundle_jobs_purge ON bundle_jobs (last_mod_ms, id);
