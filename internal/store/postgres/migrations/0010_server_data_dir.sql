-- Where each server instance keeps its steps: its host, its data directory
-- and that directory's identity (the data.id file in it). A server that
-- finds another dead compares the identity with what it sees at that path
-- to know whether it can look at the dead server's steps (same host, or a
-- shared data directory), which decides how long it waits before taking
-- the jobs over (gozie.server.takeover.hold.s). Empty for instances of
-- earlier versions.
ALTER TABLE servers ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE servers ADD COLUMN data_dir TEXT NOT NULL DEFAULT '';
ALTER TABLE servers ADD COLUMN data_id TEXT NOT NULL DEFAULT '';
