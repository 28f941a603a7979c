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
