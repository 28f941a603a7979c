-- The same columns as on PostgreSQL (0009_server_data_dir.sql), so that the
-- shared SQL works on both; a SQLite database serves one server.
ALTER TABLE servers ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE servers ADD COLUMN data_dir TEXT NOT NULL DEFAULT '';
ALTER TABLE servers ADD COLUMN data_id TEXT NOT NULL DEFAULT '';
