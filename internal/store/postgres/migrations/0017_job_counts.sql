-- Totals of the jobs lists at scale (issue 31): the number of workflow
-- jobs by user and status, kept by the database itself so that the
-- total of a list filtered by nothing, status(es), user(s) or both is a
-- sum over a few rows instead of a count of up to a million index
-- entries (40-60 ms for the status of 900,000 jobs). Triggers keep it
-- whatever binary writes the jobs (an older one during a rolling
-- upgrade too).
--
-- The rows are deltas (+1, -1), appended by each commit and summed by
-- the readers: one row per (user, status) updated in place would make
-- every concurrent commit that starts or ends a job queue on the row of
-- RUNNING until the one before it commits (and could deadlock two
-- commits that change statuses in opposite orders). The store folds the
-- deltas into one row per (user, status) from time to time (sqlstore's
-- FoldJobCounts); SQLite's table (0014_job_counts.sql) is updated in
-- place, its one writer having nobody to queue behind.
CREATE TABLE wf_job_counts (
    user_name TEXT NOT NULL,
    status    TEXT NOT NULL,
    n         BIGINT NOT NULL
);
CREATE FUNCTION gozie_job_counts() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO wf_job_counts (user_name, status, n) VALUES (NEW.user_name, NEW.status, 1);
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO wf_job_counts (user_name, status, n) VALUES (OLD.user_name, OLD.status, -1);
    ELSE
        INSERT INTO wf_job_counts (user_name, status, n)
            VALUES (OLD.user_name, OLD.status, -1), (NEW.user_name, NEW.status, 1);
    END IF;
    RETURN NULL;
END
$$;
-- Creating the triggers locks wf_jobs against writes until this
-- migration commits, so the count below sees every job and no write
-- falls between it and the triggers.
CREATE TRIGGER wf_job_counts_insert AFTER INSERT ON wf_jobs
    FOR EACH ROW EXECUTE FUNCTION gozie_job_counts();
-- The upsert of PutJob names every column in its SET: the WHEN skips
-- the updates that change neither.
CREATE TRIGGER wf_job_counts_update AFTER UPDATE OF user_name, status ON wf_jobs
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.user_name IS DISTINCT FROM NEW.user_name)
    EXECUTE FUNCTION gozie_job_counts();
CREATE TRIGGER wf_job_counts_delete AFTER DELETE ON wf_jobs
    FOR EACH ROW EXECUTE FUNCTION gozie_job_counts();
INSERT INTO wf_job_counts (user_name, status, n)
    SELECT user_name, status, COUNT(*) FROM wf_jobs GROUP BY user_name, status;

-- The console's free-text search (issue 31): a substring of a job's id,
-- name, app path or user, ignoring case, matched no index, so its page
-- and total read every job. wf_job_text holds those four lowered and
-- joined, one row per job, written by triggers when a job is created or
-- its text changes (not at each status change, which rewrites the job's
-- row and every index of wf_jobs), with a trigram index where pg_trgm
-- can be had. The search reads the candidates from that index and
-- checks each against the exact condition, so a match across two of the
-- joined values costs a row, not a wrong answer.
CREATE TABLE wf_job_text (
    job_id TEXT PRIMARY KEY,
    txt    TEXT NOT NULL
);
CREATE FUNCTION gozie_job_text() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM wf_job_text WHERE job_id = OLD.id;
    ELSE
        INSERT INTO wf_job_text (job_id, txt) VALUES (NEW.id, lower(NEW.id) || chr(10) || lower(NEW.app_name)
            || chr(10) || lower(NEW.app_path) || chr(10) || lower(NEW.user_name))
            ON CONFLICT (job_id) DO UPDATE SET txt = excluded.txt;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER wf_job_text_insert AFTER INSERT ON wf_jobs
    FOR EACH ROW EXECUTE FUNCTION gozie_job_text();
CREATE TRIGGER wf_job_text_update AFTER UPDATE OF app_name, app_path, user_name ON wf_jobs
    FOR EACH ROW WHEN (OLD.app_name IS DISTINCT FROM NEW.app_name OR OLD.app_path IS DISTINCT FROM NEW.app_path
        OR OLD.user_name IS DISTINCT FROM NEW.user_name)
    EXECUTE FUNCTION gozie_job_text();
CREATE TRIGGER wf_job_text_delete AFTER DELETE ON wf_jobs
    FOR EACH ROW EXECUTE FUNCTION gozie_job_text();
INSERT INTO wf_job_text (job_id, txt)
    SELECT id, lower(id) || chr(10) || lower(app_name) || chr(10) || lower(app_path) || chr(10) || lower(user_name)
    FROM wf_jobs;
-- The trigram index needs the pg_trgm extension: created here if the
-- database has it and the user may (it is "trusted" since PostgreSQL
-- 13: the database's CREATE privilege suffices), in schema public so
-- that dropping a gozie schema never drops it; used wherever it already
-- is. Without it the migration still succeeds and the search scans
-- (postgres.Open looks for the index).
DO $$
DECLARE
    s TEXT;
BEGIN
    BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'gozie: no pg_trgm (%): the console''s text search will scan the jobs', SQLERRM;
    END;
    SELECT n.nspname INTO s FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
        WHERE e.extname = 'pg_trgm';
    IF s IS NOT NULL THEN
        EXECUTE format('CREATE INDEX wf_job_text_trgm ON wf_job_text USING gin (txt %I.gin_trgm_ops)', s);
    END IF;
END
$$;
-- Statistics of the new table at once (autovacuum would take a while):
-- the planner weighs its trigram matches against the list's order.
ANALYZE wf_job_text;
