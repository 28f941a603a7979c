-- The SLA records (issue 28): one row per tracked <sla:info> of a workflow
-- job, workflow action or coordinator action. Times are Unix milliseconds;
-- NULL means unset. job_id is the job owning the tracked entity (the id
-- before "@"), whose server instance calculates the record; a write of a
-- record is fenced by that job (gozie_fence of 0011 already checks
-- wf_jobs and coord_jobs, the only owners an SLA id can have).
--
-- entity_status is the tracked entity's status as the store holds it now,
-- kept by the trigger below, so that DueSLAs finds the records whose
-- entity changed status since the calculator saw it (job_status) through
-- an index instead of joining every undecided record to its entity.
--
-- Text columns sort in byte order (COLLATE "C"), as SQLite compares text,
-- so that both stores list records in the same order.
CREATE TABLE sla (
    id                   TEXT COLLATE "C" PRIMARY KEY,
    app_type             TEXT COLLATE "C" NOT NULL DEFAULT '',
    app_name             TEXT COLLATE "C" NOT NULL DEFAULT '',
    user_name            TEXT COLLATE "C" NOT NULL DEFAULT '',
    parent_id            TEXT COLLATE "C" NOT NULL DEFAULT '',
    bundle_id            TEXT COLLATE "C" NOT NULL DEFAULT '',
    job_id               TEXT NOT NULL DEFAULT '',
    nominal_ms           BIGINT,
    expected_start_ms    BIGINT,
    expected_end_ms      BIGINT,
    expected_duration_ms BIGINT NOT NULL DEFAULT -1,
    alert_events         TEXT NOT NULL DEFAULT '',
    alert_contact        TEXT NOT NULL DEFAULT '',
    upstream_apps        TEXT NOT NULL DEFAULT '',
    notification_msg     TEXT NOT NULL DEFAULT '',
    disabled             INTEGER NOT NULL DEFAULT 0,
    job_status           TEXT COLLATE "C" NOT NULL DEFAULT '',
    actual_start_ms      BIGINT,
    actual_end_ms        BIGINT,
    actual_duration_ms   BIGINT NOT NULL DEFAULT -1,
    sla_status           TEXT COLLATE "C" NOT NULL DEFAULT '',
    event_status         TEXT COLLATE "C" NOT NULL DEFAULT '',
    event_processed      INTEGER NOT NULL DEFAULT 0,
    next_check_ms        BIGINT,
    created_ms           BIGINT,
    last_mod_ms          BIGINT,
    entity_status        TEXT COLLATE "C"
);
-- DueSLAs: undecided records by deadline, and those whose entity changed
-- (NULLS FIRST: the order SQLite's index has, which the query asks for).
CREATE INDEX sla_due ON sla (next_check_ms NULLS FIRST, id) WHERE event_processed < 8;
CREATE INDEX sla_changed ON sla (next_check_ms NULLS FIRST, id) WHERE event_processed < 8 AND entity_status <> job_status;
-- The REST filters, each listing by nominal time.
CREATE INDEX sla_nominal ON sla (nominal_ms);
CREATE INDEX sla_app_name ON sla (app_name, nominal_ms);
CREATE INDEX sla_parent ON sla (parent_id, nominal_ms);
CREATE INDEX sla_bundle ON sla (bundle_id, nominal_ms);

-- Copies a tracked entity's status into its SLA record, if it has one;
-- a deleted entity has no status.
CREATE FUNCTION gozie_sla_track() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE sla SET entity_status = NULL WHERE id = OLD.id;
    ELSIF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
        UPDATE sla SET entity_status = NEW.status WHERE id = NEW.id;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER sla_track AFTER INSERT OR UPDATE OF status OR DELETE ON wf_jobs
    FOR EACH ROW EXECUTE FUNCTION gozie_sla_track();
CREATE TRIGGER sla_track AFTER INSERT OR UPDATE OF status OR DELETE ON wf_actions
    FOR EACH ROW EXECUTE FUNCTION gozie_sla_track();
CREATE TRIGGER sla_track AFTER INSERT OR UPDATE OF status OR DELETE ON coord_actions
    FOR EACH ROW EXECUTE FUNCTION gozie_sla_track();
