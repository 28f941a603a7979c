-- The same columns as on PostgreSQL, so that the shared SQL works on both;
-- a SQLite database serves one server, which owns every job.
-- Several servers on one database: every job names the server instance
-- working it (owner), and each instance registers with a heartbeat.
-- Jobs of older versions have no owner ('') until a server claims them.
ALTER TABLE wf_jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE coord_jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX wf_jobs_owner ON wf_jobs (owner, status);
CREATE INDEX coord_jobs_owner ON coord_jobs (owner, status);
CREATE TABLE servers (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    url          TEXT NOT NULL DEFAULT '',
    version      TEXT NOT NULL DEFAULT '',
    started_ms   BIGINT,
    heartbeat_ms BIGINT,
    beat         BIGINT NOT NULL DEFAULT 0,
    load         INTEGER NOT NULL DEFAULT 0
);
-- Secrets every server sharing the database must agree on (the key that
-- signs hadoop.auth cookies, so that a cookie from one server is good at
-- any other), created by the first server that needs one.
CREATE TABLE cluster_secrets (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
