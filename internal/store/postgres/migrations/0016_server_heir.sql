-- A take-over no longer rewrites the dead instance's job rows (issue 31):
-- it names the live instance that inherits them (heir) on the dead
-- instance's servers row, and the owner of a job is its owner's heir when
-- there is one. A take-over is then a few servers rows, however many
-- (finished) jobs the dead instance had. heir always names an instance
-- that has none (a take-over re-points the instances the dead one had
-- inherited), so one hop resolves any job.
ALTER TABLE servers ADD COLUMN heir TEXT;
-- protocol: 1 for instances that understand heir. A server of an earlier
-- version registers with 0; while one of them is registered and not taken
-- over, take-overs move rows as before, since that server reads owner
-- alone (routing, its scans).
ALTER TABLE servers ADD COLUMN protocol INTEGER NOT NULL DEFAULT 0;
CREATE INDEX servers_heir ON servers (heir) WHERE heir IS NOT NULL;

-- The fence of a commit (0008, 0011) resolves heirs. It locks the job rows
-- (FOR SHARE), then, in id order, the servers rows of the committing
-- instance and of the jobs' other owners (FOR KEY SHARE: the instance's
-- own heartbeat, a no-key UPDATE, does not wait for its commits, while a
-- take-over, which locks the rows it changes FOR UPDATE, does), so a
-- take-over either waits for the commit or has committed before the
-- check sees its rows. It passes when the committing instance is
-- registered and not taken over, and each job is its own or belongs to
-- an instance it inherited. Jobs that do not exist pass.
CREATE OR REPLACE FUNCTION gozie_fence(jobs TEXT[], me TEXT) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
    r RECORD;
    others TEXT[] := ARRAY[]::TEXT[];
    live BOOLEAN := FALSE;
    found INTEGER := 0;
BEGIN
    FOR r IN SELECT id, owner FROM wf_jobs WHERE id = ANY(jobs) ORDER BY id FOR SHARE LOOP
        IF r.owner <> me AND NOT r.owner = ANY(others) THEN
            others := others || r.owner;
        END IF;
    END LOOP;
    FOR r IN SELECT id, owner FROM coord_jobs WHERE id = ANY(jobs) ORDER BY id FOR SHARE LOOP
        IF r.owner <> me AND NOT r.owner = ANY(others) THEN
            others := others || r.owner;
        END IF;
    END LOOP;
    FOR r IN SELECT id, owner FROM bundle_jobs WHERE id = ANY(jobs) ORDER BY id FOR SHARE LOOP
        IF r.owner <> me AND NOT r.owner = ANY(others) THEN
            others := others || r.owner;
        END IF;
    END LOOP;
    FOR r IN SELECT id, heir FROM servers WHERE id = me OR id = ANY(others) ORDER BY id FOR KEY SHARE LOOP
        IF r.id = me THEN
            IF r.heir IS NOT NULL THEN
                RAISE EXCEPTION 'instance % was taken over by %', me, r.heir USING ERRCODE = 'GZ001';
            END IF;
            live := TRUE;
        ELSIF r.heir IS DISTINCT FROM me THEN
            RAISE EXCEPTION 'jobs of % belong to %', r.id, COALESCE(r.heir, r.id) USING ERRCODE = 'GZ001';
        ELSE
            found := found + 1;
        END IF;
    END LOOP;
    IF NOT live THEN
        RAISE EXCEPTION 'instance % is not registered', me USING ERRCODE = 'GZ001';
    END IF;
    IF found < cardinality(others) THEN
        RAISE EXCEPTION 'a job belongs to an unregistered owner (one of %)', others USING ERRCODE = 'GZ001';
    END IF;
END
$$;

-- A server of an earlier version that takes an instance over the old way
-- (moving its jobs, deleting its row) does not know the instances that
-- one had inherited: they become their own owners again, dead, and are
-- taken over after a lease like any dead instance, instead of naming a
-- heir that no longer exists.
CREATE FUNCTION gozie_orphan_heirs() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    UPDATE servers SET heir = NULL WHERE heir = OLD.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER servers_orphan_heirs AFTER DELETE ON servers
    FOR EACH ROW EXECUTE FUNCTION gozie_orphan_heirs();
