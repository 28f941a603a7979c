-- Bundle jobs and the coordinators each one runs (its bundle actions).
-- Times are Unix milliseconds; NULL means unset. A bundle job belongs to
-- the server instance that created it (owner), as coordinator jobs do.
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
    kickoff_ms    BIGINT,
    start_ms      BIGINT,
    end_ms        BIGINT,
    pause_ms      BIGINT,
    error_code    TEXT NOT NULL DEFAULT '',
    error_message TEXT NOT NULL DEFAULT '',
    state         TEXT NOT NULL DEFAULT '',
    created_ms    BIGINT,
    last_mod_ms   BIGINT,
    suspended_ms  BIGINT,
    owner         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX bundle_jobs_status ON bundle_jobs (status);
-- Lists page newest first by (created, id), as for the other jobs (0004).
CREATE INDEX bundle_jobs_created_id ON bundle_jobs (created_ms DESC, id DESC);
CREATE INDEX bundle_jobs_owner ON bundle_jobs (owner, status);

CREATE TABLE bundle_actions (
    id               TEXT PRIMARY KEY,
    bundle_id        TEXT NOT NULL,
    -- Byte order (COLLATE "C"), as SQLite compares text, so that both
    -- stores list a bundle's actions in the same order.
    coord_name       TEXT COLLATE "C" NOT NULL,
    coord_id         TEXT NOT NULL DEFAULT '',
    status           TEXT NOT NULL DEFAULT '',
    critical         INTEGER NOT NULL DEFAULT 0,
    pending          INTEGER NOT NULL DEFAULT 0,
    last_modified_ms BIGINT
);
-- A bundle's actions are listed by coordinator name.
CREATE INDEX bundle_actions_bundle ON bundle_actions (bundle_id, coord_name);

-- The fence of a commit (0008) checks bundle jobs too: a bundle job's
-- writes are refused to every instance but its owner.
CREATE OR REPLACE FUNCTION gozie_fence(jobs TEXT[], me TEXT) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
    r RECORD;
BEGIN
    FOR r IN SELECT id, owner FROM wf_jobs WHERE id = ANY(jobs) ORDER BY id FOR SHARE LOOP
        IF r.owner <> me THEN
            RAISE EXCEPTION 'job % belongs to %', r.id, r.owner USING ERRCODE = 'GZ001';
        END IF;
    END LOOP;
    FOR r IN SELECT id, owner FROM coord_jobs WHERE id = ANY(jobs) ORDER BY id FOR SHARE LOOP
        IF r.owner <> me THEN
            RAISE EXCEPTION 'job % belongs to %', r.id, r.owner USING ERRCODE = 'GZ001';
        END IF;
    END LOOP;
    FOR r IN SELECT id, owner FROM bundle_jobs WHERE id = ANY(jobs) ORDER BY id FOR SHARE LOOP
        IF r.owner <> me THEN
            RAISE EXCEPTION 'job % belongs to %', r.id, r.owner USING ERRCODE = 'GZ001';
        END IF;
    END LOOP;
END
$$;
