-- The SLA records (issue 28): one row per tracked <sla:info> of a workflow
-- job, workflow action or coordinator action, the same table as on
-- PostgreSQL (0012_sla.sql). Times are Unix milliseconds; NULL means unset.
-- job_id is the job owning the tracked entity (the id before "@"), whose
-- server instance calculates the record.
--
-- entity_status is the tracked entity's status as the store holds it now,
-- kept by the triggers below, so that DueSLAs finds the records whose
-- entity changed status since the calculator saw it (job_status) through
-- an index instead of joining every undecided record to its entity.
CREATE TABLE sla (
    id                   TEXT PRIMARY KEY,
    app_type             TEXT NOT NULL DEFAULT '',
    app_name             TEXT NOT NULL DEFAULT '',
    user_name            TEXT NOT NULL DEFAULT '',
    parent_id            TEXT NOT NULL DEFAULT '',
    bundle_id            TEXT NOT NULL DEFAULT '',
    job_id               TEXT NOT NULL DEFAULT '',
    nominal_ms           INTEGER,
    expected_start_ms    INTEGER,
    expected_end_ms      INTEGER,
    expected_duration_ms INTEGER NOT NULL DEFAULT -1,
    alert_events         TEXT NOT NULL DEFAULT '',
    alert_contact        TEXT NOT NULL DEFAULT '',
    upstream_apps        TEXT NOT NULL DEFAULT '',
    notification_msg     TEXT NOT NULL DEFAULT '',
    disabled             INTEGER NOT NULL DEFAULT 0,
    job_status           TEXT NOT NULL DEFAULT '',
    actual_start_ms      INTEGER,
    actual_end_ms        INTEGER,
    actual_duration_ms   INTEGER NOT NULL DEFAULT -1,
    sla_status           TEXT NOT NULL DEFAULT '',
    event_status         TEXT NOT NULL DEFAULT '',
    event_processed      INTEGER NOT NULL DEFAULT 0,
    next_check_ms        INTEGER,
    created_ms           INTEGER,
    last_mod_ms          INTEGER,
    entity_status        TEXT
);
-- DueSLAs: undecided records by deadline, and those whose entity changed.
CREATE INDEX sla_due ON sla (next_check_ms, id) WHERE event_processed < 8;
CREATE INDEX sla_changed ON sla (next_check_ms, id) WHERE event_processed < 8 AND entity_status <> job_status;
-- The REST filters, each listing by nominal time.
CREATE INDEX sla_nominal ON sla (nominal_ms);
CREATE INDEX sla_app_name ON sla (app_name, nominal_ms);
CREATE INDEX sla_parent ON sla (parent_id, nominal_ms);
CREATE INDEX sla_bundle ON sla (bundle_id, nominal_ms);

-- The triggers keep entity_status. Each body is one line: the migration
-- runner cuts statements at lines ending in ";".

CREATE TRIGGER sla_wf_job_insert AFTER INSERT ON wf_jobs BEGIN
    UPDATE sla SET entity_status = NEW.status WHERE id = NEW.id; END;
CREATE TRIGGER sla_wf_job_update AFTER UPDATE OF status ON wf_jobs WHEN NEW.status IS NOT OLD.status BEGIN
    UPDATE sla SET entity_status = NEW.status WHERE id = NEW.id; END;
CREATE TRIGGER sla_wf_job_delete AFTER DELETE ON wf_jobs BEGIN
    UPDATE sla SET entity_status = NULL WHERE id = OLD.id; END;
CREATE TRIGGER sla_wf_action_insert AFTER INSERT ON wf_actions BEGIN
    UPDATE sla SET entity_status = NEW.status WHERE id = NEW.id; END;
CREATE TRIGGER sla_wf_action_update AFTER UPDATE OF status ON wf_actions WHEN NEW.status IS NOT OLD.status BEGIN
    UPDATE sla SET entity_status = NEW.status WHERE id = NEW.id; END;
CREATE TRIGGER sla_wf_action_delete AFTER DELETE ON wf_actions BEGIN
    UPDATE sla SET entity_status = NULL WHERE id = OLD.id; END;
CREATE TRIGGER sla_coord_action_insert AFTER INSERT ON coord_actions BEGIN
    UPDATE sla SET entity_status = NEW.status WHERE id = NEW.id; END;
CREATE TRIGGER sla_coord_action_update AFTER UPDATE OF status ON coord_actions WHEN NEW.status IS NOT OLD.status BEGIN
    UPDATE sla SET entity_status = NEW.status WHERE id = NEW.id; END;
CREATE TRIGGER sla_coord_action_delete AFTER DELETE ON coord_actions BEGIN
    UPDATE sla SET entity_status = NULL WHERE id = OLD.id; END;
