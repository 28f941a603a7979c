-- Coordinator jobs and their materialized actions. Times are Unix
-- milliseconds; NULL means unset.
CREATE TABLE coord_jobs (
    id                  TEXT PRIMARY KEY,
    app_name            TEXT NOT NULL DEFAULT '',
    app_path            TEXT NOT NULL DEFAULT '',
    user_name           TEXT NOT NULL DEFAULT '',
    group_name          TEXT NOT NULL DEFAULT '',
    acl                 TEXT NOT NULL DEFAULT '',
    external_id         TEXT NOT NULL DEFAULT '',
    parent_id           TEXT NOT NULL DEFAULT '',
    status              TEXT NOT NULL,
    conf                TEXT NOT NULL DEFAULT '',
    definition          TEXT NOT NULL DEFAULT '',
    frequency           TEXT NOT NULL DEFAULT '',
    time_unit           TEXT NOT NULL DEFAULT '',
    time_zone           TEXT NOT NULL DEFAULT '',
    concurrency         INTEGER NOT NULL DEFAULT 0,
    throttle            INTEGER NOT NULL DEFAULT 0,
    timeout             INTEGER NOT NULL DEFAULT 0,
    execution           TEXT NOT NULL DEFAULT '',
    console_url         TEXT NOT NULL DEFAULT '',
    start_ms            BIGINT,
    end_ms              BIGINT,
    pause_ms            BIGINT,
    last_action_number  INTEGER NOT NULL DEFAULT 0,
    last_action_ms      BIGINT,
    next_mat_ms         BIGINT,
    done_materialization INTEGER NOT NULL DEFAULT 0,
    error_code          TEXT NOT NULL DEFAULT '',
    error_message       TEXT NOT NULL DEFAULT '',
    state               TEXT NOT NULL DEFAULT '',
    created_ms          BIGINT,
    last_mod_ms         BIGINT,
    suspended_ms        BIGINT
);
CREATE INDEX coord_jobs_status ON coord_jobs (status);
CREATE INDEX coord_jobs_parent ON coord_jobs (parent_id);
CREATE INDEX coord_jobs_created ON coord_jobs (created_ms);

CREATE TABLE coord_actions (
    id                   TEXT PRIMARY KEY,
    job_id               TEXT NOT NULL,
    number               INTEGER NOT NULL,
    status               TEXT NOT NULL,
    nominal_ms           BIGINT,
    created_ms           BIGINT,
    last_mod_ms          BIGINT,
    external_id          TEXT NOT NULL DEFAULT '',
    external_status      TEXT NOT NULL DEFAULT '',
    missing_dependencies TEXT NOT NULL DEFAULT '',
    created_conf         TEXT NOT NULL DEFAULT '',
    run_conf             TEXT NOT NULL DEFAULT '',
    action_xml           TEXT NOT NULL DEFAULT '',
    plan                 TEXT NOT NULL DEFAULT '',
    error_code           TEXT NOT NULL DEFAULT '',
    error_message        TEXT NOT NULL DEFAULT '',
    tracker_uri          TEXT NOT NULL DEFAULT '',
    console_url          TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX coord_actions_job ON coord_actions (job_id, number);
CREATE INDEX coord_actions_status ON coord_actions (status);
