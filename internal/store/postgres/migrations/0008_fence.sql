-- The ownership check of a registered server's commit (issue 16) as one
-- statement, so that it can travel in the same round trip as the
-- transaction's writes and its COMMIT (issue 15): it locks the row of
-- every job given (FOR SHARE, held until the commit, so a take-over's
-- UPDATE of the owner waits for the commit or has committed before) and
-- fails with SQLSTATE GZ001, aborting the transaction, when one of them
-- belongs to another instance than me. Jobs that do not exist pass.
CREATE FUNCTION gozie_fence(jobs TEXT[], me TEXT) RETURNS VOID LANGUAGE plpgsql AS $$
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
END
$$;
