-- Totals of the jobs lists at scale (issue 31): the number of workflow
-- jobs by user and status, kept by the database itself so that the
-- total of a list filtered by nothing, status(es), user(s) or both is a
-- sum over a few rows instead of a count of up to a million index
-- entries (75-90 ms for the status of 900,000 jobs). Triggers keep it
-- whatever binary writes the jobs (an older one during a rolling
-- upgrade too). SQLite has one writer, so the triggers update one row
-- per (user, status) in place; the rows of PostgreSQL's table are deltas
-- instead (0017_job_counts.sql), and readers sum the rows either way.
CREATE TABLE wf_job_counts (
    user_name TEXT NOT NULL,
    status    TEXT NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (user_name, status)
);
CREATE TRIGGER wf_job_counts_insert AFTER INSERT ON wf_jobs BEGIN
    INSERT INTO wf_job_counts (user_name, status, n) VALUES (NEW.user_name, NEW.status, 1)
    ON CONFLICT (user_name, status) DO UPDATE SET n = n + 1; END;
-- (A line of a migration ending in ";" ends its statement, hence the
-- layout of the trigger bodies.) The upsert of PutJob names every column in its SET: the WHEN skips
-- the updates that change neither.
CREATE TRIGGER wf_job_counts_update AFTER UPDATE OF user_name, status ON wf_jobs
    WHEN NEW.status IS NOT OLD.status OR NEW.user_name IS NOT OLD.user_name BEGIN
    UPDATE wf_job_counts SET n = n - 1 WHERE user_name = OLD.user_name AND status = OLD.status; INSERT
    INTO wf_job_counts (user_name, status, n) VALUES (NEW.user_name, NEW.status, 1)
    ON CONFLICT (user_name, status) DO UPDATE SET n = n + 1; END;
CREATE TRIGGER wf_job_counts_delete AFTER DELETE ON wf_jobs BEGIN
    UPDATE wf_job_counts SET n = n - 1 WHERE user_name = OLD.user_name AND status = OLD.status; END;
-- The jobs already there, counted once (in this migration's transaction,
-- which no other writer can interleave with).
INSERT INTO wf_job_counts (user_name, status, n)
    SELECT user_name, status, COUNT(*) FROM wf_jobs GROUP BY user_name, status;

-- The console's free-text search (issue 31): a substring of a job's id,
-- name, app path or user, ignoring case, matched no index, so its page
-- and total read every job. wf_jobs_text is an FTS5 index of those four
-- with the trigram tokenizer (substrings of three characters or more,
-- case folded); the search reads the candidates from it and checks each
-- against the exact condition.
-- Its rows are keyed by wf_job_text_ids.k (AUTOINCREMENT: a key is never
-- used twice), not by wf_jobs' rowid, which VACUUM (Reclaim's
-- conversion, a backup's VACUUM INTO) may renumber. A new job only gets
-- its key from the trigger: FTS5 writes a segment per transaction, which
-- cost 270 us of CPU per job, so the store indexes the new keys in
-- batches (sqlite.indexText) and the search scans the keys above the
-- mark of the last batch (sequences 'wf_jobs_text') besides the index.
-- Deletions and changes of an indexed job's text go to the index at once.
CREATE TABLE wf_job_text_ids (
    k      INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE wf_jobs_text USING fts5(txt, content='', contentless_delete=1, tokenize='trigram');
CREATE TRIGGER wf_jobs_text_insert AFTER INSERT ON wf_jobs BEGIN
    INSERT INTO wf_job_text_ids (job_id) VALUES (NEW.id); END;
CREATE TRIGGER wf_jobs_text_update AFTER UPDATE OF app_name, app_path, user_name ON wf_jobs
    WHEN (NEW.app_name IS NOT OLD.app_name OR NEW.app_path IS NOT OLD.app_path OR NEW.user_name IS NOT OLD.user_name)
    AND (SELECT k FROM wf_job_text_ids WHERE job_id = NEW.id) <= (SELECT value FROM sequences WHERE name = 'wf_jobs_text') BEGIN
    INSERT OR REPLACE INTO wf_jobs_text (rowid, txt)
    VALUES ((SELECT k FROM wf_job_text_ids WHERE job_id = NEW.id),
        NEW.id || char(10) || NEW.app_name || char(10) || NEW.app_path || char(10) || NEW.user_name); END;
CREATE TRIGGER wf_jobs_text_delete AFTER DELETE ON wf_jobs BEGIN
    DELETE FROM wf_jobs_text WHERE rowid = (SELECT k FROM wf_job_text_ids WHERE job_id = OLD.id); DELETE
    FROM wf_job_text_ids WHERE job_id = OLD.id; END;
INSERT INTO wf_job_text_ids (job_id) SELECT id FROM wf_jobs;
INSERT INTO wf_jobs_text (rowid, txt)
    SELECT t.k, j.id || char(10) || j.app_name || char(10) || j.app_path || char(10) || j.user_name
    FROM wf_job_text_ids t JOIN wf_jobs j ON j.id = t.job_id;
INSERT INTO sequences (name, value) VALUES ('wf_jobs_text', COALESCE((SELECT MAX(k) FROM wf_job_text_ids), 0))
    ON CONFLICT (name) DO UPDATE SET value = excluded.value;
