-- Bundle jobs and the coordinators each one runs (its bundle actions),
-- the same tables as on PostgreSQL (0011_bundle.sql). Times are Unix
-- milliseconds; NULL means unset. The owner column is as coord_jobs' (0006).
CREATE TABLE bundle_jobs (
    id            TEXT PRIMARY KEY,
    app_name      TEXT NOT NULL DEFAULT '',
    app_path      TEXT NOT NULL DEFAULT '',
    user_name     TEXT NOT NULL DEFAULT '',
    group_name    TEXT NOT NULL DEFAULT '',
    acl           TEXT NOT NULL DEFAULT '',
    external_id   TEXT NOT NULL DEFAULT '',
    status        TEXT NOT NULL,
    conf          TEXT NOT NULL DEFAULT '',
    definition    TEXT NOT NULL DEFAULT '',
    time_unit     TEXT NOT NULL DEFAULT '',
    time_out      INTEGER NOT NULL DEFAULT 0,
    kickoff_ms    INTEGER,
    start_ms      INTEGER,
    end_ms        INTEGER,
    pause_ms      INTEGER,
    error_code    TEXT NOT NULL DEFAULT '',
    error_message TEXT NOT NULL DEFAULT '',
    state         TEXT NOT NULL DEFAULT '',
    created_ms    INTEGER,
    last_mod_ms   INTEGER,
    suspended_ms  INTEGER,
    owner         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX bundle_jobs_status ON bundle_jobs (status);
-- Lists page newest first by (created, id), as for the other jobs (0004).
CREATE INDEX bundle_jobs_created_id ON bundle_jobs (created_ms DESC, id DESC);
CREATE INDEX bundle_jobs_owner ON bundle_jobs (owner, status);

CREATE TABLE bundle_actions (
    id               TEXT PRIMARY KEY,
    bundle_id        TEXT NOT NULL,
    coord_name       TEXT NOT NULL,
    coord_id         TEXT NOT NULL DEFAULT '',
    status           TEXT NOT NULL DEFAULT '',
    critical         INTEGER NOT NULL DEFAULT 0,
    pending          INTEGER NOT NULL DEFAULT 0,
    last_modified_ms INTEGER
);
-- A bundle's actions are listed by coordinator name.
CREATE INDEX bundle_actions_bundle ON bundle_actions (bundle_id, coord_name);
