-- Workflow jobs, their node records, pending effects and named counters.
-- Times are Unix milliseconds; NULL means unset.
CREATE TABLE wf_jobs (
    id            TEXT PRIMARY KEY,
    app_name      TEXT NOT NULL DEFAULT '',
    app_path      TEXT NOT NULL DEFAULT '',
    user_name     TEXT NOT NULL DEFAULT '',
    group_name    TEXT NOT NULL DEFAULT '',
    acl           TEXT NOT NULL DEFAULT '',
    parent_id     TEXT NOT NULL DEFAULT '',
    external_id   TEXT NOT NULL DEFAULT '',
    status        TEXT NOT NULL,
    run           INTEGER NOT NULL DEFAULT 0,
    conf          TEXT NOT NULL DEFAULT '',
    definition    TEXT NOT NULL DEFAULT '',
    state         TEXT NOT NULL DEFAULT '',
    error_code    TEXT NOT NULL DEFAULT '',
    error_message TEXT NOT NULL DEFAULT '',
    created_ms    INTEGER,
    start_ms      INTEGER,
    end_ms        INTEGER,
    last_mod_ms   INTEGER
);
CREATE INDEX wf_jobs_status ON wf_jobs (status);
CREATE INDEX wf_jobs_parent ON wf_jobs (parent_id);
CREATE INDEX wf_jobs_created ON wf_jobs (created_ms);

CREATE TABLE wf_actions (
    id                  TEXT PRIMARY KEY,
    job_id              TEXT NOT NULL,
    name                TEXT NOT NULL,
    type                TEXT NOT NULL,
    seq                 INTEGER NOT NULL,
    status              TEXT NOT NULL,
    conf                TEXT NOT NULL DEFAULT '',
    cred                TEXT NOT NULL DEFAULT '',
    retries             INTEGER NOT NULL DEFAULT 0,
    user_retry_count    INTEGER NOT NULL DEFAULT 0,
    user_retry_max      INTEGER NOT NULL DEFAULT 0,
    user_retry_interval INTEGER NOT NULL DEFAULT 0,
    attempt             INTEGER NOT NULL DEFAULT 0,
    transition          TEXT NOT NULL DEFAULT '',
    data                TEXT NOT NULL DEFAULT '',
    stats               TEXT NOT NULL DEFAULT '',
    external_child_ids  TEXT NOT NULL DEFAULT '',
    external_id         TEXT NOT NULL DEFAULT '',
    external_status     TEXT NOT NULL DEFAULT '',
    tracker_uri         TEXT NOT NULL DEFAULT '',
    console_url         TEXT NOT NULL DEFAULT '',
    error_code          TEXT NOT NULL DEFAULT '',
    error_message       TEXT NOT NULL DEFAULT '',
    start_ms            INTEGER,
    end_ms              INTEGER,
    last_mod_ms         INTEGER
);
CREATE INDEX wf_actions_job ON wf_actions (job_id, seq);
CREATE INDEX wf_actions_status ON wf_actions (status);

CREATE TABLE wf_effects (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id        TEXT NOT NULL,
    action_id     TEXT NOT NULL DEFAULT '',
    kind          TEXT NOT NULL,
    attempt       INTEGER NOT NULL DEFAULT 0,
    payload       TEXT NOT NULL DEFAULT '',
    not_before_ms INTEGER,
    created_ms    INTEGER,
    done_ms       INTEGER
);
-- Pending effects are few; a partial index keeps finding them cheap however
-- many done ones accumulate.
CREATE INDEX wf_effects_pending ON wf_effects (job_id, id) WHERE done_ms IS NULL;

CREATE TABLE sequences (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
