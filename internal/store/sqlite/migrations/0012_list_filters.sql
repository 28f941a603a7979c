-- Lists at scale (issue 31): a jobs list filtered by user, status, name
-- or parent pages newest first, and each of these indexes gives the
-- filtered rows in that order, so a page reads its own rows (one index
-- range) instead of sorting every matching job (EXPLAIN QUERY PLAN on a
-- store of 1,000,000 jobs: "USE TEMP B-TREE FOR ORDER BY" over 125,000
-- rows of a user, a scan of the table for a name; docs/benchmarks.md).
-- Each replaces the single-column index it starts with, which the
-- totals (COUNT) and the engines' lookups read as well.
CREATE INDEX wf_jobs_user_created ON wf_jobs (user_name, created_ms DESC, id DESC);
DROP INDEX IF EXISTS wf_jobs_user;
CREATE INDEX wf_jobs_status_created ON wf_jobs (status, created_ms DESC, id DESC);
DROP INDEX IF EXISTS wf_jobs_status;
CREATE INDEX wf_jobs_name_created ON wf_jobs (app_name, created_ms DESC, id DESC);
CREATE INDEX wf_jobs_parent_created ON wf_jobs (parent_id, created_ms DESC, id DESC);
DROP INDEX IF EXISTS wf_jobs_parent;
CREATE INDEX coord_jobs_user_created ON coord_jobs (user_name, created_ms DESC, id DESC);
CREATE INDEX coord_jobs_status_created ON coord_jobs (status, created_ms DESC, id DESC);
DROP INDEX IF EXISTS coord_jobs_status;
CREATE INDEX coord_jobs_name_created ON coord_jobs (app_name, created_ms DESC, id DESC);
