-- Lists at scale (issue 31): a jobs list filtered by user, status, name
-- or parent pages newest first, and each of these indexes gives the
-- filtered rows in that order, so a page reads its own rows (one index
-- range) instead of sorting every matching job (EXPLAIN QUERY PLAN on a
-- store of 1,000,000 jobs: "USE TEMP B-TREE FOR ORDER BY" over the
-- 125,000 jobs of a user, a scan of the table for a name;
-- docs/benchmarks-plans.md). They replace the user and parent indexes.
CREATE INDEX wf_jobs_user_created ON wf_jobs (user_name, created_ms DESC, id DESC);
DROP INDEX IF EXISTS wf_jobs_user;
CREATE INDEX wf_jobs_status_created ON wf_jobs (status, created_ms DESC, id DESC);
CREATE INDEX wf_jobs_name_created ON wf_jobs (app_name, created_ms DESC, id DESC);
CREATE INDEX wf_jobs_parent_created ON wf_jobs (parent_id, created_ms DESC, id DESC);
DROP INDEX IF EXISTS wf_jobs_parent;
-- A list's total counts the index entries of its filter. The narrow
-- status index (0001) stays for the totals by status and of all jobs
-- (the narrowest index is the one a COUNT(*) reads); a user's jobs of a
-- status are counted in this one instead of looking up each of the
-- user's jobs.
CREATE INDEX wf_jobs_user_status ON wf_jobs (user_name, status);
-- The same for coordinators.
CREATE INDEX coord_jobs_user_created ON coord_jobs (user_name, created_ms DESC, id DESC);
CREATE INDEX coord_jobs_status_created ON coord_jobs (status, created_ms DESC, id DESC);
CREATE INDEX coord_jobs_name_created ON coord_jobs (app_name, created_ms DESC, id DESC);
