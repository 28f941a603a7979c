-- The purge's workflow indexes hold ended workflows only, and the
-- workflows' own step has one of those without a parent.
--
-- wf_jobs_purge (0013) held every workflow, so each commit of a running
-- one (which sets last_mod_ms) moved its entry: index pages written per
-- step for a purge that only ever wants ended workflows.
--
-- The workflows' step deletes only workflows without a parent (a
-- coordinator's or a parent workflow's children go with their parent);
-- through wf_jobs_purge it read every ended child too and dropped it in
-- Go: on a store whose coordinators had run 1,000,000 workflows, 6 s and
-- a read of most of the file every round, with nothing to delete.
--
-- The status list must stay written as in the purge's scans
-- (sqlstore/purge.go) for SQLite to see that they imply it. The same as
-- PostgreSQL's 0018_purge_top_index.sql.
DROP INDEX wf_jobs_purge;
CREATE INDEX wf_jobs_purge ON wf_jobs (COALESCE(end_ms, last_mod_ms), id)
    WHERE status IN ('SUCCEEDED', 'KILLED', 'FAILED');
CREATE INDEX wf_jobs_purge_top ON wf_jobs (COALESCE(end_ms, last_mod_ms), id)
    WHERE status IN ('SUCCEEDED', 'KILLED', 'FAILED') AND parent_id = '';
