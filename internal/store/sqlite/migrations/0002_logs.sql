-- Per-job log lines (show=log): what the engine did to a job and its actions.
CREATE TABLE job_logs (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id    TEXT NOT NULL,
    action_id TEXT NOT NULL DEFAULT '',
    time_ms   INTEGER NOT NULL,
    level     TEXT NOT NULL,
    message   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX job_logs_job ON job_logs (job_id, id);
CREATE INDEX wf_jobs_user ON wf_jobs (user_name);
