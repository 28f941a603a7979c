-- The purge's workflow indexes hold ended workflows only, and the
-- workflows' own step has one of those without a parent.
--
-- wf_jobs_purge (0015) held every workflow, so each commit of a running
-- one (which sets last_mod_ms) moved its entry: index pages written per
-- step for a purge that only ever wants ended workflows.
--
-- The workflows' step deletes only workflows without a parent (a
-- coordinator's or a parent workflow's children go with their parent);
-- through wf_jobs_purge it read every ended child too and dropped it in
-- Go: on a store whose coordinators had run 1,000,000 workflows, a read
-- of most of the table every round, with nothing to delete.
--
-- The same as SQLite's 0015_purge_top_index.sql.
DROP INDEX wf_jobs_purge;
CREATE INDEX wf_jobs_purge ON wf_jobs ((COALESCE(end_ms, last_mod_ms)), id)
    WHERE status IN ('SUCCEEDED', 'KILLED', 'FAILED');
CREATE INDEX wf_jobs_purge_top ON wf_jobs ((COALESCE(end_ms, last_mod_ms)), id)
    WHERE status IN ('SUCCEEDED', 'KILLED', 'FAILED') AND parent_id = '';
